"""Why a task failed: the one list of failure kinds (``conv.task.result`` ``failure``; an adapter's
``TaskResult.failure`` is one of :data:`ADAPTER_FAILURES`, re-exported by :mod:`ioa_p2p.adapters.base`)."""

from __future__ import annotations

# Why a task failed (``TaskOutcome.failure``; an adapter's ``TaskResult.failure`` is one of the first five).
TIMEOUT = "timeout"  # the deadline passed (or the adapter's own time limit)
CRASH = "crash"  # the adapter raised an unexpected exception
BAD_OUTPUT = "bad_output"  # the adapter returned something that is not a valid, bounded TaskResult
REJECTED = "rejected"  # the adapter cannot do this kind of task (TaskRejected)
TASK_ERROR = "task_error"  # the task ran and failed (code raised, nothing relevant found, ...)
CANCELLED = "cancelled"  # the conversation ended before the task did
LEFT = "left"  # the assignee left the conversation
ADAPTER_FAILURES = frozenset({TIMEOUT, CRASH, BAD_OUTPUT, REJECTED, TASK_ERROR})
FAILURES = ADAPTER_FAILURES | {CANCELLED, LEFT}

__all__ = [
    "ADAPTER_FAILURES",
    "BAD_OUTPUT",
    "CANCELLED",
    "CRASH",
    "FAILURES",
    "LEFT",
    "REJECTED",
    "TASK_ERROR",
    "TIMEOUT",
]
