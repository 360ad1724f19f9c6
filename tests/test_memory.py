"""The process memory ledger (:mod:`ioa_p2p.memory`) and ``GET /budgets``' ``memory`` of a real node."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from ioa_p2p.api import routes as r
from ioa_p2p.api.codec import Empty
from ioa_p2p.api.peers import BudgetsReply
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.control_client import AsyncControlClient, Endpoint
from ioa_p2p.identity import Identity
from ioa_p2p.memory import NODE_MALLOC_ARENAS, ProcessMemory, read_rss, release_free_memory
from ioa_p2p.node import open_node
from ioa_p2p.node.control.routes import held_bytes

LINUX = sys.platform.startswith("linux")


@pytest.mark.skipif(not LINUX, reason="RSS is read from /proc")
def test_rss_is_read_and_the_peak_is_never_below_it() -> None:
    rss, peak = read_rss()
    assert rss is not None and peak is not None
    assert 1_000_000 < rss <= peak


LEDGER_SCRIPT = """
from ioa_p2p.memory import ProcessMemory

ledger = ProcessMemory()
first = ledger.open_agent()
base = ledger.baseline_rss
assert base is not None
ballast = bytearray(40_000_000)  # written, so resident
ballast[::4096] = b"\\x01" * len(ballast[::4096])
first.started()
second = ledger.open_agent()
second.started()
assert ledger.agents == 2 and ledger.baseline_rss == base  # the baseline is before the first agent
report = first.report(held_bytes=123)
assert report.agents == 2 and report.held_bytes == 123
assert report.process_rss is not None and report.share_rss is not None
assert report.share_rss == (report.process_rss - base) // 2
assert report.share_rss >= 15_000_000, report  # half of the ballast at least
assert first.start_rss is not None and first.start_rss >= 35_000_000, first.start_rss
assert second.start_rss is not None and second.start_rss < 35_000_000, second.start_rss
second.close()
second.close()  # twice is harmless
assert ledger.agents == 1
alone = first.report().share_rss
assert alone is not None and alone >= 35_000_000, alone  # one agent now carries it all
del ballast
print("ok")
"""


@pytest.mark.skipif(not LINUX, reason="RSS is read from /proc")
def test_agents_share_what_the_process_grew_by_and_leave_the_ledger_when_closed() -> None:
    """In a fresh process: a test worker's own frees (other tests' garbage) would move its RSS under the
    ballast and make the figures meaningless."""
    out = subprocess.run(
        [sys.executable, "-c", LEDGER_SCRIPT], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_held_bytes_sums_the_byte_ledgers_only() -> None:
    snapshot = {
        "chat_bytes": {"held": 10, "refused": 3},
        "sync_answer_bytes": {"held": 5},
        "sync_pulls": {"held": 99},  # a rate, not bytes
        "limits": {"x_bytes": 7.0},
        "odd_bytes": 4,  # not a ledger view
    }
    assert held_bytes(snapshot) == 15


@pytest.mark.skipif(not LINUX, reason="glibc's malloc_trim, RSS from /proc")
def test_release_free_memory_hands_freed_heap_pages_back() -> None:
    chunks = [bytes(100_000) for _ in range(400)]  # below the mmap threshold: on the heap, zeroed
    kept = chunks[::8]  # the heap stays fragmented: glibc's free cannot shrink it by itself
    del chunks
    before, _ = read_rss()
    assert release_free_memory() is True
    after, _ = read_rss()
    assert before is not None and after is not None
    assert before - after > 10_000_000
    del kept


ARENAS_SCRIPT = """
import ctypes, sys, threading
from ioa_p2p.memory import limit_malloc_arenas
print(limit_malloc_arenas() if sys.argv[1] == "cap" else None, flush=True)
barrier = threading.Barrier(8)
def work():
    data = [bytearray(1000) for _ in range(100)]  # each thread allocates while the others live
    barrier.wait()
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
ctypes.CDLL("libc.so.6").malloc_stats()  # one "Arena N:" block per arena, on stderr
"""


def _arenas(how: str, env: dict[str, str]) -> tuple[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", ARENAS_SCRIPT, how],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    )
    return out.stdout.strip(), sum(line.startswith("Arena ") for line in out.stderr.splitlines())


@pytest.mark.skipif(not LINUX, reason="glibc's mallopt and malloc_stats")
def test_a_node_process_caps_its_malloc_arenas_unless_the_operator_chose() -> None:
    """``ioa node start`` calls :func:`limit_malloc_arenas` first: eight allocating threads then share
    ``NODE_MALLOC_ARENAS`` arenas (without the cap glibc gives each its own); ``MALLOC_ARENA_MAX`` wins."""
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    said, arenas = _arenas("none", env)
    assert said == "None" and arenas > NODE_MALLOC_ARENAS
    said, arenas = _arenas("cap", env)
    assert said == "True" and arenas == NODE_MALLOC_ARENAS
    said, arenas = _arenas("cap", {**env, "MALLOC_ARENA_MAX": "4"})
    assert said == "False" and arenas == 4


@pytest.mark.slow
async def test_a_real_node_reports_its_memory_in_budgets(tmp_path: Path) -> None:
    ledger = ProcessMemory()
    config = NodeConfig(home=tmp_path / "n")
    with trio.fail_after(60):
        async with open_node(config, identity=Identity.generate(), memory=ledger) as node:
            assert ledger.agents == 1
            endpoint = Endpoint(node.control.port, node.control.token)
            async with AsyncControlClient(endpoint=endpoint) as client:
                reply = await client.request(r.BUDGETS, Empty())
            assert isinstance(reply, BudgetsReply)
            assert reply.memory is not None
            assert reply.memory.agents == 1 and reply.memory.held_bytes >= 0
            if LINUX:
                assert reply.memory.process_rss is not None and reply.memory.process_rss > 10_000_000
                assert reply.memory.share_rss is not None and reply.memory.start_rss is not None
        assert ledger.agents == 0  # the node left the ledger when it closed
