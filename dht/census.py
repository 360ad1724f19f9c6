"""Whether a node's directory lists the whole (small) network: the census (pure; times in seconds).

A find ranks only the cards its node holds when the directory is *complete*; otherwise it asks the DHT
as well and merges the answer with the directory's cards. Counting cards against the network size
estimate (:func:`~ioa_p2p.dht.keyspace.estimate_network_size`) is no proof: the estimate comes from the
routing table, and a node that joined late or knows part of the network estimates low (38 for 50 nodes,
so a directory of 34 cards looked complete and 9 finds of 10 missed cards: docs/performance.md), or high
(70-79 for 50, so a complete directory looked incomplete).

A *census* asks the network itself who publishes cards: in a network small enough to be listed
(``[discovery] enumerate``), every card is in exactly one level-4 bucket of table 0 of its family's
forest (:mod:`~ioa_p2p.dht.forest`), so the 16 pages of those buckets (:mod:`~ioa_p2p.dht.pages`; their
provider records with pages off) name every publisher, merged from several storing peers. The node fetches the
cards it lacks among them (this is also how a late joiner's directory fills: anti-entropy with the DHT,
bounded), and :func:`directory_complete` holds only when

- the directory keeps every card (not past ``keep_all``: then the node relies on the DHT anyway),
- the estimate says the network is small enough to be listed,
- a census was taken recently (:data:`CENSUS_MAX_AGE`) and was not truncated (a full page may have
  left publishers out),
- it named at least :data:`MIN_SHARE` of the estimated network (pages lost, or an estimate far off,
  make it no proof),
- and every peer it named and every card publisher the node knows (gossip neighbours, routing table,
  connections) has its card (or its withdrawal) in the directory, except the peers whose record could
  be found neither from the peer nor in the DHT (a DHT find would not find them either).

Cards published after the census reach the node by gossip (their owners announce them); the census is
taken again on a timer, whenever the estimate grows, and when it is *behind*: the node knows card publishers
it did not name (their cards arrived by gossip, or they are in the routing table or connected), so the
network grew since it was taken (:class:`CensusPolicy`). A census taken while the network grows names only
the publishers whose pages were out by then; gossip misses the announcements made before the announcer had
gossip neighbours (an agent that starts in a process of 25 among 100 agents), so a census that is behind
would leave those cards out until the timer (measured, issue 26: 63 of 100 cards at a coordinator 120 s
after every agent was up, every process lacking about half of the others' cards). Censuses taken because
one was behind that name no new publisher wait twice as long each time (up to the interval): a publisher
that never puts its pages does not make the node take one every :data:`CENSUS_MIN_GAP`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ioa_p2p.dht.catchup import CatchUpPacer
from ioa_p2p.identity import PeerId

#: Seconds between censuses at most, and the age past which a census proves nothing.
CENSUS_INTERVAL = 300.0
CENSUS_MAX_AGE = 2 * CENSUS_INTERVAL
#: A census is taken again when the size estimate grew by this factor since the last one (a joiner's
#: routing table fills in its first seconds), at most once per CENSUS_MIN_GAP seconds.
CENSUS_GROWTH = 2.0
CENSUS_MIN_GAP = 30.0
#: After a census that failed (no answer in time), try again after this many seconds (a forming network
#: of nodes whose censuses fail must not hammer the few peers every node knows, the bootstrap nodes),
#: doubled after each further failure in a row, up to ``CENSUS_INTERVAL``. Measured (issue 25, N = 50
#: processes with gossip on a loaded machine): censuses that ran out of time were retried every 30 s by
#: every node, and the idle network's DHT traffic (census page lookups and card fetches, and serving
#: them) kept 1.4-2.2 cores busy, which made the next censuses fail too.
CENSUS_RETRY = 30.0
#: Peers the routing table must hold before the first census (a node that knows only its bootstrap node
#: has not joined: its lookups would all go through that one peer).
CENSUS_MIN_TABLE = 2
#: A census that names fewer publishers than this share of the estimated network proves nothing.
MIN_SHARE = 0.5
#: The buckets a census lists: level 4 (16 buckets) of table 0.
CENSUS_TABLE, CENSUS_LEVEL = 0, 4


@dataclass(frozen=True, slots=True)
class Census:
    """What one census found: the publishers it named, when, at which size estimate."""

    named: frozenset[PeerId]
    at: float
    size: float
    #: a page held as many entries as a page may hold: publishers may be missing from it
    truncated: bool = False
    #: named peers whose record neither the peer nor the DHT gave (not counted against completeness)
    unavailable: frozenset[PeerId] = frozenset()
    #: the pages read named the node that took (or adopted) it: a newcomer's census names it too
    named_self: bool = False


@dataclass(slots=True)
class SharedCensus:
    """The census of the agents of one process (``[[agents]]``): they are nodes of one network, so the
    publishers one of them counted are the others' too. One census runs at a time in the process
    (``taking``); each agent adopts the newest (``last``) instead of taking its own, and fetches the
    cards it lacks among those named (handed to it in the process, mostly, before it asks).

    ``catch_up``: the pace of the agents' catch-up (:func:`~ioa_p2p.node.discovery.loops.catch_up_loop`),
    shared too: a card one agent asked for is not asked for by the others until its retry is due (the
    process hands every agent a card one of them got, so the agents lack the same cards; each asking on
    its own pace multiplied the owner requests and DHT lookups for a missing card by the agents of the
    process: issue 26, l-scale2)."""

    last: Census | None = None
    taking: bool = False
    catch_up: CatchUpPacer[PeerId] = field(default_factory=CatchUpPacer)

    def newer_than(self, census: Census | None) -> Census | None:
        """The process's census when it is newer than ``census`` (an agent's own), else None."""
        last = self.last
        if last is None or (census is not None and last.at <= census.at):
            return None
        return last


class CensusPolicy:
    """When to take a census, and the last one taken (see the module docstring)."""

    def __init__(
        self,
        interval: float = CENSUS_INTERVAL,
        min_gap: float = CENSUS_MIN_GAP,
        growth: float = CENSUS_GROWTH,
        retry: float = CENSUS_RETRY,
    ) -> None:
        self.interval, self.min_gap, self.growth, self.retry = interval, min_gap, growth, retry
        self.last: Census | None = None
        self._tried_at = -math.inf
        self.taken = 0
        #: censuses of this node's process adopted (taken by another of its agents: SharedCensus)
        self.adopted = 0
        self.failed_count = 0
        self._retry = False  # the last try failed
        self._failures = 0  # tries that failed in a row
        self._quiet = 0  # censuses in a row that named no publisher the one before had not

    def due(self, now: float, size: float, table_size: int, unnamed: int = 0) -> bool:
        """A census is due: the node knows :data:`CENSUS_MIN_TABLE` peers, and none was taken yet (at least
        :meth:`backoff` after the last try), or (at least ``min_gap`` after the last try, and
        :meth:`backoff` after a failed one) the last try failed, or the last census named under
        :data:`MIN_SHARE` of the estimated network, or it is older than the interval, or the estimate grew
        by ``growth`` since, or it is behind (``unnamed``: card publishers the node knows that it did not
        name) and :meth:`behind_gap` has passed since it was taken."""
        if table_size < CENSUS_MIN_TABLE:
            return False
        last = self.last
        if last is None:
            return now - self._tried_at >= self.backoff()
        if now - max(last.at, self._tried_at) < max(self.min_gap, self.backoff() if self._retry else 0.0):
            return False
        weak = self._retry or len(last.named) < MIN_SHARE * size  # it proves nothing: try again soon
        behind = unnamed > 0 and now - last.at >= self.behind_gap()
        return weak or behind or now - last.at >= self.interval or size >= self.growth * max(last.size, 1.0)

    def behind_gap(self) -> float:
        """Seconds after a census before one taken because it is behind: ``min_gap``, doubled for each
        census in a row that named no new publisher, at most ``interval``."""
        return min(self.min_gap * 2.0 ** min(self._quiet, 16), max(self.interval, self.min_gap))

    def started(self, now: float) -> None:
        self._tried_at = now

    def may_retry(self, now: float) -> bool:
        """False while the back-off of a failed try runs (:meth:`backoff`)."""
        return not self._retry or now - self._tried_at >= self.backoff()

    def backoff(self) -> float:
        """Seconds between a failed try and the next: ``retry``, doubled for each further failure in a
        row, at most ``interval``."""
        doublings = max(self._failures - 1, 0)
        return min(self.retry * 2.0 ** min(doublings, 16), max(self.interval, self.retry))

    def failed(self) -> None:
        self.failed_count += 1
        self._failures += 1
        self._retry = True

    def record(self, census: Census, *, adopted: bool = False) -> None:
        previous = self.last
        self._quiet = self._quiet + 1 if previous is not None and census.named <= previous.named else 0
        self.last = census
        self.taken += not adopted
        self.adopted += adopted
        self._retry = False
        self._failures = 0

    def status(self, now: float) -> dict[str, object]:
        last = self.last
        return {
            "taken": self.taken,
            "adopted": self.adopted,
            "failed": self.failed_count,
            "named": None if last is None else len(last.named),
            "age_s": None if last is None else round(now - last.at, 1),
            "truncated": None if last is None else last.truncated,
        }


def directory_complete(
    census: Census | None,
    *,
    now: float,
    size: float,
    enumerate_up_to: int,
    partial: bool,
    held: Callable[[PeerId], bool],
    known: Iterable[PeerId],
    max_age: float = CENSUS_MAX_AGE,
) -> bool:
    """Whether a find may rank the directory alone (see the module docstring). ``held(peer)``: the
    directory holds the peer's card or its withdrawal (or it is this node); ``known``: the card publishers
    this node knows of."""
    if partial or size > enumerate_up_to or census is None or census.truncated:
        return False
    if now - census.at > max_age or len(census.named) < MIN_SHARE * size:
        return False
    if not all(held(p) for p in census.named if p not in census.unavailable):
        return False
    return all(held(p) for p in known)


def card_pulled(
    census: Census | None,
    *,
    now: float,
    held: Callable[[PeerId], bool],
    size: float = 0.0,
    max_age: float = CENSUS_MAX_AGE,
) -> bool:
    """Whether newcomers get this node's card by pulling it, so that the card topic's growth needs no
    re-announcement (:meth:`~ioa_p2p.dht.pacing.AnnouncePacer.due`): a recent census, not truncated and
    naming at least :data:`MIN_SHARE` of the network it estimated and of the one estimated now (``size``:
    a census taken early in a start proves nothing once the network grew), named the node's own card (a
    newcomer's census names it too: its page is out where censuses read), and the node holds every card
    it named (``held``; the network formed around it). Peers known but not named (newcomers whose cards
    are on their way) do not count against it, as they do against :func:`directory_complete`."""
    if census is None or not census.named_self or census.truncated or now - census.at > max_age:
        return False
    if len(census.named) + 1 < MIN_SHARE * max(census.size, size):
        return False
    return all(held(p) for p in census.named if p not in census.unavailable)


__all__ = [
    "CENSUS_GROWTH",
    "CENSUS_INTERVAL",
    "CENSUS_LEVEL",
    "CENSUS_MAX_AGE",
    "CENSUS_MIN_GAP",
    "CENSUS_MIN_TABLE",
    "CENSUS_RETRY",
    "CENSUS_TABLE",
    "MIN_SHARE",
    "Census",
    "CensusPolicy",
    "SharedCensus",
    "card_pulled",
    "directory_complete",
]
