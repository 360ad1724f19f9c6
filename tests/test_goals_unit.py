"""Goals service: the pure parts (nested-team rule, argument parsing, decision netting, events, CLI text)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio

from ioa_p2p.api.events import (
    HeartbeatEvent,
    MemberName,
    ProgressEvent,
    ResultEvent,
    StartEvent,
    TaskAssigned,
    TeamEvent,
    TurnEvent,
)
from ioa_p2p.api.goals import GoalResult, TaskRecord, Teammate, goal_result
from ioa_p2p.cli.goal_cmds import launch_request
from ioa_p2p.cli.goal_view import EventPrinter, print_result
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.brains.deferred import DeferredBrain
from ioa_p2p.conversation.brains.llm import LLMBrain
from ioa_p2p.conversation.brains.offline import OfflineBrain
from ioa_p2p.conversation.costs import OUTSIDE_HEADING
from ioa_p2p.conversation.inputs import net_decisions
from ioa_p2p.conversation.messages import ConvStart, TaskAssignment, TaskOutcome, Turn
from ioa_p2p.conversation.types import CancelTask, Speak, SpeakToken, StartTask, TaskStatus, TaskView
from ioa_p2p.embedding import HashingEmbedder
from ioa_p2p.errors import ConfigError, UsageError
from ioa_p2p.history.bodies import make_message
from ioa_p2p.identity import Identity
from ioa_p2p.node.goals.brain import make_brain_for
from ioa_p2p.node.goals.describe import describe_message, describe_start, describe_task
from ioa_p2p.node.goals.runtime import (
    REASON_ASKED,
    REASON_NO_ADAPTER,
    REASON_REJECTED,
    AgentRuntime,
    adapter_table,
    subteam_reason,
)
from ioa_p2p.node.goals.types import GoalsConfig
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
    # the offline planner is made at the first turn (an idle agent holds no planner)
    assert isinstance(brain, DeferredBrain) and model is None and brain.label == "offline planner"
    assert not brain.made and isinstance(brain.brain(), OfflineBrain) and brain.made
    llm, _ = make_brain_for(
        GoalsConfig(), {"base_url": "http://127.0.0.1:9/v1", "model": "m"}, embedder, env={}
    )
    assert isinstance(llm, LLMBrain) and llm.label == "llm:openai/m"
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    brain, model = make_brain_for(GoalsConfig(), {}, embedder, env=env)
    assert isinstance(brain, LLMBrain) and model is not None
    brain, model = make_brain_for(GoalsConfig(brain="offline"), {}, embedder, env=env)
    assert isinstance(brain, DeferredBrain) and isinstance(brain.brain(), OfflineBrain) and model is None
    with pytest.raises(ConfigError):
        make_brain_for(GoalsConfig(brain="llm"), {}, embedder, env={})


def _goal_result(conclusion: str, tasks: tuple[TaskRecord, ...] = (), depth: int = 1) -> GoalResult:
    me = Teammate("12D3me", "coordinator", 1.0)
    return goal_result(
        goal="g", chat_id="ab" * 32, round_id="cd" * 32, status="concluded", conclusion=conclusion,
        forced=False, team=(me,), declined=(), unanswered=(), tasks=tasks, turns=2, messages=5, size=900,
        brain="offline planner", depth=depth, parent_chat="", parent_task="", timings={}, origins={},
        fallbacks={}, team_fallback="", plan=(),
    )  # fmt: skip


def _record(status: str, title: str = "t", assignee: str = "12D3b") -> TaskRecord:
    return TaskRecord("t#0", title, "d", "12D3me", assignee, "sync", status, "x", None, {}, {}, "", "b")


def test_goal_result_json_and_success() -> None:
    result = _goal_result("42")
    data = result.to_json()
    assert data["comm_id"] == data["chat_id"] == "ab" * 32 and data["conclusion"] == "42"
    assert result.ok and result.succeeded and not result.aborted
    failed = _goal_result("no", (_record("failed"),), depth=0)
    assert failed.ok and not failed.succeeded
    assert GoalResult.from_json(failed.to_json()) == failed


def test_the_printed_result_names_agents_with_their_peer_ids_and_who_else_took_part() -> None:
    me, calc = Teammate("12D3KooWme", "coordinator", 1.0), Teammate("12D3KooWcalc", "calculator", 0.5)
    agents: list[Any] = [{"peer_id": "12D3KooWdeep", "name": "deep"}, {"peer_id": me.peer_id}]
    data: dict[str, Any] = {"sub_chat": "ef" * 32, "usage": {"wall_ms": 31}, "agents": agents}
    record = TaskRecord("t#0", "t", "d", me.peer_id, calc.peer_id, "sync", "completed", "x", None, data, {},
                        "", "calculator")  # fmt: skip
    result = goal_result(
        goal="g", chat_id="ab" * 32, round_id="cd" * 32, status="concluded", conclusion="42", forced=False,
        team=(me, calc), declined=(), unanswered=(), tasks=(record,), turns=2, messages=5, size=900,
        brain="offline planner", depth=1, parent_chat="", parent_task="", timings={}, origins={},
        fallbacks={}, team_fallback="", plan=(),
    )  # fmt: skip
    assert result.outside == (Teammate("12D3KooWdeep", "deep"),)  # members of the round are not outside
    assert GoalResult.from_json(result.to_json()) == result
    assert "outside" not in _goal_result("42").to_json()  # an empty list is left out
    out: list[str] = []
    print_result(result, out.append)
    row = next(line for line in out if line.strip().startswith("calculator "))
    assert row.endswith("31 ms") and "12D3KooW" not in row
    assert "  Peer ID of calculator: 12D3KooWcalc" in out
    assert out[out.index(OUTSIDE_HEADING) + 1] == "  - deep: 12D3KooWdeep"


# --------------------------------------------------------------------------- events and their printing


def _json(event: Any) -> dict[str, Any]:
    data: dict[str, Any] = event.to_json()
    return data


def _envelope(identity: Identity, kind: str, content: dict[str, Any]) -> Any:
    return make_message(identity, b"\x01" * 32, [b"\x02" * 32], kind, content, seq=1, now_ms=1_000)


def test_events_describe_turns_results_and_bad_content() -> None:
    alice, bob = Identity.generate(), Identity.generate()
    names = {str(alice.peer_id): "alice", str(bob.peer_id): "bob"}
    start = ConvStart.create("g", initiator=str(alice.peer_id), members=[str(bob.peer_id)], now=0.0)
    started = _json(describe_start("c1", start, "r1", names.__getitem__))
    assert started["members"] == [
        {"peer_id": str(alice.peer_id), "name": "alice"},
        {"peer_id": str(bob.peer_id), "name": "bob"},
    ]
    turn = Turn(cm.TASK_SYNC, "r1", 0, "do it", tasks=(TaskAssignment(str(bob.peer_id), "step 1/1", "6*7"),))
    env = _envelope(alice, cm.TASK_SYNC, turn.to_content())
    event = _json(describe_message("c1", env, "r1", names.__getitem__))
    assert event["event"] == "turn" and event["type"] == "sync_task" and event["author_name"] == "alice"
    assert (
        event["tasks"][0]["task_id"] == f"{env.hash.hex()}#0" and event["tasks"][0]["assignee_name"] == "bob"
    )
    outcome = TaskOutcome(f"{env.hash.hex()}#0", False, "boom", None, {"a.txt": b"x"}, "crash")
    result = _json(
        describe_message("c1", _envelope(bob, cm.RESULT, outcome.to_content()), "r1", names.__getitem__)
    )
    assert result["event"] == "result" and result["failure"] == "crash" and result["files"] == ["a.txt"]
    invalid = _json(
        describe_message("c1", _envelope(bob, cm.DISCUSSION, {"text": "no fields"}), None, names.__getitem__)
    )
    assert invalid["event"] == "invalid" and "missing fields" in invalid["reason"]
    task = TaskView(
        "t#0", "a", str(bob.peer_id), "t", "d", "sync", 0, TaskStatus.COMPLETED, "42", None, {"f": b"123"}
    )
    assert describe_task(task, names.__getitem__).files == {"f": 3}


def test_event_printer_shows_speakers_tasks_progress_and_results() -> None:
    lines: list[str] = []
    printer = EventPrinter(lines.append)
    printer(TeamEvent("c1", "g", (Teammate("p1", "calc", 0.5),), (Teammate("p2", "busy"),), (), {}, "", "l1"))
    turn = dict(chat_id="c1", round_id="r1", msg_id="m", author="p0", author_name="coord", kind="conv.turn",
                level=0, triggers=(), fail_tasks=(), forced=False, origin="offline", fallback="")  # fmt: skip
    task = TaskAssigned("m#0", "p1", "calc", "step 1/1", "6*7")
    printer(TurnEvent(**turn, type="async_task", height=0, reason="", text="[offline planner] go",
                      next=("coord",), tasks=(task,)))  # fmt: skip
    fields = dict(chat_id="c1", round_id="r1", msg_id="m2", author="p1", author_name="calc", kind="k")
    printer(ProgressEvent(**fields, task_id="m#0", text="working", fraction=0.5))
    printer(ResultEvent(**fields, task_id="m#0", ok=False, text="boom", failure="crash", files=()))
    printer(TurnEvent(**turn, type="conclusion", height=1, reason="wrap-up", text="first line\nsecond line",
                      next=(), tasks=()))  # fmt: skip
    printer(HeartbeatEvent())
    printer(StartEvent("c1", "r1" * 8, "g", "p0", "coord", (MemberName("p0", "coord"),), 0, 20, 1, "", ""))
    text = "\n".join(lines)
    assert "team: calc (0.50)" in text and "declined: busy" in text
    assert "#0 coord > async_task: [offline planner] go" in text
    assert "-> step 1/1 for calc: 6*7" in text and "calc . step 1/1: working (50%)" in text
    assert "calc FAILED (crash) step 1/1: boom" in text
    assert "#1 coord > conclusion [wrap-up]: first line ..." in text and "second line" not in text
    assert "members coord; nesting depth 1; max 20 turns" in text
    out: list[str] = []
    print_result(_goal_result("42\nbecause", (_record("completed"),)), out.append)
    assert "  42" in out and "  because" in out and f"chat {'ab' * 32}" in out
    assert any("1/1 tasks" in x for x in out)


def test_the_cli_builds_the_launch_and_names_the_wrong_option() -> None:
    request = launch_request("plot it", "plotter, 12D3KooWx", 2, 10, 60.0, None)
    assert request.to_json() == {
        "goal": "plot it",
        "team_member_names": ["plotter", "12D3KooWx"],
        "team_up_depth": 2,
        "max_turns": 10,
        "timeout": 60.0,
    }
    assert launch_request("more", None, None, None, None, "abcd").to_json()["cont_input"] == "more"
    for args, option in (
        (("  ", None, None, None, None, None), "TEXT"),
        (("g", ",", None, None, None, None), "--team"),
        (("g", None, 9, None, None, None), "--depth"),
        (("g", None, None, 0, None, None), "--max-turns"),
        (("g", None, None, None, 0.5, None), "--timeout"),
        (("g", None, None, None, None, "not hex"), "--chat"),
    ):
        with pytest.raises(UsageError, match=f"^{option}: "):
            launch_request(*args)  # type: ignore[arg-type]


class _Directory:
    partial = False


class _Discovery:
    """What ``TeamFormation.candidates`` reads of discovery: ``find`` (recording ``use_dht``) and whether a
    census proves the directory complete."""

    def __init__(self, complete: bool) -> None:
        self.complete = complete
        self.asked: list[bool | None] = []
        self.directory = _Directory()

    def directory_complete(self) -> bool:
        return self.complete

    async def find(
        self, text: str, k: int = 5, *, use_dht: bool | None = None, include_self: bool = True
    ) -> list:
        self.asked.append(use_dht)
        return []  # no local card reaches the threshold


@pytest.mark.parametrize(("complete", "asked"), [(False, [False, True]), (True, [False])])
async def test_team_candidates_ask_the_dht_only_while_no_census_proves_the_directory_complete(
    complete: bool, asked: list[bool]
) -> None:
    """Issue 26: with every card held (a census of the network's publishers), a query no card matches well
    asked the DHT anyway, 2-9 s of each team's formation among 100 agents of one process."""
    from ioa_p2p.node.goals.teams import TeamFormation
    from ioa_p2p.node.goals.types import GoalsConfig

    discovery = _Discovery(complete)
    node: Any = SimpleNamespace(peer_id="me")  # all candidates() reads of the node
    formation = TeamFormation(node, None, discovery, GoalsConfig(), None, None, context_tokens=1000)  # type: ignore[arg-type]
    assert await formation.candidates("translate a text into French") == []
    assert discovery.asked == asked


async def test_a_goals_clauses_are_split_off_the_loop_while_the_whole_goals_find_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 26: the first split of a goal loads the grammar's lexicon (~1 s); on the event loop it held up
    every agent of a 100-agent process, and the goal's finds waited for it. Now the split runs in the
    node's worker thread while the whole goal's find goes on (the find is seen before the split ends)."""
    import threading

    import ioa_p2p.matching as matching
    from ioa_p2p.node.goals.teams import TeamFormation
    from ioa_p2p.node.goals.types import GoalsConfig

    goal = "Write a short announcement. Then translate it into French."
    found_goal = threading.Event()
    split_in: list[tuple[bool, bool]] = []  # (on the loop's thread, the goal's find seen meanwhile)
    real_split = matching.split_goal

    def slow_split(text: str):  # type: ignore[no-untyped-def]
        seen = found_goal.wait(10)  # the whole goal's find starts meanwhile (on the loop)
        split_in.append((threading.current_thread() is threading.main_thread(), seen))
        return real_split(text)

    class Finds(_Discovery):
        async def find(
            self, text: str, k: int = 5, *, use_dht: bool | None = None, include_self: bool = True
        ) -> list:
            if text == goal:
                found_goal.set()
            self.asked.append(use_dht)
            return []

    monkeypatch.setattr(matching, "split_goal", slow_split)
    node: Any = SimpleNamespace(peer_id="me", run_sync=lambda job: trio.to_thread.run_sync(job))
    discovery = Finds(complete=True)
    formation = TeamFormation(node, None, discovery, GoalsConfig(), None, None, context_tokens=1000)  # type: ignore[arg-type]
    with trio.fail_after(30):
        found = await formation.find_all(goal, (), {})
    assert split_in == [(False, True)]
    assert len(found) == len(discovery.asked) >= 2  # the goal and its clauses, each found once
