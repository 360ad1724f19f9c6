"""Bounded logs of goal events with sequence numbers, read from a cursor (the trio layer of resumable
streams, docs/protocol.md §7.3).

An :class:`EventLog` numbers its events 1, 2, ... and keeps the last ``capacity``; its ``epoch`` (random)
tells a cursor of this log from one of an earlier log of the same chat (a restarted node or driver).
Readers never hold a buffer of their own: each reads the log after the last sequence number it saw, so
a slow or gone reader costs nothing, and one that fell further behind than the log keeps is told how
many events it missed (:attr:`Batch.missed`). Every chat driver keeps the log of its chat; the goals
service keeps the log of each launch (:class:`~ioa_p2p.node.goals.launches.LaunchLogs`).
"""

from __future__ import annotations

import secrets
from collections import deque
from dataclasses import dataclass
from itertools import islice
from typing import Generic, TypeVar

import trio

from ioa_p2p.api.events import ResetEvent
from ioa_p2p.api.stream import Cursor
from ioa_p2p.errors import InvalidField

E = TypeVar("E")

#: Events a log keeps (a chat's, a launch's).
EVENT_LOG = 2000


@dataclass(frozen=True, slots=True)
class Batch(Generic[E]):
    """Events after a cursor: ``missed`` events no longer held, then ``entries`` (seq, event)."""

    missed: int
    entries: tuple[tuple[int, E], ...]


class EventLog(Generic[E]):
    """A bounded, numbered log of events (see the module docstring)."""

    def __init__(self, capacity: int = EVENT_LOG, epoch: str | None = None) -> None:
        self.epoch = epoch or secrets.token_hex(8)
        self.closed = False
        self._items: deque[tuple[int, E]] = deque(maxlen=capacity)
        self._last = 0
        self._changed = trio.Event()

    @property
    def last_seq(self) -> int:
        return self._last

    def append(self, event: E) -> int:
        """Log ``event``; its sequence number. Readers waiting for it wake up."""
        if self.closed:
            raise RuntimeError("append to a closed event log")
        self._last += 1
        self._items.append((self._last, event))
        self._wake()
        return self._last

    def close(self) -> None:
        """No more events: readers that read everything see the end."""
        self.closed = True
        self._wake()

    def cursor(self, seq: int) -> Cursor:
        return Cursor(self.epoch, seq)

    def start(self, after: Cursor | None) -> tuple[int, ResetEvent | None]:
        """Where a reader resuming ``after`` begins: the sequence number to read after, and a
        :class:`ResetEvent` when the cursor is of another log (it then reads this one from its start)."""
        if after is None:
            return 0, None
        if after.epoch and after.epoch != self.epoch:
            return 0, ResetEvent(self.epoch)
        if after.seq > self._last:
            raise InvalidField("after", f"cursor {after} is past the last event ({self.cursor(self._last)})")
        return after.seq, None

    def entries_after(self, seq: int) -> Batch[E]:
        """What follows ``seq`` now (no waiting)."""
        if not self._items or self._items[-1][0] <= seq:
            return Batch(0, ())
        first = self._items[0][0]
        missed = max(0, first - seq - 1)
        skip = max(0, seq + 1 - first)
        return Batch(missed, tuple(islice(self._items, skip, None)))

    async def wait_after(self, seq: int) -> Batch[E]:
        """What follows ``seq``, waiting (callers bound it) until there is something or the log closes."""
        while True:
            batch = self.entries_after(seq)
            if batch.entries or self.closed:
                return batch
            await self._changed.wait()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()


__all__ = ["EVENT_LOG", "Batch", "EventLog"]
