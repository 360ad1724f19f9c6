"""``ioa node start --agents FILE`` (or a config with an ``[[agents]]`` list): several agents in this process.

Prints, as each agent starts, ``agent NAME: listening on <multiaddr>``, ``agent NAME: peer id <id>`` and
``agent NAME: control api on 127.0.0.1:<port>, home <folder>`` (talk to it with ``ioa --home <folder> ...``);
an agent that cannot start prints ``agent NAME: could not start: <error type>: <message>`` on stderr and the
others go on. Then ``agents: K of N running (<home>/agents.json)``. When no agent could start, the command
fails with the first agent's error (its exit code); when the last running agent stops with an error, with
that one's. Runs until SIGINT/SIGTERM.

The process's trio run keeps a :class:`~ioa_p2p.node.net.cpu_wait.RunnableClock`: its one loop thread serves
every agent, so every timeout of every agent counts the time that thread could run, not the time it waited
for a CPU while the machine was busy (at most 4x real time).
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import click
import trio

from ioa_p2p.cli._base import wait_stop_request
from ioa_p2p.config.gateway import A2ASettings
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import UsageError
from ioa_p2p.node.agents import (
    AGENTS_INDEX_NAME,
    AgentRun,
    AgentSpec,
    AgentsPlan,
    agent_specs,
    open_agents,
    plan_of_config,
    read_agents_file,
)
from ioa_p2p.node.net.cpu_wait import RunnableClock


def run_agents(config: NodeConfig, plan: AgentsPlan, source: str) -> None:
    """Run the plan's agents until a stop signal (see the module docstring)."""
    if A2ASettings.from_section(config.section("a2a"), f"[a2a] of {source}").enabled:
        raise UsageError(
            "[a2a] enabled serves one node; with several agents, run `ioa --home <agent home> a2a serve` "
            "for the agent it should front"
        )
    specs = agent_specs(config, plan)
    clock = RunnableClock()  # one loop thread serves every agent: count timeouts in time it could run
    try:
        trio.run(_serve_agents, config.home, specs, clock=clock)
    finally:
        clock.close()


def agent_lines(run: AgentRun) -> list[str]:
    """What ``ioa node start --agents`` prints when an agent's state changes (pure: tests read it)."""
    node = run.node
    if run.state == "running" and node is not None:
        lines = [f"agent {run.name}: listening on {addr}" for addr in node.listen_addrs()]
        lines.append(f"agent {run.name}: peer id {node.peer_id}")
        lines.append(f"agent {run.name}: control api on 127.0.0.1:{node.control.port}, home {run.spec.home}")
        return lines
    if run.state == "failed" and run.error is not None:
        return [f"agent {run.name}: {str(run.error).removeprefix(f'agent {run.name!r} ')}"]
    return []


async def _serve_agents(home: Path, specs: list[AgentSpec]) -> None:
    def report(run: AgentRun) -> None:
        for line in agent_lines(run):
            click.echo(line, err=run.state == "failed")
        sys.stdout.flush()

    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with open_agents(specs, home=home, on_change=report) as agents:
            running = len(agents.nodes)
            click.echo(f"agents: {running} of {len(specs)} running ({home / AGENTS_INDEX_NAME})")
            sys.stdout.flush()
            if not running:
                error = agents.failed[0].error
                assert error is not None
                raise error
            reason = ""
            async with trio.open_nursery() as nursery:

                async def on_stop_request() -> None:
                    nonlocal reason
                    reason = await wait_stop_request(signals)
                    nursery.cancel_scope.cancel()

                nursery.start_soon(on_stop_request)
                await agents.none_running.wait()  # every agent stopped with an error: so does the process
                nursery.cancel_scope.cancel()
            if not reason:
                last = agents.failed[-1].error
                assert last is not None
                raise last
            click.echo(f"{reason}, shutting down {len(agents.nodes)} agents", err=True)


__all__ = ["agent_lines", "plan_of_config", "read_agents_file", "run_agents"]
