"""The causal DAG: heads, causal order, pending parents, seq chains, equivocation, membership."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ioa_p2p.errors import Equivocation, HistoryViolation, StoreError
from ioa_p2p.history.bodies import MAX_PARENTS, make_genesis, make_message
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.identity import Identity
from ioa_p2p.wire.envelope import Envelope

A, B, C, D = (Identity(bytes([i]) * 32) for i in range(11, 15))


def new_chat(creator: Identity = A, members=(B, C)) -> ChatHistory:
    g = make_genesis(creator, [m.peer_id for m in members], "topic", now_ms=1000, nonce=bytes(16))
    return ChatHistory(g)


def say(h: ChatHistory, who: Identity, text: str, ts: int = 2000) -> Envelope:
    env = h.compose(who, "text", {"text": text}, now_ms=ts)
    result = h.add(env)
    assert result.stored and result.stored[0].env == env
    return env


def test_linear_chain() -> None:
    h = new_chat()
    e1 = say(h, A, "one")
    e2 = say(h, B, "two")
    e3 = say(h, A, "three")
    assert h.heads() == [e3.hash]
    assert [e.env for e in h.entries()] == [e1, e2, e3]
    assert h.version() == {A.peer_id: 2, B.peer_id: 1}
    assert h.next_seq(A.peer_id) == 3
    assert len(h) == 3 and e2.hash in h and h.get(e2.hash).depth == 2  # type: ignore[union-attr]
    assert e3.body.parents == (e2.hash,)  # type: ignore[attr-defined]


def test_concurrent_messages_make_two_heads_then_merge() -> None:
    h = new_chat()
    base = say(h, A, "start")
    b1 = make_message(B, h.chat_id, [base.hash], "text", {"text": "b"}, seq=1, now_ms=3)
    c1 = make_message(C, h.chat_id, [base.hash], "text", {"text": "c"}, seq=1, now_ms=3)
    h.add(b1)
    h.add(c1)
    assert h.heads() == sorted([b1.hash, c1.hash])
    merge = say(h, A, "merge")
    assert set(merge.body.parents) == {b1.hash, c1.hash}  # type: ignore[attr-defined]
    assert h.heads() == [merge.hash]
    assert h.get(merge.hash).depth == 3  # type: ignore[union-attr]


def test_out_of_order_waits_for_parents_and_is_released() -> None:
    source = new_chat()
    envs = [say(source, [A, B, C][i % 3], f"m{i}") for i in range(6)]
    h = ChatHistory(source.genesis)
    result = h.add(envs[2])
    assert not result.stored and result.missing == (envs[1].hash,)
    assert h.pending_count == 1 and h.missing() == {envs[1].hash}
    assert h.add(envs[1]).missing == (envs[0].hash,)
    released = h.add(envs[0])
    assert [e.env for e in released.stored] == envs[:3]
    assert h.pending_count == 0
    for env in envs[3:]:
        h.add(env)
    assert h.heads() == source.heads()


def test_duplicates_are_ignored() -> None:
    h = new_chat()
    env = say(h, A, "x")
    again = h.add(env)
    assert again.duplicate and not again.stored
    assert len(h) == 1


def test_equivocation_is_detected_with_both_messages() -> None:
    h = new_chat()
    say(h, A, "one")
    fork_a = h.compose(B, "text", {"text": "I agree"}, now_ms=5)
    fork_b = h.compose(B, "text", {"text": "I disagree"}, now_ms=5)
    h.add(fork_a)
    with pytest.raises(Equivocation) as info:
        h.add(fork_b)
    assert info.value.first == fork_a and info.value.second == fork_b
    assert h.equivocations == [(fork_a, fork_b)]
    assert len(h) == 2


def test_sequence_numbers_must_chain() -> None:
    h = new_chat()
    first = say(h, A, "one")
    skip = make_message(A, h.chat_id, [first.hash], "text", {"text": "x"}, seq=3, now_ms=1)
    with pytest.raises(HistoryViolation, match="does not follow") as info:
        h.add(skip)
    assert info.value.code == "bad-seq"
    # seq 2 that does not have the author's seq 1 in its causal past
    blind = make_message(A, h.chat_id, [h.chat_id], "text", {"text": "x"}, seq=2, now_ms=1)
    with pytest.raises(HistoryViolation, match="does not follow"):
        h.add(blind)


def test_wrong_chat_and_non_member() -> None:
    h = new_chat()
    other = new_chat(creator=B, members=(A,))
    foreign = other.compose(A, "text", {"text": "elsewhere"}, now_ms=1)
    with pytest.raises(HistoryViolation) as info:
        h.add(foreign)
    assert info.value.code == "wrong-chat"
    intruder = make_message(D, h.chat_id, [h.chat_id], "text", {"text": "hi"}, seq=1, now_ms=1)
    with pytest.raises(HistoryViolation) as info:
        h.add(intruder)
    assert info.value.code == "non-member"
    assert len(h) == 0


def test_membership_changes_follow_causality() -> None:
    h = new_chat()
    say(h, A, "hello")
    with pytest.raises(HistoryViolation, match="not a member"):
        h.add(h.compose(D, "text", {"text": "let me in"}, now_ms=1))
    add = h.compose(B, "member.add", {"member": D.peer_id.raw}, now_ms=2)
    h.add(add)
    assert D.peer_id in h.members()
    say(h, D, "thanks")
    say(h, C, "bye")
    h.add(h.compose(C, "member.leave", {}, now_ms=3))
    assert C.peer_id not in h.members()
    with pytest.raises(HistoryViolation) as info:
        h.add(h.compose(C, "text", {"text": "still here?"}, now_ms=4))
    assert info.value.code == "non-member"
    with pytest.raises(HistoryViolation, match="only the chat creator"):
        h.add(h.compose(B, "member.remove", {"member": D.peer_id.raw}, now_ms=5))
    # a message of D concurrent with its removal stays valid; one after it does not
    base = h.heads()
    concurrent = make_message(D, h.chat_id, base, "text", {"text": "racing"}, seq=2, now_ms=6)
    removal = h.compose(A, "member.remove", {"member": D.peer_id.raw}, now_ms=6)
    h.add(removal)
    assert h.add(concurrent).stored
    assert D.peer_id not in h.members()
    after = h.compose(D, "text", {"text": "after removal"}, now_ms=7)
    with pytest.raises(HistoryViolation, match="not a member"):
        h.add(after)
    assert h.ever_members() >= {A.peer_id, B.peer_id, C.peer_id, D.peer_id}


def test_pending_is_bounded_and_the_flooder_loses_its_newest() -> None:
    source = new_chat()
    envs = [say(source, A, str(i)) for i in range(6)]
    h = ChatHistory(source.genesis, max_pending=3)
    for env in envs[1:]:
        assert h.add(env).missing  # answered `missing` whether kept or not
    assert h.pending_count == 3
    held = {e.hash for e in h.pending_envelopes()}
    assert held == {e.hash for e in envs[1:4]}  # the sender's newest were refused
    # the missing parent arrives: what was kept is released, the rest can come again later
    result = h.add(envs[0])
    assert [e.hash for e in result.stored] == [e.hash for e in envs[:4]]
    assert h.pending_count == 0 and h.pending_bytes == 0


def test_persist_failure_changes_nothing() -> None:
    h = new_chat()
    env = h.compose(A, "text", {"text": "x"}, now_ms=1)

    def failing(entry: object) -> None:
        raise StoreError("disk full")

    with pytest.raises(StoreError):
        h.add(env, persist=failing)
    assert len(h) == 0 and h.heads() == [h.chat_id]
    seen = []
    h.add(env, persist=seen.append)
    assert [e.env for e in seen] == [env]


def test_parents_are_capped_and_keep_own_chain() -> None:
    h = new_chat(members=(B, C, D))
    mine = say(h, A, "mine")
    members = [B, C, D]
    extra = [Identity(bytes([40 + i]) * 32) for i in range(MAX_PARENTS + 2)]
    for who in extra:
        h.add(h.compose(A, "member.add", {"member": who.peer_id.raw}, now_ms=10))
    base = h.heads()
    for who in extra + members:
        h.add(make_message(who, h.chat_id, base, "text", {"text": "x"}, seq=1, now_ms=11))
    assert len(h.heads()) > MAX_PARENTS
    parents = h.parents_for(A.peer_id)
    assert len(parents) == MAX_PARENTS
    env = h.compose(A, "text", {"text": "merge"}, now_ms=12)
    assert h.add(env).stored
    assert mine.hash not in h.heads()


def test_messages_after_brings_a_lagging_copy_up_to_date() -> None:
    source = new_chat()
    for i in range(20):
        say(source, [A, B, C][i % 3], str(i))
    copy = ChatHistory(source.genesis)
    for entry in source.entries()[:7]:
        copy.add(entry.env)
    rounds = 0
    while True:
        batch, more = source.messages_after(copy.version(), limit=5)
        for entry in batch:
            assert copy.add(entry.env).stored  # every prefix is closed under parents
        rounds += 1
        if not more:
            break
    assert rounds == 3
    assert copy.heads() == source.heads() and len(copy) == len(source)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=1, max_value=60))
def test_any_delivery_order_converges(seed: int, count: int) -> None:
    """Members with partial views post concurrently; any delivery order gives the same history."""
    rng = random.Random(seed)
    people = [A, B, C]
    source = new_chat()
    views = {p.peer_id: ChatHistory(source.genesis) for p in people}
    posted: list[Envelope] = []
    for i in range(count):
        who = rng.choice(people)
        view = views[who.peer_id]
        for env in rng.sample(posted, k=min(len(posted), rng.randint(0, 3))):
            view.add(env)
        env = view.compose(who, "text", {"text": str(i)}, now_ms=i)
        view.add(env)
        source.add(env)
        posted.append(env)
    assert source.pending_count == 0 and len(source) == count
    shuffled = posted[:]
    rng.shuffle(shuffled)
    fresh = ChatHistory(source.genesis)
    for env in shuffled:
        fresh.add(env)
    assert fresh.pending_count == 0
    assert [e.hash for e in fresh.entries()] == [e.hash for e in source.entries()]
    assert fresh.heads() == source.heads()
