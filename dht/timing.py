"""Where a find's network time goes: the timings of its DHT requests, per step (pure; no clock of its own).

A find is a few network steps (list bucket pages, fetch cards), each a set of requests to several peers.
Its wall time per step splits into:

- **queued**: from the moment our code decided to send a request to the moment its task ran and sent it
  (our own event loop's backlog: the process waiting for a CPU, or other tasks of the node holding it);
- **answer**: from sending to the parsed reply (the network, and mostly the remote's time: its process
  waiting for a CPU, reading, looking up and answering);
- **handled**: from the parsed reply to the moment the step's driver applied it (our loop's backlog again);
- **tail**: what the step waited beyond its typical (median) request: the slowest peer it needed.

The driver (``ioa_p2p.node.net.kad_io``) records a :class:`RequestTiming` per request into the list
:func:`collect` installs in the current context (trio tasks started inside inherit it); nothing is recorded
outside one. :func:`summarize` turns a step's list into the figures ``Discovery.last_find`` reports.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

#: Requests one step records at most (a find sends ~100; the bound keeps a huge lookup from growing it).
MAX_RECORDED = 4096


@dataclass(slots=True)
class RequestTiming:
    """One request (a batch of keys to one peer), on the driver's clock (seconds)."""

    kind: str  # "value", "providers", "closest", "owner"
    keys: int
    queued: float  # our code decided to send it
    sent: float  # its task ran and began the exchange
    answered: float | None = None  # the reply was parsed (None: failed or cancelled)
    handled: float | None = None  # the driver applied it


_CURRENT: ContextVar[list[RequestTiming] | None] = ContextVar("ioa_dht_request_timings", default=None)


@contextmanager
def collect() -> Iterator[list[RequestTiming]]:
    """Record the requests made in this context (and in tasks started from it) into the yielded list."""
    timings: list[RequestTiming] = []
    token = _CURRENT.set(timings)
    try:
        yield timings
    finally:
        _CURRENT.reset(token)


def record(kind: str, keys: int, queued: float, sent: float) -> RequestTiming | None:
    """A new request's timing, appended to the current collection (None when nothing collects)."""
    timings = _CURRENT.get()
    if timings is None or len(timings) >= MAX_RECORDED:
        return None
    timing = RequestTiming(kind, keys, queued, sent)
    timings.append(timing)
    return timing


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 3) if values else 0.0


def summarize(
    timings: list[RequestTiming], started: float, ended: float, cpu_s: float | None = None
) -> dict[str, float | int]:
    """One step's figures: its wall time, requests (answered, failed), the median and largest answer time,
    our own backlog (queued and handled, median and largest), and the tail (wall time beyond the start of
    the step plus the median request's queue and answer); with ``cpu_s``, the CPU seconds our process used
    meanwhile (near the wall time: the step waited for our own process, not for the remotes)."""
    answered = [t for t in timings if t.answered is not None]
    answers = [t.answered - t.sent for t in answered if t.answered is not None]
    queued = [t.sent - t.queued for t in timings]
    handled = [t.handled - t.answered for t in answered if t.handled is not None and t.answered is not None]
    wall = ended - started
    typical = _median(queued) + _median(answers)
    return {
        "wall_s": round(wall, 3),
        "requests": len(timings),
        "failed": len(timings) - len(answered),
        "answer_p50_s": _median(answers),
        "answer_max_s": round(max(answers), 3) if answers else 0.0,
        "queued_p50_s": _median(queued),
        "queued_max_s": round(max(queued), 3) if queued else 0.0,
        "handled_p50_s": _median(handled),
        "handled_max_s": round(max(handled), 3) if handled else 0.0,
        "tail_s": round(max(0.0, wall - typical), 3),
        **({} if cpu_s is None else {"cpu_s": round(cpu_s, 3)}),
    }


__all__ = ["MAX_RECORDED", "RequestTiming", "collect", "record", "summarize"]
