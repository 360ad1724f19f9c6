"""Resource budgets, pure parts: the ledger, the rate budget, the [limits] table, the pending set."""

from __future__ import annotations

import pytest

from ioa_p2p.budget import TRUST_KNOWN, TRUST_PARTNER, TRUST_STRANGER, Ledger, RateBudget
from ioa_p2p.config.limits import Limits, MiB
from ioa_p2p.config.sections import parse_section
from ioa_p2p.errors import ConfigError
from ioa_p2p.history.pending import PendingSet

from .test_history import A, new_chat, say

# --------------------------------------------------------------------------- Ledger


def test_per_key_cap_refuses_the_claim_and_keeps_what_is_held() -> None:
    ledger = Ledger("t", total=100, per_key=10)
    first = ledger.try_claim("a", 6)
    assert first is not None
    assert ledger.try_claim("a", 5) is None  # 6 + 5 > 10
    assert ledger.held("a") == 6 and ledger.refused == 1
    assert ledger.room("a") == 4
    ledger.release(first)
    ledger.release(first)  # idempotent
    assert ledger.held("a") == 0 and ledger.held_total == 0 and ledger.room("a") == 10


def test_a_claim_over_any_cap_is_refused_outright() -> None:
    ledger = Ledger("t", total=10)
    assert ledger.try_claim("a", 11) is None
    with pytest.raises(ValueError):
        ledger.try_claim("a", -1)


def test_full_total_evicts_the_newest_claim_of_the_heaviest_holder() -> None:
    evicted: list[str] = []
    ledger = Ledger("t", total=10, per_key=8)
    ledger.try_claim("flood", 4, lambda: evicted.append("old"))
    ledger.try_claim("flood", 4, lambda: evicted.append("new"))
    ledger.try_claim("calm", 1, lambda: evicted.append("calm"))
    assert ledger.held_total == 9
    good = ledger.try_claim("good", 2, lambda: evicted.append("good"))
    assert good is not None
    assert evicted == ["new"]  # the flooder's newest, not the calm peer's nor its oldest
    assert ledger.held("flood") == 4 and ledger.held("calm") == 1 and ledger.evicted == 1
    assert ledger.held_total == 7


def test_the_heaviest_holder_itself_is_refused_rather_than_evicting_others() -> None:
    evicted: list[str] = []
    ledger = Ledger("t", total=10)
    ledger.try_claim("flood", 7, lambda: evicted.append("flood"))
    ledger.try_claim("calm", 3, lambda: evicted.append("calm"))
    assert ledger.try_claim("flood", 1) is None
    # a peer may evict only someone holding more than it would after its claim
    assert ledger.try_claim("calm", 5) is None
    assert evicted == [] and ledger.refused == 2


def test_claims_without_an_eviction_callback_are_never_evicted() -> None:
    ledger = Ledger("t", total=10)
    ledger.try_claim("flood", 9)
    assert ledger.try_claim("good", 2) is None
    assert ledger.held("flood") == 9


def test_eviction_frees_enough_for_a_large_claim() -> None:
    evicted: list[int] = []
    ledger = Ledger("t", total=10)
    for i in range(5):
        ledger.try_claim("flood", 2, lambda i=i: evicted.append(i))
    assert ledger.try_claim("good", 3, lambda: None) is not None
    assert evicted == [4, 3]  # newest first, as many as needed
    snap = ledger.snapshot()
    assert snap["held"] == 9 and snap["holders"] == 2 and snap["top_holder"] == 6 and snap["evicted"] == 2


def test_strangers_together_stay_out_of_the_reserved_share() -> None:
    """Many identities: each within its per-peer cap, together never past ``total - reserve``;
    the stranger over the line sheds the heaviest stranger's newest claim or is refused."""
    evicted: list[str] = []
    ledger = Ledger("t", total=100, per_key=10, reserve=30)
    for i in range(7):
        assert ledger.try_claim(f"s{i}", 10, lambda i=i: evicted.append(f"s{i}")) is not None
    assert ledger.held_by_strangers == 70 and ledger.room("s9") == 0
    assert ledger.try_claim("s9", 10) is None  # no stranger holds more than s9 would
    assert ledger.room("p", TRUST_PARTNER) == 10  # its per-peer cap; 30 are left in all
    for i in range(3):
        assert ledger.try_claim(f"p{i}", 10, trust=TRUST_PARTNER) is not None
    assert ledger.held_total == 100 and evicted == []
    snap = ledger.snapshot()
    assert snap["reserved_for_trusted"] == 30 and snap["held_by_strangers"] == 70


def test_a_full_total_sheds_the_least_trusted_first_then_the_heaviest() -> None:
    evicted: list[str] = []
    ledger = Ledger("t", total=10, per_key=6)
    ledger.try_claim("known", 4, lambda: evicted.append("known"), trust=TRUST_KNOWN)
    ledger.try_claim("light stranger", 2, lambda: evicted.append("light stranger"))
    ledger.try_claim("heavy stranger", 3, lambda: evicted.append("heavy stranger old"))
    ledger.try_claim("heavy stranger", 1, lambda: evicted.append("heavy stranger new"))
    assert ledger.held_total == 10
    # a partner displaces strangers first (the heaviest's newest claim first), never the known peer
    assert ledger.try_claim("partner", 6, trust=TRUST_PARTNER) is not None
    assert evicted == ["heavy stranger new", "heavy stranger old", "light stranger"]
    assert ledger.held("known") == 4
    # a stranger cannot displace anyone more trusted than itself
    assert ledger.try_claim("new stranger", 1, lambda: None) is None
    # among peers as trusted, the heaviest gives way (the partner, more trusted, is never touched)
    assert ledger.try_claim("known 2", 1, lambda: None, trust=TRUST_KNOWN) is not None
    assert evicted[-1] == "known" and ledger.held("partner") == 6


def test_a_peer_that_becomes_trusted_moves_out_of_the_strangers_share() -> None:
    ledger = Ledger("t", total=10, reserve=5)
    ledger.try_claim("a", 5)
    assert ledger.held_by_strangers == 5 and ledger.room("b") == 0
    ledger.try_claim("a", 1, trust=TRUST_KNOWN)  # its card arrived meanwhile
    assert ledger.held_by_strangers == 0 and ledger.room("b", TRUST_STRANGER) == 4
    assert TRUST_STRANGER < TRUST_KNOWN < TRUST_PARTNER


# --------------------------------------------------------------------------- RateBudget


def test_rate_budget_per_key_and_refill() -> None:
    rate = RateBudget("t", period=10.0, per_key=5)
    assert rate.take("a", 5, now=0.0)
    assert not rate.take("a", 1, now=0.0)
    assert rate.take("b", 5, now=0.0)  # another key has its own bucket
    assert rate.available("a", now=4.0) == 2  # 5 per 10 s refills 2 in 4 s
    assert rate.take("a", 2, now=4.0) and not rate.take("a", 1, now=4.0)
    assert rate.available("a", now=100.0) == 5  # never above capacity
    assert rate.refused == 2


def test_rate_budget_total_caps_all_keys_together() -> None:
    rate = RateBudget("t", period=10.0, per_key=5, total=8)
    assert rate.take("a", 5, now=0.0)
    assert rate.available("b", now=0.0) == 3
    assert rate.take_up_to("b", 5, now=0.0) == 3
    assert rate.take_up_to("c", 1, now=0.0) == 0
    assert rate.available("c", now=5.0) == 4


def test_rate_budget_forgets_idle_keys() -> None:
    rate = RateBudget("t", period=1.0, per_key=1)
    for i in range(RateBudget.PRUNE_AT + 10):
        rate.take(i, 1, now=float(i))
    assert len(rate._buckets) < RateBudget.PRUNE_AT
    assert rate.available(0, now=1e6) == 1


# --------------------------------------------------------------------------- [limits]


def test_limits_defaults_and_overrides() -> None:
    assert Limits.from_section({}) == Limits()
    limits = Limits.from_section({"streams_per_peer": 16, "frame_timeout": 5, "sync_period": 2.5})
    assert limits.streams_per_peer == 16 and limits.frame_timeout == 5.0 and limits.sync_period == 2.5
    assert isinstance(limits.frame_timeout, float)
    assert Limits().partial_frame_bytes_per_peer == 8 * MiB


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"stream_per_peer": 3}, "unknown keys in \\[limits\\]"),
        ({"streams_per_peer": "3"}, "non-negative integer"),
        ({"streams_per_peer": 2.5}, "non-negative integer"),
        ({"streams_per_peer": True}, "non-negative integer"),
        ({"streams_per_peer": -1}, "non-negative integer"),
        ({"frame_timeout": 0}, "positive number"),
        ({"frame_timeout": float("nan")}, "positive number"),
        ({"frame_timeout": False}, "positive number"),
    ],
)
def test_limits_refuse_bad_values_with_a_clear_error(table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Limits.from_section(table)


def test_limits_must_be_a_table() -> None:
    with pytest.raises(ConfigError, match="must be a table"):
        parse_section(Limits, [], "[limits]")


# --------------------------------------------------------------------------- PendingSet


def test_pending_set_refuses_the_flooders_newest_and_serves_another_sender() -> None:
    chat = new_chat()
    envs = [say(chat, A, str(i)) for i in range(8)]
    pending = PendingSet(max_count=4)
    for env in envs[1:5]:
        assert pending.hold(env, env.hash, (b"p" * 32,), "flood", 10)
    assert not pending.hold(envs[5], envs[5].hash, (b"p" * 32,), "flood", 10)  # refused: its own newest
    assert pending.refused == 1 and len(pending) == 4
    # another sender's orphan evicts the flooder's newest pending message instead
    assert pending.hold(envs[6], envs[6].hash, (b"q" * 32,), "good", 10)
    assert envs[4].hash not in pending and envs[6].hash in pending and pending.dropped == 1
    assert pending.bytes_held == 40


def test_pending_bytes_are_bounded_per_chat_and_across_chats() -> None:
    shared = Ledger("orphans", total=100)
    chat = new_chat()
    envs = [say(chat, A, str(i)) for i in range(12)]
    one, two = PendingSet(max_bytes=60, shared=shared), PendingSet(max_bytes=60, shared=shared)
    held_one = [one.hold(e, e.hash, (b"p" * 32,), "flood", 20) for e in envs[:4]]
    assert held_one == [True, True, True, False]  # 60 bytes per chat
    held_two = [two.hold(e, e.hash, (b"p" * 32,), "flood", 20) for e in envs[4:8]]
    assert held_two == [True, True, False, False]  # 100 bytes across both chats
    assert shared.held_total == 100 and one.bytes_held == 60 and two.bytes_held == 40
    # a lighter sender in the second chat evicts the flooder's newest orphan (in either chat)
    assert two.hold(envs[8], envs[8].hash, (b"q" * 32,), "good", 20)
    assert shared.held_total == 100 and shared.held("good") == 20
    assert one.bytes_held + two.bytes_held == 100


def test_pending_release_hands_back_children_and_frees_their_budget() -> None:
    shared = Ledger("orphans", total=1000)
    chat = new_chat()
    first, second, third = (say(chat, A, str(i)) for i in range(3))
    pending = PendingSet(shared=shared)
    parent = first.hash
    assert pending.hold(second, second.hash, (parent,), "p", 50)
    assert pending.hold(third, third.hash, (second.hash,), "p", 50)
    assert pending.waiting_on() == {parent, second.hash}
    released = pending.release(parent, lambda d: d == parent)
    assert released == [(second, second.hash)]
    assert len(pending) == 1 and shared.held_total == 50
    pending.drop(third.hash)
    pending.drop(third.hash)
    assert len(pending) == 0 and shared.held_total == 0 and pending.waiting_on() == set()


def test_rate_budget_gives_back_what_was_not_used() -> None:
    rate = RateBudget("t", period=10.0, per_key=10, total=15)
    assert rate.take_up_to("a", 10, now=0.0) == 10
    rate.give_back("a", 6, now=0.0)
    assert rate.available("a", now=0.0) == 6 and rate.available("b", now=0.0) == 10
    rate.give_back("a", 100, now=0.0)  # never above capacity
    assert rate.available("a", now=0.0) == 10
