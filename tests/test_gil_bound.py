"""GIL-bound worker-thread jobs of a trio run take turns (``Node.run_sync(..., gil_bound=True)``); other jobs
do not wait for them, and the adapter registry's entry-point scan is reused until the import path changes.

Issue 26: the 25 agents of one process each minted their card stamp (a Python loop over small hashes) in a
worker thread at once, and the one event loop serving them got one GIL turn in 26 until every stamp was
done; each agent's start also scanned every installed distribution's entry points twice (~120 ms each)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import trio

from ioa_p2p.adapters import registry
from ioa_p2p.node.node import Node, gil_bound_limiter


def _fake_node() -> Any:
    return SimpleNamespace(_threads_lock=threading.Lock(), _threads_running=0)


class _Overlap:
    """Counts how many jobs run at once (the most seen)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0

    def job(self, barrier: threading.Barrier | None) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            if barrier is not None:
                barrier.wait()  # only passes when every job runs at the same time
            else:
                threading.Event().wait(0.02)
        finally:
            with self.lock:
                self.now -= 1


async def test_gil_bound_jobs_of_a_run_take_turns_and_other_jobs_do_not() -> None:
    node = _fake_node()
    with trio.fail_after(60):
        turns = _Overlap()
        async with trio.open_nursery() as nursery:
            for _ in range(4):
                nursery.start_soon(lambda: Node.run_sync(node, lambda: turns.job(None), gil_bound=True))
        assert turns.most == 1

        free, barrier = _Overlap(), threading.Barrier(3, timeout=30)
        async with trio.open_nursery() as nursery:
            for _ in range(3):
                nursery.start_soon(lambda: Node.run_sync(node, lambda: free.job(barrier)))
        assert free.most == 3  # the barrier passed: all three ran at once
    assert gil_bound_limiter() is gil_bound_limiter() and gil_bound_limiter().total_tokens == 1
    assert node._threads_running == 0


def test_the_adapter_scan_is_reused_until_the_import_path_changes(tmp_path: Path, monkeypatch: Any) -> None:
    scans = []
    upstream = registry._scan_adapters

    def counted() -> dict[str, Any]:
        scans.append(1)
        return upstream()

    monkeypatch.setattr(registry, "_scan_adapters", counted)
    monkeypatch.setattr(registry, "_SCANNED", None)
    first = registry.list_adapters()
    assert registry.list_adapters() == first and len(scans) == 1
    first.clear()  # a caller's copy: the cache is not touched
    assert registry.list_adapters() and len(scans) == 1

    info = tmp_path / "ioa_gil_test_kind-1.0.dist-info"  # a new distribution on the path: scanned again
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ioa-gil-test-kind\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ioa_p2p.adapters]\ngil_test_kind = ioa_gil_test_kind:make\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert "gil_test_kind" in registry.list_adapters() and len(scans) == 2
    assert "gil_test_kind" in registry.list_adapters() and len(scans) == 2
