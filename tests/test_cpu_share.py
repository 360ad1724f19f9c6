"""The CPU budgets' measures (docs/security.md, "CPU budgets"): a peer's own bucket in CPU time, a
pool in loop time (the wall clock its members held the event loop), and strangers yielding to
trusted peers' work while the loop is congested. Pure parts and :class:`NodeBudgets` on a mock
clock; the flood that needed them is ``tests/test_hostile_load.py`` and ``bench/bench_hostile_rtt.py``."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any

import trio
from trio.testing import MockClock

from ioa_p2p.budget import TRUST_KNOWN, TRUST_PARTNER, TRUST_STRANGER, WorkBudget
from ioa_p2p.config.limits import Limits
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.net import cpu_meter
from ioa_p2p.node.net.budgets import (
    CONGESTED,
    MAX_YIELD,
    PRIORITY_WINDOW,
    STRANGER_NEGOTIATIONS,
    NodeBudgets,
)
from ioa_p2p.node.net.cpu_meter import OWNER, StepTimer


def test_a_pool_is_charged_loop_time_and_a_peer_its_cpu_time() -> None:
    """A stranger whose steps took 10 ms of CPU but held the loop 100 ms (the machine gave the
    node a tenth of a core) is within its own rate, yet its pool owes: every stranger waits."""
    cpu = WorkBudget("cpu", per_key=0.2, pool=0.4)
    for i in range(10):
        cpu.charge("evil", 0.01, float(i) * 0.1, TRUST_STRANGER, loop_seconds=0.1)
    now = 1.0
    assert cpu.delay("evil", now, TRUST_STRANGER, pool=False) == 0  # 0.1 s of CPU in 1 s: its own rate holds
    assert cpu.delay("evil", now, TRUST_STRANGER) > 0  # 1 s of loop in 1 s: the strangers' pool owes
    assert cpu.delay("newcomer", now, TRUST_STRANGER) > 0  # ... for every stranger
    assert cpu.delay("good", now, TRUST_KNOWN) == 0  # not for the known peers' pool
    assert cpu.delay("partner", now, TRUST_PARTNER) == 0  # nor for partners (no pool)
    snapshot = cpu.snapshot()
    assert snapshot["charged_s_by_trust"]["stranger"] == 0.1
    assert snapshot["loop_s_by_trust"]["stranger"] == 1.0


def test_a_pool_saves_up_little_and_its_debt_is_short() -> None:
    """A pool idle for a minute has saved only ``pool_burst`` seconds' worth (its members, paced
    together, would otherwise all run at once for as long); its debt pauses its members at most
    ``POOL_MAX_DEBT`` seconds, however much one step took."""
    cpu = WorkBudget("cpu", per_key=10.0, pool=0.4, pool_burst=0.25)
    cpu.charge("a", 0.0, 60.0, TRUST_STRANGER, loop_seconds=0.1)  # the saved 0.1 s, spent
    assert cpu.delay("b", 60.0, TRUST_STRANGER) == 0
    cpu.charge("a", 0.0, 60.0, TRUST_STRANGER, loop_seconds=0.01)
    assert cpu.delay("b", 60.0, TRUST_STRANGER) > 0
    cpu.charge("a", 0.0, 61.0, TRUST_STRANGER, loop_seconds=100.0)  # one enormous step
    assert cpu.delay("b", 61.0, TRUST_STRANGER) <= WorkBudget.POOL_MAX_DEBT


@dataclass
class Loop:
    busy: float = 0.0


async def test_strangers_yield_to_trusted_work_only_while_the_loop_is_congested() -> None:
    budgets = NodeBudgets(Limits())
    loop = Loop()
    budgets.watch_loop(loop)
    known, stranger = Identity.generate().peer_id, Identity.generate().peer_id
    budgets.add_voucher(lambda peer: TRUST_KNOWN if peer == known else TRUST_STRANGER)
    budgets.charge_cpu(known, 0.001, 0.001)  # a step of a known peer's request
    assert budgets.cpu_delay(stranger) == 0  # the loop is idle: nobody waits for anybody
    loop.busy = CONGESTED
    budgets.charge_cpu(known, 0.001, 0.001)
    wait = budgets.cpu_delay(stranger)
    assert 0 < wait <= PRIORITY_WINDOW  # strangers wait for the known peer's request to be served
    assert budgets.cpu_delay(known) == 0  # the known peer does not
    assert budgets.admits(str(stranger))  # pacing, not refusing: the stranger owes nothing itself
    await trio.sleep(PRIORITY_WINDOW)
    assert budgets.cpu_delay(stranger) == 0  # the window passed with no trusted work: strangers go on
    assert budgets.snapshot()["cpu"]["yielded_to_trusted"] >= 1


async def test_a_stranger_yields_to_trusted_work_for_a_bounded_time(autojump_clock: MockClock) -> None:
    """Known peers' work that never pauses (the loop congested throughout) delays a stranger's next piece
    of work by MAX_YIELD at most, not for good (issue 26: a coordinator busy with its 18 known agents
    never read the one agent it did not know yet)."""
    budgets = NodeBudgets(Limits())
    budgets.watch_loop(Loop(busy=1.0))
    known, stranger = Identity.generate().peer_id, Identity.generate().peer_id
    budgets.add_voucher(lambda peer: TRUST_KNOWN if peer == known else TRUST_STRANGER)

    async def keep_serving_the_known_peer() -> None:
        while True:
            budgets.charge_cpu(known, 0.0001, 0.0001)
            await trio.sleep(PRIORITY_WINDOW / 3)

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(keep_serving_the_known_peer)
            await trio.sleep(0.01)
            start = trio.current_time()
            await budgets.pace(stranger)
            waited = trio.current_time() - start
            nursery.cancel_scope.cancel()
    assert MAX_YIELD <= waited <= MAX_YIELD + 2 * PRIORITY_WINDOW  # served first, but not for ever
    assert budgets.yielded >= 1


def test_strangers_share_a_few_negotiation_slots_and_trusted_peers_need_none() -> None:
    """Past STRANGER_NEGOTIATIONS strangers' streams in protocol negotiation, a stranger's new
    stream is refused before negotiation (counted as such); a slot comes back when a negotiation
    ends; a trusted peer's stream takes none."""
    budgets = NodeBudgets(Limits())
    assert all(budgets.start_negotiation(TRUST_STRANGER) for _ in range(STRANGER_NEGOTIATIONS))
    early = budgets.streams_refused_early
    assert not budgets.start_negotiation(TRUST_STRANGER)
    assert budgets.streams_refused_early == early + 1
    assert not budgets.start_negotiation(TRUST_KNOWN)  # takes no slot ...
    assert budgets.streams_refused_early == early + 1  # ... and is not refused
    budgets.end_negotiation()
    assert budgets.start_negotiation(TRUST_STRANGER)


class _FakeTime:
    """``time`` for :mod:`ioa_p2p.node.net.cpu_meter`: both clocks advanced by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now

    def thread_time(self) -> float:
        return self.now


@dataclass
class _Task:
    context: contextvars.Context


def _step(timer: StepTimer, clock: _FakeTime, task: _Task, seconds: float) -> None:
    timer.before_task_step(task)  # type: ignore[arg-type]  # the instrument reads task.context only
    clock.now += seconds
    timer.after_task_step(task)  # type: ignore[arg-type]


def _working_for(budgets: NodeBudgets, peer: PeerId) -> _Task:
    context = contextvars.copy_context()
    context.run(OWNER.set, (budgets, peer))
    return _Task(context)


async def test_the_loop_is_congested_for_a_node_by_the_share_its_own_peers_take(monkeypatch: Any) -> None:
    """Agents of one process share the loop and its one step timer: a node whose peers took little
    of a busy loop (the other agents' peers took it) does not find it congested, so it does not keep
    its strangers (the other agents) waiting for its trusted peers; a node alone sees the loop's
    business as before."""
    clock = _FakeTime()
    monkeypatch.setattr(cpu_meter, "time", clock)
    timer = StepTimer()
    quiet, busy = NodeBudgets(Limits()), NodeBudgets(Limits())
    peer = Identity.generate().peer_id
    timer.after_io_wait(0.0)
    _step(timer, clock, _working_for(busy, peer), 0.27)  # another agent's peers: 90 % of the loop's time
    _step(timer, clock, _working_for(quiet, peer), 0.03)
    timer.before_io_wait(0.0)  # the window (0.3 s >= BUSY_WINDOW) ends: the loop ran all of it
    assert timer.busy == 1.0
    assert abs(timer.gauge(busy).busy - 0.9) < 1e-9 and timer.gauge(busy).busy >= CONGESTED
    assert abs(timer.gauge(quiet).busy - 0.1) < 1e-9 and timer.gauge(quiet).busy < CONGESTED

    budgets = NodeBudgets(Limits())  # a node whose trusted peer's request just ran
    known, stranger = Identity.generate().peer_id, Identity.generate().peer_id
    budgets.add_voucher(lambda p: TRUST_KNOWN if p == known else TRUST_STRANGER)
    budgets.watch_loop(timer.gauge(quiet))
    budgets.charge_cpu(known, 0.001, 0.001)
    assert budgets.cpu_delay(stranger) == 0  # the congestion is not its peers': its strangers go on
    budgets.watch_loop(timer.gauge(busy))
    budgets.charge_cpu(known, 0.001, 0.001)
    assert budgets.cpu_delay(stranger) > 0  # its own peers congest the loop: strangers yield

    alone = StepTimer()  # one node in its process: the loop's own business, whoever's steps they were
    alone.after_io_wait(0.0)
    clock.now += 0.2  # the node's own tasks (no peer charged)
    _step(alone, clock, _working_for(quiet, peer), 0.1)
    alone.before_io_wait(0.0)
    assert alone.busy == 1.0 and alone.gauge(quiet).busy == 1.0
    alone.after_io_wait(0.0)
    clock.now += 0.3
    alone.before_io_wait(0.0)
    assert alone.gauge(quiet).busy == 1.0 == alone.busy  # no peer's work charged: the loop's business


class _PreemptedTime(_FakeTime):
    """The thread had a CPU for half of every wall second (the machine's other processes took the rest);
    counts the reads of the thread's CPU clock."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu_reads = 0

    def thread_time(self) -> float:
        self.cpu_reads += 1
        return self.now / 2


def test_a_batch_of_steps_reads_the_cpu_clock_once_and_charges_each_step_its_share(monkeypatch: Any) -> None:
    """The thread's CPU clock is a system call; the timer reads it once per batch of steps (a loop
    iteration) and charges each owned step its loop time times the share of the batch the thread ran."""
    clock = _PreemptedTime()
    monkeypatch.setattr(cpu_meter, "time", clock)
    timer, node = StepTimer(), NodeBudgets(Limits())
    a, b = Identity.generate().peer_id, Identity.generate().peer_id
    charged: list[tuple[PeerId, float, float]] = []
    monkeypatch.setattr(node, "charge_cpu", lambda peer, cpu, loop: charged.append((peer, cpu, loop)))
    timer.after_io_wait(0.0)
    clock.now += 0.05  # the node's own work: not charged, and no CPU clock read for it
    assert clock.cpu_reads == 0
    for peer, seconds in ((a, 0.02), (b, 0.06), (a, 0.02)):
        _step(timer, clock, _working_for(node, peer), seconds)
    assert charged == [] and clock.cpu_reads == 1  # charged when the batch ends
    timer.before_io_wait(0.0)
    assert clock.cpu_reads == 2 and timer.steps == 3
    by_peer = {peer: (cpu, loop) for peer, cpu, loop in charged}
    assert abs(by_peer[a][1] - 0.04) < 1e-9 and abs(by_peer[b][1] - 0.06) < 1e-9  # loop time: the wall
    assert abs(by_peer[a][0] - 0.02) < 1e-9 and abs(by_peer[b][0] - 0.03) < 1e-9  # CPU: half of it
    assert abs(timer.seconds - 0.05) < 1e-9 and abs(timer.loop_seconds - 0.1) < 1e-9
    timer.after_io_wait(0.0)
    timer.before_io_wait(0.0)  # a batch without owned steps charges nothing and reads no CPU clock
    assert len(charged) == 2 and clock.cpu_reads == 2


class _ShareTime(_PreemptedTime):
    """The thread has a CPU for ``share`` of the wall time (settable); counts CPU clock reads."""

    def __init__(self) -> None:
        super().__init__()
        self.share, self._cpu, self._at = 0.5, 0.0, 0.0

    def thread_time(self) -> float:
        self.cpu_reads += 1
        self._cpu += (self.now - self._at) * self.share
        self._at = self.now
        return self._cpu


def test_the_cpu_clock_is_read_over_one_batch_per_sample_interval_and_its_share_charged_between(
    monkeypatch: Any,
) -> None:
    """Short batches close together (a busy stretch: a chat message is ~20 loop iterations) read the CPU
    clock over the first and charge the others its share; a batch beginning CPU_SAMPLE_EVERY or more after
    the last sampled one measures again, whatever its length, so a changed share is charged from then."""
    clock = _ShareTime()
    monkeypatch.setattr(cpu_meter, "time", clock)
    timer, node = StepTimer(), NodeBudgets(Limits())
    peer = Identity.generate().peer_id
    charged: list[tuple[float, float]] = []
    monkeypatch.setattr(node, "charge_cpu", lambda p, cpu, loop: charged.append((cpu, loop)))

    def batch(seconds: float) -> None:
        timer.after_io_wait(0.0)
        _step(timer, clock, _working_for(node, peer), seconds)
        timer.before_io_wait(0.0)
        clock.now += 0.0005  # waiting for I/O between iterations

    batch(0.001)  # sampled: the thread ran half the time
    assert clock.cpu_reads == 2 and timer.samples == 1 and abs(timer.cpu_share - 0.5) < 1e-9
    clock.share = 1.0  # the machine's other processes went quiet
    for _ in range(4):  # within CPU_SAMPLE_EVERY of the sampled batch's start: no CPU clock read
        batch(0.001)
    assert clock.cpu_reads == 2 and timer.samples == 1
    assert all(abs(cpu - loop * 0.5) < 1e-12 for cpu, loop in charged)  # the last measured share
    clock.now += cpu_meter.CPU_SAMPLE_EVERY
    batch(0.001)  # due again: measured, the new share charged
    assert clock.cpu_reads == 4 and timer.samples == 2 and abs(timer.cpu_share - 1.0) < 1e-9
    assert abs(charged[-1][0] - 0.001) < 1e-9 and len(charged) == 6
    assert abs(timer.loop_seconds - 0.006) < 1e-9  # loop time is every step's own, sampled or not
