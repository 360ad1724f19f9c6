"""The member and relay processes of ``bench_chat.py --mode processes``: tied to the benchmark's life,
stopped together, and waited for until their start-up work is done (``/proc/PID/schedstat``); and the
links between them, delayed as a network's would be (``--link-delay``: :func:`run_with_link_delay`)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

#: Member processes count as settled when each used less than this share of a core over one second.
QUIET_SHARE = 0.05
#: Seconds the benchmark waits at most for that.
QUIET_MOST = 60.0
PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In a child, before it runs: SIGTERM when the benchmark's process dies, however it dies (even
    SIGKILL, which runs no cleanup), so no member or relay process outlives it (Linux; elsewhere the
    benchmark's own SIGTERM/Ctrl-C handling still stops them)."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def stop_processes(procs: list[Any]) -> None:
    """SIGTERM to each (its stdin closed first), then SIGKILL to any still running after 10 s."""
    for proc in procs:
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def wait_quiet(pids: list[int], most: float = QUIET_MOST) -> float:
    """Seconds until every process of ``pids`` ran or waited to run for under :data:`QUIET_SHARE` of a
    second over one second (their start-up work done: stamps minted, cards put, DHT settled), at most
    ``most``. Waiting counts: on a loaded machine a process with work left may get no CPU at all."""
    start = time.monotonic()
    while time.monotonic() - start < most:
        before = {pid: busy_seconds(pid) for pid in pids}
        await trio.sleep(1.0)
        if all(busy_seconds(pid) - before[pid] < QUIET_SHARE for pid in pids):
            break
    return time.monotonic() - start


def busy_seconds(pid: int) -> float:
    """Seconds the threads of ``pid`` have run on a CPU plus waited in a run queue for one; 0 where there
    is none. Every thread: ``/proc/PID/schedstat`` is the main thread's alone, and a node mints its stamps
    in a worker thread. The CPU time is the process's (``/proc/PID/stat``, ended threads included), the
    wait the sum of its live threads' (``/proc/PID/task/*/schedstat``)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        tids = os.listdir(f"/proc/{pid}/task")
    except (OSError, IndexError):
        return 0.0
    total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as f:
                total += int(f.read().split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            continue  # the thread ended meanwhile
    return total


def thread_cpu(pid: int) -> dict[int, int]:
    """CPU nanoseconds each live thread of ``pid`` has run (``/proc/PID/task/*/schedstat``: the ticks of
    ``/proc/PID/stat`` are 10 ms, coarser than one message's work); empty where there is none."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    spent: dict[int, int] = {}
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as f:
                spent[int(tid)] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # the thread ended meanwhile
    return spent


def cpu_between(before: dict[int, int], after: dict[int, int]) -> float:
    """CPU seconds a process's threads ran between two :func:`thread_cpu` readings: a thread started
    meanwhile counts from 0, one that ended meanwhile is left out (never a negative figure)."""
    return sum(ns - before.get(tid, 0) for tid, ns in after.items()) / 1e9


def run_with_link_delay(argv: list[str], ms: float) -> int:
    """Run ``argv`` (the benchmark again) in a new network namespace whose loopback holds every packet
    ``ms`` milliseconds; its exit code. Every process of the run is inside, so every link between two of
    them (author-member and, for the star, author-relay and relay-member) costs ``ms`` each way, the same
    for both modes: a direct message and its ack cross two links, a star message and its ack four, as
    on a network. ``tc netem`` where the kernel has it, else a userspace NFQUEUE delay line in this
    process (:mod:`ioa_p2p.testing.netns.delay`). Needs root; the namespace and every process in it go
    when this returns, also on SIGTERM or Ctrl-C."""
    from ioa_p2p.testing.netns.delay import add_delay
    from ioa_p2p.testing.netns.lab import Lab, in_netns, netns_unavailable

    why = netns_unavailable()
    if why is not None:
        raise SystemExit(f"--link-delay needs a network namespace: {why}")
    with Lab("chat") as lab:
        netns = lab.add_namespace("links")
        mechanism, lines = add_delay([(netns, "lo")], ms)
        print(f"# every link: {ms:g} ms each way ({mechanism} on the loopback of {netns})", flush=True)
        try:
            child = subprocess.Popen(
                in_netns(netns, argv),
                preexec_fn=die_with_parent,  # noqa: PLW1509 - the delay line's thread only reads netlink
            )
            try:
                return child.wait()
            finally:
                if child.poll() is None:
                    child.terminate()
                    child.wait(10)
        finally:
            for line in lines:
                line.stop()


def _spawn_member(script: Path, home: Path, log: Path, star: bool) -> Any:
    args = [sys.executable, str(script), "--member", str(home), *(["--star"] if star else [])]
    with log.open("w") as stderr:
        return subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            preexec_fn=die_with_parent,  # noqa: PLW1509 - no threads exist when members are spawned
        )


@asynccontextmanager
async def open_member_processes(
    script: Path, root: Path, n: int, star: bool
) -> AsyncIterator[list[tuple[Any, str]]]:
    """``n`` member processes (``script --member``), each ready, with its ``addr``; stopped on exit."""
    procs: list[Any] = []
    try:
        for i in range(n):
            home = root / f"p{i}"
            home.mkdir(parents=True, exist_ok=True)
            procs.append(_spawn_member(script, home, root / f"p{i}.log", star))
        members = []
        for proc in procs:
            line = await trio.to_thread.run_sync(proc.stdout.readline, abandon_on_cancel=True)
            if not line.startswith("addr "):
                raise RuntimeError(f"a member process did not start: {line!r} (see its log in {root})")
            members.append((proc, line.split()[1]))
        yield members
    finally:
        stop_processes(procs)


__all__ = [
    "QUIET_MOST",
    "QUIET_SHARE",
    "busy_seconds",
    "cpu_between",
    "die_with_parent",
    "open_member_processes",
    "run_with_link_delay",
    "stop_processes",
    "thread_cpu",
    "wait_quiet",
]
