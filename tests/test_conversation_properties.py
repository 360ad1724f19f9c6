"""Properties of the conversation machine (ioa_p2p/conversation/machine.py) under hypothesis: adversarial
members always end within the limits; honest members always conclude together. The ordinary runs, limits
and failures are in tests/test_conversation.py."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.messages import ConvStart, TaskAssignment, TaskOutcome, Turn
from ioa_p2p.conversation.types import (
    Aborted,
    Concluded,
    ConversationView,
    Speak,
    TaskStatus,
    TurnDraft,
)

from .conv_sim import SILENT, Sim

# --------------------------------------------------------------------------- properties

NAMES = ("A", "B", "C", "D", "E")
KINDS = sorted(cm.TURN_KINDS) + ["conv.bogus"]


def _adversarial_brain(data: st.DataObject):
    def brain(view: ConversationView, speak: Speak):
        choice = data.draw(st.integers(0, 9), label="brain choice")
        if choice == 0:
            return SILENT
        if choice == 1:
            return None
        ids = [t.task_id for t in view.tasks] + ["nope#0"]
        names = list(view.start.members) + ["stranger"]
        members = list(view.start.members)
        if choice in (2, 3, 4):  # a sensible assignment
            tasks = tuple(
                TaskAssignment(data.draw(st.sampled_from(members)), f"t{i}", "do it")
                for i in range(data.draw(st.integers(1, 3)))
            )
            kind = cm.TASK_SYNC if choice == 2 else cm.TASK_ASYNC
            return TurnDraft(kind, "work", next=(data.draw(st.sampled_from(members)),), tasks=tasks)
        if choice == 5:  # a sensible pause
            running = tuple(t.task_id for t in view.tasks if t.status is TaskStatus.RUNNING)
            return TurnDraft(cm.PAUSE, "wait", triggers=running)
        kind = data.draw(st.sampled_from(KINDS), label="kind")
        tasks = tuple(
            TaskAssignment(data.draw(st.sampled_from(names)), "t", data.draw(st.sampled_from(["", "do"])))
            for _ in range(data.draw(st.integers(0, 2)))
        )
        return TurnDraft(
            kind,
            data.draw(st.sampled_from(["", "text"])),
            next=tuple(data.draw(st.lists(st.sampled_from(names), max_size=3))),
            tasks=tasks,
            triggers=tuple(data.draw(st.lists(st.sampled_from(ids), max_size=2))),
        )

    return brain


def _runner(data: st.DataObject):
    def run(member: str, task):
        kind = data.draw(st.integers(0, 3), label="task outcome")
        took = data.draw(st.floats(0.0, 200.0), label="task duration")
        if kind == 0:
            return None  # hangs forever
        if kind == 1:
            return took, TaskOutcome(task.task_id, False, "it broke", None, None, "crash")
        return took, TaskOutcome(task.task_id, True, "ok")

    return run


def _raw_content(data: st.DataObject, sim: Sim):
    known = ["start"] + [m.msg_id for m in sim.posted]
    kind = data.draw(st.sampled_from(KINDS + [cm.RESULT, cm.PROGRESS]))
    if kind in cm.TURN_KINDS:
        turn = Turn(
            kind if kind != cm.CONCLUSION else cm.CONCLUSION,
            prev=data.draw(st.sampled_from(known)),
            height=data.draw(st.integers(0, 6)),
            text="raw",
            level=data.draw(st.integers(0, 4)),
            next=tuple(data.draw(st.lists(st.sampled_from(NAMES), max_size=2, unique=True))),
            tasks=(TaskAssignment(data.draw(st.sampled_from(NAMES)), "raw", "raw task"),)
            if kind in cm.TASK_KINDS
            else (),
            triggers=("x#0",) if kind == cm.PAUSE else (),
        )
        return kind, turn.to_content()
    if kind == cm.RESULT:
        tid = data.draw(st.sampled_from(known)) + "#0"
        return kind, TaskOutcome(tid, True, "raw result").to_content()
    return kind, data.draw(st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


# IOA_HYPOTHESIS_SCALE=20 runs 20 times more examples (a long bug hunt); the default keeps the suite fast.
SCALE = int(os.environ.get("IOA_HYPOTHESIS_SCALE", "1"))


@settings(max_examples=150 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_adversarial_conversations_always_end_within_the_limits(data) -> None:
    n = data.draw(st.integers(1, 5), label="members")
    members = NAMES[:n]
    timeout = data.draw(st.floats(30.0, 400.0), label="timeout")
    spec = ConvStart.create(
        "goal", initiator=members[0], members=members, now=0.0, timeout=timeout,
        max_turns=data.draw(st.integers(1, 16), label="max_turns"),
        speaker_timeout=data.draw(st.floats(1.0, 40.0), label="speaker_timeout"),
        task_timeout=data.draw(st.floats(1.0, 100.0), label="task_timeout"),
        max_self_turns=data.draw(st.integers(1, 3), label="max_self_turns"),
    )  # fmt: skip
    delays = data.draw(st.lists(st.floats(0.0, 5.0), min_size=1, max_size=8), label="delays")
    sim = Sim(
        spec,
        {m: _adversarial_brain(data) for m in members},
        delay=lambda s, r, seq: delays[seq % len(delays)],
        runner=_runner(data),
        brain_delay=data.draw(st.floats(0.0, 3.0), label="brain delay"),
    )
    for m in members:
        fate = data.draw(st.integers(0, 5), label=f"fate of {m}")
        when = data.draw(st.floats(0.0, timeout), label="when")
        if fate == 0:
            sim.crash(m, when)
        elif fate == 1:
            sim.leave(m, when)
    for _ in range(data.draw(st.integers(0, 4), label="injections")):
        when = data.draw(st.floats(0.0, timeout))
        sim.run(until=when)
        kind, content = _raw_content(data, sim)
        sim.inject(when, data.draw(st.sampled_from(members)), kind, content)
    sim.run(until=timeout + 1000.0)

    for m in members:
        member = sim.members[m]
        view = member.conv.view()
        assert len(view.turns) <= spec.max_turns
        for turn in view.turns:
            assert turn.height < spec.max_turns
        if member.crashed_at is not None or member.left_at is not None:
            continue
        # terminates by the deadline (no deadlock, no member left hanging)
        assert member.conv.ended, f"{m} never ended"
        assert sim.end_time(m) <= spec.deadline + 1e-6
        assert isinstance(sim.final(m), Concluded | Aborted)
        # every task ends completed or failed, and no local task is left running
        assert all(t.status is not TaskStatus.RUNNING for t in view.tasks)
        assert member.running == set()
        finals_ = [d for _, d in member.decisions if isinstance(d, Concluded | Aborted)]
        assert len(finals_) == 1
    survivor = next((sim.members[m] for m in members if sim.members[m].crashed_at is None), None)
    if survivor is not None:
        view = survivor.conv.view()
        event(f"outcome: {type(sim.final(survivor.name)).__name__}")
        event(f"turns: {min(len(view.turns), 5)}+, tasks: {min(len(view.tasks), 3)}+")
        event(f"fallback turns: {any(t.level for t in view.turns)}")
    # replicas holding the same messages agree on the history
    sim.deliver_everything()
    histories = {sim.members[m].conv.view().turns for m in members if sim.members[m].crashed_at is None}
    assert len(histories) <= 1


@settings(max_examples=40 * SCALE, deadline=None)
@given(
    n=st.integers(1, 5),
    delays=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6),
    durations=st.lists(st.floats(0.0, 20.0), min_size=1, max_size=6),
)
def test_property_honest_members_always_conclude_together(n, delays, durations) -> None:
    members = NAMES[:n]
    spec = ConvStart.create("goal", initiator=members[0], members=members, now=0.0, timeout=600.0,
                            speaker_timeout=10.0, task_timeout=60.0)  # fmt: skip

    def honest(view: ConversationView, speak: Speak) -> TurnDraft:
        others = [m for m in view.start.members if m != view.me] or [view.me]
        if view.me != members[0]:
            return TurnDraft(cm.DISCUSSION, "noted", next=(members[0],))
        if not view.tasks:
            return TurnDraft(cm.TASK_ASYNC, "work", next=(others[0],),
                             tasks=tuple(TaskAssignment(o, o, f"job {o}") for o in others))  # fmt: skip
        running = [t.task_id for t in view.tasks if t.status is TaskStatus.RUNNING]
        if running:
            return TurnDraft(cm.PAUSE, "wait", triggers=tuple(running))
        return TurnDraft(cm.CONCLUSION, "all results in")

    sim = Sim(spec, {m: honest for m in members},
              delay=lambda s, r, seq: delays[seq % len(delays)],
              runner=lambda m, t: (durations[len(t.task_id) % len(durations)],
                                   TaskOutcome(t.task_id, True, "fine")))  # fmt: skip
    sim.run(until=1000)
    results = [sim.final(m) for m in members]
    assert all(isinstance(r, Concluded) for r in results)
    assert len({r.msg_id for r in results}) == 1
    view = sim.members[members[0]].conv.view()
    assert all(t.status is TaskStatus.COMPLETED for t in view.tasks)
    assert len(view.turns) <= spec.max_turns
