"""Adapters with a long-lived part (a server process, a session, a remote agent's card).

Most adapters allocate lazily and need nothing but ``aclose``. An adapter that must do I/O before its
card is final, or that keeps a connection or a subprocess for its whole life, also implements
:class:`ServedAdapter`: an ``async serve(task_status=...)`` method that opens those resources, calls
``task_status.started()`` once ``describe()`` is final, stays until ``aclose()`` (or cancellation), and
releases everything in ``finally`` blocks. Whoever owns the adapter starts it with
:func:`start_adapter` in a nursery it owns (``open_adapter`` does; a node does it in its goals service
nursery before publishing its card), so no task outlives its owner.

An adapter that is never started must still work: it opens what it needs per task instead (slower,
and with a card built from its options), so ``load_adapter`` + ``run_task`` stays a complete contract.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

import trio


@runtime_checkable
class ServedAdapter(Protocol):
    """An adapter with a long-lived part; see the module docstring."""

    async def serve(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Open the long-lived resources, call ``task_status.started()`` when ``describe()`` is final,
        return after ``aclose()``. A failure before ``started`` is a typed error
        (:class:`~ioa_p2p.errors.AdapterLoadError` for a remote that cannot be used at all); after it, the
        adapter logs and keeps serving (tasks fail with the reason) rather than raising into its owner."""
        ...


async def start_adapter(adapter: object, nursery: trio.Nursery) -> None:
    """Start ``adapter``'s long-lived part in ``nursery`` and wait until it is ready (its card final);
    nothing to do for an adapter without one. The adapter bounds its own start-up time."""
    if isinstance(adapter, ServedAdapter):
        await nursery.start(adapter.serve)


class Lifetime:
    """The bookkeeping of a served adapter: is it serving, close it, wait until it has stopped.

    Use in ``serve``::

        with self._life.running():
            async with <resources> as r:
                self._r = r
                await self._life.ready_until_closed(task_status)
    """

    def __init__(self) -> None:
        self._closing = trio.Event()
        self._stopped = trio.Event()
        self._entered = False
        self.serving = False

    @property
    def closing(self) -> bool:
        return self._closing.is_set()

    @contextmanager
    def running(self) -> Iterator[None]:
        if self._entered:
            raise RuntimeError("this adapter was already started; build a new one")
        self._entered = True
        try:
            yield
        finally:
            self.serving = False
            self._stopped.set()

    async def ready_until_closed(self, task_status: Any) -> None:
        """Mark the adapter ready (its card final) and wait for :meth:`close`."""
        self.serving = True
        task_status.started()
        await self._closing.wait()

    async def close(self, time_limit: float = 10.0) -> None:
        """Ask ``serve`` to return and wait (at most ``time_limit`` s) until it has released everything."""
        self._closing.set()
        if self._entered:
            with trio.move_on_after(time_limit):
                await self._stopped.wait()


__all__ = ["Lifetime", "ServedAdapter", "start_adapter"]
