"""Where a running node is stuck: stack dumps on request, for operators and for tests that wait on a node.

- ``SIGUSR1``: every thread's Python stack on stderr (:mod:`faulthandler`; works even when the event loop
  itself is blocked in a call that never returns).
- ``SIGUSR2``: the trio task tree on stderr, each task with the frames it awaits in (what every task of the
  node waits for: a lock, a network read, a worker thread).

Both are read-only: the node goes on as before.
"""

from __future__ import annotations

import faulthandler
import io
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

import trio

__all__ = ["install_stack_dumps", "task_tree_lines"]


def install_stack_dumps() -> None:
    """On POSIX: ``kill -USR1 <pid>`` prints every thread's stack, ``kill -USR2 <pid>`` the trio task tree
    (when the signal arrives inside ``trio.run``), both on stderr. Nothing when stderr is no file or the
    caller is not the main thread (a command run by a test runner or inside another program)."""
    try:
        sys.stderr.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return  # stderr is no file (the command runs inside a test runner or an embedding program)
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers belong to the main thread
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True, chain=False)
    if hasattr(signal, "SIGUSR2"):
        signal.signal(signal.SIGUSR2, _print_task_tree)


def _print_task_tree(signum: int, frame: FrameType | None) -> None:
    try:
        root = trio.lowlevel.current_root_task()
    except RuntimeError:  # outside trio.run: before the loop started or after it ended
        print("--- trio tasks: no trio run in progress ---", file=sys.stderr, flush=True)
        return
    text = "\n".join(task_tree_lines(root))
    print(f"--- trio tasks ---\n{text}\n--- end of trio tasks ---", file=sys.stderr, flush=True)


def task_tree_lines(task: trio.lowlevel.Task | None, depth: int = 0) -> Iterator[str]:
    """One line per task (indented by nesting), then one line per frame it awaits in."""
    if task is None:
        return
    pad = "  " * depth
    yield f"{pad}task {task.name}"
    for frame, lineno in task.iter_await_frames():
        code = frame.f_code
        yield f"{pad}  {code.co_filename}:{lineno} in {code.co_name}"
    for nursery in task.child_nurseries:
        for child in nursery.child_tasks:
            yield from task_tree_lines(child, depth + 1)
