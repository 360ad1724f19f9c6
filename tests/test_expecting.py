"""Answers a node asked for are not strangers' work (``NodeBudgets.expecting``): while a DHT request of
ours awaits a peer, its connection's CPU is charged and paced as a known peer's (not in the strangers'
pool); for every other limit it stays a stranger."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.budget import TRUST_STRANGER
from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import open_node
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.host import to_libp2p_id
from ioa_p2p.node.net.kad_io import exchange
from ioa_p2p.node.net.libp2p_patches import IOA_KAD_PROTOCOL


async def test_a_peer_awaited_is_paced_as_a_known_peer_and_stays_a_stranger_otherwise() -> None:
    budgets = NodeBudgets(Limits())
    peer, other = Identity.generate().peer_id, Identity.generate().peer_id
    budgets.charge_cpu(other, 0.001, loop_seconds=1.0)  # another stranger spent the strangers' pool
    assert budgets.cpu_delay(peer) > 0  # so every stranger waits
    with budgets.expecting(peer):
        with budgets.expecting(peer):
            assert budgets.cpu_delay(peer) == 0 and budgets.awaits(peer)
        assert budgets.cpu_delay(peer) == 0  # one request still awaited
        budgets.charge_cpu(peer, 0.01, loop_seconds=1.0)  # its answer's work: CPU time, its own bucket
        assert budgets.cpu_delay(peer) == 0
        assert budgets.trust(peer) == TRUST_STRANGER  # for every other limit it stays a stranger
        assert budgets.cpu_delay(other) > 0
    assert not budgets.awaits(peer) and budgets.cpu_delay(peer) > 0
    assert budgets.snapshot()["cpu"]["charged_s_by_trust"]["known"] == 0.01


async def test_a_dht_request_in_flight_makes_its_peer_known_on_a_node(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from libp2p.kad_dht.pb.kademlia_pb2 import Message

    from ioa_p2p.node.net import routing

    async def no_lookup(dht: Any, own_key: bytes) -> None:
        return None

    # a's own self-lookup (FIND_NODE through the same exchange) would await the silent b as well
    monkeypatch.setattr(routing, "_lookup", no_lookup)

    async def silent(stream: Any) -> None:  # never answers
        while await stream.read(65536):
            pass

    raw = {"discovery": {"enabled": False}}  # no card: nothing else vouches for the peer
    with trio.fail_after(60):
        async with AsyncExitStack() as stack:
            a, b = [
                await stack.enter_async_context(
                    open_node(
                        NodeConfig(home=tmp_path / name, raw=raw),
                        identity=Identity.generate(),
                        write_info=False,
                        control_api=False,
                    )
                )
                for name in ("a", "b")
            ]
            b.net.host.set_stream_handler(IOA_KAD_PROTOCOL, silent)
            await a.connect(b.listen_addrs()[0])
            assert a.budgets.trust(b.peer_id) == TRUST_STRANGER
            request = Message(type=Message.MessageType.GET_VALUE, key=b"/ioa/card/x")
            async with trio.open_nursery() as nursery:

                async def ask() -> None:
                    with trio.move_on_after(2):
                        await exchange(a.net.host, to_libp2p_id(b.peer_id), [request])

                nursery.start_soon(ask)
                await trio.sleep(0.5)
                assert a.budgets.awaits(b.peer_id)
                assert a.budgets.trust(b.peer_id) == TRUST_STRANGER
            assert not a.budgets.awaits(b.peer_id)
