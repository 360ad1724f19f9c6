"""When this node may start a sync pull: back-off per unreachable member, and a pace for all pulls.

A chat names its members; a member that never answers (offline for good, or a made-up peer ID in a
stranger's genesis) must not cost a failed pull per chat per sync round: after a flood of 1,000
invitations naming 255 unreachable members each, a node tried 48,090 pulls in under a minute.

- **Per member**: a pull that fails because the member cannot be reached (no address, dial or
  stream open failing or timing out) puts the member in back-off for every chat: 5 s, doubling
  up to 10 min; a pull that completes, or the member connecting, ends it. At most
  :data:`MAX_TRACKED` members are remembered (the oldest forgotten first).
- **In total**: pulls start at most ``sync_pulls_total`` times per ``sync_period`` (``[limits]``)
  and at most :data:`PULLS_AT_ONCE` run at once; a pull over the pace is skipped (the periodic
  sync tries again).
- **Quiet chats** (:class:`QuietChats`): the periodic sync pulls a chat every round while it is active;
  each round that pulls it and brings nothing doubles the rounds until its next periodic pull, up to
  :data:`QUIET_MAX_ROUNDS`; any message accepted or posted in the chat makes it active again. Pushes
  (delivery until acknowledged), pulls on a new connection and on unknown parents are not paced by
  this: a chat nobody writes in stops costing every member a pull from every other member every
  ``sync_interval`` (a coordinator idle after ten goal chats of five agents opened 80 sync streams
  every 10 s), while a message only a third member holds still arrives within
  ``QUIET_MAX_ROUNDS x sync_interval``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

import trio

from ioa_p2p.budget import RateBudget
from ioa_p2p.identity import PeerId

FIRST_BACKOFF = 5.0
MAX_BACKOFF = 600.0
MAX_TRACKED = 10_000
#: Sync pulls running at once, all members together.
PULLS_AT_ONCE = 32
#: Most periodic rounds between two periodic pulls of a quiet chat.
QUIET_MAX_ROUNDS = 8


class PullPacer:
    def __init__(self, clock: Callable[[], float], *, per_period: int, period: float) -> None:
        self._clock = clock
        self._backoff: OrderedDict[PeerId, tuple[float, float]] = OrderedDict()  # next try at, delay
        self._pace = RateBudget("sync_pulls_total", period=period, per_key=per_period)
        self.slots = trio.CapacityLimiter(PULLS_AT_ONCE)
        #: pulls not started: the member was in back-off / the total pace was reached; pulls failed
        self.skipped_backoff = 0
        self.skipped_pace = 0
        self.failures = 0

    def in_backoff(self, peer: PeerId) -> bool:
        entry = self._backoff.get(peer)
        return entry is not None and self._clock() < entry[0]

    def may_start(self, peer: PeerId, *, force: bool = False) -> bool:
        """Whether a pull from ``peer`` may start now (``force``: asked for by the application,
        back-off ignored, the total pace not)."""
        if not force and self.in_backoff(peer):
            self.skipped_backoff += 1
            return False
        if not self._pace.take("all", 1, self._clock()):
            self.skipped_pace += 1
            return False
        return True

    def failed(self, peer: PeerId) -> None:
        """``peer`` could not be reached: back off from it, twice as long as last time."""
        self.failures += 1
        entry = self._backoff.pop(peer, None)
        delay = FIRST_BACKOFF if entry is None else min(entry[1] * 2, MAX_BACKOFF)
        self._backoff[peer] = (self._clock() + delay, delay)
        while len(self._backoff) > MAX_TRACKED:
            self._backoff.popitem(last=False)

    def reached(self, peer: PeerId) -> None:
        """``peer`` answered (or connected): no back-off any more."""
        self._backoff.pop(peer, None)

    def snapshot(self) -> dict[str, int]:
        now = self._clock()
        return {
            "members_in_backoff": sum(1 for at, _ in self._backoff.values() if now < at),
            "skipped_backoff": self.skipped_backoff,
            "skipped_pace": self.skipped_pace,
            "failures": self.failures,
            "running": self.slots.borrowed_tokens,
        }


class QuietChats:
    """Which chats the periodic sync pulls this round: every round while a chat is active, then every
    2, 4, ... :data:`QUIET_MAX_ROUNDS` rounds while its pulls bring nothing (pure; one entry per chat
    pulled or active since the start: the loaded chats)."""

    def __init__(self) -> None:
        #: chat -> (rounds between its periodic pulls, rounds left until the next one)
        self._quiet: dict[bytes, tuple[int, int]] = {}
        #: periodic pulls of a chat left out because it was quiet (for tests and diagnostics)
        self.skipped = 0

    def due(self, chat_id: bytes) -> bool:
        """Whether the round starting now pulls ``chat_id`` (counts the round for it)."""
        every, left = self._quiet.get(chat_id, (1, 1))
        if left > 1:
            self._quiet[chat_id] = (every, left - 1)
            self.skipped += 1
            return False
        return True

    def pulled(self, chat_id: bytes, received: int) -> None:
        """A periodic pull of ``chat_id`` from its members brought ``received`` new messages."""
        if received:
            self.active(chat_id)
            return
        every, _ = self._quiet.get(chat_id, (1, 1))
        every = min(every * 2, QUIET_MAX_ROUNDS)
        self._quiet[chat_id] = (every, every)

    def active(self, chat_id: bytes) -> None:
        """A message of ``chat_id`` was accepted or posted: pull it every round again."""
        self._quiet.pop(chat_id, None)

    def rounds_between(self, chat_id: bytes) -> int:
        return self._quiet.get(chat_id, (1, 1))[0]

    def forget(self, keep: set[bytes]) -> None:
        """Drop the chats not in ``keep`` (no longer loaded member chats)."""
        for chat_id in [c for c in self._quiet if c not in keep]:
            del self._quiet[chat_id]


__all__ = ["FIRST_BACKOFF", "MAX_BACKOFF", "PULLS_AT_ONCE", "QUIET_MAX_ROUNDS", "PullPacer", "QuietChats"]
