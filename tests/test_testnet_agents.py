"""``ioa testnet up N --agent ... --agents FILE``: the agents a user names, their options, real processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ioa_p2p.bootstrap.agents import (
    AgentPlan,
    agent_specs,
    check_agents,
    parse_agent_option,
    read_agents_file,
)
from ioa_p2p.control_client import ControlClient
from ioa_p2p.errors import AdapterOptionsError, ConfigError, UnknownAdapter, UsageError

from .a2a_server import serve_a2a
from .test_testnet import _processes_under

HANDBOOK = "# Ferry handbook\n\nThe morning ferry leaves Kiel at 07:40 and reaches Oslo the next day.\n"


def test_an_agent_option_is_a_kind_with_card_keys_and_adapter_options(tmp_path: Path) -> None:
    assert parse_agent_option("calculator", tmp_path) == {"adapter": "calculator"}
    a2a = parse_agent_option("a2a:url=http://127.0.0.1:9/x,streaming=false,poll_interval=0.2", tmp_path)
    assert a2a == {
        "adapter": "a2a",
        "options": {"url": "http://127.0.0.1:9/x", "streaming": False, "poll_interval": 0.2},
    }
    docs = parse_agent_option(
        'retrieval:path=docs,description=Answers questions, with citations,skills=["ferries", "timetables"]',
        tmp_path,
    )
    assert docs == {
        "adapter": "retrieval",
        "description": "Answers questions, with citations",  # a comma not followed by KEY= stays
        "skills": ["ferries", "timetables"],
        "options": {"path": str(tmp_path / "docs")},  # relative: from where the user typed it
    }
    llm = parse_agent_option(
        "llm:model.base_url=http://127.0.0.1:8/v1,model.model=tiny,max_steps=6", tmp_path
    )
    assert llm["options"] == {"model": {"base_url": "http://127.0.0.1:8/v1", "model": "tiny"}, "max_steps": 6}
    for bad in ("", ":url=x", "calculator:max_bits", "a2a:=x", "llm:model=1,model.x=2"):
        with pytest.raises(UsageError, match="--agent"):
            parse_agent_option(bad, tmp_path)


def test_an_agents_file_repeats_agents_and_gives_every_node_its_tables(tmp_path: Path) -> None:
    folder = tmp_path / "conf"
    folder.mkdir()
    path = folder / "agents.toml"
    path.write_text(
        '[[agent]]\nadapter = "calculator"\ncount = 2\n\n'
        '[[agent]]\nname = "handbook"\nadapter = "retrieval"\n[agent.options]\npath = "docs"\n\n'
        "[config.goals]\nmax_turns = 8\n"
    )
    plan = read_agents_file(path)
    assert [a.get("name") for a in plan.agents] == [None, None, "handbook"]
    assert plan.agents[2]["options"] == {"path": str(folder / "docs")}  # relative: to the file's folder
    assert plan.common == {"goals": {"max_turns": 8}}
    specs = agent_specs(5, plan, {"calculator"})
    assert [s.name for s in specs] == ["calculator", "calculator-2", "handbook", "calculator-3", "coder"]
    assert all(s.config["goals"] == {"max_turns": 8} for s in specs)
    assert specs[3].config["agent"]["description"].startswith("Exact arithmetic")  # a sample agent
    with pytest.raises(UsageError, match="COUNT is 2 but 3 agents"):
        agent_specs(2, plan, set())
    for text, words in (
        ("[[agent]]\ncount = 0\n", "count"),
        ("agent = 3\n", "must be a list of tables"),
        ("[[agent]]\nadapter = 'calculator'\n[surprise]\nx = 1\n", "surprise"),
        ("[[agent]\n", "not valid TOML"),
    ):
        path.write_text(text)
        with pytest.raises(ConfigError, match=words):
            read_agents_file(path)


def test_every_named_agent_is_built_before_any_process_starts(tmp_path: Path) -> None:
    bad = AgentPlan(({"adapter": "calculator", "options": {"max_bits": "many"}},))
    with pytest.raises(AdapterOptionsError, match="max_bits"):
        check_agents(agent_specs(1, bad, set()), tmp_path)
    with pytest.raises(UnknownAdapter):
        check_agents(agent_specs(1, AgentPlan(({"adapter": "no-such-kind"},)), set()), tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "ioa_p2p", "testnet", "up", "1", "--agent", "retrieval:path=no/such/folder"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert out.returncode == 2 and "no/such/folder" in out.stderr, out.stderr
    assert _processes_under(tmp_path) == []


@pytest.mark.slow
def test_testnet_up_runs_the_named_agents_with_their_options_as_real_processes(tmp_path: Path) -> None:
    """A real A2A agent, a retrieval agent over a folder named relative to the agents file and a calculator
    join a sample agent: each node runs its adapter with the options given (the A2A card is the remote's)."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "handbook.md").write_text(HANDBOOK)
    (tmp_path / "agents.toml").write_text(
        '[[agent]]\nname = "handbook"\nadapter = "retrieval"\n'
        'description = "Answers questions about ferries."\n'
        '[agent.options]\npath = "docs"\n\n[[agent]]\nadapter = "calculator"\n'
    )
    root = tmp_path / "net"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with serve_a2a() as remote:
        argv = [sys.executable, "-m", "ioa_p2p", "testnet", "up", "4", "--root", str(root), "--json"]
        argv += ["--agent", f"a2a:url={remote.url},skills=forecasts", "--agents", "agents.toml"]
        with subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path
        ) as proc:
            try:
                assert proc.stdout is not None and proc.stderr is not None
                lines = []
                for line in proc.stdout:  # the JSON list ends with a line "]"
                    lines.append(line)
                    if line.rstrip() == "]":
                        break
                assert lines, proc.stderr.read()
                rows = {row["name"]: row for row in json.loads("".join(lines))}
                assert list(rows) == ["bootstrap", "a2a", "handbook", "calculator", "calculator-2"]
                assert [r["adapter"] for r in rows.values()] == [
                    None,
                    "a2a",
                    "retrieval",
                    "calculator",
                    "calculator",
                ]
                cards = {
                    name: ControlClient(Path(row["home"])).call("GET", "/card")
                    for name, row in rows.items()
                    if name != "bootstrap"
                }
                proc.send_signal(signal.SIGINT)
                assert proc.wait(60) == 0, proc.stderr.read()
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(10)
    assert cards["a2a"]["adapter"] == "a2a" and "Forecasts the weather" in cards["a2a"]["description"]
    assert {"forecasts", "forecast", "storms"} <= set(cards["a2a"]["skills"])  # ours, then the remote card's
    assert cards["handbook"]["description"] == "Answers questions about ferries."
    assert cards["handbook"]["adapter"] == "retrieval" and cards["calculator-2"]["adapter"] == "calculator"
    assert _processes_under(root) == []
