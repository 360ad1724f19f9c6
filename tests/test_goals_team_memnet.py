"""Team formation on the in-memory network under trio's MockClock (:mod:`ioa_p2p.testing.memagents`): who is
chosen for a goal, pinned names, busy agents that decline, continuations of a goal chat, and the one
deadline that bounds a sub-team inside its parent's task. The real goals, chat and discovery services run
on virtual time; tests/test_goals_net.py proves the same wiring over libp2p."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.errors import UsageError
from ioa_p2p.testing.memnet import MemoryNetwork

from .test_goals_memnet import CALCULATOR, COORDINATOR, HANGER, WRITER, goals_of, open_team, tasks_of

BUSY = {"name": "busy", "adapter": "calculator", "goals": {"max_concurrent": 0}}
MANAGER = {"name": "manager", "description": "Echo manager: gets words echoed by a team of echo agents."}
SLOW = {"name": "wordy", "adapter": "echo", "options": {"name": "wordy", "delay": 500.0, "steps": 50}}


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


async def test_the_team_is_chosen_by_capability_and_covers_the_plan(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    with trio.fail_after(600):
        async with open_team(MemoryNetwork(), tmp_path, [COORDINATOR, WRITER, HANGER, CALCULATOR]) as team:
            result = await goals_of(team[0]).launch_goal(LaunchRequest("Calculate 6 * 7", timeout=60))
            names = [t.name for t in result.team]
            assert names[0] == "coordinator" and "calculator" in names and "hanger" not in names
            assert result.exit_code == 0 and result.answer == "The answer is 42."
            assert result.timings["team_formed_s"] >= 0 and result.declined == result.unanswered == ()


async def test_pinned_names_resolve_and_an_unknown_name_is_a_usage_error(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    with trio.fail_after(600):
        async with open_team(MemoryNetwork(), tmp_path, [COORDINATOR, WRITER, CALCULATOR]) as team:
            goals = goals_of(team[0])
            result = await goals.launch_goal(
                LaunchRequest("Calculate 2 + 3", team=["CALCULATOR"], timeout=60)
            )
            assert [t.name for t in result.team] == ["coordinator", "calculator"] and result.exit_code == 0
            with pytest.raises(UsageError, match="no agent named 'nobody'"):
                await goals.launch_goal(LaunchRequest("Calculate 2 + 3", team=["nobody"], timeout=60))
            assert goals.launcher.launches == {}  # a refused launch leaves nothing behind


async def test_a_busy_agent_declines_and_the_goal_goes_on_without_it(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    with trio.fail_after(600):
        async with open_team(MemoryNetwork(), tmp_path, [COORDINATOR, BUSY, CALCULATOR]) as team:
            busy = str(team[1][0].peer_id)
            request = LaunchRequest("Calculate 4 * 5", team=[busy, "calculator"], timeout=60)
            result = await goals_of(team[0]).launch_goal(request)
            assert [t.name for t in result.declined] == ["busy"] and busy not in {
                t.peer_id for t in result.team
            }
            assert goals_of(team[1]).drivers.declined_invitations == 1
            assert result.exit_code == 0 and "20" in result.answer


async def test_a_continuation_is_a_new_round_of_the_last_rounds_members(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    with trio.fail_after(600):
        async with open_team(MemoryNetwork(), tmp_path, [COORDINATOR, CALCULATOR, WRITER]) as team:
            goals = goals_of(team[0])
            first = await goals.launch_goal(LaunchRequest("Calculate 6 * 7", team=["calculator"], timeout=60))
            again = await goals.launch_goal(
                LaunchRequest("Calculate 5 * 5", chat=first.chat_id[:12], timeout=60)
            )
            assert again.chat_id == first.chat_id and again.round_id != first.round_id
            assert [t.name for t in again.team] == ["coordinator", "calculator"]  # the writer never joined
            assert again.answer == "The answer is 25."
            # the first round's value is not carried over (a word: a peer ID in the conclusion may hold "42")
            assert re.search(r"\b42\b", again.conclusion) is None
            assert len(goals_of(team[1]).drivers[bytes.fromhex(first.chat_id)].rounds) == 2
            assert [g.round_id for g in goals.list_goals()] == [first.round_id, again.round_id]
            assert goals.round_result(first.chat_id, first.round_id).conclusion == first.conclusion


async def test_a_sub_team_ends_within_its_parent_tasks_deadline(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    with trio.fail_after(600):
        async with open_team(MemoryNetwork(), tmp_path, [COORDINATOR, MANAGER, SLOW]) as team:
            started = trio.current_time()
            # the sub-team inherits the speaker timeout: with 45 s its tasks may run to its deadline (40 s),
            # well past its wrap-up (the last 10 s). With the default 30 s, wordy's task deadline fell on
            # the very instant the wrap-up began, and which came first was a scheduling tie (flaky)
            request = LaunchRequest(
                "echo the word hello", team=["manager"], depth=1, timeout=100, speaker_timeout=45
            )
            result = await goals_of(team[0]).launch_goal(request)
            took = trio.current_time() - started
            task = tasks_of(result)[0]  # the manager's attempt (the planner then retries the step)
            assert task["assignee_name"] == "manager" and task["status"] == "failed"
            # the task's deadline is half the goal's time (50 s); the sub-team got that minus its margin
            # and ended inside it, so the parent heard the sub-team's (unfinished) outcome in time
            driver = goals_of(team[1]).drivers[bytes.fromhex(task["data"]["sub_chat"])]
            sub = driver.rounds[task["data"]["sub_round"]]
            top = goals_of(team[0]).drivers[bytes.fromhex(result.chat_id)].rounds[result.round_id].start
            assert sub.start.parent_task == task["task_id"] and top.deadline - sub.start.deadline >= 50
            assert sub.start.task_timeout == 45 and sub.start.wrap_up == 10  # no tie (see above)
            # the sub-round's wrap-up began with wordy still running: its conclusion was forced, unfinished
            assert sub.outcome is not None and sub.outcome.forced
            conclusion = sub.outcome.conclusion
            assert "could not complete" in conclusion and "still running" in conclusion
            wordy = [t for t in sub.outcome.tasks if t.to_json()["assignee_name"] == "wordy"]
            assert wordy and all(t.to_json()["failure"] == "timeout" for t in wordy)
            assert result.status == "concluded" and result.exit_code == 3 and took <= 100
