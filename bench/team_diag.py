"""Where a goal's team formation goes with N co-hosted agents: N agents in this one process, goals launched
in-process at the first (the coordinator), and why its finds asked the DHT.

Run: python bench/team_diag.py [--agents 40] [--goals 10] [--settle 5]

The agents are one ``open_agents`` block (one :class:`~ioa_p2p.node.net.cohosted.CoHosted`, as one
``ioa node start --agents`` process has: the coordinator, then the echo agents of ``bench_scale.py``), a
bootstrap node in its own process. Once every card is at the coordinator it launches ``--goals`` goals
one after the other and prints, per goal, the timings of its team's formation and the state of the
coordinator's census (:meth:`~ioa_p2p.node.discovery.Discovery.directory_complete` and each of its
conditions): the finds of a goal ask the DHT when the census does not prove the directory complete. One
process, one core: no heavy lock needed. docs/performance.md, issue 26 "Eleventh round".
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import tomli_w
import trio
from bench_goal import CHATS, GOAL_SETTINGS, GOALS, LAUNCHER, agent_table

from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.bootstrap.specs import NodeSpec, shared_config
from ioa_p2p.bootstrap.testnet import open_testnet
from ioa_p2p.config.node_config import load_config
from ioa_p2p.dht.census import CENSUS_MAX_AGE, MIN_SHARE
from ioa_p2p.node.agents import agent_specs, open_agents, plan_of_config
from ioa_p2p.node.node import Node
from ioa_p2p.testing.kinds import register_test_kinds


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def census_state(node: Node) -> str:
    """The conditions of ``directory_complete`` at ``node``, one by one."""
    d = node.services.discovery
    assert d is not None
    census, now = d.census.last, trio.current_time()
    size = d.net.network_size()
    held = {e.card.peer_id for e in d.directory}
    known = {*d.net.card_peers(), *(d.gossip.topic_peer_ids() if d.gossip else [])}
    if census is None:
        return f"complete {d.directory_complete()}: no census; size {size:.0f}, cards {len(held)}"
    named_missing = [p for p in census.named if p not in census.unavailable and p not in held]
    known_missing = [p for p in known if p not in held and p != node.peer_id]
    return (
        f"complete {d.directory_complete()}: census age {now - census.at:.0f} s (max {CENSUS_MAX_AGE:.0f}), "
        f"named {len(census.named)} (need {MIN_SHARE * size:.0f} of size {size:.0f}), "
        f"truncated {census.truncated}, partial {d.directory.partial}, named not held {len(named_missing)}, "
        f"known not held {len(known_missing)} of {len(known)}, cards {len(held)}"
    )


async def run(args: argparse.Namespace) -> None:
    register_test_kinds()
    logging.getLogger("ioa_p2p").setLevel(logging.ERROR)
    root = Path(tempfile.mkdtemp(prefix="team-diag-"))
    n = args.agents
    tables = [dict(LAUNCHER, name="coordinator")] + [agent_table(i) for i in range(n - 1)]
    specs = [NodeSpec(t["name"], {"agent": t, "chats": CHATS, "goals": GOAL_SETTINGS}) for t in tables]
    nodes: list[Node] = []

    def known(agent_run: Any) -> None:
        if agent_run.node is not None and agent_run.state == "running" and agent_run.node not in nodes:
            nodes.append(agent_run.node)

    async with open_testnet(root / "net", []) as net:
        home = root / "agents"
        home.mkdir()
        config = shared_config(specs, [home / s.name for s in specs], net.bootstrap_addrs())
        (home / "config.toml").write_text(tomli_w.dumps(config), encoding="utf-8")
        loaded = load_config(home)
        plan = plan_of_config(loaded, "team diag")
        assert plan is not None
        began = time.perf_counter()
        async with open_agents(agent_specs(loaded, plan), home=home, control_api=False, on_change=known):
            say(f"{len(nodes)} agents up in {time.perf_counter() - began:.1f} s")
            coordinator = next(node for node in nodes if node.services.discovery and node is nodes[0])
            d = coordinator.services.discovery
            goals = coordinator.services.goals
            assert d is not None and goals is not None
            waited = time.perf_counter()
            with trio.move_on_after(args.cards_timeout):
                while len(d.directory) < n:  # noqa: ASYNC110 - polled, as a client would
                    await trio.sleep(0.5)
            say(f"{len(d.directory)}/{n} cards at the coordinator after {time.perf_counter() - waited:.1f} s")
            await trio.sleep(args.settle)
            say("before the goals: " + census_state(coordinator))
            formed = []
            for g in range(args.goals):
                state = census_state(coordinator)
                result = await goals.launch_goal(LaunchRequest(GOALS[g % len(GOALS)], timeout=120.0, depth=0))
                t = result.timings
                formed.append(t["team_formed_s"])
                parts = " ".join(f"{k} {v:.3f}" for k, v in sorted(t.items()))
                say(f"goal {g + 1}: {result.status}, team {len(result.team)}, {parts}")
                say(f"   census at launch: {state}; last find {d.last_find}")
            say(
                f"team formed p50 {statistics.median(formed):.3f} s, max {max(formed):.3f} s "
                f"({len(formed)} goals)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=40)
    parser.add_argument("--goals", type=int, default=10)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--cards-timeout", type=float, default=90.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    trio.run(run, args)


if __name__ == "__main__":
    main()
