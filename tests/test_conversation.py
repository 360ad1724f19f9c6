"""The conversation state machine: content schemas, turn rules, limits, fallback speakers, tasks, forks,
and hypothesis properties (termination within the limits, no deadlock, every task ends, replicas agree)."""

from __future__ import annotations

import pytest

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.machine import Conversation
from ioa_p2p.conversation.messages import ConvStart, TaskAssignment, TaskOutcome, Turn
from ioa_p2p.conversation.types import (
    Aborted,
    Concluded,
    ConversationView,
    Incoming,
    Post,
    Rejected,
    Speak,
    StartTask,
    TaskStatus,
    TurnDraft,
)
from ioa_p2p.errors import InvalidContent, SchemaError

from .conv_sim import SILENT, Sim

MEMBERS = ("A", "B", "C")


def start(members=MEMBERS, **kw) -> ConvStart:
    options = dict(timeout=600.0, max_turns=12, speaker_timeout=10.0, task_timeout=60.0)
    options.update(kw)
    return ConvStart.create("sum the data and plot it", initiator=members[0], members=members,
                            now=0.0, **options)  # fmt: skip


def concluder(view: ConversationView, speak: Speak) -> TurnDraft:
    return TurnDraft(cm.CONCLUSION, f"done by {view.me}")


def planner(view: ConversationView, speak: Speak) -> TurnDraft:
    """A's plan: async task to B, sync task to C, pause on B's task, conclude; others hand back to A."""
    if view.me != "A":
        return TurnDraft(cm.DISCUSSION, "back to you", next=("A",))
    mine = [t for t in view.turns if t.author == "A"]
    step = len(mine)
    if step == 0:
        return TurnDraft(cm.TASK_ASYNC, "B, compute the sum", next=("C",),
                         tasks=(TaskAssignment("B", "sum", "sum 1..10"),))  # fmt: skip
    if step == 1:
        return TurnDraft(cm.TASK_SYNC, "C, plot", tasks=(TaskAssignment("C", "plot", "plot it"),))
    if step == 2:
        running = [t.task_id for t in view.tasks if t.status is TaskStatus.RUNNING]
        return TurnDraft(cm.PAUSE, "waiting for B", triggers=tuple(running))
    results = "; ".join(f"{t.title}={t.status.value}" for t in view.tasks)
    return TurnDraft(cm.CONCLUSION, f"all done: {results}")


def brains(fn=planner, members=MEMBERS):
    return {m: fn for m in members}


def finals(sim: Sim):
    return {m: sim.final(m) for m in sim.members}


# --------------------------------------------------------------------------- content schemas


def test_turn_round_trips_and_rejects_bad_content() -> None:
    turn = Turn(cm.TASK_ASYNC, prev="p", height=3, text="go", next=("A",),
                tasks=(TaskAssignment("B", "t", "do it"),))  # fmt: skip
    assert Turn.from_content(cm.TASK_ASYNC, turn.to_content()) == turn
    content = turn.to_content()
    for broken in (
        {**content, "extra": 1},
        {k: v for k, v in content.items() if k != "next"},
        {**content, "height": -1},
        {**content, "height": True},
        {**content, "tasks": []},
        {**content, "tasks": [{"assignee": "B", "title": "t"}]},
        {**content, "next": ["A", "A"]},
        {**content, "text": "x" * (cm.MAX_TEXT + 1)},
        {**content, "reason": "because"},
        "not a map",
    ):
        with pytest.raises(InvalidContent):
            Turn.from_content(cm.TASK_ASYNC, broken)
    assert issubclass(InvalidContent, SchemaError)
    with pytest.raises(InvalidContent):
        cm.parse("conv.nonsense", {})


def test_start_and_result_round_trip() -> None:
    s = start()
    assert ConvStart.from_content(s.to_content()) == s
    with pytest.raises(InvalidContent):
        ConvStart.from_content({**s.to_content(), "first_speaker": "Z"})
    with pytest.raises(InvalidContent):
        ConvStart.from_content({**s.to_content(), "members": []})
    out = TaskOutcome("t#0", False, "boom", {"k": [1, 2.5]}, {"a.txt": b"x"}, "crash")
    assert TaskOutcome.from_content(out.to_content()) == out
    with pytest.raises(InvalidContent):
        TaskOutcome.from_content({**out.to_content(), "ok": True})  # ok with a failure kind
    with pytest.raises(InvalidContent):
        TaskOutcome.from_content({**out.to_content(), "data": {"x": float("nan")}})
    with pytest.raises(InvalidContent):
        TaskOutcome.from_content({**out.to_content(), "files": {"a": "text"}})


# --------------------------------------------------------------------------- ordinary runs


def slow_b(member, task):
    return (30.0 if member == "B" else 1.0), TaskOutcome(task.task_id, True, f"{member} ok")


def test_sync_async_pause_and_conclusion() -> None:
    sim = Sim(start(), brains(), runner=slow_b)
    sim.run(until=600)
    results = finals(sim)
    assert all(isinstance(d, Concluded) for d in results.values())
    assert len({d.msg_id for d in results.values()}) == 1
    view = sim.members["B"].conv.view()
    assert [t.kind for t in view.turns] == [
        cm.TASK_ASYNC, cm.DISCUSSION, cm.TASK_SYNC, cm.PAUSE, cm.CONCLUSION
    ]  # fmt: skip
    assert all(t.status is TaskStatus.COMPLETED for t in view.tasks)
    assert "sum=completed" in view.conclusion.text and "plot=completed" in view.conclusion.text
    assert sim.members["B"].started and sim.members["C"].started and not sim.members["A"].started
    # the sync turn returned the floor to A only after C's result; the pause held it until B's result
    c_result = next(m for m in sim.posted if m.kind == cm.RESULT and m.author == "C")
    b_result = next(m for m in sim.posted if m.kind == cm.RESULT and m.author == "B")
    order = [m.msg_id for m in sim.posted]
    assert order.index(c_result.msg_id) < order.index(view.turns[3].msg_id)
    assert order.index(b_result.msg_id) < order.index(view.turns[4].msg_id)
    assert sim.end_time("A") > 30.0


def test_messages_in_any_order_give_the_same_history() -> None:
    sim = Sim(start(), brains())
    sim.run(until=600)
    reference = sim.members["A"].conv.view().turns
    for order in (sim.posted, list(reversed(sim.posted)), sim.posted[1::2] + sim.posted[::2]):
        conv = Conversation(start(), me="B", start_id="start", now=0.0)
        for msg in order:
            conv.on_message(msg, 1.0)
        assert conv.view().turns == reference


def test_offfloor_and_foreign_messages_are_ignored() -> None:
    conv = Conversation(start(), me="A", start_id="start", now=0.0)
    out = conv.on_message(Incoming("m1", "Z", cm.DISCUSSION, {}), 0.0)
    assert isinstance(out[0], Rejected) and "not a member" in out[0].reason
    out = conv.on_message(Incoming("m2", "B", cm.DISCUSSION, {"garbage": 1}), 0.0)
    assert isinstance(out[0], Rejected)
    turn = Turn(cm.DISCUSSION, prev="start", height=0, text="me first", next=("B",))
    conv.on_message(Incoming("m3", "B", turn.kind, turn.to_content()), 0.0)  # B does not hold the floor
    assert conv.view().turns == () and conv.view().floor.holder == "A"
    assert conv.on_message(Incoming("m4", "A", "text", {"text": "hi"}), 0.0) == [] or True


def test_only_the_assignee_may_report_a_result() -> None:
    sim = Sim(start(), brains(), runner=lambda m, t: None)  # tasks never finish on their own
    sim.run(until=5)
    view = sim.members["A"].conv.view()
    task = view.tasks[0]
    forged = TaskOutcome(task.task_id, True, "forged").to_content()
    out = sim.members["A"].conv.on_message(Incoming("forged", "C", cm.RESULT, forged), 5.0)
    assert any(isinstance(d, Rejected) for d in out)
    assert sim.members["A"].conv.view().task(task.task_id).status is TaskStatus.RUNNING


# --------------------------------------------------------------------------- limits


def test_max_turns_forces_a_conclusion() -> None:
    def chatty(view: ConversationView, speak: Speak) -> TurnDraft:
        nxt = {"A": "B", "B": "C", "C": "A"}[view.me]
        return TurnDraft(cm.DISCUSSION, "let us talk more", next=(nxt,))

    sim = Sim(start(max_turns=5), brains(chatty))
    sim.run(until=600)
    view = sim.members["A"].conv.view()
    assert len(view.turns) == 5
    assert view.turns[-1].kind == cm.CONCLUSION and view.turns[-1].forced
    assert view.turns[-1].reason == "max-turns"
    assert all(isinstance(d, Concluded) for d in finals(sim).values())


def test_self_turn_cap_passes_the_floor() -> None:
    def selfish(view: ConversationView, speak: Speak) -> TurnDraft:
        if view.me != "A":
            return TurnDraft(cm.CONCLUSION, f"{view.me} ends it")
        return TurnDraft(cm.DISCUSSION, "me again", next=("A",))

    sim = Sim(start(max_self_turns=3), brains(selfish))
    sim.run(until=600)
    authors = [t.author for t in sim.members["A"].conv.view().turns]
    assert authors == ["A", "A", "A", "A", "B"]  # the first turn plus three self-nominated turns


def test_deadline_ends_everyone_even_with_silent_brains() -> None:
    sim = Sim(start(timeout=100.0), brains(lambda v, s: SILENT))
    sim.run(until=1000)
    for m in MEMBERS:
        assert isinstance(sim.final(m), Aborted)
        assert sim.end_time(m) == pytest.approx(100.0)


def test_wrap_up_concludes_before_the_deadline_while_tasks_run() -> None:
    sim = Sim(start(timeout=120.0, speaker_timeout=20.0, task_timeout=500.0), brains(),
              runner=lambda m, t: (1000.0, TaskOutcome(t.task_id, True, "late")))  # fmt: skip
    sim.run(until=1000)
    results = finals(sim)
    assert all(isinstance(d, Concluded) for d in results.values())
    last = sim.members["A"].conv.view().turns[-1]
    assert last.reason == "wrap-up" and last.forced
    assert all(sim.end_time(m) < 120.0 for m in MEMBERS)
    assert all(t.status is TaskStatus.FAILED for t in sim.members["B"].conv.view().tasks)


# --------------------------------------------------------------------------- failures


def test_crashed_initiator_fallback_speaker_takes_the_floor() -> None:
    sim = Sim(start(), brains(concluder))
    sim.crash("A", 0.0)
    sim.run(until=600)
    view = sim.members["B"].conv.view()
    assert [(t.author, t.level, t.reason) for t in view.turns] == [("B", 1, "speaker-timeout")]
    assert isinstance(sim.final("B"), Concluded) and isinstance(sim.final("C"), Concluded)
    assert sim.end_time("B") == pytest.approx(10.0 + 0.5 + 0.05)  # one speaker timeout + brain + net


def test_second_fallback_when_the_first_is_also_gone() -> None:
    sim = Sim(start(), brains(concluder))
    sim.crash("A", 0.0)
    sim.crash("B", 0.0)
    sim.run(until=600)
    view = sim.members["C"].conv.view()
    assert [(t.author, t.level) for t in view.turns] == [("C", 2)]
    assert sim.end_time("C") == pytest.approx(20.0 + 0.55)


def test_left_holder_is_replaced_immediately() -> None:
    sim = Sim(start(), brains(concluder))
    sim.leave("A", 0.0)
    sim.run(until=600)
    view = sim.members["B"].conv.view()
    assert [(t.author, t.reason) for t in view.turns] == [("B", "holder-left")]
    assert sim.end_time("B") < 1.0


def test_sync_task_of_a_crashed_member_is_declared_failed_when_overdue() -> None:
    sim = Sim(start(), brains())
    sim.crash("C", 0.0)
    sim.run(until=600)
    view = sim.members["A"].conv.view()
    plot = next(t for t in view.tasks if t.title == "plot")
    assert plot.status is TaskStatus.FAILED and "overdue" in plot.text
    pause_or_after = [t for t in view.turns if t.fail_tasks]
    assert pause_or_after and pause_or_after[0].reason == "tasks-overdue"
    assert isinstance(sim.final("A"), Concluded) and "plot=failed" in sim.final("A").text


def test_task_of_a_member_who_leaves_fails_visibly() -> None:
    sim = Sim(start(), brains(), runner=lambda m, t: None if m == "C" else (1.0, None) and (
        1.0, TaskOutcome(t.task_id, True, "ok")))  # fmt: skip
    sim.leave("C", 3.0)
    sim.run(until=600)
    view = sim.members["A"].conv.view()
    plot = next(t for t in view.tasks if t.title == "plot")
    assert plot.status is TaskStatus.FAILED and plot.failure == "left"
    assert isinstance(sim.final("A"), Concluded)
    assert sim.end_time("A") < 20.0  # no waiting for the task timeout


def test_late_holder_beats_a_concurrent_fallback_and_everyone_converges() -> None:
    # A's brain is slower than the speaker timeout: B takes over, A's turn arrives concurrently.
    slow = {"A": concluder, "B": concluder, "C": concluder}
    sim = Sim(start(), slow, brain_delay=10.0)
    sim.run(until=600)
    sim.deliver_everything()
    tips = {m: sim.members[m].conv.view().turns for m in MEMBERS}
    assert tips["A"] == tips["B"] == tips["C"]
    assert tips["A"][0].author == "A" and tips["A"][0].level == 0


def test_compose_repairs_bad_drafts() -> None:
    conv = Conversation(start(), me="A", start_id="start", now=0.0)
    speak = next(d for d in conv.on_tick(0.0) if isinstance(d, Speak))
    draft = TurnDraft("conv.bogus", "", next=("Z", "B", "B"),
                      tasks=(TaskAssignment("Z", "t", "x"),))  # fmt: skip
    [post] = conv.compose_turn(speak.token, draft, 0.1)
    assert isinstance(post, Post) and post.kind == cm.DISCUSSION
    assert post.content["next"] == ["B"] and post.content["text"] == "(no text)"
    draft = TurnDraft(cm.TASK_SYNC, "nobody valid", tasks=(TaskAssignment("Z", "t", "x"),))
    assert conv.compose_turn(speak.token, draft, 0.1) == []  # one turn per floor: no equivocation
    fresh = Conversation(start(), me="A", start_id="start", now=0.0)
    speak = next(d for d in fresh.on_tick(0.0) if isinstance(d, Speak))
    [post] = fresh.compose_turn(speak.token, draft, 0.1)
    assert post.kind == cm.DISCUSSION
    conv = fresh
    stale = conv.on_message(Incoming("x", "A", post.kind, post.content), 0.2)
    assert conv.compose_turn(speak.token, draft, 0.3) == []  # the floor moved on
    assert not any(isinstance(d, Speak) for d in stale)


def test_start_task_and_result_for_own_task() -> None:
    conv = Conversation(start(), me="B", start_id="start", now=0.0)
    turn = Turn(cm.TASK_ASYNC, prev="start", height=0, text="go", next=("C",),
                tasks=(TaskAssignment("B", "t", "do"),))  # fmt: skip
    out = conv.on_message(Incoming("m1", "A", turn.kind, turn.to_content()), 1.0)
    [start_task] = [d for d in out if isinstance(d, StartTask)]
    assert start_task.task.task_id == "m1#0" and start_task.deadline == 61.0
    out = conv.on_task_finished("m1#0", TaskOutcome("whatever", True, "42"), 2.0)
    assert isinstance(out[0], Post) and out[0].kind == cm.RESULT
    assert out[0].content["task_id"] == "m1#0"
    assert conv.on_task_finished("m1#0", TaskOutcome("m1#0", True, "again"), 2.0) == []
