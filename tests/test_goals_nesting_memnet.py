"""Sub-teams, pinned teams, cancellation and costs across nesting, on the in-memory network under trio's
MockClock (:mod:`ioa_p2p.testing.memagents`): the real goals, chat and discovery services on virtual
time, so a sub-team that would run for minutes ends in milliseconds and the tests can say exactly when.
The real-network proof of the wiring is tests/test_goals_net.py.

The launcher (``coordinator``) and the ``manager`` have no adapter: a task the planner gives the manager
(its card matches the goal best) is done by a sub-team the manager forms (the nested-team rule, rule 2),
whose candidates exclude the parent team: ``wordy``, an echo agent that reports token usage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.api.goals import GoalResult, Teammate
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.conversation.costs import COSTS_HEADING, OUTSIDE_HEADING
from ioa_p2p.node.goals.types import RoundOutcome
from ioa_p2p.testing.memnet import MemoryNetwork

from .test_goals_memnet import COORDINATOR, Agent, goals_of, open_team, tasks_of

MANAGER = {"name": "manager", "description": "Echo manager: gets words echoed by a team of echo agents."}
TOKENS = {"prompt_tokens": 120, "completion_tokens": 30}
WORDY = {"name": "wordy", "adapter": "echo", "options": {"name": "wordy", "skills": ["echo"], **TOKENS}}
SLOW_WORDY = {**WORDY, "options": {**WORDY["options"], "delay": 100.0, "steps": 10}}
GOAL = "echo the word hello"


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


def peer(agent: Agent) -> str:
    return str(agent[0].peer_id)


def sub_rounds(agent: Agent) -> list[Any]:
    """The rounds of sub-teams (``parent_chat`` set) this agent's node has seen."""
    return [r for d in goals_of(agent).drivers.values() for r in d.rounds.values() if r.start.parent_chat]


async def test_a_sub_teams_agents_and_usage_reach_the_parent_and_its_cost_table(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    with trio.fail_after(600):
        async with open_team(MemoryNetwork(), tmp_path, [COORDINATOR, MANAGER, WORDY]) as team:
            result = await goals_of(team[0]).launch_goal(
                LaunchRequest(GOAL, team=["manager"], depth=1, timeout=120)
            )
            assert result.status == "concluded" and result.exit_code == 0, result.to_json()
            [task] = tasks_of(result)
            assert task["assignee_name"] == "manager" and task["status"] == "completed"
            data = task["data"]
            # the manager's signed result says who worked below it and what it cost
            assert data["agents"] == [{"peer_id": peer(team[2]), "name": "wordy"}]
            assert data["usage"]["prompt_tokens"] == 120 and data["usage"]["completion_tokens"] == 30
            assert data["usage"]["tool_calls"] == 1 and data["usage"]["wall_ms"] >= 0
            # the sub-round: the manager's, one level down, with the task as its goal
            [sub] = sub_rounds(team[1])
            assert sub.start.parent_chat == result.chat_id and sub.start.parent_task == task["task_id"]
            assert sub.start.depth == 0 and set(sub.start.members) == {peer(team[1]), peer(team[2])}
            # cost tables add up across nesting: the top table's total is wordy's signed usage
            total = result.costs.total
            assert (total.prompt_tokens, total.completion_tokens, total.tool_calls) == (120, 30, 1)
            # agents outside the team are named, by card name and peer ID, in the result and the conclusion
            assert result.outside == (Teammate(peer(team[2]), "wordy"),)
            appendix = result.conclusion.split(COSTS_HEADING, 1)[1]
            assert f"Peer ID of manager: {peer(team[1])}" in appendix
            assert f"{OUTSIDE_HEADING}\n- wordy: {peer(team[2])}" in appendix
            rows = appendix.strip().splitlines()[1:3]
            assert rows[0].startswith("manager ") and "120+30" in rows[0] and rows[1].startswith("total ")
            assert not any(p[-12:] in "\n".join(rows) for p in map(peer, team))  # names, not peer-ID prefixes


async def test_a_pinned_team_brings_in_no_other_agent_unless_nesting_is_allowed(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    with trio.fail_after(600):
        async with open_team(MemoryNetwork(), tmp_path, [COORDINATOR, MANAGER, WORDY]) as team:
            result = await goals_of(team[0]).launch_goal(LaunchRequest(GOAL, team=["manager"], timeout=120))
            # no --depth: the pinned team works alone; nobody in it can echo, so the goal is not done
            assert result.depth == 0 and result.status == "concluded" and result.exit_code == 3
            assert {t["failure"] for t in tasks_of(result)} == {"rejected"}
            assert result.outside == () and OUTSIDE_HEADING not in result.conclusion
            chats = team[2][1].chats
            assert chats is not None and chats.list_chats() == []  # wordy was never invited
            assert sub_rounds(team[1]) == []
            # a discovered team keeps the node's default depth (1): the same goal brings wordy in
            found = await goals_of(team[0]).launch_goal(LaunchRequest(GOAL, timeout=120))
            assert found.depth == 1 and found.exit_code == 0
            assert peer(team[2]) in {t.peer_id for t in (*found.team, *found.outside)}


async def test_cancelling_a_goal_stops_its_sub_team_at_once(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    with trio.fail_after(600):
        async with open_team(MemoryNetwork(), tmp_path, [COORDINATOR, MANAGER, SLOW_WORDY]) as team:
            coordinator, manager, wordy = team
            results: list[GoalResult] = []

            async def launch() -> None:
                request = LaunchRequest(GOAL, team=["manager"], depth=1, timeout=300)
                results.append(await goals_of(coordinator).launch_goal(request))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(launch)
                while not sub_rounds(wordy):  # noqa: ASYNC110 - the sub-team's round reaches wordy
                    await trio.sleep(0.5)
                [sub] = sub_rounds(wordy)
                while not goals_of(wordy).runtime.tasks_run:  # noqa: ASYNC110 - wordy is echoing (100 s)
                    await trio.sleep(0.5)
                cancelled_at = trio.current_time()
                [top_chat] = [c for c in goals_of(coordinator).drivers if c.hex() == sub.start.parent_chat]
                answer = await goals_of(coordinator).cancel_goal(top_chat.hex())
                assert len(answer.cancelled) == 1
            [result] = results
            assert result.status == "aborted" and result.exit_code == 4
            # every level stopped within seconds of the cancellation, long before the sub-team's deadline
            for member in (manager, wordy):
                [r] = sub_rounds(member)
                with trio.fail_after(10):
                    await r.done.wait()
                outcome: RoundOutcome | None = r.outcome
                assert outcome is not None and outcome.status == "aborted", outcome
                assert outcome.reason == "cancelled", (outcome.reason, outcome.conclusion)
                assert outcome.ended_ms / 1000 < r.start.deadline - 60
            assert trio.current_time() - cancelled_at < 10
