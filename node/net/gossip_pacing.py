"""How often the card topic's upkeep acts (pure; times in seconds, no I/O): the GossipSub heartbeat, the
re-sending of our subscription, and the back-off of pubsub registrations that failed.

The gossip maintenance task (:func:`ioa_p2p.node.net.gossip._maintain`) re-sends our subscription to
peers, which repairs peers that forgot it when a connection churned. It re-sends it to the peers whose
connections changed since it last sent them (a connection opened or closed: the churn the repair is for),
at most every :data:`RESUBSCRIBE_FIRST` s, and to every peer at a doubling interval from
:data:`RESUBSCRIBE_FULL_FIRST` up to :data:`RESUBSCRIBE_MAX` (:class:`ResubscribePacer`). An idle node
re-sent it to every peer every 10 s at first (1.6 messages a second out and in at 16 connections);
then to every peer whenever any connection changed and at a doubling interval from 10 s (an idle agent
of 25 peers still sent 48 subscription RPCs a minute ~3 minutes after its start, the largest kind of its
pubsub RPCs: ``bench/bench_light.py``'s ``per_node_per_minute``, 2026-11-28); now a change costs one RPC
per peer that changed. It also paces the GossipSub heartbeat
(:class:`HeartbeatPacer`): ``heartbeat`` (1 s) while the mesh is short of peers, the topic's peers change or
messages flow, ``heartbeat_idle`` once nothing happened for :data:`HEARTBEAT_SETTLE` s. Messages are pushed
along the mesh at once whatever the heartbeat; what waits for it is mesh repair and the IHAVE gossip that
repairs missed messages (py-libp2p reads the interval before each sleep, so a change takes effect after the
current one).

Registration attempts with a peer whose identify has not answered back off per peer
(:class:`RegisterBackoff`: :data:`MAINTAIN_INTERVAL` doubling to :data:`REGISTER_BACKOFF_MAX`).
"""

from __future__ import annotations

import math
from typing import Any

#: The maintenance task's period, and the first registration back-off.
MAINTAIN_INTERVAL = 2.0
#: Back-off between registration attempts with one peer whose identify has not answered (doubling).
REGISTER_BACKOFF_MAX = 60.0
#: Our subscription is re-sent to the peers whose connections changed at most this often.
RESUBSCRIBE_FIRST = 10.0
#: ... and to every peer after this many seconds, the wait doubling up to :data:`RESUBSCRIBE_MAX`.
RESUBSCRIBE_FULL_FIRST = 60.0
RESUBSCRIBE_MAX = 640.0
#: Seconds without mesh shortage or topic-peer change before the heartbeat slows down.
HEARTBEAT_SETTLE = 30.0
#: Seconds of fast heartbeats after a message came or went (see :class:`HeartbeatPacer`).
MESSAGE_SETTLE = 10.0

__all__ = [
    "HEARTBEAT_SETTLE",
    "MAINTAIN_INTERVAL",
    "MESSAGE_SETTLE",
    "REGISTER_BACKOFF_MAX",
    "RESUBSCRIBE_FIRST",
    "RESUBSCRIBE_FULL_FIRST",
    "RESUBSCRIBE_MAX",
    "HeartbeatPacer",
    "RegisterBackoff",
    "ResubscribePacer",
]


class ResubscribePacer:
    """To which peers the maintenance task re-sends our subscription (pure; times in seconds).

    :meth:`plan` takes each connected peer's connections (any hashable identities) and returns the peers
    to send it to now: every peer when the full round is due (after ``full`` s, the wait doubling up to
    ``most``), else the peers whose connections differ from those at the last send to them (a new peer
    counts), at most every ``first`` s; :meth:`sent` records the send."""

    def __init__(
        self,
        first: float = RESUBSCRIBE_FIRST,
        most: float = RESUBSCRIBE_MAX,
        full: float = RESUBSCRIBE_FULL_FIRST,
    ) -> None:
        self.first, self.most = first, most
        self.gap = full
        self.started_at: float | None = None
        self.full_at = -math.inf
        self.changed_at = -math.inf
        self.seen: dict[Any, frozenset[Any]] = {}

    def plan(self, connections: dict[Any, frozenset[Any]], now: float) -> tuple[list[Any], bool]:
        """(peers to send to now, whether that is the full round)."""
        if self.started_at is None:
            self.started_at = self.full_at = now
            self.seen = dict(connections)  # the peers py-libp2p greeted with our subscription
        if now - self.full_at >= self.gap:
            return list(connections), True
        if now - self.changed_at < self.first:
            return [], False
        return [peer for peer, conns in connections.items() if self.seen.get(peer) != conns], False

    def sent(self, connections: dict[Any, frozenset[Any]], peers: list[Any], full: bool, now: float) -> None:
        if full:
            self.full_at, self.gap = now, min(self.gap * 2, self.most)
            self.seen = dict(connections)
            return
        self.changed_at = now
        self.seen = {peer: conns for peer, conns in self.seen.items() if peer in connections}
        self.seen.update((peer, connections[peer]) for peer in peers)


class HeartbeatPacer:
    """The GossipSub heartbeat interval (pure; times in seconds): ``fast`` while the mesh holds fewer than
    ``degree_low`` peers or for ``settle`` s after the topic's peers changed; ``fast`` for ``message_settle``
    s after a message came or went; ``idle`` otherwise (never below ``fast``).

    What a message needs from the heartbeat is the IHAVE gossip of its ID, sent in the ``gossip_window``
    (3) heartbeats after it entered the message cache (the mesh pushes it at once, whatever the
    heartbeat): :data:`MESSAGE_SETTLE` covers the heartbeat already under way (up to ``idle``), the
    maintenance task's sampling (:data:`MAINTAIN_INTERVAL`) and three fast heartbeats. A message used
    to hold the fast pace for ``settle`` (30 s): with every card re-published every 10 minutes, an idle
    node of 25 saw one every ~24 s and beat at 1 s most of the time (issue 26)."""

    def __init__(
        self,
        fast: float,
        idle: float,
        degree_low: int,
        settle: float = HEARTBEAT_SETTLE,
        message_settle: float = MESSAGE_SETTLE,
    ) -> None:
        self.fast, self.idle = fast, max(fast, idle)
        self.degree_low, self.settle, self.message_settle = degree_low, settle, message_settle
        self.busy_at = -math.inf
        self.message_at = -math.inf
        self._peers: frozenset[Any] | None = None
        self._messages: int | None = None

    def interval(self, mesh: int, topic_peers: frozenset[Any], messages: int, now: float) -> float:
        if mesh < self.degree_low or topic_peers != self._peers:
            self.busy_at = now
        if messages != self._messages:
            self.message_at = now
        self._peers, self._messages = topic_peers, messages
        if now - self.busy_at < self.settle or now - self.message_at < self.message_settle:
            return self.fast
        return self.idle


class RegisterBackoff:
    """Per-peer back-off for registration attempts that failed (pure bookkeeping)."""

    def __init__(self, first: float = MAINTAIN_INTERVAL, most: float = REGISTER_BACKOFF_MAX) -> None:
        self.first, self.most = first, most
        self._next: dict[Any, tuple[float, float]] = {}  # peer -> (next attempt at, current delay)

    def due(self, peer: Any, now: float) -> bool:
        entry = self._next.get(peer)
        return entry is None or now >= entry[0]

    def failed(self, peer: Any, now: float, delay: float | None = None) -> None:
        """One more failure: wait ``delay`` (default: twice the last wait, at first ``first``)."""
        if delay is None:
            delay = min(self._next[peer][1] * 2, self.most) if peer in self._next else self.first
        self._next[peer] = (now + delay, delay)

    def known(self, peer: Any) -> bool:
        return peer in self._next

    def forget(self, peer: Any) -> None:
        self._next.pop(peer, None)

    def keep_only(self, peers: Any) -> None:
        keep = set(peers)
        for peer in [p for p in self._next if p not in keep]:
            del self._next[peer]
