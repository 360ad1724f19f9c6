"""The shared plan and cancellation messages, exit codes of ``ioa goal``, the summary line (pure parts)."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from ioa_p2p.api.events import PlanEvent
from ioa_p2p.api.goals import TaskRecord, Teammate, goal_exit_code, goal_result
from ioa_p2p.cli.goal_view import EventPrinter, summary_line
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.machine import Conversation
from ioa_p2p.conversation.messages import ConvStart
from ioa_p2p.conversation.plan import PlanBoard, PlanUpdate, RoundCancel, SharedStep
from ioa_p2p.conversation.types import Aborted, Concluded, Incoming, Post, Speak, TurnDraft
from ioa_p2p.embedding import HashingEmbedder
from ioa_p2p.errors import InvalidContent
from ioa_p2p.node.goals.turns import side_message


def test_plan_update_round_trips_and_rejects_bad_content() -> None:
    update = PlanUpdate("r1", 2, (SharedStep("multiply", "peerB", "running"), SharedStep("report")))
    assert PlanUpdate.from_content(update.to_content()) == update
    for bad in (
        {"round": "r1", "version": 0, "steps": []},
        {"round": "r1", "version": 1, "steps": [{"title": "x", "owner": "", "status": "maybe"}]},
        {"round": "r1", "version": 1, "steps": [], "extra": 1},
        {"round": "r1", "version": 1, "steps": [{"title": " ", "owner": "", "status": "todo"}]},
    ):
        with pytest.raises(InvalidContent):
            PlanUpdate.from_content(bad)
    assert RoundCancel.from_content(RoundCancel("r1").to_content()).round == "r1"


def test_plan_board_orders_versions_and_detects_changes() -> None:
    board = PlanBoard.empty()
    steps = (SharedStep("a"),)
    assert board.changed(steps) and board.next_version() == 1
    board.add("m2", "p", PlanUpdate("r", 2, (SharedStep("b"),)))
    board.add("m1", "p", PlanUpdate("r", 1, steps))
    latest = board.latest()
    assert latest is not None and latest.version == 2 and board.next_version() == 3
    assert not board.changed((SharedStep("b"),)) and board.changed(steps)


def _round() -> SimpleNamespace:
    start = ConvStart.create("g", initiator="pA", members=["pA", "pB"], now=0.0)
    return SimpleNamespace(round_id="r", start=start, plans=PlanBoard.empty())


def test_only_the_initiator_cancels_a_round() -> None:
    rounds = {"r": _round()}
    content = RoundCancel("r").to_content()
    rid, event, decision = side_message("conv.cancel", content, "m", "pB", rounds, str, chat_id="c")
    assert decision is None and event is not None and event.event == "rejected"
    rid, event, decision = side_message("conv.cancel", content, "m", "pA", rounds, str, chat_id="c")
    assert rid == "r" and isinstance(decision, Aborted) and decision.reason == "cancelled"
    assert side_message("conv.cancel", content, "m", "stranger", rounds, str, chat_id="c") == ("", None, None)
    rid, event, _ = side_message("conv.plan", {"round": "r"}, "m", "pA", rounds, str, chat_id="c")
    assert event is not None and event.event == "invalid"


def test_a_plan_update_becomes_an_event_and_the_round_keeps_it() -> None:
    rounds = {"r": _round()}
    content = PlanUpdate("r", 1, (SharedStep("multiply", "pB", "todo"),)).to_content()
    names = lambda p: f"name-{p}"  # noqa: E731
    rid, event, decision = side_message("conv.plan", content, "m", "pB", rounds, names, chat_id="c")
    assert rid == "r" and decision is None and event is not None
    assert isinstance(event, PlanEvent) and event.steps[0].owner_name == "name-pB"
    assert rounds["r"].plans.latest().steps[0].title == "multiply"
    lines = EventPrinter(lambda line: None).lines(replace(event, author_name="bob"))
    assert lines[0].strip() == "plan v1 by bob:" and "1. [todo] multiply (name-pB)" in lines[1]


def test_the_offline_planner_states_its_plan() -> None:
    start = ConvStart.create("Calculate 2 + 2. Then multiply it by 3", initiator="pA", members=["pA"],
                             now=0.0)  # fmt: skip
    conv = Conversation(start, me="pA", start_id="s", now=0.0)
    [speak] = [d for d in conv.on_tick(0.0) if isinstance(d, Speak)]
    from ioa_p2p.conversation.brains.base import MemberInfo

    draft = OfflineBrain(HashingEmbedder()).decide(conv.view(), speak, [MemberInfo("pA", "me")])
    assert draft.plan is not None and [s.status for s in draft.plan] == ["todo", "todo"]
    assert draft.plan[0].owner == "pA" and draft.plan[1].title.startswith("step 2/2")


def _result(status: str, tasks: list[tuple[str, str]], **fields: object) -> object:
    records = tuple(
        TaskRecord(f"t#{i}", title, "d", "pA", "pB", "sync", state, "4", None, {}, {}, "", "bob")
        for i, (title, state) in enumerate(tasks)
    )
    base: dict[str, object] = dict(
        goal="Calculate 2 + 2", chat_id="c", round_id="r", status=status, conclusion="4", forced=False,
        team=(Teammate("pA", "me", 1.0),), declined=(), unanswered=(), tasks=records, turns=3, messages=9,
        size=1, brain="offline", depth=1, parent_chat="", parent_task="", timings={}, origins={},
        fallbacks={}, team_fallback="", plan=(),
    )  # fmt: skip
    return goal_result(**{**base, **fields})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("status", "complete", "code"), [("concluded", True, 0), ("concluded", False, 3), ("aborted", True, 4)]
)
def test_exit_codes(status: str, complete: bool, code: int) -> None:
    assert goal_exit_code(status, complete) == code


@pytest.mark.parametrize(
    ("status", "tasks", "code"),
    [
        ("concluded", [("step 1/1", "completed")], 0),
        ("concluded", [("step 1/1", "failed"), ("step 1/1", "completed")], 0),  # a retry that completed
        ("concluded", [("step 1/1", "failed")], 3),
        ("aborted", [("step 1/1", "completed")], 4),
    ],
)
def test_a_goal_result_carries_the_exit_code_of_its_report(
    status: str, tasks: list[tuple[str, str]], code: int
) -> None:
    result = _result(status, tasks)
    assert result.exit_code == code  # type: ignore[attr-defined]
    complete = result.to_json()["complete"] or status != "concluded"  # type: ignore[attr-defined]
    assert result.exit_code == goal_exit_code(status, complete)  # type: ignore[attr-defined]


def test_summary_line_counts_model_turns_and_fallbacks() -> None:
    result = _result("concluded", [("step 1/1", "completed")], origins={"model": 1, "fallback": 2},
                     fallbacks={"timeout": 2}, brain="llm:openai/x",
                     team_fallback="rate_limited")  # fmt: skip
    assert summary_line(result) == (  # type: ignore[arg-type]
        "concluded: 3 turns (model 1, fallback 2: timeout 2), 1/1 tasks completed, 9 messages, "
        "brain llm:openai/x; team-up fell back: rate_limited"
    )


def _concluded_at_once(goal: str, text: str) -> tuple[str, tuple[object, ...]]:
    """A round whose first speaker concludes at once, assigning nothing: its conclusion and tasks."""
    start = ConvStart.create(goal, initiator="pA", members=["pA", "pB"], now=0.0)
    conv = Conversation(start, me="pA", start_id="s", now=0.0)
    [speak] = [d for d in conv.on_tick(0.0) if isinstance(d, Speak)]
    [post] = [
        d for d in conv.compose_turn(speak.token, TurnDraft(cm.CONCLUSION, text), 0.1) if isinstance(d, Post)
    ]
    decisions = conv.on_message(Incoming("m1", "pA", post.kind, post.content), 0.2)
    [final] = [d for d in decisions if isinstance(d, Concluded)]
    return final.text, tuple(conv.view().tasks)


def test_concluding_at_once_on_a_goal_that_needs_work_is_not_complete() -> None:
    text, tasks = _concluded_at_once("Calculate 6 * 7", "The answer is 42.")
    assert tasks == ()
    result = _result("concluded", [], goal="Calculate 6 * 7", conclusion=text)
    out = result.to_json()  # type: ignore[attr-defined]
    assert not out["complete"] and out["answer"] == "" and out["exit_code"] == 3  # nobody calculated
    text, _ = _concluded_at_once("Write a haiku about autumn", "Leaves drift on cold wind")
    chat = _result("concluded", [], goal="Write a haiku about autumn", conclusion=text)
    assert chat.to_json()["complete"] and chat.exit_code == 0  # type: ignore[attr-defined]
