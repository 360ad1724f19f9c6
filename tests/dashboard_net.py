"""Shared set-ups of the dashboard tests: a local network of node processes and a headless Chromium.

The network runs in its own thread (its own ``trio.run``), so the browser tests, which are plain
synchronous functions driving Playwright, share one network per module. The browser is Debian's
``chromium`` (``/usr/bin/chromium``, installed by ``.ci/run``); Playwright never downloads one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.bootstrap.testnet import NodeSpec, Testnet, open_testnet
from ioa_p2p.control_client import ControlClient

CHROMIUM = os.environ.get("IOA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
FAST_CHATS = {"sync_interval": 2.0, "retry_initial": 0.1, "retry_max": 1.0, "invite_timeout": 5.0}


def browser_missing() -> str | None:
    """Why the browser tests cannot run here (None: they can)."""
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run does it as root)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing (pip install -e '.[test]')"
    return None


def artifacts_dir() -> Path:
    """Where screenshots go: $IOA_TEST_ARTIFACTS, else a temporary folder (never the repository)."""
    root = os.environ.get("IOA_TEST_ARTIFACTS") or os.path.join(tempfile.gettempdir(), "ioa-test-artifacts")
    path = Path(root) / f"dashboard-{os.getpid()}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def spec(name: str, agent: dict[str, Any], **tables: Any) -> NodeSpec:
    config = {
        "agent": {"name": name, **agent},
        "chats": FAST_CHATS,
        "goals": {"brain": "offline", "speaker_timeout": 10.0, "invite_timeout": 20.0},
        **tables,
    }
    return NodeSpec(name, config)


class NetworkThread:
    """A testnet kept running in a thread until :meth:`stop`."""

    def __init__(self, root: Path, specs: Sequence[NodeSpec], *, start_timeout: float = 240.0) -> None:
        self.root = root
        self.specs = list(specs)
        self.net: Testnet | None = None
        self.error: BaseException | None = None
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._stop: trio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="testnet", daemon=True)
        self._thread.start()
        if not self._ready.wait(start_timeout):
            raise TimeoutError(f"the test network did not start in {start_timeout:.0f} s")
        if self.error is not None:
            raise self.error

    def _run(self) -> None:
        try:
            trio.run(self._main)
        except BaseException as exc:  # handed to the test thread
            self.error = exc
            self._ready.set()

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        self._stop = trio.Event()
        async with open_testnet(self.root, self.specs) as net:
            await net.wait_mesh()
            self.net = net
            self._ready.set()
            await self._stop.wait()

    def wait_cards(self, limit: float = 120.0) -> None:
        """Until every agent holds the current card of every other agent (cards are republished once at
        start, with the adapter's description merged in)."""
        assert self.net is not None
        agents = self.net.agents
        deadline = time.monotonic() + limit
        while True:
            own = {str(a.peer_id): ControlClient(a.home).card().version for a in agents}
            missing = []
            for a in agents:
                held = {c.peer_id: c.version for c in ControlClient(a.home).cards().cards}
                missing += [f"{a.name} lacks {p[-6:]}" for p, v in own.items() if held.get(p) != v]
            if not missing:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"cards did not spread in {limit:.0f} s: {missing}")
            time.sleep(0.5)

    def stop(self, timeout: float = 60.0) -> None:
        if self._token is not None and self._stop is not None:
            stop = self._stop
            with contextlib.suppress(trio.RunFinishedError):  # it ended by itself
                self._token.run_sync_soon(stop.set)
        self._thread.join(timeout)


__all__ = [
    "CHROMIUM",
    "CHROMIUM_FLAGS",
    "NetworkThread",
    "artifacts_dir",
    "browser_missing",
    "spec",
]


#: the document the librarian of the browser tests serves (tests/test_dashboard_browser.py)
DRONES = """# Drone specifications

## K2 survey drone

- Take-off weight: 3.4 kg
- Flight time: 38 min

## K1 hobby drone

- Take-off weight: 1.2 kg
- Flight time: 22 min
"""
