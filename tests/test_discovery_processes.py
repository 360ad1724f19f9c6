"""Discovery across separate OS processes: nodes started with the ``ioa`` CLI find agents through it. The
in-process discovery tests on real libp2p hosts are in tests/test_discovery_net.py."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import NodeProcess, ioa_init_all, stop_all
from .discovery_agents import AGENTS

# --------------------------------------------------------------------------- separate OS processes


def _cli_find(node: NodeProcess, text: str, k: int = 3) -> list[dict[str, Any]]:
    out = node.ioa("find", text, "-k", str(k), "--json", timeout=60)
    if out.returncode != 0:
        return []
    return list(json.loads(out.stdout)["results"])


def _poll(predicate: Callable[[], bool], limit: float, what: str) -> float:
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if predicate():
            return time.monotonic() - started
        time.sleep(0.5)
    raise AssertionError(f"timed out after {limit} s waiting for {what}")


@pytest.mark.slow
@pytest.mark.long
def test_nine_processes_find_agents_through_the_cli(tmp_path: Path) -> None:
    """8 agents in 8 processes, then a 9th that joins late and later stops (its card lives 8 s); an agent
    withdraws its card (``ioa card withdraw``) and publishes it again (``ioa card set``)."""
    homes = [tmp_path / f"p{i}" for i in range(9)]
    ioa_init_all(homes)
    with (homes[8] / "config.toml").open("a", encoding="utf-8") as config:  # the agent that will stop
        config.write("\n[discovery]\nttl = 8\nrepublish = 2.5\n")
    nodes: list[NodeProcess] = []

    def start(i: int, name: str, description: str, *extra: str) -> NodeProcess:
        node = NodeProcess(homes[i], "--name", name, "--description", description, *extra)
        nodes.append(node)
        return node

    try:
        first = start(0, *AGENTS[0])
        boot = first.wait_listening(60)[0]
        for i in range(1, 8):
            start(i, *AGENTS[i], "--bootstrap", boot)
        for node in nodes:
            node.wait_listening(60)

        # Any node ranks the plotting agent first.
        for asker in (nodes[7], nodes[0], nodes[3]):
            _poll(
                lambda a=asker: (
                    [r["name"] for r in _cli_find(a, "plot a chart of revenue")][:1] == ["py-plotter"]
                ),
                60,
                "the plotting agent ranked first",
            )
        human = nodes[4].ioa("find", "translate this letter into French", "-k", "2")
        assert human.returncode == 0, human.stderr
        assert human.stdout.splitlines()[0].startswith("1. translator")

        # A node that joins last is findable within a bounded time.
        chef = start(8, "chef", "plans dinner menus and cooking recipes", "--bootstrap", boot)
        chef.wait_listening(60)
        chef_id = json.loads((homes[8] / "node.json").read_text())["peer_id"]
        _poll(
            lambda: [r["peer_id"] for r in _cli_find(nodes[2], "cook a dinner recipe", 1)] == [chef_id],
            45,
            "the late joiner to be found",
        )
        # An agent that stops is gone once its card has expired (8 s).
        assert chef.stop() is not None
        _poll(
            lambda: chef_id not in [r["peer_id"] for r in _cli_find(nodes[2], "cook a dinner recipe", 9)],
            30,
            "the stopped agent to disappear",
        )

        # An agent withdraws its card: every node stops returning it (gossip and the DHT carry the signed
        # withdrawal); `ioa card set` publishes a new version, which every node finds.
        weather = nodes[7]
        weather_id = json.loads((homes[7] / "node.json").read_text())["peer_id"]
        too_long = weather.ioa("card", "withdraw", "--reason", "x" * 201)
        assert too_long.returncode == 2 and "at most 200 bytes" in too_long.stderr  # nothing withdrawn
        shown_text = weather.ioa("card", "show").stdout
        assert "WITHDRAWN" not in shown_text and re.search(r"\(version \d+, stamp \d+ bits\)", shown_text)
        out = weather.ioa("card", "withdraw", "--reason", "retired", "--json")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["withdrawn"] is True
        for asker in (nodes[1], nodes[5]):
            _poll(
                lambda a=asker: (
                    weather_id not in [r["peer_id"] for r in _cli_find(a, "weather forecasts", 9)]
                ),
                30,
                "the withdrawn card to disappear",
            )
        shown = json.loads(weather.ioa("card", "show", "--json").stdout)
        assert shown["withdrawn"]["reason"] == "retired"
        assert (
            "WITHDRAWN" in weather.ioa("card", "show").stdout
            and "retired" in weather.ioa("card", "show").stdout
        )
        out = weather.ioa("card", "set", "--description", "weather forecasts and storm warnings", "--json")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["version"] > shown["withdrawn"]["version"]
        assert "WITHDRAWN" not in weather.ioa("card", "show").stdout
        _poll(
            lambda: any(
                r["peer_id"] == weather_id and "storm" in r["description"]
                for r in _cli_find(nodes[1], "storm warnings", 3)
            ),
            30,
            "the new version to be found",
        )
        assert weather.ioa("card", "set").returncode == 2  # nothing to change: a usage error

        # Usage errors exit 2; no running node exits 1.
        assert nodes[1].ioa("find", "  ").returncode == 2
        assert nodes[1].ioa("find", "x", "-k", "0").returncode == 2
        stray = NodeProcess.__new__(NodeProcess)
        stray.env = {**nodes[1].env, "IOA_HOME": str(tmp_path / "nobody")}
        missing = stray.ioa("find", "anything", "--json")
        assert missing.returncode == 1 and "NodeNotRunning" in missing.stdout
    finally:
        stop_all(nodes)
