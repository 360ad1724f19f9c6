"""`ioa chats`, `ioa history`, `ioa history export`, `ioa audit` (offline and through a node)."""

from __future__ import annotations

import json
from pathlib import Path

import trio
from click.testing import CliRunner, Result

from ioa_p2p.cli import main
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.history.bodies import make_genesis
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.history.file import encode_history, export_history, parse_history
from ioa_p2p.identity import Identity
from tests.nodes import checked_node

A, B = Identity(b"\x51" * 32), Identity(b"\x52" * 32)


def run(home: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--home", str(home), *args], catch_exceptions=False)


def write_chat(path: Path, messages: int = 6) -> bytes:
    h = ChatHistory(make_genesis(A, [B.peer_id], "cli audit", now_ms=1_000, nonce=bytes(16)))
    for i in range(messages):
        h.add(h.compose([A, B][i % 2], "text", {"text": f"m{i}"}, now_ms=2_000 + i))
    data = export_history(h)
    path.write_bytes(data)
    return data


def test_audit_a_valid_file_offline(tmp_path: Path) -> None:
    path = tmp_path / "chat.hist"
    write_chat(path)
    result = run(tmp_path / "nohome", "audit", str(path))
    assert result.exit_code == 0, result.output
    assert "VALID" in result.output and "messages: 6 from 2 author(s)" in result.output
    assert "time span" in result.output and "heads:" in result.output
    as_json = json.loads(run(tmp_path, "audit", str(path), "--json").output)
    assert as_json["valid"] is True and as_json["messages"] == 6 and as_json["findings"] == []
    assert run(tmp_path, "audit", "--workers", "0", str(path)).exit_code == 0


def test_audit_exit_codes_for_invalid_and_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "chat.hist"
    data = write_chat(path)
    tampered = tmp_path / "tampered.hist"
    raw = bytearray(data)
    raw[len(raw) // 2] ^= 0x04
    tampered.write_bytes(bytes(raw))
    result = run(tmp_path, "audit", str(tampered))
    assert result.exit_code == 1 and "INVALID" in result.output and "[" in result.output
    as_json = json.loads(run(tmp_path, "audit", str(tampered), "--json").output)
    assert as_json["valid"] is False and as_json["findings"]
    missing = run(tmp_path, "audit", str(tmp_path / "nope.hist"))
    assert missing.exit_code == 2 and "no such file" in missing.output
    junk = tmp_path / "junk.txt"
    junk.write_text("definitely not a chat history file")
    assert run(tmp_path, "audit", str(junk)).exit_code == 2
    as_json = json.loads(run(tmp_path, "audit", str(junk), "--json").output)
    assert as_json["error"]["type"] == "UnreadableHistory"
    # a chat ID with no running node: unreadable input
    assert run(tmp_path / "empty", "audit", "abcdef012345").exit_code == 2
    assert run(tmp_path, "audit", str(path), str(path), str(path)).exit_code == 2
    assert run(tmp_path, "audit").exit_code == 2


def test_audit_two_copies_shows_truncation(tmp_path: Path) -> None:
    full = tmp_path / "full.hist"
    data = write_chat(full)
    records = [r.raw for r in parse_history(data).records]
    short = tmp_path / "short.hist"
    short.write_bytes(encode_history(records[0], records[1:-2]))
    assert run(tmp_path, "audit", str(short)).exit_code == 0  # alone it looks fine
    result = run(tmp_path, "audit", str(short), str(full))
    assert result.exit_code == 1
    assert "truncated" in result.output and "copy A" in result.output
    as_json = json.loads(run(tmp_path, "audit", str(short), str(full), "--json").output)
    assert as_json["identical"] is False and len(as_json["only_b"]) == 2
    same = run(tmp_path, "audit", str(full), str(full))
    assert same.exit_code == 0 and "IDENTICAL" in same.output


def test_history_group_help_lists_both_forms(tmp_path: Path) -> None:
    result = run(tmp_path, "history", "--help")
    assert result.exit_code == 0 and "export" in result.output and "show" in result.output
    bad = run(tmp_path, "history", "not-a-chat!")
    assert bad.exit_code == 2


async def test_chat_commands_through_a_running_node(tmp_path: Path) -> None:
    homes = [tmp_path / "a", tmp_path / "b"]
    with trio.fail_after(60):
        async with (
            checked_node(NodeConfig(home=homes[0]), A, write_info=True) as node_a,
            checked_node(NodeConfig(home=homes[1]), B, write_info=True) as node_b,
        ):
            await node_a.connect(node_b.listen_addrs()[0])
            chats_a = node_a.services.chats
            handle = await chats_a.create_chat([B.peer_id], "through the CLI")
            await chats_a.post(handle.chat_id, "text", {"text": "hello from a"})
            await chats_a.post(handle.chat_id, "conv.note", {"x": [1, 2]})
            chats_b = node_b.services.chats
            await chats_b.wait_until(lambda: len(chats_b.get(handle.chat_id)) == 2)
            chat_hex = handle.chat_id.hex()

            def cli(*args: str) -> Result:
                return run(homes[1], *args)

            listing = await trio.to_thread.run_sync(cli, "chats")
            assert listing.exit_code == 0 and chat_hex[:16] in listing.output
            as_json = json.loads((await trio.to_thread.run_sync(cli, "chats", "--json")).output)
            assert as_json[0]["chat_id"] == chat_hex and as_json[0]["messages"] == 2
            shown = await trio.to_thread.run_sync(cli, "history", chat_hex[:10])
            assert shown.exit_code == 0, shown.output
            assert "hello from a" in shown.output and "through the CLI" in shown.output
            assert shown.output.index("hello from a") < shown.output.index("conv.note")
            shown_json = json.loads(
                (await trio.to_thread.run_sync(cli, "history", "show", chat_hex, "--json")).output
            )
            assert [m["kind"] for m in shown_json["messages"]] == ["text", "conv.note"]
            out = tmp_path / "exported.hist"
            exported = await trio.to_thread.run_sync(cli, "history", "export", chat_hex[:12], "-o", str(out))
            assert exported.exit_code == 0 and "wrote 2 messages" in exported.output
            assert out.read_bytes() == chats_b.export(handle.chat_id)
            audited = await trio.to_thread.run_sync(cli, "audit", str(out))
            assert audited.exit_code == 0 and "VALID" in audited.output
            by_id = await trio.to_thread.run_sync(cli, "audit", chat_hex[:12], "--json")
            assert by_id.exit_code == 0 and json.loads(by_id.output)["messages"] == 2
            unknown = await trio.to_thread.run_sync(cli, "history", "ffffff")
            assert unknown.exit_code == 1 and "no chat" in unknown.output
    # the node is gone: the exported file still audits with nothing but the file
    assert run(tmp_path / "nothing", "audit", str(out)).exit_code == 0
