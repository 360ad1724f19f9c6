"""What a find costs, load-independently: the asking node's DHT requests, and where the CPU goes (bench only).

- :class:`RequestCount`: counts the KAD exchanges (streams) and requests the asking node sends, by wrapping
  :func:`ioa_p2p.node.net.kad_io._exchange` in the benchmark's process (every lookup, page listing, card
  fetch and put goes through it); per find, the difference before/after.
- :class:`Profiles`: ``py-spy record`` (``--format raw``, ``--nonblocking``) of chosen processes while the
  queries run, stopped with SIGINT after them; :func:`summarize` reads the collapsed stacks and gives, per
  role (the asking node, the bootstrap node, the agent nodes summed), the CPU seconds sampled and the
  functions with the most samples of their own (self) and in their stack (inclusive). py-spy samples only
  threads that run (not idle ones), so samples / rate is CPU time in Python and in the C code it calls.

py-spy is not a dependency of the project: ``pip install py-spy`` into the venv to use ``--profile``.
"""

from __future__ import annotations

import collections
import contextlib
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: py-spy's sampling rate (per second) for profiled processes.
RATE = 50
#: Functions that, at the top of a stack, mean the thread waits (py-spy's idle detection misses these
#: waits in --nonblocking mode): their samples are counted apart as ``waiting``, not as CPU.
WAITING = (
    "EpollIOManager.get_events (",
    "WorkerThread._work (",
    "Condition.wait (",
    "Event.wait (",
    "Thread._wait_for_tstate_lock (",
    "WakeupSocketpair.wakeup_thread_and_signal_safe (",
)
#: Files and functions of the frames under which every sample of a process runs (left out of the inclusive
#: list).
ROOTS = (
    "(core.py)",
    "(decorators.py)",
    "(__main__.py)",
    "(_base.py)",
    "(<frozen runpy>)",
    "(node_cmds.py)",
    "(bootstrap_cmds.py)",
    "run (_run.py)",
    "(bench_find.py)",
    "(threading.py)",
    "(_thread_cache.py)",
    "(_impl.py)",
    "(_threads.py)",
)
FRAME = re.compile(r"^(?P<name>.*) \((?P<file>[^():]*)(?::(?P<line>\d+))?\)$")


class RequestCount:
    """The asking node's KAD exchanges and requests so far (see the module docstring)."""

    def __init__(self) -> None:
        from ioa_p2p.node.net import kad_io

        self.streams = 0
        self.requests = 0
        upstream = kad_io._exchange

        async def counted(host: Any, peer: Any, requests: list[Any], on_open: Any = None) -> list[Any]:
            self.streams += 1
            self.requests += len(requests)
            return await upstream(host, peer, requests, on_open)

        kad_io._exchange = counted  # type: ignore[assignment]

    def snapshot(self) -> tuple[int, int]:
        return self.streams, self.requests


class Profiles:
    """py-spy recorders of ``roles`` (pid -> role) writing into ``folder``."""

    def __init__(self, folder: Path, roles: dict[int, str]) -> None:
        self.folder = folder
        self.roles = roles
        self.children: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        self.folder.mkdir(parents=True, exist_ok=True)
        for pid, role in self.roles.items():
            out = self.folder / f"{role}-{pid}.txt"
            argv = [
                spy,
                "record",
                "-p",
                str(pid),
                "-r",
                str(RATE),
                "--nonblocking",
                "-f",
                "raw",
                "-o",
                str(out),
            ]
            self.children.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def stop(self) -> None:
        for child in self.children:
            with contextlib.suppress(OSError):
                child.send_signal(signal.SIGINT)
        for child in self.children:
            try:
                child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def _frame(text: str) -> str:
    """``name (file:line)`` as ``name (file)``: samples of one function add up whatever its line."""
    match = FRAME.match(text.strip())
    if match is None:
        return text.strip()
    return f"{match['name']} ({Path(match['file']).name})"


def summarize(folder: Path, queries: int, top: int = 25) -> dict[str, Any]:
    """Per role: CPU seconds sampled per query, and the ``top`` functions by self and inclusive seconds per
    query (see the module docstring)."""
    own: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    inclusive: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    total: collections.Counter[str] = collections.Counter()
    waiting: collections.Counter[str] = collections.Counter()
    processes: collections.Counter[str] = collections.Counter()
    for path in sorted(folder.glob("*.txt")):
        role = path.name.split("-", 1)[0]
        processes[role] += 1
        for line in path.read_text(errors="replace").splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            n = int(count)
            frames = [_frame(f) for f in stack.split(";")[1:]]  # the first is the thread
            if not frames:
                continue
            if frames[-1].startswith(WAITING):
                waiting[role] += n
                continue
            total[role] += n
            own[role][frames[-1]] += n
            for name in set(frames):
                inclusive[role][name] += n
    per_query = RATE * max(queries, 1)
    out = {}
    for role in sorted(total):
        # the frames nearly every sample runs under (entry points, trio's run loop) say nothing: left out
        busy = [(name, n) for name, n in inclusive[role].most_common() if not name.endswith(ROOTS)]
        out[role] = {
            "processes": processes[role],
            "cpu_s_per_query": round(total[role] / per_query, 3),
            "waiting_s_per_query": round(waiting[role] / per_query, 3),
            "self": [[name, round(n / per_query, 3)] for name, n in own[role].most_common(top)],
            "inclusive": [[name, round(n / per_query, 3)] for name, n in busy[:top]],
        }
    return out


def known_split(dht: Any, summaries: list[dict[str, Any]], others: Iterable[str]) -> list[int]:
    """The DHT peers the asking node knows (``kad_io.known_peers``: what its size estimate counts): how many
    are nodes of this benchmark's network (``summaries``' peers and ``others``, e.g. its bootstrap node),
    and how many are not (another network's nodes on this host)."""
    from ioa_p2p.identity import PeerId
    from ioa_p2p.node.net.kad_io import known_peers

    ours = {s["peer_id"] for s in summaries} | set(others)
    known = [str(PeerId.from_bytes(p)) for p in known_peers(dht)]
    return [sum(p in ours for p in known), sum(p not in ours for p in known)]


__all__ = ["known_split", "RATE", "Profiles", "RequestCount", "summarize"]
