"""The run's lookup slots: how many peer lookups the nodes of one trio run (the agents of one process) have in
flight at once, and who goes first when they are all taken.

Measured (issue 26): with 25 agents in a process every agent's lookups ran at once, each asking busy
agents of the same loop, and 75-90 % of them reached their timeout and were redone, on a quiet box too;
so at most ``total`` run at once (:data:`~ioa_p2p.node.net.routing.LOOKUP_SLOTS`) and the others wait
their turn before their timeout starts. A FIFO queue made the last agents to start wait 2-52 s behind the
routine self-lookups of the agents already up (a table of 40-50 peers that a refresh hardly changes) for
their first lookup, which is what gives them a routing table at all: they stayed with the bootstrap node
alone, no remote connection and no card-topic peer for a minute and more (docs/performance.md, issue 26,
"Ninth round"). Here a *joining* node's lookup (its table still small) takes the next free slot ahead of
every routine one; among joiners, and among the others, first come first served. The total still holds.
"""

from __future__ import annotations

import heapq
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import trio

#: A node whose routing table holds fewer peers than this is joining (its lookups go first).
JOINING_TABLE = 8


@dataclass(slots=True)
class SlotCounts:
    """What the slots did: lookups granted at once, after a wait, and waits a joiner jumped ahead."""

    at_once: int = 0
    waited: int = 0
    joiners_first: int = 0


class LookupSlots:
    """At most ``total`` holders at once; waiting joiners are served before waiting others."""

    def __init__(self, total: int) -> None:
        if total < 1:
            raise ValueError("at least one lookup slot is needed")
        self.total = total
        self.busy = 0
        self.counts = SlotCounts()
        self._queue: list[tuple[int, int, trio.Event]] = []  # (0 joining / 1 routine, arrival, wake-up)
        self._arrivals = 0

    @property
    def waiting(self) -> int:
        return len(self._queue)

    @asynccontextmanager
    async def slot(self, *, joining: bool) -> AsyncIterator[None]:
        """Hold one slot for the block (waiting for one first when all are taken)."""
        await self._acquire(joining)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, joining: bool) -> None:
        if self.busy < self.total and not self._queue:
            self.busy += 1
            self.counts.at_once += 1
            return
        entry = (0 if joining else 1, self._arrivals, trio.Event())
        self._arrivals += 1
        if joining and any(rank == 1 for rank, _, _ in self._queue):
            self.counts.joiners_first += 1
        heapq.heappush(self._queue, entry)
        try:
            await entry[2].wait()
        except BaseException:  # cancelled while waiting (trio.Cancelled is re-raised below)
            if entry[2].is_set():  # the slot was handed over just now: pass it on
                self._release()
            else:
                self._queue.remove(entry)
                heapq.heapify(self._queue)
            raise
        self.counts.waited += 1

    def _release(self) -> None:
        if self._queue:  # the slot goes straight to the next in line (busy stays the same)
            heapq.heappop(self._queue)[2].set()
        else:
            self.busy -= 1


__all__ = ["JOINING_TABLE", "LookupSlots", "SlotCounts"]
