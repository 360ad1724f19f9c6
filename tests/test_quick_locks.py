"""Patch 30 (``node/net/quick_locks.py``): py-libp2p's per-connection and per-stream locks are taken without
a schedule point when free. Unit checks of :class:`QuickLock`, real hosts on 127.0.0.1, and the sentinel
on upstream's constructors."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from ioa_p2p.identity import Identity
from ioa_p2p.node.net import quick_locks
from ioa_p2p.node.net.host import new_noise_host
from ioa_p2p.node.net.quick_locks import TARGETS, YIELD_EVERY, QuickLock, upstream_init

from .raw_hosts import watched_pair


class Steps(trio.abc.Instrument):
    def __init__(self) -> None:
        self.steps = 0

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        self.steps += 1


async def _other_steps(work: Any) -> int:
    """How many steps other tasks took while ``work()`` ran (a spinner is always runnable)."""
    count = [0]

    async def spin() -> None:
        while True:
            count[0] += 1
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(spin)
        await trio.lowlevel.checkpoint()
        before = count[0]
        await work()
        after = count[0]
        nursery.cancel_scope.cancel()
    return after - before


async def test_a_free_quick_lock_takes_no_schedule_point_and_a_plain_one_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the every-64th yield counts free acquires process-wide: other tests of this worker moved it
    monkeypatch.setattr(quick_locks, "_count", 0)
    quick, plain = QuickLock(trio.Lock()), trio.Lock()

    async def take(lock: Any) -> None:
        for _ in range(20):
            async with lock:
                pass

    assert await _other_steps(lambda: take(quick)) <= 20 // YIELD_EVERY + 1
    assert await _other_steps(lambda: take(plain)) >= 19  # a step between each of the 20


async def test_a_loop_of_free_acquires_still_yields_now_and_then() -> None:
    quick = QuickLock(trio.Semaphore(1))

    async def spin_on_free_locks() -> None:
        for _ in range(10 * YIELD_EVERY):
            async with quick:
                pass

    assert await _other_steps(spin_on_free_locks) >= 9


async def test_a_quick_lock_never_yields_while_held() -> None:
    """Its every-so-often yield comes before it takes the lock: a holder parked for a pass of the loop
    would queue every later caller behind it (issue 26, l-cross)."""
    quick = QuickLock(trio.Lock())
    seen_held = 0

    async def watch() -> None:
        nonlocal seen_held
        while True:
            seen_held += quick.locked()
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch)
        for _ in range(4 * YIELD_EVERY):
            async with quick:
                pass
        nursery.cancel_scope.cancel()
    assert seen_held == 0


async def test_a_held_quick_lock_queues_its_waiters_in_order() -> None:
    lock = QuickLock(trio.Lock())
    order: list[int] = []
    await lock.acquire()
    async with trio.open_nursery() as nursery:
        for i in range(5):

            async def waiter(i: int = i) -> None:
                async with lock:
                    order.append(i)

            nursery.start_soon(waiter)
            await trio.testing.wait_all_tasks_blocked()
        assert lock.locked() and lock.statistics().tasks_waiting == 5
        lock.release()
    assert order == [0, 1, 2, 3, 4] and not lock.locked()


async def test_a_cancelled_caller_does_not_take_a_free_quick_lock() -> None:
    lock = QuickLock(trio.Lock())
    with trio.CancelScope() as scope:
        scope.cancel()
        await lock.acquire()
    assert scope.cancelled_caught and not lock.locked()


def test_upstream_still_makes_those_locks_plain_trio_primitives() -> None:
    """The sentinel: a fresh upstream-constructed object of each class has the attributes the patch
    replaces, as trio primitives (or a ReadWriteLock of them). When this fails, revisit patch 30."""
    import importlib

    from libp2p.stream_muxer.rw_lock import ReadWriteLock

    new_noise_host(Identity.generate())  # the patches are in place
    for module_name, class_name, names in TARGETS:
        cls = getattr(importlib.import_module(module_name), class_name)
        source = __import__("inspect").getsource(upstream_init(class_name))
        for name in names:
            assert f"self.{name} = trio.Lock()" in source or f"self.{name} = ReadWriteLock()" in source, (
                class_name,
                name,
            )
        assert cls.__init__ is not upstream_init(class_name)
    rw = ReadWriteLock()
    assert isinstance(rw._readers_lock, trio.Lock) and isinstance(rw._writer_lock, trio.Semaphore)


@pytest.mark.slow
async def test_real_hosts_carry_data_with_quick_locks_in_place() -> None:
    """Two hosts, 8 streams each carrying 64 KiB both ways at once; the locks are QuickLocks."""
    size = 64 * 1024

    async def echo(stream: Any) -> None:
        got = bytearray()
        while len(got) < size:
            got += await stream.read(size - len(got))
        await stream.write(bytes(got))
        await stream.close()

    with trio.fail_after(60):
        async with watched_pair("/test/quick/1", echo) as (a, b, _, _):

            async def one(i: int) -> None:
                stream = await a.new_stream(b.get_id(), ["/test/quick/1"])
                assert isinstance(stream._state_lock, QuickLock)
                assert isinstance(stream.muxed_stream.window_lock, QuickLock)
                payload = bytes([i]) * size
                await stream.write(payload)
                back = bytearray()
                while len(back) < size:
                    back += await stream.read(size - len(back))
                assert bytes(back) == payload

            async with trio.open_nursery() as nursery:
                for i in range(8):
                    nursery.start_soon(one, i)
