"""Shared fixtures: temporary node homes, in-process nodes on 127.0.0.1, node processes."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.testing.kinds import register_test_kinds

if TYPE_CHECKING:
    from ioa_p2p.node.net.cpu_wait import RunnableClock

logging.getLogger("libp2p").setLevel(logging.CRITICAL)
logging.getLogger("hypercorn").setLevel(logging.CRITICAL)

#: The test adapter kinds (``echo``) are no entry points of the installed product: registered here for this
#: process and every process the tests start (``PYTHONPATH``); removed at the end of the session.
TEST_KINDS_FOLDER = register_test_kinds()


def pytest_sessionfinish(session: pytest.Session) -> None:
    shutil.rmtree(TEST_KINDS_FOLDER, ignore_errors=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """A failure inside nested nurseries (a node's services) is an exception group more than ten levels
    deep, whose traceback Python cuts at ``max_group_depth`` 10, before the message that says what failed
    (``wait_until``'s "timed out after 30 s waiting for ..."): each innermost exception is added to the
    report as its own section: type, message and the line of ours that raised it."""
    report: pytest.TestReport = yield
    error = call.excinfo.value if call.excinfo is not None else None
    if report.failed and isinstance(error, BaseExceptionGroup):
        report.sections.append(("innermost exceptions", "\n".join(_leaves(error))))
    return report


def _leaves(error: BaseException) -> Iterator[str]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
        return
    where, tb = "", error.__traceback__
    while tb is not None:  # the innermost frame of our code (not a library's, not pytest's ``fail``)
        if "site-packages" not in tb.tb_frame.f_code.co_filename:
            where = f" ({tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})"
        tb = tb.tb_next
    yield f"{type(error).__name__}: {error}{where}"


@pytest.fixture
def runnable_clock() -> Iterator[RunnableClock]:
    """The trio clock of a process that runs several nodes on one loop (``ioa node start`` with
    ``[[agents]]``, ioa_p2p/cli/node_agents.py): it leaves out the time the loop's thread waited for a CPU
    (node/net/cpu_wait.py), never running slower than ``MIN_RATE`` of real time. A test of several
    in-process nodes that asks for it (pytest-trio runs the test on a ``Clock`` fixture) counts its own
    bounds and the nodes' timeouts (dials, DHT queries, finds) as such a process does, in time the loop
    could run: on a loaded machine they no longer expire while the process waits for a CPU, and each
    still ends within ``1 / MIN_RATE`` times its length."""
    from ioa_p2p.node.net.cpu_wait import RunnableClock  # the node package: imported when a test asks

    clock = RunnableClock()
    yield clock
    clock.close()


@asynccontextmanager
async def open_test_nodes(
    tmp_path: Path, count: int, *, connect: str = "first", **kwargs
) -> AsyncIterator[list]:
    """Start ``count`` in-process nodes; all but the first bootstrap from the first."""
    from ioa_p2p.node import open_node

    nodes = []
    async with AsyncExitStack() as stack:
        first = None
        for i in range(count):
            bootstrap = (first.listen_addrs()[0],) if (first and connect == "first") else ()
            config = NodeConfig(home=tmp_path / f"n{i}", bootstrap=bootstrap, bootstrap_backoff=0.2)
            node = await stack.enter_async_context(
                open_node(config, identity=Identity.generate(), write_info=False, **kwargs)
            )
            first = first or node
            nodes.append(node)
        yield nodes


@pytest.fixture
def node_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    yield env


class NodeProcess:
    """A real `ioa node start` process with its own IOA_HOME."""

    def __init__(self, home: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.home = home
        self.env = dict(env or os.environ)
        self.env["IOA_HOME"] = str(home)
        self.env["PYTHONUNBUFFERED"] = "1"
        self.log = open(home.parent / f"{home.name}.log", "w+")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ioa_p2p", "node", "start", *args],
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.addrs: list[str] = []

    def wait_listening(self, timeout: float = 90.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.log.seek(0)
            lines = self.log.read().splitlines()
            addrs = [
                ln.removeprefix("listening on ").strip() for ln in lines if ln.startswith("listening on ")
            ]
            if addrs and (self.home / "node.json").exists():
                self.addrs = addrs
                return addrs
            if self.proc.poll() is not None:
                raise AssertionError(f"node exited early ({self.proc.returncode}):\n" + "\n".join(lines))
            time.sleep(0.1)
        stuck = self.stuck_report()
        raise AssertionError(f"node at {self.home} did not start listening in {timeout} s\n{stuck}")

    def stuck_report(self, tail: int = 800) -> str:
        """The node's stacks (threads, then trio tasks: ``ioa_p2p.cli.stacks``) and its log's last lines."""
        if self.proc.poll() is None:
            for sig in (signal.SIGUSR1, signal.SIGUSR2):
                self.proc.send_signal(sig)
                time.sleep(1.0)
        self.log.seek(0)
        lines = self.log.read().splitlines()
        return "--- node log (last lines) ---\n" + "\n".join(lines[-tail:])

    def ioa(self, *args: str, timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ioa_p2p", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def stop(self, timeout: float = 15.0) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
        return self.reap(timeout)

    def reap(self, timeout: float) -> int:
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()
        return self.proc.returncode

    def output(self) -> str:
        if not self.log.closed:
            self.log.flush()
        return Path(self.log.name).read_text()


def stop_all(nodes: Sequence[NodeProcess], timeout: float = 15.0) -> list[int]:
    """Stop node processes together (SIGTERM to all, then wait for each): exit codes in order.

    A node with peers takes a second or two to shut down; stopping nine one by one cost ~15 s."""
    for node in nodes:
        if node.proc.poll() is None:
            node.proc.terminate()
    return [node.reap(timeout) for node in nodes]


def ioa_init_all(homes: Sequence[Path], env: dict[str, str] | None = None) -> list[str]:
    """``ioa init`` for several homes at once (each a real CLI run, in parallel): peer ids in order."""
    with ThreadPoolExecutor(max_workers=len(homes) or 1) as pool:
        return list(pool.map(lambda home: ioa_init(home, env), homes))


def ioa_init(home: Path, env: dict[str, str] | None = None) -> str:
    env = dict(env or os.environ)
    env["IOA_HOME"] = str(home)
    out = subprocess.run(
        [sys.executable, "-m", "ioa_p2p", "init", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    import json

    return json.loads(out.stdout)["peer_id"]
