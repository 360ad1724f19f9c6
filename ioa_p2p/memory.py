"""What a process's memory is and what each agent in it accounts for (``GET /budgets``' ``memory``).

One OS process may run several agents (``ioa node start --agents FILE``): they share the imports, the
embedding models and the event loop, so RSS is a figure of the process, not of an agent. What *can* be told
per agent, and is reported:

- ``start_rss``: how much the process's RSS grew while this agent opened (agents of a process open one
  after the other, so each start is measured alone; the first agent of a process also pays what its start
  loads once for all, e.g. the card model);
- ``share_rss``: the agents' mean share of what the process holds beyond its RSS before the first agent
  opened: ``(rss - baseline_rss) / agents``;
- ``held_bytes``: network buffers the agent holds now (its budgets: partial frames, pending chat messages,
  sync answers).

:class:`ProcessMemory` is the process's one ledger (:data:`PROCESS_MEMORY`); a node takes an
:class:`AgentMemory` from it for its lifetime. RSS is read from ``/proc/self/status`` (Linux); elsewhere the
figures are ``None`` (peak RSS falls back to ``getrusage``). :func:`release_free_memory` hands freed heap
pages back to the operating system (glibc's ``malloc_trim``; a no-op elsewhere): libraries that allocate a
lot while loading (onnxruntime builds a session with ~70 MB of temporaries) otherwise leave RSS high for good.
:func:`limit_malloc_arenas` caps glibc's malloc arenas in a node process (``ioa node start``): glibc gives
each thread that allocates an arena of its own (up to 8 per core), and a node's worker threads (embedding,
SQLite) leave their arenas' free pages resident: ~3 MB of an idle agent's RSS (docs/performance.md).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_STATUS = "/proc/self/status"


def read_rss() -> tuple[int | None, int | None]:
    """(current RSS, peak RSS) of this process in bytes; ``None`` where the system does not tell."""
    rss = peak = None
    try:
        with open(_STATUS, encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                elif line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    if peak is None:
        try:
            import resource

            scale = 1 if sys.platform == "darwin" else 1024  # macOS reports bytes, Linux KiB
            peak = int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * scale
        except (ImportError, OSError, ValueError):
            pass
    return rss, peak


_trim: Callable[[int], Any] | None | bool = False  # False: not looked up yet
_trim_lock = threading.Lock()


def release_free_memory() -> bool:
    """Return free heap pages to the operating system (glibc ``malloc_trim(0)``); False where unavailable."""
    global _trim
    with _trim_lock:
        if _trim is False:
            _trim = None
            if sys.platform.startswith("linux"):
                try:
                    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
                    _trim = libc.malloc_trim
                except (OSError, AttributeError):
                    _trim = None
        trim = _trim
    if not callable(trim):
        return False
    trim(0)
    return True


#: glibc malloc arenas of a node process (``M_ARENA_MAX``); ``MALLOC_ARENA_MAX`` in the environment wins.
NODE_MALLOC_ARENAS = 2
_M_ARENA_MAX = -8  # glibc's mallopt parameter number


def limit_malloc_arenas(arenas: int = NODE_MALLOC_ARENAS) -> bool:
    """Cap glibc's malloc arenas at ``arenas`` (``mallopt(M_ARENA_MAX)``; call it before threads start).
    False where unavailable (not glibc) or when ``MALLOC_ARENA_MAX`` is set (the operator chose)."""
    import os

    if not sys.platform.startswith("linux") or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(_M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False


@dataclass(frozen=True, slots=True)
class MemoryReport:
    """The figures of ``GET /budgets``' ``memory`` (bytes; ``None``: not known on this system)."""

    process_rss: int | None
    process_peak_rss: int | None
    agents: int
    baseline_rss: int | None
    share_rss: int | None
    start_rss: int | None
    held_bytes: int


class AgentMemory:
    """One agent's entry in its process's ledger (made by :meth:`ProcessMemory.open_agent`)."""

    def __init__(self, ledger: ProcessMemory) -> None:
        self.ledger = ledger
        self.start_rss: int | None = None
        self._before: int | None = None

    def started(self) -> None:
        """The agent finished opening: note how much the process grew meanwhile."""
        rss, _ = read_rss()
        if rss is not None and self._before is not None:
            self.start_rss = max(0, rss - self._before)

    def report(self, held_bytes: int = 0) -> MemoryReport:
        rss, peak = read_rss()
        agents = max(1, self.ledger.agents)
        base = self.ledger.baseline_rss
        share = None if rss is None or base is None else max(0, rss - base) // agents
        return MemoryReport(rss, peak, agents, base, share, self.start_rss, held_bytes)

    def close(self) -> None:
        self.ledger._close(self)


class ProcessMemory:
    """The agents of this process and the process's RSS before the first of them opened."""

    def __init__(self) -> None:
        self.baseline_rss: int | None = None
        self._agents: list[AgentMemory] = []
        self._lock = threading.Lock()

    @property
    def agents(self) -> int:
        return len(self._agents)

    def open_agent(self) -> AgentMemory:
        """Register an agent that starts opening now (close it when the agent stops)."""
        rss, _ = read_rss()
        agent = AgentMemory(self)
        agent._before = rss
        with self._lock:
            if self.baseline_rss is None:
                self.baseline_rss = rss
            self._agents.append(agent)
        return agent

    def _close(self, agent: AgentMemory) -> None:
        with self._lock:
            if agent in self._agents:
                self._agents.remove(agent)


#: The process's one ledger.
PROCESS_MEMORY = ProcessMemory()

__all__ = [
    "NODE_MALLOC_ARENAS",
    "PROCESS_MEMORY",
    "AgentMemory",
    "MemoryReport",
    "ProcessMemory",
    "limit_malloc_arenas",
    "read_rss",
    "release_free_memory",
]
