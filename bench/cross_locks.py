"""Who holds each yamux connection's write lock, and what it awaits: ``bench/cross_diag.py`` with a dump.

Run: python bench/cross_locks.py [cross_diag's options, e.g. --groups 2 --per-group 10 --seconds 30]

At each of cross_diag's reports it walks every py-libp2p ``Yamux`` connection of the process and prints
how many write locks are held, how many tasks wait on them, the last three frames of each holder's stack
(grouped), a few whole holder stacks of the longest queues, and trio's runnable / living task counts.
A holder whose stack ends in ``cancel_shielded_checkpoint`` or in ``park`` under ``acquire`` is runnable
(it was handed the lock or finished a socket send and waits for the scheduler); one waiting for the
socket would end in ``wait_writable``. docs/performance.md, issue 26 "The yamux write lock is a convoy".
"""

from __future__ import annotations

import collections
import gc
import sys
from typing import Any

import cross_diag  # type: ignore[import-not-found]  # bench/ is on sys.path when run as a script
import trio

#: Stacks printed whole per report (holders of the longest queues).
SHOWN = 4


def stack(task: Any) -> str:
    """The frames of ``task``'s coroutine chain, outermost first (the last 7)."""
    frames = []
    coro = task.coro
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is not None:
            frames.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return " > ".join(frames[-7:])


def dump_write_locks() -> None:
    from libp2p.stream_muxer.yamux.yamux import Yamux

    conns = [o for o in gc.get_objects() if isinstance(o, Yamux)]
    held = waiting = 0
    bottoms: collections.Counter[str] = collections.Counter()
    longest = []
    for conn in conns:
        stats = conn._write_lock.statistics()
        waiting += stats.tasks_waiting
        if stats.locked and stats.owner is not None:
            held += 1
            whole = stack(stats.owner)
            bottoms[" > ".join(whole.split(" > ")[-3:])] += 1
            longest.append((stats.tasks_waiting, whole))
    print(f"  yamux connections {len(conns)}, write locks held {held}, tasks waiting {waiting}", flush=True)
    for bottom, count in bottoms.most_common(5):
        print(f"    holders x{count}: ... {bottom}", flush=True)
    for queued, whole in sorted(longest, reverse=True)[:SHOWN]:
        print(f"    holder ({queued} waiting): {whole}", flush=True)
    writers = [w for w in (getattr(c, "ioa_frames", None) for c in conns) if w is not None]
    if writers:  # patch 28: which path the frames took, what is queued now
        totals = {k: sum(getattr(w, k) for w in writers) for k in ("at_once", "queued", "waited", "tails")}
        pending = sum(len(w.control) for w in writers)
        print(f"  frames (patch 28) {totals}, control frames queued now {pending}", flush=True)
    stats = trio.lowlevel.current_statistics()
    print(f"  trio tasks runnable {stats.tasks_runnable}, living {stats.tasks_living}", flush=True)
    runnable: collections.Counter[str] = collections.Counter()
    for task in _run_queue():
        runnable[" > ".join(stack(task).split(" > ")[-4:])] += 1
    for where, count in runnable.most_common(6):
        print(f"    runnable x{count}: ... {where}", flush=True)


def _run_queue() -> list[Any]:
    """The tasks trio will run in its next pass (trio's private run queue: a probe, not product code)."""
    from trio._core import _run

    runner = getattr(_run.GLOBAL_RUN_CONTEXT, "runner", None)
    return list(getattr(runner, "runq", []))


def main() -> None:
    reports: set[int] = set()
    upstream_line = cross_diag.line

    def line(node: Any, group: int, place: int) -> str:
        turn = int(trio.current_time() // 5)  # once per report (its lines are printed together)
        if turn not in reports:
            reports.add(turn)
            dump_write_locks()
        return upstream_line(node, group, place)

    cross_diag.line = line
    sys.argv[0] = "cross_diag.py"
    cross_diag.main()


if __name__ == "__main__":
    main()
