"""A co-hosted agent's announcement goes out through the gossip mesh of its process-mates
(:mod:`ioa_p2p.node.net.gossip_carry`): an agent that started after the others of its process has no
remote gossip neighbour of its own for a while (issue 26: the late starters of 4 processes of 25 held 13
remote connections and 0 card-topic peers, and their cards crossed only by a census minutes later).
Real py-libp2p hosts on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio
from libp2p.peer.peerinfo import info_from_p2p_addr

from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.net.cohosted import CoHosted, pick_carriers
from ioa_p2p.node.net.gossip import open_card_gossip
from ioa_p2p.node.net.host import new_noise_host
from tests.raw_hosts import run_raw_host


async def _until(holds: Callable[[], bool]) -> None:
    while not holds():  # noqa: ASYNC110 - polls py-libp2p's mesh, which signals nothing
        await trio.sleep(0.05)


def _peer(host: Any) -> PeerId:
    return PeerId.from_bytes(host.get_id().to_bytes())


def test_the_carriers_are_the_agents_with_the_largest_mesh() -> None:
    a, b, c, d = (Identity.generate().peer_id for _ in range(4))
    assert pick_carriers({a: 0, b: 3, c: 5, d: 3}) == [c, b]  # the earlier listed first among equals
    assert pick_carriers({a: 0, b: 0}) == []  # a mesh of 0 carries nothing
    assert pick_carriers({a: 1, b: 2}, most=1) == [b]


async def test_an_agent_without_gossip_neighbours_reaches_the_remote_mesh_of_its_process_mate() -> None:
    stranded, mate, remote = (new_noise_host(Identity.generate()) for _ in range(3))
    heard: list[tuple[PeerId, bytes]] = []
    accept = lambda publisher, data: True  # noqa: E731 - the topic validator of every host
    ignore = lambda publisher, data: None  # noqa: E731
    cohosted = CoHosted()
    with trio.fail_after(60):
        async with (
            run_raw_host(stranded),
            run_raw_host(mate),
            run_raw_host(remote),
            open_card_gossip(stranded, accept, ignore) as lonely,
            open_card_gossip(mate, accept, ignore) as carrier,
            open_card_gossip(remote, accept, lambda publisher, data: heard.append((publisher, data))),
        ):
            with (
                cohosted.carrying(_peer(stranded), lonely.mesh_peers, lonely.carrier.offer) as carry,
                cohosted.carrying(_peer(mate), carrier.mesh_peers, carrier.carrier.offer),
            ):
                lonely.carry = carry
                await mate.connect(info_from_p2p_addr(remote.get_addrs()[0]))
                await _until(lambda: carrier.mesh_peers() > 0)  # the mate's mesh holds the remote peer
                assert lonely.topic_peers() == 0  # the stranded agent is connected to nobody
                await lonely.announce(b"the stranded agent's card")
                await _until(lambda: bool(heard))
    assert heard == [(_peer(stranded), b"the stranded agent's card")]  # its own signed message, from it
    assert carrier.carrier.carried == 1 and cohosted.carried == 1
