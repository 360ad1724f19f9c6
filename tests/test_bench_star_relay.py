"""The star relay of ``bench_chat.py`` checks the chat's rules before it stores and forwards a message, as a
member does before it acks (a relay that skipped them did less per message than the direct path's members,
and let any joiner post as anyone): two real nodes on 127.0.0.1, the relay and one member."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.history.bodies import make_genesis
from ioa_p2p.identity import Identity
from ioa_p2p.node import open_node

pytestmark = pytest.mark.slow

STAR = Path(__file__).resolve().parent.parent / "bench" / "chat_star.py"


def load_chat_star() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_chat_star_under_test", STAR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_the_star_relay_refuses_a_forged_author_and_a_broken_seq_chain(tmp_path: Path) -> None:
    star = load_chat_star()
    quiet = {"discovery": {"enabled": False}}
    with trio.fail_after(90):
        async with (
            open_node(
                NodeConfig(home=tmp_path / "r", raw=quiet), identity=Identity.generate(), write_info=False
            ) as r,
            open_node(
                NodeConfig(home=tmp_path / "m", raw=quiet), identity=Identity.generate(), write_info=False
            ) as m,
        ):
            relay = star.Relay(r, tmp_path / "relay")
            r.set_stream_handler(star.SUBMIT, relay.handle_submit)
            stranger = Identity.generate()
            genesis = make_genesis(m.identity, [stranger.peer_id], "star", now_ms=1, nonce=bytes(16))
            member = star.StarMember(m, genesis)
            stream = await star.join_relay(m, str(r.listen_addrs()[0]), genesis)

            first = member.history.compose(m.identity, "text", {"text": "one"}, now_ms=2)
            member.history.add(first)
            await stream.send(first.to_cbor())
            assert await stream.receive() == first.hash  # the only member joined: stored, acked

            forged = member.history.compose(stranger, "text", {"text": "as another"}, now_ms=3)
            await stream.send(forged.to_cbor())
            assert (await stream.receive()).startswith(b"rejected: a member submits its own")

            # the member's seq 1 once more, on a history that lacks the first: an equivocation
            fork = star.ChatHistory(genesis).compose(m.identity, "text", {"text": "fork"}, now_ms=4)
            await stream.send(fork.to_cbor())
            assert (await stream.receive()).startswith(b"rejected: ")
            await stream.send(first.to_cbor())  # a duplicate: acked again, stored once
            assert await stream.receive() == first.hash

            second = member.history.compose(m.identity, "text", {"text": "two"}, now_ms=5)
            member.history.add(second)
            await stream.send(second.to_cbor())
            assert await stream.receive() == second.hash
            assert relay.store.count(genesis.hash) == 2
            await stream.close()
            member.store.close()
