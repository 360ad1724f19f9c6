"""A node that joins the card topic after it connected to a peer tells that peer (identify push), so the
peer registers it as a gossip neighbour and counts it as a card publisher at once, not a minute later
(issue 26: agents whose DHT join connected them to remote agents before their discovery started were
nobody's gossip neighbour there, and their cards never reached the other processes). Real py-libp2p
hosts on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio
from libp2p.peer.peerinfo import info_from_p2p_addr

from ioa_p2p.identity import Identity
from ioa_p2p.node.net import gossip as gossip_module
from ioa_p2p.node.net.gossip import open_card_gossip, speaks_pubsub
from ioa_p2p.node.net.host import new_noise_host
from tests.raw_hosts import run_raw_host


def _addr(host: Any) -> Any:
    return info_from_p2p_addr(host.get_addrs()[0])


async def _until(holds: Callable[[], bool]) -> None:
    while not holds():  # noqa: ASYNC110 - polls py-libp2p's peerstore, which signals nothing
        await trio.sleep(0.05)


async def test_a_peer_connected_before_the_topic_opened_learns_that_we_speak_gossipsub() -> None:
    accept = lambda publisher, data: True  # noqa: E731 - no card is sent in this test
    take = lambda publisher, data: None  # noqa: E731
    early, late = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    with trio.fail_after(60):
        async with run_raw_host(early), run_raw_host(late), open_card_gossip(early, accept, take):
            await late.connect(_addr(early))  # the late one knows no pubsub yet
            await _until(lambda: speaks_pubsub(early, late.get_id()) is not None)  # identify answered
            assert speaks_pubsub(early, late.get_id()) is False
            async with open_card_gossip(late, accept, take) as gossip:
                await _until(lambda: speaks_pubsub(early, late.get_id()) is True)  # pushed, not in a minute
                await _until(lambda: gossip.topic_peers() > 0)  # the early one's subscription reached it


async def test_a_peer_that_subscribed_to_us_is_registered_back_when_the_identify_push_was_lost(
    monkeypatch: Any,
) -> None:
    """The push is best effort (a loaded peer loses it): a peer whose identify said no GossipSub but that
    sent us its subscription on its own pubsub stream speaks GossipSub, and is registered back at once,
    not after the back-off of peers that speak none (both hosts then count each other as topic peers).
    """

    early, late = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    push = gossip_module._tell_protocols

    async def lost_from_late(host: Any, peers: list[Any]) -> None:
        if host is not late:
            await push(host, peers)

    monkeypatch.setattr(gossip_module, "_tell_protocols", lost_from_late)
    monkeypatch.setattr(gossip_module, "SILENT_FIRST", 60.0)  # the back-off alone: not within the test
    accept = lambda publisher, data: True  # noqa: E731 - no card is sent in this test
    take = lambda publisher, data: None  # noqa: E731
    with trio.fail_after(20):
        async with run_raw_host(early), run_raw_host(late):
            await late.connect(_addr(early))  # connected (and identified) before either joined the topic
            await _until(lambda: speaks_pubsub(early, late.get_id()) is not None)
            assert speaks_pubsub(early, late.get_id()) is False
            async with open_card_gossip(early, accept, take) as early_gossip:
                await _until(lambda: speaks_pubsub(late, early.get_id()) is True)  # the early one's push
                async with open_card_gossip(late, accept, take) as late_gossip:
                    await _until(lambda: early_gossip.topic_peers() > 0)  # the late one registered with it
                    assert speaks_pubsub(early, late.get_id()) is False  # no push came
                    await _until(lambda: late_gossip.topic_peers() > 0)  # it registered the late one back


async def test_two_peers_that_connected_before_either_opened_the_topic_register_when_every_push_is_lost(
    monkeypatch: Any,
) -> None:
    """Issue 26: two agents of different processes connect during their DHT joins, before either opened
    the card topic, and both identify pushes are lost on their busy loops. The one whose topic opens second
    tries the other once whatever its old identify said (``register_anyway``); before, every deliberate
    attempt went through the filter that skips peers whose identify named no GossipSub, so neither ever
    tried, and they stayed strangers (0 card-topic peers across processes for 45-60 s)."""

    async def lost(host: Any, peers: list[Any]) -> None:
        return None

    monkeypatch.setattr(gossip_module, "_tell_protocols", lost)
    monkeypatch.setattr(gossip_module, "SILENT_FIRST", 600.0)  # the maintenance's rare tries: not here
    accept = lambda publisher, data: True  # noqa: E731 - no card is sent in this test
    take = lambda publisher, data: None  # noqa: E731
    one, two = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    with trio.fail_after(30):
        async with run_raw_host(one), run_raw_host(two):
            await two.connect(_addr(one))
            await _until(lambda: speaks_pubsub(one, two.get_id()) is not None)
            await _until(lambda: speaks_pubsub(two, one.get_id()) is not None)
            assert speaks_pubsub(one, two.get_id()) is False and speaks_pubsub(two, one.get_id()) is False
            async with (
                open_card_gossip(one, accept, take) as first,
                open_card_gossip(two, accept, take) as second,  # opens second: it tries the first
            ):
                await _until(lambda: first.topic_peers() > 0 and second.topic_peers() > 0)
