"""Our hole punching retry policy (node/net/punch_budget.py): bursts, cooldowns, a success forgets."""

from __future__ import annotations

from ioa_p2p.node.net import punch_budget
from ioa_p2p.node.net.punch_budget import BURST, COOLDOWN_FIRST, COOLDOWN_MOST, PunchBudget


def fail_burst(budget: PunchBudget, peer: str, now: float) -> None:
    for _ in range(BURST):
        assert budget.may_try(peer, now)
        budget.record(peer, False, now)


def test_a_failed_burst_rests_the_peer_then_gives_a_new_burst_with_a_longer_rest() -> None:
    budget = PunchBudget()
    fail_burst(budget, "a", 0.0)
    assert not budget.may_try("a", 0.0) and not budget.may_try("a", COOLDOWN_FIRST - 0.1)
    assert budget.may_try("b", 0.0)  # per peer
    assert budget.resting(1.0) == 1
    fail_burst(budget, "a", COOLDOWN_FIRST)  # after the cooldown: 3 attempts again
    assert not budget.may_try("a", COOLDOWN_FIRST + 2 * COOLDOWN_FIRST - 0.1)  # doubled
    assert budget.may_try("a", COOLDOWN_FIRST + 2 * COOLDOWN_FIRST)
    assert budget.rests == 2


def test_the_cooldown_is_bounded() -> None:
    budget, now = PunchBudget(), 0.0
    for _ in range(20):
        fail_burst(budget, "a", now)
        now += COOLDOWN_MOST
    assert budget.may_try("a", now)


def test_a_success_forgets_the_failures() -> None:
    budget = PunchBudget()
    budget.record("a", False, 0.0)
    budget.record("a", False, 0.0)
    budget.record("a", True, 1.0)
    budget.record("a", False, 2.0)
    budget.record("a", False, 2.0)
    assert budget.may_try("a", 2.0)  # 2 failures since the success: still in its burst
    budget.record("a", False, 2.0)
    assert not budget.may_try("a", 2.0)


def test_the_peers_remembered_are_bounded() -> None:
    budget = PunchBudget()
    most = punch_budget.MAX_PEERS
    for i in range(most + 10):
        budget.record(f"p{i}", False, 0.0)
    assert len(budget._peers) == most and "p0" not in budget._peers
