"""A batched iterative Kademlia lookup of many keys, as a pure state machine (no I/O, no clock).

The driver (``ioa_p2p.node.net.kad`` on py-libp2p, or a simulator) asks :meth:`Lookup.requests` which peers
to ask now and for which keys, sends each peer its keys in one batch, and reports back with
:meth:`Lookup.answered` (one per key the peer answered), :meth:`Lookup.batch_done`, :meth:`Lookup.failed`
(the peer did not answer: it is never asked again in this lookup) or :meth:`Lookup.slow` (the peer has
not answered within the driver's hedging delay: its keys may ask the next candidate meanwhile, and its
answer still counts when it comes). The driver stops when :attr:`Lookup.done`.

Per key, the lookup keeps its ``width`` closest known candidates (the peers the driver knew at the start,
merged with the closer peers every answer names) and asks the ``ask`` closest ones that have not failed;
a key is finished when its ``ask`` closest candidates that have neither failed nor turned slow have all
answered (Kademlia's termination rule with ``alpha = ask``); when fewer than ``ask`` such candidates
exist, once one of them answered or nothing is left in flight. There are no rounds: a peer's answer lets
its keys move on at once, so one slow peer delays nothing but its own answer. A peer is asked again
(for other keys) once its batch is done; ``budget`` bounds the distinct peers one lookup may contact
(by default :data:`BUDGET`, or :data:`BUDGET_PER_KEY` per key when that is more).

``suspect(peer)`` (the node's recently unreached peers, ``ioa_p2p.dht.rtt.Unreached``): such a peer is
still asked when its turn comes, but counts as slow from the start, so its keys ask the next candidate
at once; if it answers (it is back), the answer counts as any slow peer's does. ``spare`` (set by the
driver under churn, ``Hedges.spare``): each key also asks that many candidates beyond its ``ask``
closest, so that when one of those has gone its stand-in is already asked; the termination rule is
unchanged (the ``ask`` closest usable candidates answered).

What a key collects: the providers (``GET_PROVIDERS``) or values (``GET_VALUE``) of every answer;
:meth:`Lookup.closest` gives the peers to store a record at (the ``width`` closest not known to have
failed, answered or not, like libp2p's ``provide``).
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ioa_p2p.dht.keyspace import K, position

PENDING, SLOW, ANSWERED, FAILED = "pending", "slow", "answered", "failed"
#: Default peers asked per key (the libp2p spec's alpha is 3).
ASK = 3
#: Default bound on the distinct peers one lookup contacts: this many at least, and
#: :data:`BUDGET_PER_KEY` per key of a batched lookup (a 48-key probe plan at 10,000 nodes contacts ~400
#: peers once hedged requests ask the next candidates; a flat 256 left a third of its own buckets short of
#: their closest peers: docs/performance.md, "Card spread at 10,000").
BUDGET = 256
BUDGET_PER_KEY = 16
#: Bounds of the wait for more copies once every key of a quick lookup found something (seconds).
GRACE_LOW, GRACE_HIGH = 0.05, 1.0


@dataclass
class KeyLookup:
    """One key's progress: its closest candidates, the state of each request, what answers carried."""

    key: bytes
    target: int
    candidates: list[bytes]
    asked: dict[bytes, str] = field(default_factory=dict)
    providers: dict[bytes, None] = field(default_factory=dict)  # insertion-ordered set
    values: list[bytes] = field(default_factory=list)

    def merge(self, peers: Iterable[bytes], width: int) -> None:
        """Keep the ``width`` closest of the candidates and ``peers`` (closest first)."""
        target, current = self.target, self.candidates
        if len(current) >= width:  # only a peer closer than the farthest kept one can enter
            farthest = position(current[width - 1]) ^ target
            near = [(d, p) for p in peers if (d := position(p) ^ target) < farthest and p not in current]
            if not near:
                return
            if len(near) == 1:  # the common case late in a lookup: one insertion, no sort
                d, p = near[0]
                i = bisect.bisect_left(current, d, key=lambda c: position(c) ^ target)
                self.candidates = [*current[:i], p, *current[i : width - 1]]
                return
        else:
            near = [(position(p) ^ target, p) for p in peers]
        # distances are distinct for distinct peers, so the pairs sort by distance alone
        merged = {p: d for d, p in near}
        merged.update((p, position(p) ^ target) for p in current)
        self.candidates = [p for _, p in heapq.nsmallest(width, zip(merged.values(), merged, strict=True))]


class Lookup:
    """The lookup of ``keys`` starting from the ``known`` peers (see the module docstring)."""

    def __init__(
        self,
        keys: Iterable[bytes],
        known: Iterable[bytes],
        *,
        me: bytes | None = None,
        ask: int = ASK,
        width: int = K,
        budget: int | None = None,
        suspect: Callable[[bytes], bool] | None = None,
        spare: int = 0,
    ) -> None:
        keys = list(dict.fromkeys(keys))
        if budget is None:
            budget = max(BUDGET, BUDGET_PER_KEY * len(keys))
        if ask < 1 or width < ask or budget < 1:
            raise ValueError(
                f"a lookup needs 1 <= ask <= width and budget >= 1, got {ask}, {width}, {budget}"
            )
        self.me, self.ask, self.width, self.budget = me, ask, width, budget
        self.suspect = suspect
        self.spare = spare
        start = [p for p in dict.fromkeys(known) if p != me]
        self.keys: dict[bytes, KeyLookup] = {}
        for key in dict.fromkeys(keys):
            state = KeyLookup(key, position(key), [])
            state.merge(start, width)
            self.keys[key] = state
        self.busy: set[bytes] = set()  # peers with a batch in flight
        self.hedged: set[bytes] = set()  # busy peers reported slow (or suspected): not waited for
        self.dead: set[bytes] = set()  # peers that failed (never asked again)
        self.contacted: set[bytes] = set()
        self.messages = 0  # (peer, key) requests issued

    # ------------------------------------------------------------------ driving

    def requests(self) -> dict[bytes, list[bytes]]:
        """The batches to send now, by peer (each listed peer becomes busy until :meth:`batch_done` or
        :meth:`failed`); empty when nothing more can be asked until an answer comes."""
        plan: dict[bytes, list[bytes]] = {}
        contacts = len(self.contacted)
        suspect = self.suspect
        for state in self.keys.values():
            if self._finished(state):
                continue
            need = self.ask + self.spare
            for peer in state.candidates:
                if need == 0:
                    break
                status = state.asked.get(peer)
                if status in (ANSWERED, PENDING):
                    need -= 1
                elif status in (SLOW, FAILED) or peer in self.dead:
                    continue
                elif peer in self.busy:  # asked for other keys: this key waits for that batch,
                    if peer not in self.hedged:  # unless it is slow there: then the next one stands in
                        need -= 1
                elif peer in plan or peer in self.contacted or contacts < self.budget:
                    if peer not in plan and peer not in self.contacted:
                        contacts += 1
                    plan.setdefault(peer, []).append(state.key)
                    if suspect is not None and suspect(peer):  # asked, not waited for
                        state.asked[peer] = SLOW
                        self.hedged.add(peer)
                    else:
                        state.asked[peer] = PENDING
                        need -= 1
        for peer, keys in plan.items():
            self.busy.add(peer)
            self.contacted.add(peer)
            self.messages += len(keys)
        return plan

    def answered(
        self,
        peer: bytes,
        key: bytes,
        closer: Sequence[bytes] = (),
        *,
        providers: Sequence[bytes] = (),
        value: bytes | None = None,
    ) -> None:
        """``peer`` answered for ``key``: the closer peers it named, and the providers or value it holds."""
        state = self.keys.get(key)
        if state is None or state.asked.get(peer) not in (PENDING, SLOW):
            return  # not asked (a confused or hostile peer): ignored
        state.asked[peer] = ANSWERED
        fresh = [p for p in closer if p != self.me and p not in self.dead]
        if fresh:
            state.merge(fresh, self.width)
        for provider in providers:
            state.providers[provider] = None
        if value is not None:
            state.values.append(value)

    def batch_done(self, peer: bytes) -> None:
        """``peer``'s batch is over (keys it did not answer count as failed for that peer)."""
        self.busy.discard(peer)
        self.hedged.discard(peer)
        for state in self.keys.values():
            if state.asked.get(peer) in (PENDING, SLOW):
                state.asked[peer] = FAILED

    def failed(self, peer: bytes) -> None:
        """``peer`` did not answer (timeout, refused, reset): never asked again by this lookup."""
        self.dead.add(peer)
        self.batch_done(peer)

    def slow(self, peer: bytes) -> None:
        """``peer`` has not answered within the hedging delay: ask the next candidates meanwhile (for
        its keys, and for the keys it would be asked next once its batch is done)."""
        if peer in self.busy:
            self.hedged.add(peer)
        for state in self.keys.values():
            if state.asked.get(peer) == PENDING:
                state.asked[peer] = SLOW

    # ------------------------------------------------------------------ results

    @property
    def done(self) -> bool:
        """Every key finished, or nothing in flight and nothing left to ask."""
        if all(self._finished(s) for s in self.keys.values()):
            return True
        return not self.busy and not self._askable()

    def finished(self, key: bytes) -> bool:
        return self._finished(self.keys[key])

    @property
    def covered(self) -> bool:
        """Every key finished or found something (a value, or providers): the point from which a driver
        may stop waiting for the slower peers' further copies (:func:`grace_after_covered`)."""
        return all(s.values or s.providers or self._finished(s) for s in self.keys.values())

    def providers(self, key: bytes) -> list[bytes]:
        return list(self.keys[key].providers)

    def values(self, key: bytes) -> list[bytes]:
        return list(self.keys[key].values)

    def closest(self, key: bytes, count: int | None = None) -> list[bytes]:
        """The closest candidates of ``key`` not known to have failed (where to store a record)."""
        state = self.keys[key]
        alive = [p for p in state.candidates if p not in self.dead and state.asked.get(p) != FAILED]
        return alive[: self.width if count is None else count]

    def _finished(self, state: KeyLookup) -> bool:
        need, answered, waiting = self.ask, 0, False
        for peer in state.candidates:
            status = state.asked.get(peer)
            if status == FAILED or peer in self.dead:
                continue
            if status == SLOW or (status is None and peer in self.hedged):  # the next ones stand in for it
                waiting = True
                continue
            if status != ANSWERED:
                return False
            answered += 1
            if answered == need:
                return True
        # fewer than ``ask`` usable candidates: done once one answered, or once nobody is left to wait for
        return answered > 0 or not waiting

    def _askable(self) -> bool:
        for state in self.keys.values():
            if self._finished(state):
                continue
            for peer in state.candidates:
                status = state.asked.get(peer)
                free = status is None and peer not in self.dead and peer not in self.busy
                if free and (len(self.contacted) < self.budget or peer in self.contacted):
                    return True
        return False


def grace_after_covered(elapsed: float, share: float) -> float:
    """How long a lookup that wants a quick answer (bucket pages of a find) still waits for more copies once
    every key found something (:attr:`Lookup.covered`) after ``elapsed`` seconds: ``share`` of that time,
    within :data:`GRACE_LOW` .. :data:`GRACE_HIGH` seconds. The copies of a page held by different peers
    are merges of the same puts, so a second copy adds little in a settled network; the grace lets a
    copy that is just behind the first still count, without waiting for the slowest holder."""
    return min(GRACE_HIGH, max(GRACE_LOW, share * elapsed))


__all__ = [
    "ASK",
    "BUDGET",
    "BUDGET_PER_KEY",
    "GRACE_HIGH",
    "GRACE_LOW",
    "KeyLookup",
    "Lookup",
    "grace_after_covered",
]
