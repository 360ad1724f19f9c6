"""Answers a node asked for are not strangers' work (``NodeBudgets.expecting``): the peer a DHT request
of ours awaits counts as known while it is awaited, so its answer is not paced by the strangers' pool."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.budget import TRUST_KNOWN, TRUST_STRANGER
from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import open_node
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.host import to_libp2p_id
from ioa_p2p.node.net.kad_io import exchange
from ioa_p2p.node.net.libp2p_patches import IOA_KAD_PROTOCOL


async def test_a_peer_awaited_counts_as_known_until_every_request_to_it_ended() -> None:
    budgets = NodeBudgets(Limits())
    peer, other = Identity.generate().peer_id, Identity.generate().peer_id
    assert budgets.trust(peer) == TRUST_STRANGER  # and now cached
    with budgets.expecting(peer):
        assert budgets.trust(peer) == TRUST_KNOWN
        with budgets.expecting(peer):
            assert budgets.trust(peer) == TRUST_KNOWN
        assert budgets.trust(peer) == TRUST_KNOWN  # one request still awaited
        assert budgets.trust(other) == TRUST_STRANGER
    assert budgets.trust(peer) == TRUST_STRANGER


async def test_a_dht_request_in_flight_makes_its_peer_known_on_a_node(tmp_path: Path) -> None:
    from libp2p.kad_dht.pb.kademlia_pb2 import Message

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
                assert a.budgets.trust(b.peer_id) == TRUST_KNOWN
            assert a.budgets.trust(b.peer_id) == TRUST_STRANGER
