"""Goals on real libp2p nodes in one process: teams, conversations, declines, continuations, nesting."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.api.events import GoalEvent
from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import UsageError
from ioa_p2p.history.audit import audit_history
from ioa_p2p.node import Node
from ioa_p2p.node.control.server import ControlRequest, Streaming
from ioa_p2p.node.goals.service import Goals
from tests.goal_event_shapes import check_shape
from tests.nodes import checked_node

pytestmark = pytest.mark.slow

FAST_CHATS = {"sync_interval": 1.0, "retry_initial": 0.1, "retry_max": 0.5, "invite_timeout": 5.0}
COORDINATOR = {"name": "coordinator", "description": "Coordinates agents: launches goals and plans them."}
CALCULATOR = {
    "name": "calculator",
    "adapter": "calculator",
    "description": "Exact arithmetic from plain language: sums, products, powers, percentages and fractions.",
}
CODER = {
    "name": "coder",
    "adapter": "python",
    "description": "Runs Python code in a sandbox and returns what it prints.",
    "skills": ["python", "code"],
}


#: An agent given to :func:`open_agents`: its ``[agent]`` table (with optional ``goals`` and ``chats`` keys),
#: or a function of the nodes started before it that returns one (to name their peer IDs).
AgentSpec = dict[str, Any] | Callable[[list[Node]], dict[str, Any]]


@asynccontextmanager
async def open_agents(tmp_path: Path, agents: list[AgentSpec]) -> AsyncIterator[list[Node]]:
    """In-process nodes (the first is everyone's bootstrap) whose cards reached every node."""
    nodes: list[Node] = []
    async with AsyncExitStack() as stack:
        for i, spec in enumerate(agents):
            agent = dict(spec(nodes) if callable(spec) else spec)
            chats = {**FAST_CHATS, **agent.pop("chats", {})}
            goals = {
                "brain": "offline",
                "speaker_timeout": 10.0,
                "invite_timeout": 20.0,
                **agent.pop("goals", {}),
            }
            config = NodeConfig(
                home=tmp_path / f"n{i}",
                bootstrap=(nodes[0].listen_addrs()[0],) if nodes else (),
                bootstrap_backoff=0.2,
                raw={"agent": agent, "chats": chats, "goals": goals},
            )
            nodes.append(await stack.enter_async_context(checked_node(config)))
        with trio.fail_after(30):
            while not all_cards_current(nodes):  # noqa: ASYNC110
                await trio.sleep(0.1)
        yield nodes


def all_cards_current(nodes: list[Node]) -> bool:
    """Every node holds every node's latest card (the goals service republishes a card once, with the
    adapter's description merged in, right after start)."""
    for a in nodes:
        directory = a.services.discovery.directory
        for b in nodes:
            held, own = directory.get(b.peer_id), b.services.discovery.card  # own: issued in the background
            if held is None or own is None or held.version != own.version:
                return False
    return True


async def ndjson(answer: Any) -> list[dict[str, Any]]:
    """The NDJSON items of a streamed control answer."""
    assert isinstance(answer, Streaming)
    return [json.loads(line) async for chunk in answer.chunks for line in chunk.splitlines() if line.strip()]


def goals_of(node: Node) -> Goals:
    goals = node.services.goals
    assert isinstance(goals, Goals)
    return goals


def by_title(result: GoalResult) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for task in result.tasks:
        out.setdefault(task.title, []).append(task.to_json())
    return out


async def wait_member_outcome(node: Node, result: GoalResult) -> Any:
    driver = goals_of(node).drivers[bytes.fromhex(result.chat_id)]
    with trio.fail_after(15):
        return await driver.wait_round(result.round_id)


async def test_goal_with_sync_and_async_tasks_concludes_and_audits_on_every_member(tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with open_agents(tmp_path, [COORDINATOR, CALCULATOR, CODER]) as nodes:
            coordinator = nodes[0]
            events: list[GoalEvent] = []
            result = await coordinator.launch_goal(
                LaunchRequest(
                    "Calculate 17 * 23. print(sum(range(10)))  # Python. Then calculate the result times 2",
                    timeout=60,
                ),
                on_event=events.append,
            )
            assert isinstance(result, GoalResult)
            assert result.status == "concluded" and result.succeeded and not result.forced
            assert {t.name for t in result.team} == {"coordinator", "calculator", "coder"}, result.to_json()
            steps = by_title(result)
            assert [(t["mode"], t["status"], t["assignee_name"]) for t in steps["step 1/3"]] == [
                ("async", "completed", "calculator")
            ]
            assert steps["step 2/3"][0]["mode"] == "async" and steps["step 2/3"][0]["text"].strip() == "45"
            assert steps["step 3/3"][0]["mode"] == "sync"
            # the result flowed in, bound into the expression (issue 11)
            assert steps["step 3/3"][0]["description"] == "Calculate 45 * 2"
            for value in ("391", "45", "90"):
                assert value in result.conclusion
            assert result.turns == 4 and result.messages > result.turns and result.bytes > 1000
            assert 0 < result.timings["team_formed_s"] < result.timings["total_s"]
            kinds = [e.event for e in events]
            assert kinds[:3] == ["searching", "team", "start"] and kinds[-1] == "concluded"
            assert {"turn", "progress", "result"} <= set(kinds)
            # every member reached the same conclusion and holds an identical, valid history
            exports = []
            for node in nodes:
                outcome = await wait_member_outcome(node, result)
                assert outcome.status == "concluded" and outcome.conclusion == result.conclusion
                chats = node.services.chats
                chat_id = bytes.fromhex(result.chat_id)
                with trio.fail_after(10):
                    await chats.wait_until(lambda c=chats, i=chat_id: len(c.get(i)) >= result.messages)
                exports.append(chats.export(chat_id))
            assert len(set(exports)) == 1
            report = audit_history(exports[0])
            assert report.valid, [f.line() for f in report.findings]
            # the control routes: GET /goals and a replayed GET /goal_events that ends with the round
            listed = await coordinator.control.routes[("GET", "/goals")](
                ControlRequest("GET", "/goals", {}, None)
            )
            assert [g["status"] for g in listed if g["round_id"] == result.round_id] == ["concluded"]  # type: ignore
            request = ControlRequest("GET", "/goal_events", {"chat": result.chat_id[:12]}, None)
            stream = await coordinator.control.routes[("GET", "/goal_events")](request)
            assert isinstance(stream, Streaming)
            replayed = await ndjson(stream)
            for item in [*replayed, *(e.to_json() for e in events)]:
                check_shape(item)  # the documented JSON shapes, key order included
            assert [e["event"] for e in replayed[:2]] == ["team", "start"] and replayed[-1][
                "event"
            ] == "concluded"


async def test_busy_agent_declines_names_resolve_and_a_chat_continues(tmp_path: Path) -> None:
    busy = {**CALCULATOR, "name": "busy-calculator", "goals": {"max_concurrent": 0}}
    with trio.fail_after(90):
        async with open_agents(tmp_path, [COORDINATOR, CALCULATOR, busy]) as nodes:
            coordinator, calculator, _ = nodes
            with pytest.raises(UsageError, match="no agent named 'nobody'"):
                await coordinator.launch_goal(LaunchRequest("Calculate 6 * 7", team=["nobody"]))
            result = await coordinator.launch_goal(
                LaunchRequest(
                    "Calculate 6 * 7", team=["Busy-Calculator", str(calculator.peer_id)], timeout=30
                )
            )
            assert [t.name for t in result.declined] == ["busy-calculator"]
            assert [t.name for t in result.team] == ["coordinator", "calculator"]
            assert result.succeeded and result.answer == "The answer is 42."
            assert goals_of(nodes[2]).drivers.declined_invitations == 1
            # IoA's comm_id + cont_input: a new round in the same chat, with the same team
            again = await coordinator.launch_goal(
                LaunchRequest("Calculate 2 + 3", chat=result.chat_id, timeout=30)
            )
            assert again.chat_id == result.chat_id and again.round_id != result.round_id
            assert [t.name for t in again.team] == ["coordinator", "calculator"]
            # the answer line, not the conclusion: a peer ID in the conclusion may contain "42"
            assert again.succeeded and again.answer == "The answer is 5."
            rounds = goals_of(calculator).drivers[bytes.fromhex(result.chat_id)].rounds
            assert len(rounds) == 2


async def test_alone_with_or_without_an_adapter(tmp_path: Path) -> None:
    with trio.fail_after(60):
        async with open_agents(tmp_path, [CALCULATOR]) as nodes:
            result = await nodes[0].launch_goal(LaunchRequest("Calculate 1 + 1", timeout=30))
            assert (
                [t.name for t in result.team] == ["calculator"]
                and result.succeeded
                and "2" in result.conclusion
            )
        async with open_agents(tmp_path / "b", [COORDINATOR]) as nodes:
            result = await nodes[0].launch_goal(LaunchRequest("Calculate 1 + 1", timeout=30))
            assert result.status == "concluded" and not result.succeeded
            assert all(t.status == "failed" for t in result.tasks)


async def test_nested_teams_of_depth_two_report_their_conclusions_upward(tmp_path: Path) -> None:
    # the calculator works for the lead only (invite_policy allowlist): the manager's sub-team invites it
    # (the step needs arithmetic) and is refused, so the lead, who has no adapter either, forms the second
    # level with the calculator
    manager = {"name": "manager", "description": "Project manager: forms teams for projects."}
    lead = {"name": "lead", "description": "Team lead: forms small teams for calculations."}

    def calculator(started: list[Node]) -> dict[str, Any]:
        allow = {"invite_policy": "allowlist", "invite_allowlist": [str(started[2].peer_id)]}
        return {**CALCULATOR, "chats": allow}

    with trio.fail_after(120):
        async with open_agents(tmp_path, [COORDINATOR, manager, lead, calculator]) as nodes:
            coordinator = nodes[0]
            result = await coordinator.launch_goal(
                LaunchRequest("Form a team to calculate 6 * 7", team=["manager"], depth=2, timeout=60)
            )
            assert result.succeeded and "42" in result.conclusion
            # follow the chain of sub-chats down from the top round's task results
            tasks, parent_chat, chain = [t.to_json() for t in result.tasks], result.chat_id, []
            while subs := [t for t in tasks if t["data"].get("sub_chat")]:  # type: ignore[union-attr]
                sub: Any = subs[-1]
                owner = next(n for n in nodes if str(n.peer_id) == sub["assignee"])
                driver = goals_of(owner).drivers[bytes.fromhex(sub["data"]["sub_chat"])]
                outcome = await driver.wait_round(sub["data"]["sub_round"])
                start = driver.rounds[sub["data"]["sub_round"]].start
                assert start.parent_chat == parent_chat and start.parent_task == sub["task_id"]
                assert owner.services.chats.chat_info(driver.chat_id)["parent"] == parent_chat
                team = [goals_of(owner).members.name_of(p) for p in sub["data"]["team"]]
                chain.append((start.depth, team, outcome.status, "42" in outcome.conclusion))
                tasks, parent_chat = [t.to_json() for t in outcome.tasks], sub["data"]["sub_chat"]
            # the manager's sub-team has the lead only (the calculator refused it); the lead's, the calculator
            assert chain == [
                (1, ["manager", "lead"], "concluded", True),
                (0, ["lead", "calculator"], "concluded", True),
            ], chain
            # the agents below the pinned team are named in the result, through both levels
            assert {t.name for t in result.outside} == {"lead", "calculator"}


async def test_cancelling_a_goal_on_the_network_stops_a_members_sub_team(tmp_path: Path) -> None:
    manager = {"name": "manager", "description": "Echo manager: gets words echoed by a team of echo agents."}
    slow = {"name": "wordy", "adapter": "echo", "options": {"name": "wordy", "delay": 60.0, "steps": 30}}
    with trio.fail_after(120):
        async with open_agents(tmp_path, [COORDINATOR, manager, slow]) as nodes:
            coordinator, manager_node, wordy = nodes
            results: list[GoalResult] = []

            def sub_rounds(node: Node) -> list[Any]:
                drivers = goals_of(node).drivers.values()
                return [r for d in drivers for r in d.rounds.values() if r.start.parent_chat]

            async def launch() -> None:
                request = LaunchRequest("echo the word hello", team=["manager"], depth=1, timeout=100)
                results.append(await coordinator.launch_goal(request))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(launch)
                while not goals_of(wordy).runtime.tasks_run:  # noqa: ASYNC110 - wordy echoes for 60 s
                    await trio.sleep(0.1)
                [sub] = sub_rounds(wordy)
                cancelled_at = trio.current_time()
                await goals_of(coordinator).cancel_goal(sub.start.parent_chat)
            assert results[0].status == "aborted" and results[0].exit_code == 4
            for node in (manager_node, wordy):  # the sub-team's round ends on every member, cancelled
                [r] = sub_rounds(node)
                with trio.fail_after(15):
                    await r.done.wait()
                assert r.outcome.status == "aborted" and r.outcome.reason == "cancelled"
            assert trio.current_time() - cancelled_at < 15  # not the sub-team's own deadline (~80 s)


async def test_launch_goal_route_takes_ioa_requests_and_streams_events(tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with open_agents(tmp_path, [COORDINATOR, CALCULATOR]) as nodes:
            launch = nodes[0].control.routes[("POST", "/launch_goal")]
            body = {
                "goal": "Calculate 2 ** 10",
                "team_member_names": ["calculator"],
                "team_up_depth": 1,
                "max_turns": 6,
                "skip_naming": True,
                "timeout": 30,
            }
            answer: Any = await launch(ControlRequest("POST", "/launch_goal", {}, body))
            assert answer["comm_id"] == answer["chat_id"] and "1024" in answer["conclusion"]
            assert answer["status"] == "concluded" and answer["team"][1]["name"] == "calculator"
            with pytest.raises(UsageError):
                await launch(ControlRequest("POST", "/launch_goal", {}, {"goal": " "}))
            with pytest.raises(UsageError):
                await launch(ControlRequest("POST", "/launch_goal", {}, {"goal": "x", "max_turns": 0}))
            streamed = await launch(
                ControlRequest(
                    "POST",
                    "/launch_goal",
                    {},
                    {
                        "comm_id": answer["comm_id"],
                        "cont_input": {"content": "Calculate 3 * 3", "sender": "user"},
                        "stream": True,
                    },
                )
            )
            events = await ndjson(streamed)
            for item in events:
                check_shape(item)
            assert events[-1]["event"] == "done" and "9" in events[-1]["result"]["conclusion"]
            assert events[-1]["result"]["chat_id"] == answer["chat_id"]
            assert "turn" in {e["event"] for e in events}


async def test_members_conclude_when_the_initiator_is_gone(tmp_path: Path) -> None:
    slow = {
        "name": "translator",
        "adapter": "echo",
        "description": "Translates reports into French.",
        "options": {"delay": 2.0, "steps": 2},
    }
    with trio.fail_after(90):
        async with open_agents(tmp_path, [CALCULATOR, slow]) as members:
            config = NodeConfig(
                home=tmp_path / "initiator",
                bootstrap=(members[0].listen_addrs()[0],),
                bootstrap_backoff=0.2,
                raw={"agent": COORDINATOR, "chats": FAST_CHATS, "goals": {"brain": "offline"}},
            )
            gone = trio.CancelScope()
            launched: list[str] = []

            async def initiator() -> None:
                with gone:
                    async with checked_node(config) as node:
                        while len(node.services.discovery.directory) < 3:  # noqa: ASYNC110
                            await trio.sleep(0.1)
                        launched.append(str(node.peer_id))
                        await node.launch_goal(
                            LaunchRequest(
                                "Translate the report into French",
                                team=["translator"],
                                timeout=40,
                                speaker_timeout=3,
                            )
                        )

            translator = goals_of(members[1])
            async with trio.open_nursery() as nursery:
                nursery.start_soon(initiator)
                while not any(r.running for d in translator.drivers.values() for r in d.rounds.values()):  # noqa: ASYNC110
                    await trio.sleep(0.05)
                gone.cancel()  # the initiator's node stops while the translator works on its task
            (driver,) = translator.drivers.values()
            (round_,) = driver.rounds.values()
            outcome = await driver.wait_round(round_.round_id)
            assert outcome.status == "concluded" and outcome.author == str(members[1].peer_id)
            assert round_.start.initiator == launched[0] != outcome.author
            assert [t.status for t in outcome.tasks] == ["completed"]
            assert "echo: Translate the report" in outcome.conclusion


async def test_a_goal_started_before_its_card_is_issued_waits_for_it_so_a_coder_accepts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A coder (``invite_policy = "known"`` by default) asks an inviter it does not know for its card; a
    coordinator that launches a goal right after its start, before its card is issued in the background,
    used to be refused (``not-known``) and went on without the coder. It now waits for its own card."""
    import threading

    from ioa_p2p.node.discovery import own_card

    with trio.fail_after(90):
        async with AsyncExitStack() as stack:
            coder_config = NodeConfig(
                home=tmp_path / "coder",
                raw={"agent": CODER, "chats": FAST_CHATS, "goals": {"brain": "offline"}},
            )
            coder = await stack.enter_async_context(checked_node(coder_config))
            while coder.services.discovery.card is None:  # noqa: ASYNC110 - issued in the background
                await trio.sleep(0.05)
            gate, real = threading.Event(), own_card.issue_card

            def issue_when_let(*args: Any, **kwargs: Any) -> Any:  # runs in a worker thread
                if not gate.wait(60):
                    raise RuntimeError("the test never let the card be issued")
                return real(*args, **kwargs)

            monkeypatch.setattr(own_card, "issue_card", issue_when_let)
            config = NodeConfig(
                home=tmp_path / "coordinator",
                bootstrap=(coder.listen_addrs()[0],),
                bootstrap_backoff=0.2,
                raw={"agent": COORDINATOR, "chats": FAST_CHATS, "goals": {"brain": "offline"}},
            )
            coordinator = await stack.enter_async_context(checked_node(config))
            results: list[GoalResult] = []

            async def launch() -> None:
                request = LaunchRequest("Run this code: print(6 * 7)", team=[str(coder.peer_id)], timeout=60)
                results.append(await coordinator.launch_goal(request))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(launch)
                await trio.sleep(2.0)  # long enough for an invitation and the coder's check of its inviter
                assert coordinator.services.discovery.card is None
                assert chats_of_refusals(coder) == {}
                gate.set()
            result = results[0]
            assert [t.peer_id for t in result.team if t.peer_id == str(coder.peer_id)] == [str(coder.peer_id)]
            assert result.declined == () and chats_of_refusals(coder) == {}
            assert result.succeeded and result.answer == "The answer is 42."


def chats_of_refusals(node: Node) -> dict[str, int]:
    """The invitation refusals of ``node`` by reason code."""
    return dict(node.services.chats.invites.admission.refused)
