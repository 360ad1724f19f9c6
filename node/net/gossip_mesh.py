"""Opportunistic grafting as GossipSub v1.1 specifies it, in place of py-libp2p 0.8.1's (issue 26).

GossipSub v1.1 grafts "opportunistically" to escape a mesh of poorly scoring peers: every
``OpportunisticGraftTicks`` heartbeats (go-libp2p-pubsub: 60), when the median score of the mesh is below
a threshold, it grafts up to ``OpportunisticGraftPeers`` (2) peers whose score is *above that median*.
py-libp2p 0.8.1 runs its "enhanced" variant on **every** heartbeat and takes any peer whose score is at
least half the median (and at least the gossip threshold, -inf by default): with no topic score
parameters every peer scores 0, so every heartbeat grafts 2 more peers, the mesh passes ``degree_high``
and the heartbeat prunes it back to ``degree``, and again. Measured (``bench/bench_light.py --nodes 25
--settle 75 --window 30 --idle-only``, 2026-11-28): an idle agent sent 26 GRAFT and 22 PRUNE entries a
minute and received as many, ~40 % of its pubsub RPCs, and its mesh held up to ``degree_high`` peers
instead of ``degree``, so every card announcement reached it that many times.

:func:`graft_as_specified` replaces the router's ``_perform_opportunistic_grafting`` (the per-heartbeat
hook ``mesh_heartbeat`` calls for each topic whose mesh holds at least ``degree_low`` peers) by the
specified rule: every :data:`GRAFT_TICKS` calls per topic, up to :data:`GRAFT_PEERS` peers (subscribed,
scoring-capable, not backed off) whose score is strictly above the mesh's median score. The mesh's
degree bounds (``degree_low`` grafts, ``degree_high`` prunes) are py-libp2p's, unchanged. RuntimeError
when py-libp2p no longer has the parts this relies on (``tests/test_gossip_mesh.py`` checks that upstream
still grafts peers that score no better than the mesh: the patch is still needed).
"""

from __future__ import annotations

import collections
import statistics
from typing import Any

#: Heartbeats between two opportunistic grafting rounds of a topic (go-libp2p-pubsub's default).
GRAFT_TICKS = 60
#: Peers one round grafts at most (go-libp2p-pubsub's ``OpportunisticGraftPeers``).
GRAFT_PEERS = 2


def graft_as_specified(router: Any, ticks: int = GRAFT_TICKS, most: int = GRAFT_PEERS) -> None:
    """Make ``router`` (a py-libp2p ``GossipSub``) graft opportunistically as specified (module docstring)."""
    needed = (
        "_perform_opportunistic_grafting",
        "_check_back_off",
        "supports_scoring",
        "_notify_mesh_peer_added",
    )
    missing = [name for name in needed if not callable(getattr(router, name, None))]
    if missing or not hasattr(router, "mesh"):
        raise RuntimeError(
            f"py-libp2p's GossipSub has no {', '.join(missing) or 'mesh'} any more: "
            "revisit node/net/gossip_mesh.py"
        )
    calls: collections.Counter[str] = collections.Counter()

    def perform(topic: str, peers_to_graft: Any) -> int:
        calls[topic] += 1
        if calls[topic] % ticks or router.scorer is None or router.pubsub is None:
            return 0
        chosen = candidates(router, topic)[:most]
        for peer in chosen:
            router.mesh[topic].add(peer)
            router._notify_mesh_peer_added(peer, topic)
            peers_to_graft[peer].append(topic)
            router.scorer.on_join_mesh(peer, topic)
        return len(chosen)

    router._perform_opportunistic_grafting = perform


def candidates(router: Any, topic: str) -> list[Any]:
    """The topic's subscribed peers outside the mesh that score above the mesh's median, best first."""
    scorer, mesh = router.scorer, router.mesh.get(topic, set())
    scores = [scorer.score(peer, [topic]) for peer in mesh if router.supports_scoring(peer)]
    if not scores:
        return []
    median = statistics.median(scores)
    found = []
    for peer in router.pubsub.peer_topics.get(topic, ()):
        if peer in mesh or not router.supports_scoring(peer) or router._check_back_off(peer, topic):
            continue
        score = scorer.score(peer, [topic])
        if score > median:
            found.append((score, peer))
    found.sort(key=lambda pair: pair[0], reverse=True)
    return [peer for _, peer in found]


__all__ = ["GRAFT_PEERS", "GRAFT_TICKS", "candidates", "graft_as_specified"]
