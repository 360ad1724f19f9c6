"""One exported copy of a history that saw an equivocation carries the evidence and audits INVALID."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from ioa_p2p.cli import main
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import Equivocation
from ioa_p2p.history.audit import audit_history
from ioa_p2p.history.bodies import make_message
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.history.file import MAGIC, evidence_records, export_history, parse_history
from ioa_p2p.history.frames import ACK_REJECTED
from ioa_p2p.identity import Identity
from ioa_p2p.node.chats.delivery import PROTO_DELIVER
from ioa_p2p.wire.envelope import Envelope
from tests.nodes import checked_node

from .test_audit import B, build_chat
from .test_chats_net import FAST, chats_of, connect_all, send_raw, wait_messages


def twin_of(env: Envelope, identity: Identity, text: str = "the other story") -> Envelope:
    """A different message signed by the same author with the same seq and parents."""
    body = env.body
    parents = body.parents  # type: ignore[attr-defined]
    chat_id = body.chat_id  # type: ignore[attr-defined]
    return make_message(identity, chat_id, parents, "text", {"text": text}, seq=env.seq, now_ms=env.ts + 1)


def test_an_export_appends_the_equivocation_and_one_copy_audits_invalid() -> None:
    chat = build_chat(6)
    original = next(e.env for e in reversed(chat.entries()) if e.env.author == B.peer_id)
    twin = twin_of(original, B)
    clean = export_history(chat)
    assert audit_history(clean).valid
    with pytest.raises(Equivocation):
        chat.add(twin)
    data = export_history(chat)  # the history remembers the fork it refused
    assert data.startswith(MAGIC) and data.startswith(clean)  # same format, evidence appended
    assert parse_history(data).records[-1].raw == twin.to_cbor()
    report = audit_history(data)
    assert not report.valid
    assert [(f.code, f.author, f.seq) for f in report.findings] == [("equivocation", B.peer_id, original.seq)]
    assert {Envelope.from_cbor(p).hash for p in report.findings[0].proof} == {original.hash, twin.hash}


def test_evidence_from_the_store_is_appended_once_and_only_when_it_fits_the_chat() -> None:
    chat = build_chat(6)
    fresh = ChatHistory(chat.genesis)  # rebuilt from the messages only, as after a restart
    for entry in chat.entries():
        fresh.add(entry.env)
    original = next(e.env for e in reversed(fresh.entries()) if e.env.author == B.peer_id)
    twin = twin_of(original, B)
    unrelated = build_chat(2, topic="another chat").entries()[-1].env
    dangling = make_message(B, fresh.chat_id, [bytes(32)], "text", {"text": "?"}, seq=9, now_ms=1)
    evidence = [original.to_cbor(), twin.to_cbor(), twin.to_cbor(), unrelated.to_cbor(), dangling.to_cbor()]
    assert evidence_records(fresh, evidence) == [twin.to_cbor()]
    with_evidence = export_history(fresh, evidence)
    assert with_evidence.startswith(export_history(fresh))
    assert parse_history(with_evidence).records[-1].raw == twin.to_cbor()
    assert not audit_history(with_evidence).valid


@pytest.mark.slow
async def test_a_node_export_carries_stored_evidence_across_a_restart_and_ioa_audit_exits_1(
    tmp_path: Path,
) -> None:
    ids = [Identity.generate() for _ in range(2)]
    configs = [NodeConfig(home=tmp_path / f"n{i}", raw={"chats": FAST}) for i in range(2)]
    with trio.fail_after(60):
        async with checked_node(configs[0], ids[0]) as a, checked_node(configs[1], ids[1]) as b:
            await connect_all([a, b])
            handle = await chats_of(a).create_chat([b.peer_id], "fork")
            sent = await chats_of(a).post(handle.chat_id, "text", {"text": "the first story"})
            await wait_messages([b], handle.chat_id, 1)
            twin = twin_of(sent, a.identity)
            stream = await a.open_stream(b.peer_id, PROTO_DELIVER)
            ack = await send_raw(stream, twin.to_cbor())  # a member signs a second seq-1 message
            await stream.close()
            assert ack.status == ACK_REJECTED and "equivocation" in ack.reason
        async with checked_node(configs[1], ids[1]) as b:  # restarted: evidence comes from the store
            data = chats_of(b).export(handle.chat_id)
    path = tmp_path / "one-copy.hist"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["audit", str(path), "--json"])
    assert result.exit_code == 1, result.output
    findings = json.loads(result.output)["findings"]
    assert [(f["code"], f["author"], f["seq"]) for f in findings] == [
        ("equivocation", str(ids[0].peer_id), 1)
    ]
    text = CliRunner().invoke(main, ["audit", str(path)])
    assert text.exit_code == 1 and "INVALID" in text.output and "equivocation" in text.output
