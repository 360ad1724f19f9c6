"""The CPU budgets' measures (docs/security.md, "CPU budgets"): a peer's own bucket in CPU time, a
pool in loop time (the wall clock its members held the event loop), and strangers yielding to
trusted peers' work while the loop is congested. Pure parts and :class:`NodeBudgets` on a mock
clock; the flood that needed them is ``tests/test_hostile_load.py`` and ``bench/bench_hostile_rtt.py``."""

from __future__ import annotations

from dataclasses import dataclass

import trio

from ioa_p2p.budget import TRUST_KNOWN, TRUST_PARTNER, TRUST_STRANGER, WorkBudget
from ioa_p2p.config.limits import Limits
from ioa_p2p.identity import Identity
from ioa_p2p.node.net.budgets import CONGESTED, PRIORITY_WINDOW, STRANGER_NEGOTIATIONS, NodeBudgets


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
