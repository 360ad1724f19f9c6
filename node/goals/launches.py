"""The launches of this node: each cancellable until its round ends, each with its numbered event log.

A :class:`Launch` is a goal this node launched (its cancel scope until the team is formed, then its chat and
round). :func:`run_logged` runs a launch in the background with its events in an
:class:`~ioa_p2p.node.goals.eventlog.EventLog`, ending it with ``done`` (the result) or ``error``: what
``POST /launch_goal`` streams and ``GET /goal_events?launch=ID`` resumes (docs/protocol.md §7.3).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from ioa_p2p.api.events import DoneEvent, ErrorEvent, EventSink, GoalEvent, StreamError
from ioa_p2p.api.goals import EXIT_ABORTED, EXIT_FAILED, GoalResult
from ioa_p2p.errors import IoAError, IoATimeout
from ioa_p2p.node.goals.eventlog import EventLog


@dataclass(slots=True)
class Launch:
    """A goal this node is launching: cancellable until its round ends."""

    launch_id: str
    scope: trio.CancelScope
    chat_id: bytes | None = None
    round_id: str = ""
    cancelled: bool = False


async def run_logged(launch: Callable[[EventSink], Awaitable[GoalResult]], log: EventLog[GoalEvent]) -> None:
    """Run ``launch`` with its events in ``log``, then ``done`` with the result, or ``error`` (a bug is
    an ``InternalError`` for the client and is raised on, to the job's fault boundary); close the log."""

    def sink(event: GoalEvent) -> None:
        log.append(event)

    try:
        result = await launch(sink)
    except IoAError as exc:
        code = EXIT_ABORTED if isinstance(exc, IoATimeout) else exc.exit_code
        log.append(ErrorEvent(StreamError(type(exc).__name__, str(exc), code)))
    except Exception as exc:
        what = f"the goal stopped on an internal error ({type(exc).__name__}); the node keeps running: "
        log.append(ErrorEvent(StreamError("InternalError", what + "see `ioa faults`", EXIT_FAILED)))
        raise
    else:
        log.append(DoneEvent(result))


__all__ = ["Launch", "run_logged"]
