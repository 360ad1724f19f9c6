"""When identities first reached this node, and which of them came in a flood (pure).

A stranger with a thousand fresh identities can write plausible cards (a paraphrase of an honest card
has no trait its sketch shows), stamp each one and keep them live for longer than ``trust_age``. What
it cannot fake is *when this node first saw them*: the node watches the card topic for as long as it
runs, and honest agents join a network a few at a time, while a thousand identities that were minted
to take over a capability arrive together (the admission limits, ``dht/admission.py``, spread them over
minutes, not days). :class:`ArrivalBook` keeps, per identity, the time this node first saw a valid,
stamped card of it that its admission limits let in (and the source network it came from, where the node
observed it: :meth:`ArrivalBook.first_source`, for limits and ranking by source), and per hour-long window
how many new identities arrived. A window is a *flood* when it brought more than :data:`SLACK` times the
node's usual number (the median over its last :data:`HISTORY_WINDOWS` windows, at least :data:`MIN_BASE`);
an identity's flood share (:meth:`ArrivalBook.excess`) is the share of its window's arrivals beyond that,
and :meth:`ArrivalBook.penalties` turns it into score units a page search takes off the identity's sketch
before it chooses what to fetch (:func:`~ioa_p2p.dht.fetchchoice.choose_fetch`, ``flood``).

A *sleeper* (one identity of a flood that does its tasks, to earn the standing an honest agent earns) is
not let off by one task: evidence of work lifts the penalty a share per window of it
(:func:`unproven_share`), so a burst of accepted tasks in one hour lifts no more than one task does.

What this evidence is worth, stated plainly:

- it needs history: arrivals in the node's first :data:`WARMUP_WINDOWS` (everything already in the
  network arrives at once when a node starts) and before :data:`MIN_WINDOWS` full windows have passed
  are not judged (nothing is penalised then: no evidence is no evidence). The book survives a restart
  (:class:`ArrivalState`, kept by ``node/discovery/arrival_store.py``): a resumed book judges the floods
  it saw before; the hour after a restart (what joined while the node was down arrives at once) is a
  flood only past :data:`SLACK` times the usual count times one plus the windows it was down
  (:data:`NEVER` judged: the first start's), and windows the node was down for are left out of the usual
  count (no arrivals seen is not no arrivals);
- an attacker that trickles its identities in at the network's usual rate is not seen, at the price
  of time: to move the median it must keep that rate up for half of :data:`HISTORY_WINDOWS` (a week);
- honest agents that join in the same window as a flood share its penalty until they have done work
  for this node for a while (:func:`unproven_share`: the first accepted task lifts a third, each hour
  since another third; operator-trusted peers are exempt), and an attacker that floods when an honest
  group joins makes that group look like part of its flood (each of its identities still pays a stamp);
- it is a penalty, never a credit: an identity the book does not know (evicted past
  :data:`CAPACITY`, or only ever seen on pages) loses nothing; so an attacker can make the book forget
  a flood by bringing :data:`CAPACITY` more identities after it (the node notes only announcements
  within its admission limits, 120 new identities a minute: 9 hours, each identity stamped).
"""

from __future__ import annotations

import statistics
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from ioa_p2p.identity import PeerId

#: Length of a window (ms) over which new identities are counted.
WINDOW_MS = 3_600_000
#: Windows of history whose median count is the node's usual rate (two weeks of hours).
HISTORY_WINDOWS = 14 * 24
#: The node's first windows: what was already in the network arrives at once; not judged.
WARMUP_WINDOWS = 1
#: Full windows of history (after the warm-up) needed before any window is judged.
MIN_WINDOWS = 6
#: A window is a flood past this many times the usual count; the usual count is at least MIN_BASE.
SLACK = 4.0
MIN_BASE = 1.0
#: Score units (:class:`~ioa_p2p.dht.sketchscore.SketchScorer`: standardised cosines) an identity whose
#: whole window is flood loses at most; the same as the margin within which a proven candidate wins a
#: fetch slot (:data:`~ioa_p2p.dht.fetchevidence.PROVEN_MARGIN`): an entry that came in a flood yields to
#: one that did not when they score within that margin.
FLOOD_WEIGHT = 3.0
#: Evidence of work lifts the penalty by a share per window of it, never all at once: an identity's first
#: accepted task here lifts 1 / PROOF_WINDOWS, each window (ms) since that first task one more share, so a
#: sleeper (one of a flood that does its tasks to earn standing) keeps most of its penalty for hours
#: however many tasks it does in a burst; operator-trusted peers are exempt.
PROOF_WINDOWS = 3
PROOF_WINDOW_MS = WINDOW_MS
#: Identities remembered at most (the oldest first seen are forgotten first: unknown, never penalised).
CAPACITY = 65_536
#: A catch-up window (:attr:`ArrivalBook.catch_up`) that is never judged: the node's first start.
NEVER = -1
#: The longest first-seen source kept (``relay:<peer id>``, ``a.b.c.0/24``, ``x:x:x::/48``); a longer one
#: is not kept.
MAX_SOURCE_LEN = 128


#: Changes remembered between two saves at most (:meth:`ArrivalBook.drain`); past it the next save rewrites
#: the whole book.
PENDING_MAX = 2 * CAPACITY


@dataclass(frozen=True, slots=True)
class ArrivalState:
    """What a node keeps of its :class:`ArrivalBook` across restarts: the book's origin (window 0 starts
    there), first-seen times (oldest first), new identities per window, the windows the node was running
    in (``watched``) and its catch-up windows (the first after each start: how many windows the node had
    been down before it, :data:`NEVER` for the first start's)."""

    origin_ms: int
    first: tuple[tuple[PeerId, int], ...]
    counts: Mapping[int, int]
    watched: frozenset[int]
    catch_up: Mapping[int, int]
    #: the source network each identity's first admitted announcement arrived from, where it was observed
    sources: Mapping[PeerId, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ArrivalChanges:
    """What changed since the last save (:meth:`ArrivalBook.drain`): first-seen times added, identities
    forgotten, or (``rewrite``) every first-seen time held; and the windows to keep (a few hundred)."""

    origin_ms: int
    added: tuple[tuple[PeerId, int], ...]
    forgotten: tuple[PeerId, ...]
    rewrite: bool
    windows: tuple[tuple[int, int, int | None], ...]  # (window, new identities, catch-up), watched ones
    #: first-seen sources of the identities in ``added`` that have one
    sources: Mapping[PeerId, str] = field(default_factory=dict)


class ArrivalBook:
    """First-seen times of identities at this node and the count of new ones per window (bounded)."""

    def __init__(
        self,
        started_ms: int,
        *,
        window_ms: int = WINDOW_MS,
        history: int = HISTORY_WINDOWS,
        capacity: int = CAPACITY,
    ) -> None:
        if window_ms <= 0 or history <= 0 or capacity <= 0:
            raise ValueError("window_ms, history and capacity must be positive")
        self.started_ms = started_ms  # the book's origin: window 0 starts there
        self.window_ms, self.history, self.capacity = window_ms, history, capacity
        self._first: OrderedDict[PeerId, int] = OrderedDict()
        #: the source network of each identity's first arrival, where it was observed (a subset of _first)
        self._source: dict[PeerId, str] = {}
        self._counts: dict[int, int] = {}
        self._pruned = 0  # the window up to which old counts were dropped
        self._run = 0  # the window this run of the node started in (watched from there on)
        self._watched: set[int] = set()  # windows of earlier runs the node was running in
        #: the first windows after each start: how many windows the node had been down (NEVER: first start)
        self.catch_up: dict[int, int] = dict.fromkeys(range(WARMUP_WINDOWS), NEVER)
        self._pending: OrderedDict[PeerId, int | None] = OrderedDict()  # since the last save
        self._rewrite = False

    @classmethod
    def resume(
        cls,
        state: ArrivalState,
        now_ms: int,
        *,
        window_ms: int = WINDOW_MS,
        history: int = HISTORY_WINDOWS,
        capacity: int = CAPACITY,
    ) -> ArrivalBook:
        """The book a node kept (``state``), restarted at ``now_ms``: what it saw before is judged as
        before; this start's first windows are catch-up windows (:attr:`catch_up`: allowed the arrivals
        of the windows it was down), and the time it was down is no history. Raises
        ``ValueError`` for a state that cannot be this node's (an origin after ``now_ms``)."""
        if state.origin_ms > now_ms:
            raise ValueError("the arrival record starts after now (the clock went back?)")
        book = cls(state.origin_ms, window_ms=window_ms, history=history, capacity=capacity)
        book._run = book.window(now_ms)
        oldest = book._run - history - WARMUP_WINDOWS
        book._watched = {w for w in state.watched if oldest <= w < book._run}
        before = [w for w in state.watched if w <= book._run]
        down = min(history, max(0, book._run - max(before) - 1)) if before else NEVER
        book.catch_up = {w: n for w, n in state.catch_up.items() if w >= oldest}
        for w in range(book._run, book.window(now_ms + WARMUP_WINDOWS * window_ms - 1) + 1):
            book.catch_up[w] = down
        book._counts = {w: c for w, c in state.counts.items() if w >= oldest and c > 0}
        book._pruned = book._run
        for peer, ms in state.first[-capacity:]:
            book._first[peer] = ms
            source = state.sources.get(peer)
            if source is not None and len(source) <= MAX_SOURCE_LEN:
                book._source[peer] = source
        return book

    def __len__(self) -> int:
        return len(self._first)

    def window(self, at_ms: int) -> int:
        """The index of the window ``at_ms`` falls in (0: the node's first)."""
        return (at_ms - self.started_ms) // self.window_ms

    def note(self, peer: PeerId, now_ms: int, source: str | None = None) -> bool:
        """Record that ``peer`` was seen at ``now_ms``, arriving from the source network ``source`` (what
        the node observed: the connection it came on; None: not known); True when it is new to the book
        (a later arrival changes neither its time nor its source)."""
        if peer in self._first:
            return False
        self._first[peer] = now_ms
        if source is not None and len(source) <= MAX_SOURCE_LEN:
            self._source[peer] = source
        self._changed(peer, now_ms)
        w = self.window(now_ms)
        self._counts[w] = self._counts.get(w, 0) + 1
        while len(self._first) > self.capacity:
            gone = self._first.popitem(last=False)[0]
            self._source.pop(gone, None)
            self._changed(gone, None)
        if w > self._pruned:  # counts older than the history are never read again
            self._pruned = w
            oldest = w - self.history - WARMUP_WINDOWS
            for old in [k for k in self._counts if k < oldest]:
                del self._counts[old]
            self._watched = {k for k in self._watched if k >= oldest}
            self.catch_up = {k: v for k, v in self.catch_up.items() if k >= oldest}
        return True

    def _changed(self, peer: PeerId, ms: int | None) -> None:
        """Note for the next save that ``peer`` was added (``ms``) or forgotten (None)."""
        if self._rewrite:
            return
        self._pending.pop(peer, None)
        self._pending[peer] = ms
        if len(self._pending) > PENDING_MAX:  # nobody saves: the next save rewrites everything
            self._pending.clear()
            self._rewrite = True

    def unsaved(self) -> None:
        """A save of :meth:`drain`'s changes failed: the next drain gives every first-seen time held."""
        self._pending.clear()
        self._rewrite = True

    def watched(self, w: int) -> bool:
        """Whether the node was running in window ``w`` (this run, or an earlier one it kept)."""
        return w >= self._run or w in self._watched

    def drain(self, now_ms: int) -> ArrivalChanges:
        """What to save now: the first-seen changes since the last drain (then forgotten here) and the
        windows of the history that the node watched."""
        added = tuple((p, ms) for p, ms in self._pending.items() if ms is not None)
        forgotten = tuple(p for p, ms in self._pending.items() if ms is None)
        if self._rewrite:
            added, forgotten = tuple(self._first.items()), ()
        rewrite, self._rewrite = self._rewrite, False
        self._pending.clear()
        sources = {p: self._source[p] for p, _ in added if p in self._source}
        return ArrivalChanges(self.started_ms, added, forgotten, rewrite, self._windows(now_ms), sources)

    def _windows(self, now_ms: int) -> tuple[tuple[int, int, int | None], ...]:
        last = self.window(now_ms)
        oldest = last - self.history - WARMUP_WINDOWS
        ws = {w for w in self._watched if w >= oldest} | set(range(max(self._run, oldest), last + 1))
        return tuple((w, self._counts.get(w, 0), self.catch_up.get(w)) for w in sorted(ws))

    def state(self, now_ms: int) -> ArrivalState:
        """Everything the book holds (what :meth:`resume` takes)."""
        windows = self._windows(now_ms)
        return ArrivalState(
            self.started_ms,
            tuple(self._first.items()),
            {w: c for w, c, _ in windows if c},
            frozenset(w for w, _, _ in windows),
            {w: n for w, _, n in windows if n is not None},
            dict(self._source),
        )

    def first_seen(self, peer: PeerId) -> int | None:
        return self._first.get(peer)

    def first_source(self, peer: PeerId) -> str | None:
        """The source network ``peer``'s first admitted announcement arrived from (None: not observed, or
        not in the book)."""
        return self._source.get(peer)

    def from_source(self, source: str) -> int:
        """How many identities of the book first arrived from ``source``."""
        return sum(1 for s in self._source.values() if s == source)

    def usual(self, now_ms: int) -> float | None:
        """The usual count of new identities per window: the median over the full windows of the last
        :attr:`history` that the node watched, past each start's warm-up (empty ones count), at least
        :data:`MIN_BASE`; None while fewer than :data:`MIN_WINDOWS` such windows have passed."""
        last = self.window(now_ms) - 1  # the last full window
        first = max(0, last - self.history + 1)
        ws = [w for w in range(first, last + 1) if self.watched(w) and w not in self.catch_up]
        if len(ws) < MIN_WINDOWS:
            return None
        return max(MIN_BASE, float(statistics.median(self._counts.get(w, 0) for w in ws)))

    def excess(self, peer: PeerId, now_ms: int, usual: float | None = None) -> float:
        """The share of the arrivals of ``peer``'s window beyond :data:`SLACK` times the usual count, times
        one plus the windows the node had been down in a catch-up window (0: unknown peer, the first
        start's window, not enough history, or no flood)."""
        seen = self._first.get(peer)
        if seen is None:
            return 0.0
        w = self.window(seen)
        base = self.usual(now_ms) if usual is None else usual
        down = self.catch_up.get(w, 0)
        if base is None or down == NEVER:
            return 0.0
        count = self._counts.get(w, 0)
        return max(0.0, 1.0 - SLACK * base * (1 + down) / count) if count else 0.0

    def penalties(
        self,
        peers: Iterable[PeerId],
        now_ms: int,
        *,
        weight: float = FLOOD_WEIGHT,
        exempt: Collection[PeerId] = (),
        proven_since: Mapping[PeerId, int] | None = None,
    ) -> dict[PeerId, float]:
        """Score units to take off each of ``peers`` that came in a flood: ``weight`` times its
        :meth:`excess`, times what its evidence of work leaves (:func:`unproven_share`; ``proven_since``:
        when each proven peer's first accepted task here was, ms); none for ``exempt`` peers (trusted by
        the operator); peers with no penalty are left out."""
        base = self.usual(now_ms)
        if base is None:
            return {}
        since = proven_since or {}
        out: dict[PeerId, float] = {}
        for peer in peers:
            if peer in exempt:
                continue
            share = self.excess(peer, now_ms, base) * unproven_share(since.get(peer), now_ms)
            if share > 0.0:
                out[peer] = weight * share
        return out

    def counts(self) -> Mapping[int, int]:
        """New identities per window index (a copy)."""
        return dict(self._counts)


def beyond(penalties: Mapping[PeerId, float], already: Mapping[PeerId, float]) -> dict[PeerId, float]:
    """``penalties`` less what each peer already pays for the same suspicion (``already``: score units,
    e.g. the young penalty of an identity first held less than ``trust_age`` ago: a flood is new
    identities too, so a young one pays the larger of the two, not both); peers left with none dropped."""
    out = {p: v - already.get(p, 0.0) for p, v in penalties.items()}
    return {p: v for p, v in out.items() if v > 0.0}


def unproven_share(first_done_ms: int | None, now_ms: int) -> float:
    """What is left of a flood penalty for an identity whose first accepted task here was at
    ``first_done_ms`` (None: none): 1 without one, else ``1 - k / PROOF_WINDOWS`` with ``k`` one plus the
    whole :data:`PROOF_WINDOW_MS` windows since (0 after ``PROOF_WINDOWS - 1`` windows)."""
    if first_done_ms is None:
        return 1.0
    k = 1 + max(0, now_ms - first_done_ms) // PROOF_WINDOW_MS
    return max(0.0, 1.0 - k / PROOF_WINDOWS)


__all__ = [
    "CAPACITY",
    "FLOOD_WEIGHT",
    "HISTORY_WINDOWS",
    "MIN_BASE",
    "MAX_SOURCE_LEN",
    "MIN_WINDOWS",
    "NEVER",
    "PENDING_MAX",
    "PROOF_WINDOWS",
    "PROOF_WINDOW_MS",
    "SLACK",
    "WARMUP_WINDOWS",
    "WINDOW_MS",
    "ArrivalBook",
    "ArrivalChanges",
    "ArrivalState",
    "beyond",
    "unproven_share",
]
