"""Patch 30 of :mod:`ioa_p2p.node.net.libp2p_patches`: py-libp2p's per-connection and per-stream locks are
taken without a schedule point when they are free.

**The problem** (issue 26). ``trio.Lock.acquire`` (and ``Semaphore.acquire``) yields to the scheduler even
when the lock is free; py-libp2p 0.8.1 takes several such locks around every read and write, nearly
always free: the TCP stream's read lock before each socket read, the yamux connection's stream table
lock for every read of a stream and every frame the reader files, a stream's window lock, its read/write
lock (a lock and a semaphore), the net stream's state lock for each read and write. In a process of many
agents each of those yields puts the task behind every runnable task of the process. Measured with
``bench/bench_chat_steps.py`` (one chat message, author and member in one loop, patch 28 in): 30 task
steps per message, 22 of them such yields; ``--free-locks-no-yield`` (every free lock of the process) gave
8 (issue 26, l-chat3).

**What we do.** :func:`take_free_locks_at_once` wraps the constructors of py-libp2p's ``TrioTCPStream``
(``read_lock``), ``Yamux`` (``streams_lock``), ``YamuxStream`` (``window_lock``, ``close_lock`` and its
``ReadWriteLock``'s two primitives) and ``NetStream`` (``_state_lock``) so that each of those locks is a
:class:`QuickLock` around the trio primitive: a caller already cancelled raises as before; a free lock is
taken at once; a held one parks the caller in trio's FIFO as before (``acquire_nowait`` refuses while
anyone waits, so nobody jumps the queue). Every :data:`YIELD_EVERY`-th free acquire in a process still
yields, so a loop that only takes free locks (a reader spinning on a stream that returns at once) cannot
starve the process. The socket reads and waits keep their own schedule points. The TCP stream's
write lock is left as it is (patch 28 writes frames without it when it is free).
``tests/test_quick_locks.py``: a free QuickLock takes no schedule point, a held one is FIFO, a cancelled
caller raises, a spinning loop still yields; real hosts carry data with the locks in place; the sentinel
checks that upstream still makes those locks plain trio primitives.
"""

from __future__ import annotations

from typing import Any

import trio

#: One free acquire in this many still yields (bounds how long a loop of free acquires holds the process).
YIELD_EVERY = 64

_count = 0


class QuickLock:
    """A ``trio.Lock`` or ``trio.Semaphore`` whose free acquire takes no schedule point (module docstring);
    everything else is the primitive's own."""

    __slots__ = ("inner",)

    def __init__(self, inner: trio.Lock | trio.Semaphore) -> None:
        self.inner = inner

    async def acquire(self) -> None:
        global _count
        await trio.lowlevel.checkpoint_if_cancelled()
        _count += 1
        if _count % YIELD_EVERY == 0:
            # before taking it, never while holding it: a holder parked for a pass of a busy loop queued
            # every later caller behind it, and trio hands a lock from waiter to waiter one pass each
            # (a reader of a connection waited seconds for its yamux stream table, issue 26)
            await trio.lowlevel.cancel_shielded_checkpoint()
        try:
            self.inner.acquire_nowait()
        except trio.WouldBlock:
            await self.inner.acquire()

    def acquire_nowait(self) -> None:
        self.inner.acquire_nowait()

    def release(self) -> None:
        self.inner.release()

    def locked(self) -> bool:
        inner = self.inner
        return inner.locked() if isinstance(inner, trio.Lock) else inner.value == 0

    def statistics(self) -> Any:
        return self.inner.statistics()

    @property
    def value(self) -> int:
        """A semaphore's value (a lock has none)."""
        if isinstance(self.inner, trio.Semaphore):
            return self.inner.value
        raise AttributeError("a Lock has no value")

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.release()


#: (module, class, lock attributes) made quick; a ReadWriteLock attribute is handled by :func:`_quicken`.
TARGETS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("libp2p.io.trio", "TrioTCPStream", ("read_lock",)),
    ("libp2p.stream_muxer.yamux.yamux", "Yamux", ("streams_lock",)),
    ("libp2p.stream_muxer.yamux.yamux", "YamuxStream", ("window_lock", "close_lock", "rw_lock")),
    ("libp2p.network.stream.net_stream", "NetStream", ("_state_lock",)),
)

#: Upstream's constructors by class name (empty before the patch).
_UPSTREAM: dict[str, Any] = {}


def _quicken(obj: Any, names: tuple[str, ...]) -> None:
    from libp2p.stream_muxer.rw_lock import ReadWriteLock

    for name in names:
        value = getattr(obj, name, None)
        if isinstance(value, trio.Lock | trio.Semaphore):
            setattr(obj, name, QuickLock(value))
        elif isinstance(value, ReadWriteLock):
            _quicken(value, ("_readers_lock", "_writer_lock"))


def take_free_locks_at_once() -> None:
    """Install patch 30 (idempotent, process-wide)."""
    import importlib

    for module_name, class_name, names in TARGETS:
        cls = getattr(importlib.import_module(module_name), class_name, None)
        if cls is None:
            raise RuntimeError(f"{module_name} has no {class_name} any more: revisit patch 30 (quick_locks)")
        upstream = cls.__init__
        if getattr(upstream, "ioa_quick", False):
            continue
        _UPSTREAM[class_name] = upstream

        def __init__(self: Any, *args: Any, _up: Any = upstream, _names: Any = names, **kwargs: Any) -> None:
            _up(self, *args, **kwargs)
            _quicken(self, _names)

        __init__.ioa_quick = True  # type: ignore[attr-defined]
        cls.__init__ = __init__


def upstream_init(class_name: str) -> Any:
    """Upstream's constructor of ``class_name`` (after the patch; KeyError before)."""
    return _UPSTREAM[class_name]


__all__ = ["TARGETS", "YIELD_EVERY", "QuickLock", "take_free_locks_at_once", "upstream_init"]
