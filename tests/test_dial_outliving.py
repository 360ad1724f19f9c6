"""A background dial outlives the request that started it (node/net/dialer.py, issue 25): the caller gives
up at its deadline, the dial goes on, and its connection serves the next request. Before, the dial was
cancelled with its caller, after both sides had paid for the Noise handshake, and the next request
dialed again. Two nodes on real libp2p hosts (127.0.0.1)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import trio
from multiaddr import Multiaddr

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import DialFailed
from ioa_p2p.node.net.dialer import DIAL_TIMEOUT
from ioa_p2p.node.net.host import to_libp2p_id

from .nodes import checked_node


def config(tmp_path: Path, name: str) -> NodeConfig:
    return NodeConfig(home=tmp_path / name, raw={"discovery": {"enabled": False}})


@pytest.mark.slow
async def test_a_dial_whose_caller_gave_up_still_connects_once(tmp_path: Path) -> None:
    with trio.fail_after(60):
        async with checked_node(config(tmp_path, "a")) as a, checked_node(config(tmp_path, "b")) as b:
            b_id = to_libp2p_id(b.peer_id)
            addrs = [Multiaddr(addr) for addr in b.listen_addrs()]
            a.net.host.get_peerstore().add_addrs(b_id, addrs, 600)
            assert not a.net.is_connected(b.peer_id)
            with pytest.raises(DialFailed, match="the dial goes on"), trio.move_on_after(0.001):
                await a.net.connect_peer(b.peer_id, deliberate=False)  # the library's kind of dial
            with trio.fail_after(DIAL_TIMEOUT + 5):
                for _ in itertools.count():
                    if a.net.is_connected(b.peer_id):
                        break
                    await trio.sleep(0.05)
            await a.net.connect_peer(b.peer_id, deliberate=False)  # reuses it
            await trio.sleep(0.5)
            opened_a = a.net_status()["connections"]["opened"]
            opened_b = b.net_status()["connections"]["opened"]
            assert opened_a == {"outbound": 1} and opened_b == {"inbound": 1}
            assert a.net_status()["connections"]["closed"] == {} == b.net_status()["connections"]["closed"]


@pytest.mark.slow
async def test_concurrent_requests_share_one_background_dial(tmp_path: Path) -> None:
    with trio.fail_after(60):
        async with checked_node(config(tmp_path, "a")) as a, checked_node(config(tmp_path, "b")) as b:
            b_id = to_libp2p_id(b.peer_id)
            a.net.host.get_peerstore().add_addrs(b_id, [Multiaddr(x) for x in b.listen_addrs()], 600)
            async with trio.open_nursery() as nursery:
                for _ in range(8):
                    nursery.start_soon(lambda: a.net.connect_peer(b.peer_id, deliberate=False))
            assert a.net.is_connected(b.peer_id)
            assert a.net_status()["connections"]["opened"] == {"outbound": 1}
