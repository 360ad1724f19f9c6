"""A local testnet: a bootstrap node and agent nodes as separate OS processes on 127.0.0.1.

::

    specs = [NodeSpec("calc", {"agent": {"description": "exact arithmetic", "adapter": "calculator"}})]
    async with open_testnet(root, specs) as net:
        net["calc"].peer_id, net["calc"].addrs, net["calc"].home
        await net["calc"].call("GET", "/peers")          # the node's control API (in a worker thread)
        await net.wait_mesh()                              # every node sees every other one
        await net.kill("calc", signal.SIGKILL)             # a crash
        await net.restart("calc")                          # same identity, same listen port

Each node gets its own ``IOA_HOME`` under ``root/<name>`` (identity created through the library on first
use and reused afterwards; ``config.toml`` written with tomli_w from the spec) and runs as
``python -m ioa_p2p node start`` (the bootstrap node: ``bootstrap start``) in its own session, stdout and
stderr going to ``root/<name>.log``. A node is ready when its ``node.json`` names the new process and its log
shows the ``peer id`` line (printed after every ``listening on`` line). The bootstrap node starts first, then
all others at once.

With ``per_process=K`` the agent nodes run K to a process (``ioa node start`` with an ``[[agents]]`` list,
:mod:`ioa_p2p.node.agents`): each still has its own home ``root/<name>``, key, host and control API (so
``call``, ``peers`` and ``wait_mesh`` work as before), but the specs of one process must agree on every
table but ``[agent]``, and ``kill``/``stop`` act on the whole process (``restart`` is refused). The process's
own home is ``root/.process-<i>`` and its log ``root/.process-<i>.log``.

Leaving the block, for any reason (error, cancellation), sends SIGTERM to every node, waits up to
``stop_timeout`` seconds, then SIGKILLs the process group of any straggler: no orphans remain. The specs and
the config files they become are in :mod:`ioa_p2p.bootstrap.specs` (re-exported here).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import tomli_w
import trio

from ioa_p2p.bootstrap.specs import (
    BOOTSTRAP_NAME,
    LOCAL_LISTEN,
    NodeSpec,
    check_specs,
    node_config,
    shared_config,
)
from ioa_p2p.bootstrap.testnet_node import (
    TestnetNode,
    has_peer_line,
    log_tail,
    read_info,
    signal_process,
    stop_all,
)
from ioa_p2p.config.node_config import CONFIG_FILE_NAME, NODE_INFO_FILE_NAME, TOKEN_FILE_NAME
from ioa_p2p.errors import IoAError, IoATimeout, NodeProcessError, UsageError
from ioa_p2p.identity import PeerId, create_key_file

#: Seconds a node may take to become ready (Python + libp2p import is ~1 s per process on 2 cores).
START_TIMEOUT = 60.0
#: Seconds between SIGTERM and SIGKILL on shutdown.
STOP_TIMEOUT = 10.0
POLL = 0.05


class Testnet:
    """Running testnet: nodes by name (the bootstrap node first), kill / restart, mesh check."""

    __test__ = False

    def __init__(self, root: Path, *, python: str, stop_timeout: float, start_timeout: float) -> None:
        self.root = root
        self.nodes: dict[str, TestnetNode] = {}
        self.python = python
        self.stop_timeout = stop_timeout
        self.start_timeout = start_timeout
        #: The processes that run several agents each (``per_process``); not in :attr:`nodes`.
        self.hosts: list[TestnetNode] = []
        #: After :meth:`wait_mesh`: node name -> names of running nodes it is not connected to.
        self.mesh_gaps: dict[str, list[str]] = {}

    def __getitem__(self, name: str) -> TestnetNode:
        try:
            return self.nodes[name]
        except KeyError:
            raise UsageError(f"no testnet node {name!r}; nodes: {sorted(self.nodes)}") from None

    @property
    def bootstrap(self) -> TestnetNode | None:
        node = self.nodes.get(BOOTSTRAP_NAME)
        return node if node and node.is_bootstrap else None

    @property
    def agents(self) -> list[TestnetNode]:
        return [n for n in self.nodes.values() if not n.is_bootstrap]

    def bootstrap_addrs(self) -> list[str]:
        return list(self.bootstrap.addrs) if self.bootstrap else []

    # ------------------------------------------------------------------ processes

    async def _spawn(self, node: TestnetNode, extra: Sequence[str] = ()) -> int:
        """Start ``node``'s process; returns the log offset its output starts at."""
        command = "bootstrap" if node.is_bootstrap else "node"
        argv = [self.python, "-m", "ioa_p2p", command, "start", *node.spec.args, *extra]
        # IOA_PARENT_PID: the node exits when this process is gone, even if it dies without cleaning up.
        env = dict(os.environ, IOA_HOME=str(node.home), PYTHONUNBUFFERED="1", IOA_PARENT_PID=str(os.getpid()))
        with open(node.log_path, "ab") as log:  # noqa: ASYNC230 - a local file, opened once per start
            offset = log.tell()
            try:
                node.process = await trio.lowlevel.open_process(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=env,
                    start_new_session=True,  # its own process group: we signal it, not the terminal
                )
            except OSError as exc:
                raise NodeProcessError(
                    f"cannot start testnet node {node.name!r} with {self.python}: {exc.strerror or exc}"
                ) from None
        return offset

    async def _wait_ready(self, node: TestnetNode, offset: int) -> None:
        process = node.process
        assert process is not None
        with trio.move_on_after(self.start_timeout) as scope:
            while True:
                if process.poll() is not None:
                    raise NodeProcessError(
                        f"testnet node {node.name!r} exited with code {process.returncode} before it "
                        f"was ready; its log {node.log_path} ends with:\n{log_tail(node.log_text(offset))}"
                    )
                info = read_info(node.home)
                if info.get("pid") == process.pid and has_peer_line(node.log_text(offset), node.name):
                    node.peer_id = PeerId.from_string(info["peer_id"])
                    node.addrs = [str(a) for a in info.get("addrs", [])]
                    return
                await trio.sleep(POLL)
        if scope.cancelled_caught:
            raise IoATimeout(
                f"testnet node {node.name!r} was not ready within {self.start_timeout:.0f} s; "
                f"see {node.log_path}:\n{log_tail(node.log_text(offset))}"
            )

    async def _start(self, nodes: Sequence[TestnetNode], extra: Mapping[str, Sequence[str]]) -> None:
        """Spawn all ``nodes`` at once, then wait for all of them; the first failure stops the wait and
        is raised as is (the caller stops every spawned process)."""
        offsets = {}
        for node in nodes:
            offsets[node.name] = await self._spawn(node, extra.get(node.name, ()))
        await self._wait_started(nodes, offsets)

    async def _start_shared(self, nodes: Sequence[TestnetNode], per_process: int) -> None:
        """Spawn the agent ``nodes`` ``per_process`` to a process, then wait for all of them."""
        offsets = {}
        for number, start in enumerate(range(0, len(nodes), per_process), 1):
            members = nodes[start : start + per_process]
            home = self.root / f".process-{number}"
            home.mkdir(parents=True, exist_ok=True)
            config = shared_config(
                [m.spec for m in members], [m.home for m in members], self.bootstrap_addrs()
            )
            (home / CONFIG_FILE_NAME).write_text(tomli_w.dumps(config), encoding="utf-8")
            host = TestnetNode(NodeSpec(home.name, args=members[0].spec.args), home, is_bootstrap=False)
            self.hosts.append(host)
            offset = await self._spawn(host)
            for member in members:
                member.host, member.process, member.log_path = host, host.process, host.log_path
                offsets[member.name] = offset
        await self._wait_started(nodes, offsets)

    async def _wait_started(self, nodes: Sequence[TestnetNode], offsets: Mapping[str, int]) -> None:
        failures: list[IoAError] = []
        async with trio.open_nursery() as nursery:

            async def wait_one(node: TestnetNode) -> None:
                try:
                    await self._wait_ready(node, offsets[node.name])
                except IoAError as exc:
                    failures.append(exc)
                    nursery.cancel_scope.cancel()

            for node in nodes:
                nursery.start_soon(wait_one, node)
        if failures:
            raise failures[0]

    async def kill(self, name: str, sig: int = signal.SIGKILL, *, wait: bool = True) -> int | None:
        """Send ``sig`` to node ``name`` (SIGKILL: to its whole process group, like a crash). With ``wait``
        and a terminating signal, wait (bounded) for the exit and return the exit code."""
        node = self[name]
        if not node.running:
            return node.process.returncode if node.process else None
        assert node.process is not None
        signal_process(node.process.pid, sig, group=sig == signal.SIGKILL)
        if not wait or sig not in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT):
            return None
        with trio.move_on_after(self.stop_timeout):
            return await node.process.wait()
        raise IoATimeout(f"testnet node {name!r} still runs {self.stop_timeout:.0f} s after signal {sig}")

    async def stop(self, name: str) -> int:
        """SIGTERM node ``name``; SIGKILL it if it has not exited after ``stop_timeout``. Returns its code."""
        node = self[name]
        if node.process is None:
            raise UsageError(f"testnet node {name!r} was never started")
        await stop_all([node], self.stop_timeout)
        code = node.process.returncode
        if code is None:  # survived SIGKILL for 5 s: the kernel is in trouble
            raise IoATimeout(f"testnet node {name!r} (pid {node.process.pid}) does not exit")
        return code

    async def restart(self, name: str) -> TestnetNode:
        """Stop node ``name`` if it runs, then start it again: same home and identity, same listen ports
        (so peers' stored addresses and others' bootstrap address stay valid)."""
        node = self[name]
        if node.host is not None:
            raise UsageError(
                f"testnet node {name!r} shares its process with other agents: it cannot restart alone"
            )
        if node.running:
            await self.stop(name)
        for stale in (NODE_INFO_FILE_NAME, TOKEN_FILE_NAME):  # left behind by a kill -9
            with suppress(FileNotFoundError):
                (node.home / stale).unlink()
        extra: list[str] = []
        for addr in node.addrs:
            extra += ["--listen", addr.rsplit("/p2p/", 1)[0]]
        await self._start([node], {name: extra})
        return node

    async def wait_mesh(self) -> None:
        """Wait until every running node is connected to every other running node (callers bound the
        wait; :attr:`mesh_gaps` then tells who did not see whom)."""
        while True:
            self.mesh_gaps = await self._mesh_gaps()
            if not self.mesh_gaps:
                return
            await trio.sleep(0.2)

    async def _mesh_gaps(self) -> dict[str, list[str]]:
        running = [n for n in self.nodes.values() if n.running and n.peer_id]
        gaps: dict[str, list[str]] = {}
        for node in running:
            seen = await node.peers()
            absent = [o.name for o in running if o is not node and o.peer_id not in seen]
            if absent:
                gaps[node.name] = absent
        return gaps

    async def aclose(self) -> None:
        """Stop every node (SIGTERM, then SIGKILL after ``stop_timeout``); safe to call twice."""
        with trio.CancelScope(shield=True):
            await stop_all([n for n in (*self.nodes.values(), *self.hosts) if n.process], self.stop_timeout)


@asynccontextmanager
async def open_testnet(
    root: Path,
    specs: Sequence[NodeSpec],
    *,
    bootstrap: bool = True,
    bootstrap_spec: NodeSpec | None = None,
    python: str | None = None,
    start_timeout: float = START_TIMEOUT,
    stop_timeout: float = STOP_TIMEOUT,
    per_process: int = 1,
) -> AsyncIterator[Testnet]:
    """Start a testnet under ``root``: with ``bootstrap``, a bootstrap node (``bootstrap_spec`` or a default
    one named ``bootstrap``, relaying) first, every spec's node bootstrapping from it; then all ``specs``
    nodes at once (``per_process`` agents to a process). Everything is stopped when the block exits."""
    if per_process < 1:
        raise UsageError(f"per_process must be 1 or more, not {per_process}")
    if bootstrap_spec is not None and bootstrap_spec.name != BOOTSTRAP_NAME:
        raise UsageError(f"the bootstrap node must be named {BOOTSTRAP_NAME!r}")
    check_specs(specs, bootstrap=bootstrap)
    net = Testnet(
        _make_root(root),
        python=python or sys.executable,
        stop_timeout=stop_timeout,
        start_timeout=start_timeout,
    )
    try:
        if bootstrap:
            spec = bootstrap_spec or NodeSpec(BOOTSTRAP_NAME)
            boot = _prepare(net, spec, [], is_bootstrap=True)
            await net._start([boot], {})
        agents = [_prepare(net, spec, net.bootstrap_addrs(), is_bootstrap=False) for spec in specs]
        if per_process > 1:
            await net._start_shared(agents, per_process)
        else:
            await net._start(agents, {})
        yield net
    finally:
        await net.aclose()


def _make_root(root: Path) -> Path:
    root = root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    return root


def _prepare(net: Testnet, spec: NodeSpec, bootstrap: Sequence[str], *, is_bootstrap: bool) -> TestnetNode:
    """Create the node's home: identity (kept if present), config.toml (rewritten)."""
    home = net.root / spec.name
    home.mkdir(parents=True, exist_ok=True)
    home.chmod(0o700)
    if not (home / "node.key").exists():
        create_key_file(home / "node.key")
    config = node_config(spec, bootstrap, is_bootstrap=is_bootstrap)
    (home / CONFIG_FILE_NAME).write_text(tomli_w.dumps(config), encoding="utf-8")
    for stale in (NODE_INFO_FILE_NAME, TOKEN_FILE_NAME):
        with suppress(FileNotFoundError):
            (home / stale).unlink()
    node = TestnetNode(spec, home, is_bootstrap=is_bootstrap)
    net.nodes[spec.name] = node
    return node


__all__ = [
    "BOOTSTRAP_NAME",
    "LOCAL_LISTEN",
    "NodeSpec",
    "Testnet",
    "TestnetNode",
    "check_specs",
    "node_config",
    "open_testnet",
    "shared_config",
]
