"""The benchmarks docs/performance.md quotes for issue 26 still start (their imports follow the product's
modules: ``bench/chat_star.py`` imported a helper a refactoring renamed, and nothing noticed), and
``bench_chat``'s quiet check sees work in every thread of a process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"


@pytest.mark.parametrize(
    "script", ["bench_chat.py", "bench_chat_steps.py", "bench_light.py", "bench_step_timer.py"]
)
def test_the_benchmark_starts_and_prints_its_usage(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage:")


def test_the_chat_benchmarks_quiet_check_counts_worker_threads() -> None:
    """A node mints its stamps in a worker thread: ``busy_seconds`` must see that thread's CPU (the main
    thread's ``/proc/PID/schedstat`` alone does not). In a fresh process: it measures the process's CPU."""
    script = (
        "import os, sys, threading, time\n"
        f"sys.path.insert(0, {str(BENCH)!r})\n"
        "import chat_procs\n"
        "spent = []\n"
        "def work():\n"
        "    sum(range(40_000_000))\n"
        "    spent.append(time.thread_time())\n"
        "main = f'/proc/{os.getpid()}/task/{os.getpid()}/schedstat'\n"
        "main_busy = lambda: sum(int(x) for x in open(main).read().split()[:2]) / 1e9\n"
        "before, main_before = chat_procs.busy_seconds(os.getpid()), main_busy()\n"
        "worker = threading.Thread(target=work)\n"
        "worker.start(); worker.join()\n"
        "others = chat_procs.busy_seconds(os.getpid()) - before - (main_busy() - main_before)\n"
        "print(others, spent[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    others, worker_cpu = map(float, done.stdout.split()[-2:])  # besides the main thread; its CPU
    assert worker_cpu > 0.05
    assert others >= 0.9 * worker_cpu  # the worker's CPU is counted (the main thread's file: none of it)


def test_the_chat_benchmarks_cpu_per_message_counts_threads_and_is_never_negative() -> None:
    """``cpu_between`` counts a thread started between two readings from 0 and leaves out one that ended:
    a worker thread that ended made the figure negative when live threads' totals were subtracted."""
    sys.path.insert(0, str(BENCH))
    try:
        import chat_procs
    finally:
        sys.path.remove(str(BENCH))
    assert chat_procs.cpu_between({1: 5_000_000, 2: 9_000_000}, {1: 7_000_000, 3: 1_000_000}) == 0.003
    assert chat_procs.cpu_between({1: 5}, {}) == 0.0
    reading = chat_procs.thread_cpu(os.getpid())
    assert os.getpid() in reading and reading[os.getpid()] > 0
    sum(range(2_000_000))
    assert chat_procs.cpu_between(reading, chat_procs.thread_cpu(os.getpid())) > 0
