"""node/net/cpu_wait.py: deadlines that do not count the time the loop's thread waited for a CPU.

The kernel's run-queue wait is replaced by a function of the (mock) clock, so the scenarios are exact: a
deadline that a busy machine would have ended early is extended by the wait, never past ``most``; with no
wait it ends on time; the block's own exception comes out unwrapped; without the kernel's figure it is a
plain deadline. One test reads the real ``/proc`` figure of this thread.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.node.net import cpu_wait
from ioa_p2p.node.net.cpu_wait import RunnableClock, open_cpu_deadline, run_queue_wait


@pytest.fixture
def autojump_clock(monkeypatch: pytest.MonkeyPatch) -> MockClock:
    monkeypatch.setattr(cpu_wait, "clock_is_real", lambda: True)  # the wait below follows the mock clock
    return MockClock(autojump_threshold=0)


def waits(*steps: tuple[float, float]) -> object:
    """A run-queue wait that is ``w`` seconds from mock time ``t`` on, for each ``(t, w)`` in ``steps``."""

    def wait() -> float:
        now = trio.current_time()
        return max((w for t, w in steps if now >= t), default=0.0)

    return wait


async def run_block(body_seconds: float, seconds: float, most: float) -> tuple[bool, float]:
    start = trio.current_time()
    async with open_cpu_deadline(seconds, most=most) as scope:
        await trio.sleep(body_seconds)
    return scope.cancelled_caught, trio.current_time() - start


async def test_no_wait_ends_on_time(monkeypatch: pytest.MonkeyPatch, autojump_clock: MockClock) -> None:
    monkeypatch.setattr(cpu_wait, "run_queue_wait", waits())
    assert await run_block(10.0, 1.0, 3.0) == (True, pytest.approx(1.0))
    assert await run_block(0.5, 1.0, 3.0) == (False, pytest.approx(0.5))


async def test_time_waiting_for_a_cpu_does_not_count(
    monkeypatch: pytest.MonkeyPatch, autojump_clock: MockClock
) -> None:
    start = trio.current_time()
    monkeypatch.setattr(cpu_wait, "run_queue_wait", waits((start + 0.6, 0.5)))
    # 1.2 s of wall time, 0.5 s of it in the run queue: 0.7 s counted, the block completes
    assert await run_block(1.2, 1.0, 3.0) == (False, pytest.approx(1.2))
    start = trio.current_time()
    monkeypatch.setattr(cpu_wait, "run_queue_wait", waits((start + 0.6, 0.5), (start + 1.4, 0.8)))
    # waiting for ever: ends once 1 s not spent in the run queue has passed (1 + 0.8)
    cancelled, took = await run_block(60.0, 1.0, 3.0)
    assert cancelled
    assert 1.8 <= took <= 1.8 + cpu_wait.CHECK_EVERY


async def test_never_later_than_most(monkeypatch: pytest.MonkeyPatch, autojump_clock: MockClock) -> None:
    start = trio.current_time()
    monkeypatch.setattr(cpu_wait, "run_queue_wait", waits((start + 0.5, 100.0)))
    assert await run_block(60.0, 1.0, 3.0) == (True, pytest.approx(3.0))


async def test_the_blocks_own_exception_comes_out_unwrapped(
    monkeypatch: pytest.MonkeyPatch, autojump_clock: MockClock
) -> None:
    monkeypatch.setattr(cpu_wait, "run_queue_wait", waits())
    with pytest.raises(KeyError):
        async with open_cpu_deadline(1.0, most=3.0):
            await trio.sleep(0.1)
            raise KeyError("mine")


async def test_the_blocks_own_exception_comes_out_unwrapped_when_an_outer_deadline_ends_the_watcher(
    monkeypatch: pytest.MonkeyPatch, autojump_clock: MockClock
) -> None:
    """An outer deadline that expires while the block is about to fail cancels the watcher task: the
    block's error must still come out alone (it came out as an ExceptionGroup, which the outer scope
    then stripped of its Cancelled: a chat delivery worker stopped on it, issue 26)."""
    monkeypatch.setattr(cpu_wait, "run_queue_wait", waits())
    with trio.move_on_after(0.5) as outer, pytest.raises(KeyError):
        async with open_cpu_deadline(10.0, most=30.0):
            with trio.CancelScope(shield=True):
                await trio.sleep(1.0)  # the outer deadline passes: the watcher is cancelled
            raise KeyError("mine")
    assert not outer.cancelled_caught  # the error, not the cancellation, ended the block


async def test_without_the_kernels_figure_a_plain_deadline(
    monkeypatch: pytest.MonkeyPatch, autojump_clock: MockClock
) -> None:
    monkeypatch.setattr(cpu_wait, "run_queue_wait", lambda: None)
    assert await run_block(10.0, 1.0, 3.0) == (True, pytest.approx(1.0))


@pytest.fixture
def unpatched_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


async def test_under_a_mock_clock_a_plain_deadline(
    monkeypatch: pytest.MonkeyPatch, unpatched_clock: MockClock
) -> None:
    assert not cpu_wait.clock_is_real()
    start = trio.current_time()
    monkeypatch.setattr(cpu_wait, "run_queue_wait", waits((start + 0.5, 100.0)))
    assert await run_block(10.0, 1.0, 3.0) == (True, pytest.approx(1.0))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/thread-self/schedstat is Linux's")
def test_run_queue_wait_reads_this_threads_figure() -> None:
    first = run_queue_wait()
    assert first is not None and first >= 0.0
    time.sleep(0.01)  # giving up the CPU: the figure never goes back
    second = run_queue_wait()
    assert second is not None and second >= first


def test_trios_own_clock_is_real() -> None:
    async def main() -> bool:
        return cpu_wait.clock_is_real()

    assert trio.run(main)


class Real:
    """A stand-in for ``time.perf_counter`` and the thread's run-queue figure."""

    def __init__(self) -> None:
        self.now = 100.0
        self.wait = 5.0

    def step(self, seconds: float, waited: float) -> None:
        self.now += seconds
        self.wait += waited


def clock_on(real: Real, monkeypatch: pytest.MonkeyPatch) -> RunnableClock:
    monkeypatch.setattr(cpu_wait.time, "perf_counter", lambda: real.now)
    clock = RunnableClock(refresh=0.0)
    monkeypatch.setattr(clock, "_read", lambda: real.wait)
    clock.start_clock()
    return clock


def test_the_runnable_clock_leaves_out_the_wait_for_a_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Real()
    clock = clock_on(real, monkeypatch)
    assert clock.current_time() == 0.0
    real.step(1.0, 0.6)  # 0.4 s running or waiting for I/O, 0.6 s in the run queue
    assert clock.current_time() == pytest.approx(0.4)
    real.step(1.0, 0.0)
    assert clock.current_time() == pytest.approx(1.4)
    real.step(1.0, 1.0)  # starved the whole second: the clock still runs at MIN_RATE
    assert clock.current_time() == pytest.approx(1.4 + cpu_wait.MIN_RATE)
    assert clock.discounted == pytest.approx(0.6 + 1.0 - cpu_wait.MIN_RATE)
    assert clock.deadline_to_sleep_time(clock.current_time() + 2.0) == pytest.approx(2.0)
    assert clock.deadline_to_sleep_time(0.0) == 0.0


def test_without_the_kernels_figure_the_runnable_clock_is_real_time(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Real()
    clock = clock_on(real, monkeypatch)
    monkeypatch.setattr(clock, "_read", lambda: None)
    real.step(1.0, 0.7)
    assert clock.current_time() == pytest.approx(1.0)


def test_a_run_on_the_runnable_clock() -> None:
    clock = RunnableClock()

    async def main() -> tuple[float, float, bool]:
        start = trio.current_time()
        with trio.move_on_after(0.05):
            await trio.sleep(10)
        return start, trio.current_time(), cpu_wait.clock_is_real()

    try:
        start, end, real = trio.run(main, clock=clock)
    finally:
        clock.close()
    assert end - start >= 0.05  # the deadline fired on the clock's time
    assert not real  # deadlines inside a RunnableClock run are not extended a second time


def test_the_multi_agent_process_runs_on_the_runnable_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ioa_p2p.cli import node_agents
    from ioa_p2p.config.node_config import parse_config
    from ioa_p2p.node.agents import plan_of_config

    config = parse_config(tmp_path, {"agents": [{"name": "a"}, {"name": "b"}]})
    seen: list[object] = []
    monkeypatch.setattr(node_agents.trio, "run", lambda *args, clock=None: seen.append(clock))
    node_agents.run_agents(config, plan_of_config(config, "config.toml"), "config.toml")
    assert len(seen) == 1 and isinstance(seen[0], RunnableClock)


@pytest.mark.slow
async def test_an_invitation_waits_out_the_time_its_process_waited_for_a_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real hosts: the invitee's application accepts 2.5 s after the invitation was sent; the inviter
    waits 2 s. With the thread reported waiting for a CPU 90 % of the time the answer is awaited (at most
    6 s); with no wait reported the invitation ends unanswered after 2 s."""
    from tests.test_chats_net import chats_of
    from tests.test_invite_policy import config_for, genesis_by, open_named

    answer_at = [0.0]

    async def slow_yes(genesis: object) -> bool:
        # 2.5 s after the call, not after the invitation arrived: on a loaded machine the stream's set-up
        # then overlaps the wait instead of adding to it (the answer must come within the 6 s bound)
        await trio.sleep_until(answer_at[0])
        return True

    with trio.fail_after(90):
        configs = {name: config_for(tmp_path, name) for name in ("inviter", "invitee")}
        async with open_named(tmp_path, configs) as nodes:
            inviter, invitee = nodes["inviter"], nodes["invitee"]
            chats_of(invitee).invites.policy = slow_yes
            invites = chats_of(inviter).invites

            monkeypatch.setattr(cpu_wait, "run_queue_wait", lambda: 0.0)
            genesis = genesis_by(inviter, [invitee.peer_id], "not waited for")
            answer_at[0] = trio.current_time() + 2.5
            assert await invites.call_invite(invitee.peer_id, genesis, None, within=2.0) is None

            began = time.perf_counter()
            monkeypatch.setattr(cpu_wait, "run_queue_wait", lambda: 0.9 * (time.perf_counter() - began))
            genesis = genesis_by(inviter, [invitee.peer_id], "waited for")
            answer_at[0] = trio.current_time() + 2.5
            assert await invites.call_invite(invitee.peer_id, genesis, None, within=2.0) is True
