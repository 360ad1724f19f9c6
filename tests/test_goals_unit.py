"""Goals service: the pure parts (nested-team rule, argument parsing, decision netting, events, CLI text)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.cli.goal_cmds import EventPrinter, goal_body, print_result
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.llm import LLMBrain
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.inputs import net_decisions
from ioa_p2p.conversation.messages import ConvStart, TaskAssignment, TaskOutcome, Turn
from ioa_p2p.conversation.types import CancelTask, Speak, SpeakToken, StartTask, TaskStatus, TaskView
from ioa_p2p.embedding import HashingEmbedder
from ioa_p2p.errors import ConfigError, UsageError
from ioa_p2p.history.bodies import make_message
from ioa_p2p.identity import Identity
from ioa_p2p.node.goals.describe import describe_message, describe_start, describe_task
from ioa_p2p.node.goals.events import event_to_json
from ioa_p2p.node.goals.routes import launch_arguments
from ioa_p2p.node.goals.runtime import (
    REASON_ASKED,
    REASON_NO_ADAPTER,
    REASON_REJECTED,
    AgentRuntime,
    adapter_table,
    subteam_reason,
)
from ioa_p2p.node.goals.service import make_brain_for
from ioa_p2p.node.goals.types import GoalResult, GoalsConfig, Teammate, check_launch_args
from ioa_p2p.testing.echo import EchoAdapter

# --------------------------------------------------------------------------- the nested-team rule


@pytest.mark.parametrize(
    "text",
    [
        "Form a team to compute 6 * 7",
        "please assemble a sub-team for the report",
        "Put together a small team that translates this",
        "the subteam should plot it",
        "Recruit a new team for the survey",
    ],
)
def test_subteam_phrases_ask_for_a_team(text: str) -> None:
    assert subteam_reason(text, depth=1, has_adapter=True) == REASON_ASKED


@pytest.mark.parametrize(
    "text", ["Compute 6 * 7", "summarise the team's results", "list the teammates", "team up with bob"]
)
def test_ordinary_tasks_do_not_ask_for_a_team(text: str) -> None:
    assert subteam_reason(text, depth=1, has_adapter=True) is None


def test_subteam_rule_order_and_depth_limit() -> None:
    assert subteam_reason("Form a team", depth=0, has_adapter=False, rejected=True) is None
    assert subteam_reason("Compute 6 * 7", depth=2, has_adapter=False) == REASON_NO_ADAPTER
    assert subteam_reason("Compute 6 * 7", depth=1, has_adapter=True, rejected=True) == REASON_REJECTED
    assert subteam_reason("Compute 6 * 7", depth=1, has_adapter=True, rejected=False) is None


def test_adapter_table_applies_the_node_defaults(tmp_path: Path) -> None:
    python = adapter_table({"adapter": "python"}, tmp_path)
    assert python["options"]["hide_paths"] == [str(tmp_path)]
    kept = adapter_table({"adapter": "python", "options": {"hide_paths": []}}, tmp_path)
    assert kept["options"]["hide_paths"] == []
    relative = adapter_table({"adapter": "retrieval", "options": {"path": "docs"}}, tmp_path)
    assert relative["options"]["path"] == str(tmp_path / "docs")
    absolute = adapter_table({"adapter": "retrieval", "options": {"path": "/srv/docs"}}, tmp_path)
    assert absolute["options"]["path"] == "/srv/docs"
    assert adapter_table({"name": "x"}, tmp_path) == {"name": "x"}
    bad = {"adapter": "python", "options": "not a table"}
    assert adapter_table(bad, tmp_path) == bad  # left for the registry to report


async def test_agent_runtime_runs_tasks_until_a_unix_deadline() -> None:
    with trio.fail_after(10):
        echo = EchoAdapter.from_options({"delay": 0.2, "steps": 2})
        runtime = AgentRuntime(echo, echo.describe())
        reports: list[tuple[str, float | None]] = []

        async def progress(text: str, fraction: float | None) -> None:
            reports.append((text, fraction))

        result = await runtime.run("hello", deadline=time.time() + 5, on_progress=progress)
        assert result.ok and result.text == "echo: hello"
        assert reports[-1] == ("step 2/2", 1.0)
        slow = EchoAdapter.from_options({"delay": 5})
        late = await AgentRuntime(slow, slow.describe()).run("x", deadline=time.time() + 0.2)
        assert late.failure == "timeout"
        none = await AgentRuntime(None, None).run("x", deadline=time.time() + 1)
        assert none.failure == "rejected" and "no adapter" in none.text


# --------------------------------------------------------------------------- decisions, arguments, config


def _task(task_id: str) -> TaskView:
    return TaskView(task_id, "a", "b", "t", "d", "sync", 0, TaskStatus.RUNNING)


def test_net_decisions_drops_started_then_cancelled_tasks_and_stale_speaks() -> None:
    speak1 = Speak(SpeakToken("x", 0, 1), "", False, ())
    speak2 = Speak(SpeakToken("y", 0, 2), "", False, ())
    decisions = [
        StartTask(_task("t1"), 10.0),
        speak1,
        CancelTask("t1", "gone"),
        StartTask(_task("t2"), 10.0),
        CancelTask("t3", "was running before the batch"),
        speak2,
    ]
    out = net_decisions(decisions)  # type: ignore[arg-type]
    assert [type(d).__name__ for d in out] == ["StartTask", "CancelTask", "Speak"]
    assert out[0].task.task_id == "t2" and out[1].task_id == "t3" and out[2] is speak2  # type: ignore[union-attr]


def test_launch_arguments_accept_ioa_request_shape() -> None:
    kwargs, stream = launch_arguments(
        {
            "goal": "plot revenue",
            "team_member_names": ["plotter", "12D3KooWabc"],
            "team_up_depth": 2,
            "max_turns": 12,
            "skip_naming": True,
            "is_collaborative_planning_enabled": False,
            "obs_kwargs": {},
            "timeout": 60,
        }
    )
    assert not stream
    assert kwargs["goal"] == "plot revenue" and kwargs["team"] == ["plotter", "12D3KooWabc"]
    assert kwargs["depth"] == 2 and kwargs["max_turns"] == 12 and kwargs["timeout"] == 60.0
    cont, _ = launch_arguments({"comm_id": "abcd", "cont_input": {"content": "and now?", "sender": "x"}})
    assert cont["comm_id"] == "abcd" and cont["cont_input"] == "and now?"
    listed, stream = launch_arguments({"goal": "g", "team": "a, b,", "stream": True})
    assert listed["team"] == ["a", " b"] and stream


@pytest.mark.parametrize(
    "body",
    [
        None,
        ["goal"],
        {"goal": "g", "colour": "red"},
        {"goal": 3},
        {"goal": "g", "team_member_names": [1]},
        {"goal": "g", "team_up_depth": True},
        {"goal": "g", "max_turns": 2.5},
        {"goal": "g", "timeout": "soon"},
        {"goal": "g", "stream": "yes"},
        {"comm_id": "ab", "cont_input": 5},
    ],
)
def test_launch_arguments_reject_bad_bodies(body: Any) -> None:
    with pytest.raises(UsageError):
        launch_arguments(body)


@pytest.mark.parametrize(
    "args",
    [
        ("", 1, 20, 60.0, 30.0, None, None),
        ("g" * 9000, 1, 20, 60.0, 30.0, None, None),
        ("g", 9, 20, 60.0, 30.0, None, None),
        ("g", -1, 20, 60.0, 30.0, None, None),
        ("g", 1, 0, 60.0, 30.0, None, None),
        ("g", 1, 20, 0.5, 30.0, None, None),
        ("g", 1, 20, 60.0, 0.0, None, None),
        ("g", 1, 20, 60.0, 30.0, None, "more"),
    ],
)
def test_check_launch_args_limits(args: tuple[Any, ...]) -> None:
    with pytest.raises(UsageError):
        check_launch_args(*args)


def test_goals_config_section() -> None:
    config = GoalsConfig.from_section(
        {"max_concurrent": 0, "timeout": 90, "brain": "offline", "dht_lookup": "never"}
    )
    assert config.max_concurrent == 0 and config.timeout == 90.0 and config.brain == "offline"
    assert config.dht_lookup == "never"
    bad_tables = (
        {"colour": 1},
        {"brain": "smart"},
        {"dht_lookup": "sometimes"},
        {"timeout": -1},
        {"max_turns": 2.5},
        {"depth": True},
    )
    for bad in bad_tables:
        with pytest.raises(ConfigError):
            GoalsConfig.from_section(bad)


def test_brain_choice_follows_goals_brain_and_model_settings() -> None:
    embedder = HashingEmbedder(32)
    brain, model = make_brain_for(GoalsConfig(), {}, embedder, env={})
    assert isinstance(brain, OfflineBrain) and model is None
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    brain, model = make_brain_for(GoalsConfig(), {}, embedder, env=env)
    assert isinstance(brain, LLMBrain) and model is not None
    brain, model = make_brain_for(GoalsConfig(brain="offline"), {}, embedder, env=env)
    assert isinstance(brain, OfflineBrain) and model is None
    with pytest.raises(ConfigError):
        make_brain_for(GoalsConfig(brain="llm"), {}, embedder, env={})


def test_goal_result_json_and_success() -> None:
    me = Teammate("12D3me", "coordinator", 1.0)
    result = GoalResult(
        "ab" * 32,
        "cd" * 32,
        "g",
        "concluded",
        "42",
        False,
        (me,),
        (),
        (),
        (),
        2,
        5,
        900,
        "offline planner",
        1,
    )
    data = result.to_json()
    assert data["comm_id"] == data["chat_id"] == "ab" * 32 and data["conclusion"] == "42"
    assert result.ok and result.succeeded and not result.aborted
    failed = GoalResult(
        "ab" * 32,
        "cd" * 32,
        "g",
        "concluded",
        "no",
        False,
        (me,),
        (),
        (),
        ({"status": "failed"},),
        2,
        5,
        900,
        "offline planner",
        0,
    )
    assert failed.ok and not failed.succeeded


# --------------------------------------------------------------------------- events and their printing


def _envelope(identity: Identity, kind: str, content: dict[str, Any]) -> Any:
    return make_message(identity, b"\x01" * 32, [b"\x02" * 32], kind, content, seq=1, now_ms=1_000)


def test_events_describe_turns_results_and_bad_content() -> None:
    alice, bob = Identity.generate(), Identity.generate()
    names = {str(alice.peer_id): "alice", str(bob.peer_id): "bob"}
    start = ConvStart.create("g", initiator=str(alice.peer_id), members=[str(bob.peer_id)], now=0.0)
    started = event_to_json(describe_start("c1", start, "r1", names.__getitem__))
    assert started["members"] == [
        {"peer_id": str(alice.peer_id), "name": "alice"},
        {"peer_id": str(bob.peer_id), "name": "bob"},
    ]
    turn = Turn(cm.TASK_SYNC, "r1", 0, "do it", tasks=(TaskAssignment(str(bob.peer_id), "step 1/1", "6*7"),))
    env = _envelope(alice, cm.TASK_SYNC, turn.to_content())
    event = event_to_json(describe_message("c1", env, "r1", names.__getitem__))
    assert event["event"] == "turn" and event["type"] == "sync_task" and event["author_name"] == "alice"
    assert (
        event["tasks"][0]["task_id"] == f"{env.hash.hex()}#0" and event["tasks"][0]["assignee_name"] == "bob"
    )
    outcome = TaskOutcome(f"{env.hash.hex()}#0", False, "boom", None, {"a.txt": b"x"}, "crash")
    result = event_to_json(
        describe_message("c1", _envelope(bob, cm.RESULT, outcome.to_content()), "r1", names.__getitem__)
    )
    assert result["event"] == "result" and result["failure"] == "crash" and result["files"] == ["a.txt"]
    invalid = event_to_json(
        describe_message("c1", _envelope(bob, cm.DISCUSSION, {"text": "no fields"}), None, names.__getitem__)
    )
    assert invalid["event"] == "invalid" and "missing fields" in invalid["reason"]
    task = TaskView(
        "t#0", "a", str(bob.peer_id), "t", "d", "sync", 0, TaskStatus.COMPLETED, "42", None, {"f": b"123"}
    )
    assert describe_task(task, names.__getitem__)["files"] == {"f": 3}


def test_event_printer_shows_speakers_tasks_progress_and_results() -> None:
    lines: list[str] = []
    printer = EventPrinter(lines.append)
    printer(
        {
            "event": "team",
            "chat_id": "c1",
            "team": [{"name": "calc", "score": 0.5}],
            "declined": [{"name": "busy"}],
            "unanswered": [],
        }
    )
    printer(
        {
            "event": "turn",
            "author_name": "coord",
            "type": "async_task",
            "height": 0,
            "reason": "",
            "text": "[offline planner] go",
            "next": ["coord"],
            "tasks": [{"task_id": "m#0", "title": "step 1/1", "assignee_name": "calc", "description": "6*7"}],
        }
    )
    printer(
        {"event": "progress", "task_id": "m#0", "author_name": "calc", "text": "working", "fraction": 0.5}
    )
    printer(
        {
            "event": "result",
            "task_id": "m#0",
            "author_name": "calc",
            "ok": False,
            "failure": "crash",
            "text": "boom",
        }
    )
    printer(
        {
            "event": "turn",
            "author_name": "coord",
            "type": "conclusion",
            "height": 1,
            "reason": "wrap-up",
            "text": "first line\nsecond line",
            "tasks": [],
            "next": [],
        }
    )
    printer({"event": "heartbeat"})
    text = "\n".join(lines)
    assert "team: calc (0.50)" in text and "declined: busy" in text
    assert "#0 coord > async_task: [offline planner] go" in text
    assert "-> step 1/1 for calc: 6*7" in text and "calc . step 1/1: working (50%)" in text
    assert "calc FAILED (crash) step 1/1: boom" in text
    assert "#1 coord > conclusion [wrap-up]: first line ..." in text and "second line" not in text
    out: list[str] = []
    print_result(
        {
            "status": "concluded",
            "conclusion": "42\nbecause",
            "turns": 2,
            "messages": 5,
            "tasks": [{"status": "completed"}],
            "brain": "offline planner",
            "chat_id": "c1",
        },
        out.append,
    )
    assert "  42" in out and "  because" in out and "chat c1" in out and any("1/1 tasks" in x for x in out)


def test_goal_body_validates_options() -> None:
    body = goal_body("plot it", "plotter, 12D3KooWx", 2, 10, 60.0, None)
    assert body == {
        "goal": "plot it",
        "team_member_names": ["plotter", "12D3KooWx"],
        "team_up_depth": 2,
        "max_turns": 10,
        "timeout": 60.0,
    }
    assert goal_body("more", None, None, None, None, "abcd")["cont_input"] == "more"
    for args in (
        ("  ", None, None, None, None, None),
        ("g", ",", None, None, None, None),
        ("g", None, 9, None, None, None),
        ("g", None, None, 0, None, None),
        ("g", None, None, None, 0.5, None),
    ):
        with pytest.raises(UsageError):
            goal_body(*args)
