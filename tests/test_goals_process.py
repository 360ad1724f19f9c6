"""Goals across separate node processes (open_testnet): CLI and HTTP, the LLM brain, crashes and restarts."""

from __future__ import annotations

import base64
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.bootstrap.testnet import NodeSpec, Testnet, TestnetNode, open_testnet
from ioa_p2p.control_client import ControlClient
from ioa_p2p.history.audit import audit_history

from .openai_server import Reply, ToolCallReply, serve

pytestmark = pytest.mark.slow

FAST_CHATS = {"sync_interval": 2.0, "retry_initial": 0.1, "retry_max": 1.0, "invite_timeout": 5.0}
COORDINATOR = {"description": "Coordinates agents: launches goals and plans them."}
CALCULATOR = {
    "adapter": "calculator",
    "description": "Exact arithmetic from plain language: sums, products, powers, percentages and fractions.",
}
CODER = {"adapter": "python", "description": "Runs Python code in a sandbox and returns what it prints."}
GOAL = "Calculate 17 * 23. print(sum(range(10)))  # Python. Then calculate the result times 2"


def spec(name: str, agent: dict[str, Any], goals: dict[str, Any] | None = None, **tables: Any) -> NodeSpec:
    config = {
        "agent": {"name": name, **agent},
        "chats": FAST_CHATS,
        "goals": {"brain": "offline", "speaker_timeout": 10.0, "invite_timeout": 20.0, **(goals or {})},
        **tables,
    }
    return NodeSpec(name, config)


def clean_env() -> dict[str, str]:
    """The environment without model settings (nodes must not reach a real LLM)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}


async def poll_until(check: Callable[[], Awaitable[bool]], limit: float) -> None:
    """Poll another process's state (there is no event to wait on across processes)."""
    with trio.fail_after(limit):
        while not await check():  # noqa: ASYNC110
            await trio.sleep(0.2)


async def wait_cards(net: Testnet, node: TestnetNode, expected: int) -> None:
    """``node`` holds the latest card of ``expected`` other agents (cards are republished once at start
    with the adapter's description merged in)."""
    net_nodes = [n for n in net.agents if n is not node]

    async def enough() -> bool:
        held = {c["peer_id"]: c["version"] for c in (await node.call("GET", "/cards"))["cards"]}
        current = 0
        for other in net_nodes:
            own = await other.call("GET", "/card")
            current += held.get(own["peer_id"]) == own["version"]
        return current >= expected

    await poll_until(enough, 45)


async def ioa(home: Path, *args: str, limit: float = 90.0) -> trio.CompletedProcess[bytes]:
    with trio.fail_after(limit):
        return await trio.run_process(
            [sys.executable, "-m", "ioa_p2p", "--home", str(home), *args],
            capture_stdout=True,
            capture_stderr=True,
            check=False,
            env=clean_env(),
        )


async def call(node: TestnetNode, method: str, path: str, body: Any = None) -> Any:
    client = ControlClient(node.home, timeout=90.0)
    return await trio.to_thread.run_sync(lambda: client.call(method, path, body))


async def audit_members(net: Testnet, result: dict[str, Any]) -> set[bytes]:
    """Export the goal chat from every member (once it holds what the initiator holds) and audit each copy."""
    chat = result["chat_id"]
    members = {t["peer_id"] for t in result["team"]}
    copies: set[bytes] = set()
    expected = 0
    for node in sorted(net.agents, key=lambda n: str(n.peer_id) != result["team"][0]["peer_id"]):
        if str(node.peer_id) not in members:
            continue
        exported: dict[str, Any] = {}

        async def caught_up(
            node: TestnetNode = node, exported: dict[str, Any] = exported, expected: int = expected
        ) -> bool:
            exported.update(await node.call("GET", f"/chats/export?chat={chat}"))
            return bool(exported["messages"] >= expected)

        await poll_until(caught_up, 20)
        expected = max(expected, exported["messages"])
        data = base64.b64decode(exported["data"])
        report = audit_history(data, source=node.name)
        assert report.valid, (node.name, [f.line() for f in report.findings])
        copies.add(data)
    return copies


def tasks_by_title(result: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for task in result["tasks"]:
        out.setdefault(task["title"], []).append(task)
    return out


async def test_goal_through_the_cli_and_ioa_http_shape_across_processes(tmp_path: Path) -> None:
    specs = [spec("coordinator", COORDINATOR), spec("calculator", CALCULATOR), spec("coder", CODER)]
    with trio.fail_after(150):
        async with open_testnet(tmp_path / "net", specs) as net:
            coordinator = net["coordinator"]
            await wait_cards(net, coordinator, 2)
            # the coder runs code, so it admits invitations only from inviters whose card it holds
            # (invite_policy "known" by default; one DHT lookup of the inviter's card otherwise)
            await wait_cards(net, net["coder"], 2)
            done = await ioa(coordinator.home, "goal", GOAL, "--timeout", "60", "--json")
            assert done.returncode == 0, done.stderr.decode()
            result = json.loads(done.stdout)
            assert result["status"] == "concluded" and result["comm_id"] == result["chat_id"]
            steps = tasks_by_title(result)
            modes = {title: [(t["mode"], t["status"]) for t in tasks] for title, tasks in steps.items()}
            assert modes == {
                "step 1/3": [("async", "completed")],
                "step 2/3": [("async", "completed")],
                "step 3/3": [("sync", "completed")],
            }
            assert steps["step 3/3"][0]["text"].endswith("= 90")
            assert len(await audit_members(net, result)) == 1  # identical on every member
            # IoA's request shape over HTTP: continue the chat with a new round
            body = {
                "comm_id": result["comm_id"],
                "cont_input": {"content": "Calculate 2 ** 5", "sender": "user"},
                "max_turns": 6,
                "team_up_depth": 0,
                "skip_naming": True,
                "timeout": 30,
            }
            again = await call(coordinator, "POST", "/launch_goal", body)
            assert again["chat_id"] == result["chat_id"] and again["round_id"] != result["round_id"]
            assert again["status"] == "concluded" and "32" in again["conclusion"]
            goals = await call(coordinator, "GET", "/goals")
            assert [g["status"] for g in goals if g["chat_id"] == result["chat_id"]] == ["concluded"] * 2
            # the live stream: speakers, tasks and results as they happen, then the conclusion and chat ID
            live = await ioa(coordinator.home, "goal", "Calculate 3 * 3", "--team", "calculator")
            out = live.stdout.decode()
            assert live.returncode == 0, live.stderr.decode()
            assert "team: calculator" in out and "coordinator > sync_task" in out
            assert "calculator done step 1/1: 3 * 3 = 9" in out and "conclusion:" in out
            assert out.strip().splitlines()[-1].startswith("chat ")
            unknown = await ioa(coordinator.home, "goal", "Calculate 3 * 3", "--team", "nobody")
            assert unknown.returncode == 2 and b"no agent named 'nobody'" in unknown.stderr


async def test_goal_with_the_llm_brain_through_a_scripted_openai_server(tmp_path: Path) -> None:
    decision = [
        {
            "thought": "the calculator first",
            "message_type": "sync_task",
            "content": "Calculator, the product.",
            "tasks": [{"assignee": "calculator", "title": "product", "description": "Calculate 17 * 23"}],
        },
        {
            "thought": "in the background",
            "message_type": "async_task",
            "content": "Coder, run this meanwhile.",
            "next_speakers": ["coordinator"],
            "tasks": [
                {
                    "assignee": "coder",
                    "title": "squares",
                    "description": "print(sum(n * n for n in range(1, 11)))",
                }
            ],
        },
        {"thought": "wait", "message_type": "pause", "content": "Waiting for the coder.", "triggers": ["T2"]},
        {
            "thought": "done",
            "message_type": "conclusion",
            "content": "17 * 23 = 391; the squares sum to 385.",
        },
    ]
    with serve(default_reply=Reply(content=json.dumps(decision[-1]))) as server:
        server.script(
            Reply(tool_calls=(ToolCallReply("search_agents", '{"queries": ["arithmetic", "run python"]}'),)),
            Reply(tool_calls=(ToolCallReply("team_up", '{"members": ["calculator", "coder"]}'),)),
            *(Reply(content=json.dumps(d)) for d in decision),
        )
        model = {"base_url": server.base_url, "api_key": "test", "model": "scripted", "max_retries": 0}
        specs = [
            spec("coordinator", COORDINATOR, {"brain": "llm"}, model=model),
            spec("calculator", CALCULATOR),
            spec("coder", CODER),
        ]
        with trio.fail_after(150):
            async with open_testnet(tmp_path / "net", specs) as net:
                coordinator = net["coordinator"]
                await wait_cards(net, coordinator, 2)
                await wait_cards(net, net["coder"], 2)  # the coder's invite_policy is "known" (above)
                result = await call(
                    coordinator,
                    "POST",
                    "/launch_goal",
                    {"goal": "Multiply 17 by 23 and sum the squares of 1 to 10", "timeout": 60},
                )
                assert result["brain"] == "llm:openai/scripted"
                assert result["status"] == "concluded"
                # the model's tasks take the plan's steps (the coder gets the code the model wrote for the
                # step the planner has only words for); the conclusion is composed from the steps' values
                # (the offline plan is the floor, issue 23), never the model's free text
                conclusion = result["conclusion"]
                assert conclusion.startswith(
                    "The answers are: Multiply 17 by 23: 391; sum the squares of 1 to 10: 385."
                ), conclusion
                assert {t["name"] for t in result["team"]} == {"coordinator", "calculator", "coder"}
                tasks = {t["title"]: t for t in result["tasks"]}
                assert set(tasks) == {"step 1/2", "step 2/2"}
                assert (tasks["step 1/2"]["mode"], tasks["step 1/2"]["status"]) == ("sync", "completed")
                assert tasks["step 1/2"]["text"] == "17 * 23 = 391"
                assert (tasks["step 2/2"]["mode"], tasks["step 2/2"]["status"]) == ("async", "completed")
                assert tasks["step 2/2"]["text"].strip() == "385"
                assert len(await audit_members(net, result)) == 1
                origins = (result["model_turns"], result["fallback_turns"], result["exit_code"])
                assert origins == (3, 0, 0), result["turn_origins"]  # the conclusion is the planner's
        requests = server.chat_requests()
        assert [bool(r.get("tools")) for r in requests[:2]] == [True, True]  # the team-up tool loop
        # two team-up requests and the three turns; a sixth only when the coder's result comes after the pause
        assert len(requests) >= 5 and "Multiply 17 by 23" in json.dumps(requests[2]["messages"])
        assert all(r["max_tokens"] > 0 for r in requests)  # always bounded
        turns = [r for r in requests if not r.get("tools")]
        assert all(r["response_format"]["type"] == "json_schema" for r in turns)  # structured output
        schema = turns[0]["response_format"]["json_schema"]["schema"]["properties"]
        assert set(schema["next_speakers"]["items"]["enum"]) == {"coordinator", "calculator", "coder"}
        assert "sync_task" in schema["message_type"]["enum"]


async def test_a_teammate_killed_mid_task_is_replaced_before_the_deadline(tmp_path: Path) -> None:
    slow = {
        "adapter": "echo",
        "description": "Translates reports into French.",
        "options": {"delay": 30.0, "steps": 30},
    }
    quick = {"adapter": "echo", "description": "Translates short texts.", "options": {"delay": 0.2}}
    specs = [spec("coordinator", COORDINATOR), spec("translator", slow), spec("echo", quick)]
    with trio.fail_after(150):
        async with open_testnet(tmp_path / "net", specs) as net:
            coordinator = net["coordinator"]
            await wait_cards(net, coordinator, 2)
            body = {
                "goal": "Translate the report into French",
                "team_member_names": ["translator", "echo"],
                "timeout": 60,
                "task_timeout": 6,
            }
            answer: dict[str, Any] = {}

            async def launch() -> None:
                answer.update(await call(coordinator, "POST", "/launch_goal", body))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(launch)
                # the translator reports progress: it is working on the task
                await poll_until(lambda: progress_by(coordinator, net["translator"]), 30)
                await net.kill("translator", signal.SIGKILL)
            assert answer["status"] == "concluded"
            attempts = [(t["assignee_name"], t["status"], t["failure"]) for t in answer["tasks"]]
            assert attempts == [("translator", "failed", "timeout"), ("echo", "completed", None)]
            assert "declared failed" in answer["tasks"][0]["text"]
            assert answer["timings"]["total_s"] < 60


async def progress_by(observer: TestnetNode, worker: TestnetNode) -> bool:
    for chat in await observer.call("GET", "/chats"):
        history = await observer.call("GET", f"/chats/history?chat={chat['chat_id']}")
        if any(
            m["kind"] == "conv.task.progress" and m["author"] == str(worker.peer_id)
            for m in history["messages"]
        ):
            return True
    return False


async def test_a_member_restarted_mid_task_resumes_it_from_its_store(tmp_path: Path) -> None:
    worker = {
        "adapter": "echo",
        "description": "Translates reports into French.",
        "options": {"delay": 4.0, "steps": 4},
    }
    specs = [spec("coordinator", COORDINATOR), spec("worker", worker)]
    with trio.fail_after(150):
        async with open_testnet(tmp_path / "net", specs) as net:
            coordinator = net["coordinator"]
            await wait_cards(net, coordinator, 1)
            body = {
                "goal": "Translate the report into French",
                "team_member_names": ["worker"],
                "timeout": 90,
                "task_timeout": 60,
            }
            answer: dict[str, Any] = {}

            async def launch() -> None:
                answer.update(await call(coordinator, "POST", "/launch_goal", body))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(launch)
                await poll_until(lambda: progress_by(coordinator, net["worker"]), 30)
                await net.kill("worker", signal.SIGKILL)
                await net.restart("worker")
            assert answer["status"] == "concluded"
            assert [(t["assignee_name"], t["status"]) for t in answer["tasks"]] == [("worker", "completed")]
            assert answer["tasks"][0]["text"].startswith("echo: Translate the report")
            history = await net["worker"].call("GET", f"/chats/history?chat={answer['chat_id']}")
            firsts = [
                m
                for m in history["messages"]
                if m["kind"] == "conv.task.progress" and m["content"]["text"] == "step 1/4"
            ]
            assert len(firsts) == 2  # the task ran again after the restart
            assert len(await audit_members(net, answer)) == 1


async def test_goal_cli_errors(tmp_path: Path) -> None:
    home = tmp_path / "nobody-home"
    home.mkdir()
    with trio.fail_after(60):
        missing = await ioa(home, "goal", "Calculate 1 + 1")
        assert missing.returncode == 1 and b"no running node" in missing.stderr
        for args in (
            ["goal", "  "],
            ["goal", "x", "--depth", "9"],
            ["goal", "x", "--max-turns", "0"],
            ["goal", "x", "--team", ","],
            ["goal", "x", "--timeout", "0"],
            ["demo", "--timeout", "1"],
        ):
            bad = await ioa(home, *args)
            assert bad.returncode == 2, (args, bad.stderr)
            assert bad.stderr.startswith(b"error: ") or b"Error" in bad.stderr
        as_json = await ioa(home, "goal", "  ", "--json")
        assert as_json.returncode == 2 and json.loads(as_json.stdout)["error"]["type"] == "UsageError"
