"""One round of DHT stores on trio: when its caller's wait ends, and when the round itself ends.

A record put, a page put or a provide round (:mod:`~ioa_p2p.node.net.kad_write`) sends each key to its
``K`` closest peers. Two moments matter (:mod:`~ioa_p2p.dht.quorum`):

- **the publish is done** once the record is findable: every key has its quorum of acknowledgements
  (:attr:`StoreQuorum.placed <ioa_p2p.dht.quorum.StoreQuorum.placed>`; stores sent during the lookup
  count, :mod:`~ioa_p2p.dht.early`). A caller that starts the round with ``nursery.start(...)`` gets its
  answer then (:class:`Handoff`: ``task_status.started(...)``), and the rest of the round goes on in that
  nursery (the caller's, owned by the node: nothing fire-and-forget); a caller that awaits the round
  directly waits for its end, as before;
- **the round ends** (:class:`QuorumRound`) once its targets are final, every key has its quorum and the
  other targets had :func:`~ioa_p2p.dht.quorum.grace` to answer, or at once when every target has been
  heard from. A ``complete`` round (a withdrawal's tombstone) waits for every target instead, and answers
  its caller only then: each store is bounded by the per-peer timeout, so every live target of the
  tombstone has it within the lookup and that timeout when the caller goes on (an owner that withdraws
  and then stops leaves no closest peer with only its old card but one that did not answer).

Without churn every target of a round answers, the last of them after a dial (at 10,000 simulated
nodes: quorum placed at 0.78 s p50, last target 1.13 s); the publish is done at the first.
Either way the round is bounded by :data:`ROUND_LIMIT` from its start: once its caller's wait ended,
nothing else bounds it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

import trio

from ioa_p2p.dht.quorum import StoreQuorum, grace

#: Seconds a round of stores may take at most, its lookup included (the node's publishing loop bounded
#: each call by the same 60 s: ``ioa_p2p.node.discovery.loops.DHT_PUBLISH_TIMEOUT``).
ROUND_LIMIT = 60.0

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


class Started(Protocol[T_contra]):
    """What ``trio.Nursery.start`` hands a task as ``task_status`` (``trio.TASK_STATUS_IGNORED`` when the
    task is awaited directly); typed here because the stubs mypy reads do not name it under ``trio``."""

    def started(self, value: T_contra) -> None: ...


class Handoff(Generic[T]):
    """The caller's end of a round: ``nursery.start(round, ...)`` returns the value :meth:`release` gives,
    once (later calls do nothing). With ``trio.TASK_STATUS_IGNORED`` (the round awaited directly) it only
    records that the caller was answered."""

    __slots__ = ("released", "task_status")

    def __init__(self, task_status: Started[T]) -> None:
        self.task_status = task_status
        self.released = False

    def release(self, value: T) -> None:
        if not self.released:
            self.released = True
            self.task_status.started(value)


class QuorumRound:
    """Ends a round of stores (the nursery whose scope :meth:`watch` is given) once its
    :class:`~ioa_p2p.dht.quorum.StoreQuorum` is reached and :func:`~ioa_p2p.dht.quorum.grace` has passed,
    or at once when every target has been heard from; ``complete``: only when every target has been
    heard from (answered, refused or timed out). Report each answer with :meth:`acked` or
    :meth:`gave_up`."""

    def __init__(
        self, targets: dict[bytes, list[bytes]], began: float, *, final: bool = True, complete: bool = False
    ) -> None:
        self.quorum = StoreQuorum(targets, final=final)
        self.began = began  # when the round started (its lookup included)
        self.complete = complete
        self._wake = trio.Event()

    def _changed(self) -> None:
        """Wake every waiter (each waits on the event current when it checked)."""
        self._wake.set()
        self._wake = trio.Event()

    def add(self, key: bytes, peers: list[bytes]) -> None:
        """Stores of ``key`` sent to ``peers`` while the lookup runs."""
        self.quorum.add(key, peers)

    def finalise(self, targets: dict[bytes, list[bytes]]) -> None:
        """The lookup is done: ``targets`` (key -> peers) are the last ones."""
        self.quorum.finalise(targets)
        self._changed()

    def acked(self, peer: bytes, keys: list[bytes]) -> None:
        self.quorum.acked(peer, keys)
        self._changed()

    def gave_up(self, peer: bytes, keys: list[bytes]) -> None:
        self.quorum.gave_up(peer, keys)
        self._changed()

    def note(self) -> None:
        """Something ``holding`` (see :meth:`watch`) depends on changed."""
        self._changed()

    async def _until(self, condition: Callable[[], bool]) -> None:
        while not condition():
            await self._wake.wait()

    async def watch(
        self,
        scope: trio.CancelScope,
        holding: Callable[[], bool] = lambda: False,
        placed: Callable[[], None] = lambda: None,
    ) -> None:
        """Call ``placed()`` once every key has its quorum (the publish is done: :class:`Handoff`), and
        cancel ``scope`` when the round is over; not while ``holding()`` (keys not sent yet, e.g. held
        back by a pacer: they are not gone targets) is true."""
        quorum = self.quorum
        await self._until(lambda: quorum.placed)
        placed()
        await self._until(lambda: quorum.reached)
        if self.complete:
            await self._until(lambda: quorum.settled)
        else:
            with trio.move_on_after(grace(trio.current_time() - self.began)):
                await self._until(lambda: quorum.settled)
        await self._until(lambda: quorum.settled or not holding())
        scope.cancel()


__all__ = ["ROUND_LIMIT", "Handoff", "QuorumRound", "Started"]
