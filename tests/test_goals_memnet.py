"""Goals on the in-memory transport fake (:mod:`ioa_p2p.testing.memagents`) under trio's
``MockClock(autojump_threshold=0)``: the real goals, chat and discovery services, composed as ``open_node``
composes them, on virtual time. Deadlines of tens of seconds pass in milliseconds, in the same order every
run, so the tests can say exactly when a goal ended. The libp2p tests (tests/test_goals_net.py) stay.

Assertions go through what the services return (``GoalResult.to_json()``, the members' round outcomes,
the chat exports), not the shape of goal events.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.history.audit import audit_history
from ioa_p2p.node.goals.service import Goals
from ioa_p2p.node.services import NodeServices
from ioa_p2p.testing.memagents import open_memory_agent
from ioa_p2p.testing.memcards import MemoryCards
from ioa_p2p.testing.memnet import MemoryNetwork, MemoryNode

COORDINATOR = {"name": "coordinator", "description": "Coordinates agents: launches goals and plans them."}
CALCULATOR = {"name": "calculator", "adapter": "calculator"}
WRITER = {"name": "writer", "adapter": "echo", "options": {"name": "writer", "skills": ["writing"]}}
HANGER = {"name": "hanger", "adapter": "echo", "options": {"fail": "hang", "skills": ["echo"]}}
SLOW = {"name": "slow", "adapter": "echo", "options": {"delay": 20.0, "steps": 4}}

Agent = tuple[MemoryNode, NodeServices]


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


@asynccontextmanager
async def open_team(
    net: MemoryNetwork, tmp_path: Path, agents: list[dict[str, Any]]
) -> AsyncIterator[list[Agent]]:
    """Memory agents that all hold each other's current card (an agent's ``goals`` key: its ``[goals]``)."""
    cards = MemoryCards(net)
    async with AsyncExitStack() as stack:
        team = []
        for i, spec in enumerate(agents):
            agent = {k: v for k, v in spec.items() if k != "goals"}
            raw = {
                "agent": agent,
                "chats": {"retry_initial": 0.5, "retry_max": 2.0},
                "goals": spec.get("goals", {}),
            }
            team.append(
                await stack.enter_async_context(open_memory_agent(net, cards, tmp_path / f"n{i}", raw))
            )
        with trio.fail_after(30):  # the goals service republishes each card with its adapter's description
            while not all_cards_current(team):  # noqa: ASYNC110
                await trio.sleep(0.5)
        yield team


def all_cards_current(team: list[Agent]) -> bool:
    for _, services in team:
        assert services.discovery is not None
        for other, other_services in team:
            assert other_services.discovery is not None
            card = other_services.discovery.card  # None until its first card is issued
            held = services.discovery.directory.get(other.peer_id)
            if card is None or held is None or held.version != card.version:
                return False
    return True


def goals_of(agent: Agent) -> Goals:
    goals = agent[1].goals
    assert goals is not None
    return goals


async def member_outcome(agent: Agent, result: GoalResult) -> Any:
    driver = goals_of(agent).drivers[bytes.fromhex(result.chat_id)]
    with trio.fail_after(120):
        return await driver.wait_round(result.round_id)


def tasks_of(result: GoalResult) -> list[dict[str, Any]]:
    tasks: list[dict[str, Any]] = result.to_json()["tasks"]
    return tasks


async def test_an_arithmetic_goal_concludes_with_the_exact_answer_and_one_valid_history(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    with trio.fail_after(600):
        async with open_team(net, tmp_path, [COORDINATOR, CALCULATOR, WRITER, HANGER]) as team:
            started = trio.current_time()
            result = await goals_of(team[0]).launch_goal(
                LaunchRequest("Calculate 17 * 23. Then calculate the result times 2", timeout=60)
            )
            took = trio.current_time() - started
            out = result.to_json()
            assert out["status"] == "concluded" and not out["forced"], out
            assert out["answer"] == "The answer is 782." and out["complete"] and result.exit_code == 0, out
            assert [step["value"]["text"] for step in out["steps"]] == ["391", "782"]
            tasks = tasks_of(result)
            assert [(t["assignee_name"], t["status"]) for t in tasks] == [("calculator", "completed")] * 2
            assert tasks[1]["description"] == "Calculate 391 * 2"  # the first result flowed into the second
            assert {m["name"] for m in out["team"]} >= {"coordinator", "calculator"}
            assert took < 5  # virtual seconds: nothing waited for a timer
            # Every member reached the same conclusion and holds the same valid, signed history.
            exports = []
            for agent in team:
                if str(agent[0].peer_id) not in {m["peer_id"] for m in out["team"]}:
                    continue
                outcome = await member_outcome(agent, result)
                assert (outcome.status, outcome.conclusion) == ("concluded", result.conclusion)
                chats = agent[1].chats
                assert chats is not None
                chat_id = bytes.fromhex(result.chat_id)
                await chats.wait_until(lambda c=chats, i=chat_id: len(c.get(i)) >= result.messages)
                exports.append(chats.export(chat_id))
            assert len(exports) == len(out["team"]) and len(set(exports)) == 1
            report = audit_history(exports[0])
            assert report.valid, [f.line() for f in report.findings]


async def test_a_member_that_never_answers_fails_its_task_exactly_at_the_task_deadline(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    with trio.fail_after(600):
        async with open_team(net, tmp_path, [COORDINATOR, HANGER]) as team:
            hanger = str(team[1][0].peer_id)
            started = trio.current_time()
            result = await goals_of(team[0]).launch_goal(
                LaunchRequest("echo the word hello", team=[hanger], timeout=60)
            )
            took = trio.current_time() - started
            # The task's deadline is half the goal's time (task_timeout default): the hanging adapter is
            # cancelled then, its task fails with the documented kind, and the planner concludes.
            assert took == pytest.approx(30.0, abs=0.01)
            assert result.status == "concluded" and not result.succeeded
            mine = [t for t in tasks_of(result) if t["assignee"] == hanger]
            assert [(t["status"], t["failure"]) for t in mine] == [("failed", "timeout")]
            assert "did not finish before the deadline" in mine[0]["text"]
            assert result.exit_code == 3  # concluded without the answer


async def test_a_task_longer_than_the_goal_is_cut_by_the_goal_deadline(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    with trio.fail_after(600):
        async with open_team(net, tmp_path, [COORDINATOR, HANGER]) as team:
            hanger = str(team[1][0].peer_id)
            started = trio.current_time()
            result = await goals_of(team[0]).launch_goal(
                LaunchRequest("echo the word hello", team=[hanger], timeout=60, task_timeout=600)
            )
            took = trio.current_time() - started
            # One deadline bounds the goal: the wrap-up before it forces a conclusion; the hanging task is
            # reported as not done, and launch_goal returned before the deadline.
            assert took < 60
            assert result.status == "concluded" and result.forced and not result.succeeded
            assert "still running" in result.conclusion
            # The member's own round ended with the same conclusion; its task was cancelled.
            outcome = await member_outcome(team[1], result)
            assert (outcome.status, outcome.conclusion) == ("concluded", result.conclusion)
            assert trio.current_time() - started < 60 + 5  # GOAL_GRACE


async def test_a_member_cut_off_mid_task_catches_up_after_the_partition_heals(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    with trio.fail_after(600):
        async with open_team(net, tmp_path, [COORDINATOR, SLOW]) as team:
            slow_node = team[1][0]
            async with trio.open_nursery() as nursery:
                results: list[GoalResult] = []

                async def launch() -> None:
                    goal = goals_of(team[0]).launch_goal(
                        LaunchRequest("echo the word hello", team=[str(slow_node.peer_id)], timeout=120)
                    )
                    results.append(await goal)

                nursery.start_soon(launch)
                await trio.sleep(5)  # the slow member is working on its 20 s task
                net.partition(slow_node.peer_id)
                await trio.sleep(30)  # its result is ready at ~20 s, but cannot be delivered
                assert not results
                net.heal(slow_node.peer_id)
            (result,) = results
            assert result.status == "concluded" and result.succeeded, result.to_json()
            assert [t["status"] for t in tasks_of(result)] == ["completed"]
            assert "echo: echo the word hello" in result.conclusion
            outcome = await member_outcome(team[1], result)
            assert (outcome.status, outcome.conclusion) == ("concluded", result.conclusion)


async def test_a_member_cut_off_for_good_ends_its_round_by_itself_by_the_deadline(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    with trio.fail_after(600):
        async with open_team(net, tmp_path, [COORDINATOR, SLOW]) as team:
            slow = team[1]
            results: list[GoalResult] = []
            ended_at: list[float] = []

            async def launch() -> None:
                goal = goals_of(team[0]).launch_goal(
                    LaunchRequest(
                        "echo the word hello", team=[str(slow[0].peer_id)], timeout=60, task_timeout=50
                    )
                )
                results.append(await goal)
                ended_at.append(trio.current_time())

            started = trio.current_time()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(launch)
                await trio.sleep(5)
                net.partition(slow[0].peer_id)
            (result,) = results
            # The initiator never got the cut-off member's result: the task counts as failed and the
            # round concludes within the goal's deadline.
            assert result.status == "concluded" and not result.succeeded, result.to_json()
            assert [(t["status"], t["failure"]) for t in tasks_of(result)] == [("failed", "timeout")]
            assert "deadline is near" in tasks_of(result)[0]["text"]
            assert ended_at[0] - started <= 60
            # The cut-off member never heard of that conclusion: it ended its round by itself (members
            # conclude locally in the wrap-up before the deadline), with its own result.
            outcome = await member_outcome(slow, result)
            assert outcome.status == "concluded" and outcome.conclusion != result.conclusion
            assert "echo: echo the word hello" in outcome.conclusion
            assert trio.current_time() - started <= 60
