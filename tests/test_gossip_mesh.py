"""Opportunistic grafting as GossipSub v1.1 specifies it (ioa_p2p.node.net.gossip_mesh; issue 26): a real
py-libp2p ``GossipSub`` router's ``mesh_heartbeat``, on a mesh state set by hand."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from libp2p.crypto.ed25519 import create_new_key_pair
from libp2p.peer.id import ID
from libp2p.pubsub.gossipsub import PROTOCOL_ID_V11, GossipSub

from ioa_p2p.node.net.gossip_mesh import GRAFT_TICKS, graft_as_specified

TOPIC = "/ioa/cards/1"


def router_with(mesh: int, outside: int) -> tuple[GossipSub, list[ID], list[ID]]:
    """A router whose mesh holds ``mesh`` peers, with ``outside`` more subscribed peers (all v1.1)."""
    router = GossipSub(protocols=[PROTOCOL_ID_V11], degree=6, degree_low=4, degree_high=12)
    peers = [ID.from_pubkey(create_new_key_pair().public_key) for _ in range(mesh + outside)]
    router.pubsub = SimpleNamespace(peer_topics={TOPIC: set(peers)})  # type: ignore[assignment]
    router.mesh[TOPIC] = set(peers[:mesh])
    for peer in peers:
        router.peer_protocol[peer] = PROTOCOL_ID_V11
    return router, peers[:mesh], peers[mesh:]


def grafts(router: GossipSub, beats: int) -> int:
    total = 0
    for _ in range(beats):
        to_graft, _ = router.mesh_heartbeat()
        total += sum(len(topics) for topics in to_graft.values())
    return total


def test_upstream_grafts_peers_that_score_no_better_on_every_heartbeat() -> None:
    """Why the patch exists: py-libp2p 0.8.1 grafts 2 peers a heartbeat when every peer scores 0. When
    this fails, upstream changed: the patch may no longer be needed."""
    router, _, _ = router_with(mesh=6, outside=10)
    assert grafts(router, 2) == 4


def test_no_graft_when_no_peer_scores_above_the_mesh_median() -> None:
    router, _, _ = router_with(mesh=6, outside=10)
    graft_as_specified(router)
    assert grafts(router, 3 * GRAFT_TICKS) == 0
    assert len(router.mesh[TOPIC]) == 6


def test_every_graft_ticks_the_two_best_peers_above_the_median_are_grafted(monkeypatch: Any) -> None:
    router, mesh, outside = router_with(mesh=6, outside=10)
    better = {outside[0]: 5.0, outside[1]: 3.0, outside[2]: 1.0}  # the rest score 0, like the mesh
    assert router.scorer is not None
    monkeypatch.setattr(router.scorer, "score", lambda peer, topics: better.get(peer, 0.0))
    graft_as_specified(router)
    assert grafts(router, GRAFT_TICKS - 1) == 0  # not before the round
    to_graft, _ = router.mesh_heartbeat()
    assert set(to_graft) == {outside[0], outside[1]}
    assert router.mesh[TOPIC] == {*mesh, outside[0], outside[1]}


def test_a_backed_off_peer_is_not_grafted(monkeypatch: Any) -> None:
    router, _, outside = router_with(mesh=6, outside=2)
    assert router.scorer is not None
    monkeypatch.setattr(router.scorer, "score", lambda peer, topics: 1.0 if peer in outside else 0.0)
    router.back_off[TOPIC] = {outside[0]: 2**62}  # pruned recently: no graft before the back-off ends
    graft_as_specified(router, ticks=1)
    to_graft, _ = router.mesh_heartbeat()
    assert set(to_graft) == {outside[1]}


def test_the_patch_refuses_a_router_without_the_hook() -> None:
    with pytest.raises(RuntimeError, match="revisit"):
        graft_as_specified(SimpleNamespace(mesh={}))


def test_pubsub_internals_the_subscription_resends_use_exist() -> None:
    """``gossip.resend_subscription`` builds py-libp2p's announcement RPC and queues it per peer; this
    fails when an upgrade moves them."""
    from libp2p.pubsub.pubsub import Pubsub

    assert callable(Pubsub._build_announce_rpc) and callable(Pubsub._enqueue_or_retry_announce)
    assert "peer_queues" in Pubsub.__annotations__
