"""One node process of a local testnet (:mod:`ioa_p2p.bootstrap.testnet`): :class:`TestnetNode` (its home,
log, control API calls) and the process handling the testnet does with it: signals to a process or its group,
stopping several at once (SIGTERM, a grace, SIGKILL of the stragglers' groups), reading ``node.json`` and the
log's ready line.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, TypeVar

import trio

from ioa_p2p.api.codec import ApiObject, Empty, JsonValue
from ioa_p2p.api.routes import PEERS, Route
from ioa_p2p.bootstrap.specs import NodeSpec
from ioa_p2p.config.node_config import NODE_INFO_FILE_NAME
from ioa_p2p.control_client import ControlClient
from ioa_p2p.identity import PeerId

#: Seconds a node's control API may stay silent (a call's default bound).
CONTROL_TIMEOUT = 15.0
Q = TypeVar("Q", bound=ApiObject)
R = TypeVar("R")


class TestnetNode:
    """A node process of a :class:`Testnet`."""

    __test__ = False  # not a pytest test class

    def __init__(self, spec: NodeSpec, home: Path, *, is_bootstrap: bool) -> None:
        self.spec = spec
        self.name = spec.name
        self.home = home
        self.log_path = home.parent / f"{spec.name}.log"
        #: The process's own node when this agent shares a process with others (``per_process``).
        self.host: TestnetNode | None = None
        self.is_bootstrap = is_bootstrap
        self.control = ControlClient(home, timeout=CONTROL_TIMEOUT)
        self.process: trio.Process | None = None
        self.peer_id: PeerId | None = None
        self.addrs: list[str] = []

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    async def call(
        self, method: str, path: str, body: JsonValue = None, *, answer_within: float | None = None
    ) -> Any:
        """A raw control API call (``ControlClient.call``) run in a worker thread (the JSON answer);
        ``answer_within``: seconds the node may stay silent (default :data:`CONTROL_TIMEOUT`; a call that
        answers when its work is done, such as ``POST /launch_goal``, needs that work's bound)."""

        def call() -> JsonValue:
            return self.control.call(method, path, body, timeout=answer_within)

        # trio's KI-protection decorator hides this keyword from mypy.
        return await trio.to_thread.run_sync(call, abandon_on_cancel=True)  # type: ignore[call-arg,unused-ignore]

    async def request(self, route: Route[Q, R], request: Q) -> R:
        """A typed control API call (``ControlClient.request``) run in a worker thread."""

        def call() -> R:
            return self.control.request(route, request)

        return await trio.to_thread.run_sync(call, abandon_on_cancel=True)  # type: ignore[call-arg,unused-ignore]

    async def peers(self) -> set[PeerId]:
        return {PeerId.from_string(p.peer_id) for p in await self.request(PEERS, Empty())}

    def log_text(self, offset: int = 0) -> str:
        """The node's log (stdout and stderr of every run), from byte ``offset``."""
        try:
            with open(self.log_path, "rb") as log:
                log.seek(offset)
                return log.read().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def __repr__(self) -> str:
        return f"TestnetNode({self.name!r}, pid={self.pid}, peer_id={self.peer_id})"


async def stop_all(nodes: Sequence[TestnetNode], grace: float) -> None:
    """SIGTERM the running ones, wait up to ``grace`` seconds, SIGKILL the process groups of stragglers, reap,
    and SIGKILL whatever is left in each group (an adapter's subprocess, for instance)."""
    unique = {id(n.process): n.process for n in nodes if n.process is not None}  # agents share processes
    live = [process for process in unique.values() if process.poll() is None]
    for process in live:
        signal_process(process.pid, signal.SIGTERM, group=False)
    await wait_all(live, grace)
    for process in live:
        if process.poll() is None:
            signal_process(process.pid, signal.SIGKILL, group=True)
    await wait_all(live, 5.0)
    for process in live:  # just reaped: the group id cannot have been reused yet
        signal_process(process.pid, signal.SIGKILL, group=True)


async def wait_all(processes: Sequence[trio.Process], seconds: float) -> None:
    with trio.move_on_after(seconds):
        async with trio.open_nursery() as nursery:
            for process in processes:
                nursery.start_soon(process.wait)


def signal_process(pid: int, sig: int, *, group: bool) -> None:
    with suppress(ProcessLookupError, PermissionError):
        if group:
            os.killpg(pid, sig)  # start_new_session: the process group id is the node's pid
        else:
            os.kill(pid, sig)


def read_info(home: Path) -> dict[str, Any]:
    try:
        info = json.loads((home / NODE_INFO_FILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


def has_peer_line(text: str, name: str) -> bool:
    """The node printed its peer ID (``peer id``; an agent of a shared process: ``agent NAME: peer id``)."""
    own = f"agent {name}: peer id "
    return any(line.startswith(("peer id ", own)) for line in text.splitlines())


def log_tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.splitlines()[-lines:]) or "(empty)"


__all__ = [
    "CONTROL_TIMEOUT",
    "TestnetNode",
    "has_peer_line",
    "log_tail",
    "read_info",
    "signal_process",
    "stop_all",
    "wait_all",
]
