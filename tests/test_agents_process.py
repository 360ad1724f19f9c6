"""Several agents in one process (``open_agents``, ``ioa node start --agents FILE``) on real libp2p hosts."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
import trio

from ioa_p2p.config import parse_config
from ioa_p2p.errors import AgentFailed
from ioa_p2p.memory import ProcessMemory
from ioa_p2p.node.agents import AGENTS_INDEX_NAME, agent_specs, open_agents
from ioa_p2p.node.agents.config import agents_file_plan

from .conftest import NodeProcess

pytestmark = pytest.mark.slow


def test_agents_run_side_by_side_and_one_failing_agent_never_ends_the_others(tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    busy_port = taken.getsockname()[1]
    raw = {
        "agents": [
            {"name": "calc", "adapter": "calculator", "description": "Exact arithmetic."},
            {"name": "bad", "adapter": "calculator", "options": {"max_bits": "many"}},
            {"name": "busy", "listen": f"/ip4/127.0.0.1/tcp/{busy_port}"},
            {"name": "writer", "description": "Drafts short texts.", "skills": ["writing"]},
        ]
    }
    specs = agent_specs(parse_config(tmp_path, {}), agents_file_plan(raw, tmp_path / "a.toml"))
    try:
        trio.run(_side_by_side, tmp_path, specs)
    finally:
        taken.close()
    assert not (tmp_path / AGENTS_INDEX_NAME).exists()  # removed when the block exits


async def _side_by_side(home: Path, specs: list) -> None:
    ledger = ProcessMemory()
    changes: list[tuple[str, str]] = []
    with trio.fail_after(90):
        async with open_agents(
            specs, home=home, memory=ledger, on_change=lambda r: changes.append((r.name, r.state))
        ) as agents:
            assert [r.state for r in agents.runs] == ["running", "failed", "failed", "running"]
            calc, writer = agents["calc"].node, agents["writer"].node
            assert calc is not None and writer is not None and calc.peer_id != writer.peer_id
            bad, busy = agents["bad"].error, agents["busy"].error
            assert isinstance(bad, AgentFailed) and bad.cause_type == "AdapterOptionsError"
            assert "max_bits" in str(bad) and bad.exit_code == 2 and not bad.started
            assert isinstance(busy, AgentFailed) and busy.cause_type == "ConfigError"
            assert specs[2].config.listen[0].rsplit("/", 1)[1] in str(busy)  # the port in use
            index = json.loads((home / AGENTS_INDEX_NAME).read_text())
            assert [a["state"] for a in index["agents"]] == ["running", "failed", "failed", "running"]
            assert index["agents"][0]["peer_id"] == str(calc.peer_id)
            assert index["agents"][1]["error"]["type"] == "AdapterOptionsError"
            for node, name in ((calc, "calc"), (writer, "writer")):  # each its own home, key, control API
                info = json.loads((home / "agents" / name / "node.json").read_text())
                assert info["peer_id"] == str(node.peer_id) and info["control"]["port"] == node.control.port
                assert node.memory.report().agents == 2  # the two running agents share the process
            assert calc.memory.start_rss is not None

            # the two agents reach each other like any two nodes
            await writer.connect(calc.listen_addrs()[0])
            assert writer.is_connected(calc.peer_id)

            # an agent that stops with an error later is recorded; the other one runs on
            async def boom() -> None:
                raise RuntimeError("a bug in one agent")

            calc.nursery.start_soon(boom)
            while agents["calc"].state != "failed":  # noqa: ASYNC110 - the agent's own task records it
                await trio.sleep(0.05)
            late = agents["calc"].error
            assert isinstance(late, AgentFailed) and late.started and late.cause_type == "RuntimeError"
            assert agents.nodes == [writer] and writer.memory.report().agents == 1
            assert json.loads((home / AGENTS_INDEX_NAME).read_text())["agents"][0]["state"] == "failed"
            assert agents["writer"].state == "running" and agents["writer"].error is None
            assert not agents.none_running.is_set()
            writer.nursery.start_soon(boom)  # the last running agent fails: none runs any more
            await agents.none_running.wait()
            assert agents.nodes == [] and agents["writer"].state == "failed"
    # the first agent opens alone, the others together (node/agents/run.py START_CONCURRENCY): each
    # changed once while opening, in whatever order their starts ended
    assert changes[0] == ("calc", "running")
    assert sorted(changes[1:4]) == [("bad", "failed"), ("busy", "failed"), ("writer", "running")]
    assert changes[4:] == [("calc", "failed"), ("writer", "failed")]


def _wait_line(node: NodeProcess, prefix: str, timeout: float = 90.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in node.output().splitlines():
            if line.startswith(prefix):
                return line
        if node.proc.poll() is not None:
            raise AssertionError(f"exited early ({node.proc.returncode}):\n{node.output()}")
        time.sleep(0.1)
    raise AssertionError(f"no line {prefix!r} within {timeout} s:\n{node.output()}")


def test_ioa_node_start_agents_runs_each_with_its_own_control_api(tmp_path: Path) -> None:
    agents_file = tmp_path / "agents.toml"
    agents_file.write_text(
        '[[agents]]\nname = "calc"\nadapter = "calculator"\ncount = 2\n\n'
        '[[agents]]\nname = "bad"\nadapter = "no-such-kind"\n',
        encoding="utf-8",
    )
    home = tmp_path / "home"
    home.mkdir()
    node = NodeProcess(home, "--agents", str(agents_file))
    try:
        assert _wait_line(node, "agents: ") == f"agents: 2 of 3 running ({home / AGENTS_INDEX_NAME})"
        out = node.output()
        assert "agent bad: could not start: UnknownAdapter: " in out
        for name in ("calc", "calc-2"):
            assert f"agent {name}: peer id 12D3KooW" in out
            agent_home = home / "agents" / name
            assert f"agent {name}: control api on 127.0.0.1:" in out and f", home {agent_home}" in out
            peers = node.ioa("--home", str(agent_home), "peers")
            assert peers.returncode == 0, peers.stderr
            assert ", 2 agents, this agent's share " in peers.stdout
        ids = {
            json.loads((home / "agents" / n / "node.json").read_text())["peer_id"] for n in ("calc", "calc-2")
        }
        assert len(ids) == 2
    finally:
        code = node.stop()
    assert code == 0, node.output()
    assert not (home / AGENTS_INDEX_NAME).exists() and not (home / "agents" / "calc" / "node.json").exists()


def test_ioa_node_start_agents_fails_with_the_error_when_no_agent_starts(tmp_path: Path) -> None:
    agents_file = tmp_path / "agents.toml"
    agents_file.write_text('[[agents]]\nadapter = "calculator"\n[agents.options]\nmax_bits = "x"\n', "utf-8")
    home = tmp_path / "home"
    home.mkdir()
    node = NodeProcess(home, "--agents", str(agents_file), "--name", "x")
    assert node.reap(60) == 2
    assert "--name: one agent's flags" in node.output()
    node = NodeProcess(home, "--agents", str(agents_file))
    assert node.reap(90) == 2, node.output()
    assert "error: agent 'calculator' could not start: AdapterOptionsError: " in node.output()
