"""Heterogeneous agents on a network of separate node processes: an ``llm`` agent (scripted model server),
an ``a2a`` agent (a real a2a-sdk server) and an ``mcp`` agent (a real MCP stdio server) team up for a goal.

The conclusion holds each one's result and ends with the cost table; the history audits valid on every
member; the cost table adds up and is the same when a member recomputes it from its own signed copy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.bootstrap.testnet import open_testnet
from ioa_p2p.conversation.costs import COSTS_HEADING

from .a2a_server import serve_a2a
from .openai_server import Reply, ToolCallReply, serve
from .test_goals_process import COORDINATOR, audit_members, call, ioa, spec, wait_cards

pytestmark = pytest.mark.slow

MCP_SERVER = [sys.executable, str(Path(__file__).with_name("mcp_server.py"))]
#: The offline planner splits the goal into three steps and gives each to the member whose card fits best.
GOAL = "What is 21 * 2? Summarise the quarterly report. add(a=2, b=3)"
AGENTS = {
    "llm-agent": {
        "adapter": "llm",
        "description": "Multiplies numbers with a calculator tool",
        "options": {"python": False},
    },
    "a2a-agent": {"adapter": "a2a", "description": "Summarises reports and documents"},
    "mcp-agent": {"adapter": "mcp", "description": "Adds integers with add(a, b)"},
}


def _model(server: Any) -> dict[str, Any]:
    return {"base_url": server.base_url, "api_key": "test", "model": "scripted", "max_retries": 0}


async def test_an_llm_an_a2a_and_an_mcp_agent_team_up_across_processes(tmp_path: Path) -> None:
    with serve() as tools, serve_a2a() as remote:
        tools.script(
            Reply(tool_calls=(ToolCallReply("calculator", '{"expression": "21 * 2"}'),), usage=(120, 15)),
            Reply(content="21 * 2 = 42", usage=(180, 9)),
        )
        specs = [
            spec("coordinator", COORDINATOR),
            spec(
                "llm-agent", AGENTS["llm-agent"], model=_model(tools)
            ),  # the node hands [model] to the adapter
            spec("a2a-agent", {**AGENTS["a2a-agent"], "options": {"url": remote.url}}),
            spec("mcp-agent", {**AGENTS["mcp-agent"], "options": {"command": MCP_SERVER}}),
        ]
        with trio.fail_after(180):
            async with open_testnet(tmp_path / "net", specs) as net:
                coordinator = net["coordinator"]
                await wait_cards(net, coordinator, 3)
                body = {"goal": GOAL, "team_member_names": list(AGENTS), "timeout": 90}
                result = await call(coordinator, "POST", "/launch_goal", body)
                copies = await audit_members(net, result)
                recomputed = await ioa(
                    net["mcp-agent"].home, "history", result["chat_id"], "--costs", "--json"
                )
                shown = await ioa(coordinator.home, "history", result["chat_id"], "--costs")
    assert result["status"] == "concluded", result["conclusion"]
    done = [(t["title"], t["assignee_name"], t["status"]) for t in result["tasks"]]
    assert done == [(f"step {n}/3", name, "completed") for n, name in enumerate(AGENTS, 1)], result
    texts = [t["text"] for t in result["tasks"]]
    assert texts[0] == "21 * 2 = 42" and texts[1].startswith("forecast for: Summarise the quarterly report")
    assert texts[2] == "5"
    conclusion = result["conclusion"]
    # each agent's result: the answer-first conclusion (issue 11) states every step's value, and its
    # 'How:' lines say which agent gave it
    assert conclusion.startswith("The answers are: ") and complete_answer(conclusion, ("42", "5"))
    for n, name in enumerate(AGENTS, 1):
        line = next(x for x in conclusion.splitlines() if x.startswith(f"{n}. {name}: "))
        assert " -> " in line and not line.endswith(("failed", "never started", "still running")), line
    assert result["complete"] is True and result["exit_code"] == 0
    assert COSTS_HEADING in conclusion and conclusion.rstrip().splitlines()[-1].startswith("total")
    assert len(copies) == 1  # every member's copy is identical and valid

    costs = result["costs"]
    rows = {r["name"]: r for r in costs["agents"]}
    assert set(rows) == {"llm-agent", "a2a-agent", "mcp-agent"}
    llm = rows["llm-agent"]
    assert (llm["tasks"], llm["prompt_tokens"], llm["completion_tokens"], llm["tool_calls"]) == (
        1,
        300,
        24,
        1,
    )
    assert llm["tokens_unknown_tasks"] == 0 and llm["models"] == ["openai/scripted"]
    assert rows["a2a-agent"]["tokens_unknown_tasks"] == 1 and rows["mcp-agent"]["tool_calls"] == 1
    for key in (
        "tasks",
        "prompt_tokens",
        "completion_tokens",
        "tool_calls",
        "wall_ms",
        "tokens_unknown_tasks",
    ):
        assert costs["total"][key] == sum(r[key] for r in costs["agents"])  # the table adds up
    assert all(r["wall_ms"] > 0 for r in costs["agents"])

    assert recomputed.returncode == 0, recomputed.stderr.decode()
    member_view = json.loads(recomputed.stdout)["costs"]
    strip = ("name",)
    assert [{k: v for k, v in r.items() if k not in strip} for r in member_view["agents"]] == [
        {k: v for k, v in r.items() if k not in strip} for r in costs["agents"]
    ]  # recomputed from the member's own signed copy: the same claims
    assert shown.returncode == 0 and "300+24" in shown.stdout.decode()
    requests = tools.chat_requests()
    assert len(requests) == 2 and [t["function"]["name"] for t in requests[0]["tools"]] == ["calculator"]


def complete_answer(conclusion: str, values: tuple[str, ...]) -> bool:
    """The conclusion's first line gives each of ``values`` as one part's answer."""
    first = conclusion.splitlines()[0]
    return all(f": {v};" in first or first.endswith(f": {v}.") for v in values)
