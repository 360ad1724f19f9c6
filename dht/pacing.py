"""When discovery announces and re-publishes (pure decisions; times in seconds, clocks passed in).

The node's discovery service (:mod:`ioa_p2p.node.discovery`) and the simulator (:mod:`ioa_p2p.dht.sim`)
both follow these rules.

- :class:`AnnouncePacer`: when to re-announce our card by gossip because more peers subscribed;
- :class:`PublishPolicy`: when to put our card record into the DHT and when to provide its bucket keys
  (new version, new keys, the routing table grown enough and settled, the periodic refresh);
- :func:`grew_enough`, :func:`regrown`: the growth rules both use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ioa_p2p.dht.settings import DEFAULT_TTL

#: After more peers subscribe to the card topic, wait this long before re-announcing (batches joins);
#: the wait doubles after each such re-announcement (see :class:`AnnouncePacer`).
ANNOUNCE_MIN_INTERVAL = 3.0
#: Re-announce only once the topic's peers grew by this fraction since the last announcement (and by one
#: peer at least).
ANNOUNCE_GROWTH = 0.25


class AnnouncePacer:
    """When to re-announce our card because more peers subscribed (pure; times in seconds).

    An announcement reaches the peers subscribed then; a peer that subscribes later learns our card from
    the DHT (its catch-up fetches its gossip neighbours' cards, a census or a find the others') or from our
    next version (``republish``). Re-announcing to reach newcomers is due when the topic's peers grew by
    ``growth`` (a fraction) since the last announcement and the current gap passed (``first``, doubling
    after each re-announcement up to ``most``): O(log N) re-announcements while a network forms, none
    while it only churns. Each one is forwarded by every node of the topic to its mesh, so with one peer
    of growth enough (before 2026-11-28) every node of a forming network re-announced at 3, 9, 21, 45,
    93 and 189 s, each time the topic had gained a peer.

    Once the network has formed around a node, growth is pulled, not pushed (``due(..., pulled=True)``):
    a newcomer fetches its gossip neighbours' cards (the catch-up) and takes a census of the DHT's pages,
    which names every publisher whose page is out. So when a recent census named our own card and our
    directory holds every card it named, a re-announcement would only flood the whole topic (every node
    receives it ~3 times through the mesh) with a version every peer holds: at N = 101, 10 minutes after
    the start, each node still re-announced every ~4 minutes as its connections grew, ~80 copies a
    minute at every node (issue 26, l-idle9)."""

    def __init__(
        self,
        first: float = ANNOUNCE_MIN_INTERVAL,
        most: float = DEFAULT_TTL / 3,
        growth: float = ANNOUNCE_GROWTH,
    ) -> None:
        self.gap, self.most, self.growth = first, most, growth
        self.peers_at_last = 0
        self.last_at = -math.inf

    def announced(self, peers: int, now: float) -> None:
        """Any announcement (start, new version) reached the ``peers`` subscribed now."""
        self.peers_at_last = max(self.peers_at_last, peers)
        self.last_at = now

    def due(self, peers: int, now: float, *, pulled: bool = False) -> bool:
        """The topic's peers grew by :attr:`growth` since the last announcement, and the gap has passed;
        never while ``pulled``: newcomers get our card by pulling it (the network formed around us: a
        recent census named our card and our directory holds every card it named), see the class
        docstring."""
        grown = peers > self.peers_at_last and peers >= (1 + self.growth) * self.peers_at_last
        return grown and now - self.last_at >= self.gap and not pulled

    def reannounced(self, peers: int, now: float) -> None:
        self.announced(peers, now)
        self.gap = min(self.gap * 2, self.most)


def regrown(size: int, published_at: int) -> bool:
    """The routing table holds at least :data:`REGROWTH` more peers than when we last published (and at
    least one more): a record's closest peers then likely include peers that were not there, the first
    ones a reader asks (issue 25: a node whose round went out at a table of 26 was never placed again in
    a network of 50, :func:`grew_enough` waiting for 52; its page was missing from the copies a listing
    read). Used once the table has settled for :data:`SETTLED_REPLACE` s: one more round when a forming
    network stops growing, not one per joiner."""
    return size > published_at and size >= (1 + REGROWTH) * published_at


def grew_enough(size: int, published_at: int) -> bool:
    """The routing table grew enough since we last published that other peers may now be closest
    to our keys (it at least doubled, e.g. from empty): worth publishing again."""
    return size > published_at and size >= 2 * published_at


#: Seconds the routing table must keep its size before a growth-triggered re-publish.
SETTLE = 3.0
#: Once the routing table has kept its size this long (the network around us stopped forming), a record
#: placed while the table was at least :data:`REGROWTH` smaller is placed again (:func:`regrown`).
SETTLED_REPLACE = 20.0
REGROWTH = 0.1
#: Bucket keys are provided again this often: peers that joined since may now be the closest to them,
#: and peers that stored them may have left (records live 48 h on py-libp2p peers).
PROVIDE_REFRESH = 1800.0
#: Seconds between two provide rounds at least (each round is paced per target peer as well).
PROVIDE_MIN_GAP = 2.0
#: Longest gap between growth-triggered re-puts of the same card version.
PUT_GAP_MAX = 60.0
#: A provide round that reached fewer than half the peers it should is repeated after this long, the
#: wait doubling while rounds stay short (up to the refresh period).
PROVIDE_RETRY = 10.0


@dataclass
class PublishPolicy:
    """When the DHT publishing loop puts the card record and provides the bucket keys (pure).

    A new card version is put at once. The same version is put again when the routing table has at
    least doubled since the last put (:func:`grew_enough`, sizes are high-water marks so churn does not
    re-trigger), has kept its size for :data:`SETTLE` s (a forming network causes one re-put when it
    settles, not one per doubling), and the gap since the last put has passed (1 s after a new version's
    put, doubling with each growth re-put up to :data:`PUT_GAP_MAX`); also when the table grew by
    :data:`REGROWTH` since and then kept its size for :data:`SETTLED_REPLACE` s (:func:`regrown`: the
    last round went out before the network around us had formed); either growth counts only when the
    network's estimated size (:meth:`observe`) grew by :data:`REGROWTH` too (new peers, not peers newly
    known). Keys are provided when they
    change, when the table has doubled and settled (or regrown and settled long), every
    :data:`PROVIDE_REFRESH` s, and again after
    :data:`PROVIDE_RETRY` s (doubling) when a round reached fewer than half the peers it should have (the
    peers were overloaded or unreachable); at most every :data:`PROVIDE_MIN_GAP` s, and only once the
    routing table knows a peer. A put that no peer acknowledged (:meth:`put_failed`) is tried again
    after 1 s, the wait doubling while puts keep failing, up to :data:`PUT_GAP_MAX` (it was tried again
    every second for good: measured at N = 10-25 processes, a growth re-put that every peer refused kept
    ~20 PUT_VALUE a second going out of each such node, the largest part of the network's idle CPU).
    """

    put_version: int = -1
    put_size: int = 0
    put_estimate: float = 0.0
    put_gap: float = 1.0
    put_at: float = -math.inf
    provided: tuple[bytes, ...] = ()
    provide_size: int = 0
    provide_estimate: float = 0.0
    provide_at: float = -math.inf
    last_size: int = -1
    #: the network's estimated size at the last :meth:`observe`
    estimate: float = 0.0
    size_changed_at: float = -math.inf
    refresh: float = PROVIDE_REFRESH
    retry_gap: float = PROVIDE_RETRY
    retry_at: float = math.inf
    put_retry_at: float = -math.inf
    put_retry_gap: float = 1.0

    def observe(self, size: int, now: float, estimate: float | None = None) -> None:
        """The routing table's size now, and the network's estimated size (default: the table's)."""
        if size != self.last_size:
            self.last_size, self.size_changed_at = size, now
        self.estimate = float(size) if estimate is None else estimate

    def settled(self, now: float, long: bool = False) -> bool:
        return now - self.size_changed_at >= (SETTLED_REPLACE if long else SETTLE)

    def _grown(self, placed_at: int, placed_estimate: float, now: float) -> str | None:
        """``"grown"``: the table doubled since a round placed at ``placed_at`` peers and settled;
        ``"regrown"``: it grew by :data:`REGROWTH` and stayed so for :data:`SETTLED_REPLACE` s. Either only
        when the network's estimated size grew by :data:`REGROWTH` too since the round (``placed_estimate``):
        a table that grows in a network that does not only learns peers that were there when the round's
        lookups found the closest ones (measured at N = 101, 10 minutes after the start: every node still
        put and provided again each time its table grew by a tenth, ~13 Kademlia requests a minute of
        each, issue 26, l-idle9)."""
        if not regrown(int(self.estimate), int(placed_estimate)):
            return None
        size = self.last_size
        if grew_enough(size, placed_at) and self.settled(now):
            return "grown"
        return "regrown" if regrown(size, placed_at) and self.settled(now, long=True) else None

    def put_due(self, version: int, now: float) -> bool:
        return self.put_reason(version, now) is not None

    def put_reason(self, version: int, now: float) -> str | None:
        """Why the card record is put now (``"version"``, ``"grown"``, ``"regrown"``), None: not due."""
        if now < self.put_retry_at:
            return None
        if version != self.put_version:
            return "version"
        if now - self.put_at < self.put_gap:
            return None
        return self._grown(self.put_size, self.put_estimate, now)

    def put_done(self, version: int, now: float) -> None:
        """A put of ``version`` succeeded at ``now``."""
        self.put_gap = 1.0 if version != self.put_version else min(self.put_gap * 2, PUT_GAP_MAX)
        self.put_version, self.put_at = version, now
        self.put_size = max(self.put_size, self.last_size)
        self.put_estimate = max(self.put_estimate, self.estimate)
        self.put_retry_at, self.put_retry_gap = -math.inf, 1.0

    def put_failed(self, now: float) -> None:
        """A put at ``now`` was acknowledged by no peer (or did not finish): not again before the back-off."""
        self.put_retry_at = now + self.put_retry_gap
        self.put_retry_gap = min(self.put_retry_gap * 2, PUT_GAP_MAX)

    def provide_due(self, keys: tuple[bytes, ...], now: float) -> bool:
        return self.provide_reason(keys, now) is not None

    def provide_reason(self, keys: tuple[bytes, ...], now: float) -> str | None:
        """Why ``keys`` are provided now (``"keys"``: new keys, ``"grown"``, ``"regrown"``,
        ``"refresh"``, ``"retry"``), None: not due."""
        if not keys or self.last_size <= 0 or now - self.provide_at < PROVIDE_MIN_GAP:
            return None
        if keys != self.provided:
            return "keys"
        grown = self._grown(self.provide_size, self.provide_estimate, now)
        if grown is not None:
            return grown
        if now - self.provide_at >= self.refresh:
            return "refresh"
        return "retry" if now >= self.retry_at else None

    def provide_started(self, keys: tuple[bytes, ...], now: float) -> None:
        """A provide round of ``keys`` starts (best effort: a partial one is completed by the next growth
        or refresh)."""
        self.provided, self.provide_at = keys, now
        self.provide_size = max(self.provide_size, self.last_size)
        self.provide_estimate = max(self.provide_estimate, self.estimate)
        self.retry_at = math.inf

    def provide_finished(self, acknowledged: int, expected: int, now: float) -> None:
        """The round got ``acknowledged`` of the ``expected`` (peer, key) acknowledgements."""
        if expected > 0 and 2 * acknowledged < expected:
            self.retry_at = now + self.retry_gap
            self.retry_gap = min(self.retry_gap * 2, self.refresh)
        else:
            self.retry_gap = PROVIDE_RETRY


__all__ = [
    "ANNOUNCE_GROWTH",
    "ANNOUNCE_MIN_INTERVAL",
    "PROVIDE_REFRESH",
    "PUT_GAP_MAX",
    "REGROWTH",
    "SETTLE",
    "SETTLED_REPLACE",
    "AnnouncePacer",
    "PublishPolicy",
    "grew_enough",
    "regrown",
]
