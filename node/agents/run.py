"""``async with open_agents(specs) as agents:``: several agents (whole nodes) in one process, one trio loop.

Every agent is an :func:`~ioa_p2p.node.lifecycle.open_node` hosted by its own task in the one nursery this
block owns, so all their background tasks live under one ``async with``; they share the process's imports, its
models (the matcher's and wordllama's weights are loaded once per process: class-level in
:mod:`ioa_p2p.matching.encoders`; with several agents the MiniLM encodings of card texts are shared too, so a
card every agent receives is encoded once) and its memory ledger (:data:`ioa_p2p.memory.PROCESS_MEMORY`: each
agent's ``start_rss`` and share, ``GET /budgets``). They know each other
(:class:`~ioa_p2p.node.net.cohosted.CoHosted`): the work one does for another is the process's own, not a
remote peer's to be charged, paced or made to wait.

The first agent opens alone (it loads what the process loads once, and its ``start_rss`` shows it), the
others up to :data:`START_CONCURRENCY` at a time, in the order of their specs, each in its own home, with its
key created there on first start (their ``start_rss`` is then the process's growth while up to that many
opened). Opening one after the other made a process's start the sum of every agent's start, and each start
is many awaits in a row, each waiting a whole turn of a loop that the agents already up keep busy:
measured (issue 26, docs/performance.md "Joining a busy bootstrap node"), the last agents of two groups of 15
took 7-88 s each to open (their host 4-65 s), and 2 x 50 and 4 x 25 processes did not start in 200 s.

An agent that cannot start (a wrong adapter option, a port in use, an
unreadable key) is recorded with its typed error and the others go on; one that stops later with an error is
recorded the same way, never taking the others with it. The process's home holds ``agents.json``
(:data:`~ioa_p2p.node.agents.config.AGENTS_INDEX_NAME`): every agent's name, home, peer ID, state, control
port and error, rewritten when one changes and removed when the block exits.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal

import trio

from ioa_p2p.errors import AgentFailed, IoAError, LocalStateError, UsageError
from ioa_p2p.faults import single_error
from ioa_p2p.identity import create_key_file
from ioa_p2p.matching.encoders import MiniLMEncoder
from ioa_p2p.memory import PROCESS_MEMORY, ProcessMemory
from ioa_p2p.node.agents.config import AGENTS_INDEX_NAME, AgentSpec
from ioa_p2p.node.lifecycle import open_node
from ioa_p2p.node.net.cohosted import CoHosted
from ioa_p2p.node.node import Node

log = logging.getLogger("ioa_p2p.node.agents")
#: Card texts whose MiniLM encodings the agents of a process share (~25 KB each, filled as cards arrive).
SHARED_ENCODINGS = 1024
#: Agents of a process opening at once after the first (module docstring).
START_CONCURRENCY = 4

AgentState = Literal["waiting", "starting", "running", "failed", "stopped"]


@dataclass(slots=True)
class AgentRun:
    """One agent of :class:`Agents`: its spec, its node while it runs, its error once it failed."""

    spec: AgentSpec
    state: AgentState = "waiting"
    node: Node | None = None
    error: AgentFailed | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def view(self) -> dict[str, Any]:
        """The agent's entry in ``agents.json``."""
        node, error = self.node, self.error
        return {
            "name": self.name,
            "home": str(self.spec.home),
            "state": self.state,
            "peer_id": str(node.peer_id) if node else None,
            "addrs": node.listen_addrs() if node else [],
            "control_port": node.control.port if node else None,
            "error": None if error is None else {"type": error.cause_type, "message": str(error)},
        }


class Agents:
    """The agents of :func:`open_agents`, in the order of their specs."""

    def __init__(self, specs: Sequence[AgentSpec], index: Path | None) -> None:
        names = [s.name for s in specs]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise UsageError(f"agent names must be unique in a process; repeated: {repeated}")
        self.runs = [AgentRun(spec) for spec in specs]
        self.index = index
        #: Set once every agent has failed or stopped (none runs any more).
        self.none_running = trio.Event()

    def __getitem__(self, name: str) -> AgentRun:
        for run in self.runs:
            if run.name == name:
                return run
        raise UsageError(f"no agent {name!r} in this process; agents: {[r.name for r in self.runs]}")

    @property
    def nodes(self) -> list[Node]:
        """The nodes of the agents that run now."""
        return [r.node for r in self.runs if r.node is not None and r.state == "running"]

    @property
    def failed(self) -> list[AgentRun]:
        return [r for r in self.runs if r.state == "failed"]

    def write_index(self) -> None:
        """Rewrite ``agents.json`` (atomically) in the process's home."""
        if self.index is None:
            return
        body = {"pid": os.getpid(), "agents": [run.view() for run in self.runs]}
        self.index.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.index.with_name(f"{self.index.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.index)

    def remove_index(self) -> None:
        if self.index is not None:
            with suppress(OSError):
                self.index.unlink()


@asynccontextmanager
async def open_agents(
    specs: Sequence[AgentSpec],
    *,
    home: Path | None = None,
    control_api: bool = True,
    memory: ProcessMemory = PROCESS_MEMORY,
    on_change: Callable[[AgentRun], None] | None = None,
) -> AsyncIterator[Agents]:
    """Run every agent of ``specs`` until the block exits (see the module docstring). ``home``: the process's
    home, where ``agents.json`` is written (None: no index); ``on_change`` is called (in the loop) whenever an
    agent starts, fails or stops. The block is entered once every agent has started or failed; failures are
    not raised (read :attr:`Agents.failed`)."""
    agents = Agents(specs, home / AGENTS_INDEX_NAME if home is not None else None)
    cohosted = CoHosted()  # the agents' connections to each other are the process's own work
    if len(specs) > 1:  # every agent embeds every card it receives: the same texts, once per process
        MiniLMEncoder.share_encodings(SHARED_ENCODINGS)

    def changed(run: AgentRun) -> None:
        agents.write_index()
        if all(r.state in ("failed", "stopped") for r in agents.runs):
            agents.none_running.set()
        if on_change is not None:
            on_change(run)

    try:
        with single_error():
            async with trio.open_nursery() as nursery:
                host = partial(_host_agent, control_api=control_api, memory=memory, cohosted=cohosted)
                await _open_all(nursery, agents.runs, partial(host, changed=changed))
                yield agents
                nursery.cancel_scope.cancel()
    finally:
        agents.remove_index()


async def _open_all(nursery: trio.Nursery, runs: Sequence[AgentRun], host: Callable[..., Any]) -> None:
    """Start ``host(run)`` in ``nursery`` for every run: the first alone, then :data:`START_CONCURRENCY`
    at a time in order; return once every one started or failed."""
    if not runs:
        return
    await nursery.start(partial(host, runs[0]))
    slots = trio.Semaphore(START_CONCURRENCY)

    async def open_one(run: AgentRun) -> None:
        try:
            await nursery.start(partial(host, run))
        finally:
            slots.release()

    async with trio.open_nursery() as opening:
        for run in runs[1:]:  # a slot taken here, in the specs' order, before its task starts
            await slots.acquire()
            opening.start_soon(open_one, run)


async def _host_agent(
    run: AgentRun,
    *,
    control_api: bool,
    memory: ProcessMemory,
    cohosted: CoHosted,
    changed: Callable[[AgentRun], None],
    task_status: Any = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run one agent until cancelled; record its failure (at start or later) instead of raising it."""
    started = False
    run.state = "starting"
    try:
        prepare_home(run.spec)
        async with open_node(
            run.spec.config, control_api=control_api, memory=memory, cohosted=cohosted
        ) as node:
            run.node, run.state = node, "running"
            changed(run)
            started = True
            task_status.started()
            await trio.sleep_forever()
    except Exception as exc:  # an agent's failure, whatever it is, ends only that agent
        if not isinstance(exc, IoAError):
            log.error("agent %s stopped by an unexpected error", run.name, exc_info=exc)
        run.error = AgentFailed(run.name, exc, started=started)
        run.node, run.state = None, "failed"
        changed(run)
    finally:
        if run.state == "running":
            run.node, run.state = None, "stopped"
    if not started:
        task_status.started()


def prepare_home(spec: AgentSpec) -> None:
    """The agent's home (mode 0700) with a key file (created on first start, reused afterwards)."""
    home = spec.home
    try:
        home.mkdir(parents=True, exist_ok=True)
        home.chmod(0o700)
    except OSError as exc:
        why = exc.strerror or exc
        raise LocalStateError(f"cannot make the home {home} of agent {spec.name!r}: {why}") from None
    if not spec.config.key_path.exists():
        create_key_file(spec.config.key_path)


__all__ = ["START_CONCURRENCY", "AgentRun", "AgentState", "Agents", "open_agents", "prepare_home"]
