"""The launches of this node: each cancellable until its round ends, each with its numbered event log.

A :class:`Launch` is a goal this node launched (its cancel scope until the team is formed, then its chat and
round). :func:`run_logged` runs a launch in the background with its events in an
:class:`~ioa_p2p.node.goals.eventlog.EventLog`, ending it with ``done`` (the result) or ``error``: what
``POST /launch_goal`` streams and ``GET /goal_events?launch=ID`` resumes (docs/protocol.md §7.3).
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from ioa_p2p.api.events import DoneEvent, ErrorEvent, EventSink, GoalEvent, StreamError
from ioa_p2p.api.goals import EXIT_ABORTED, EXIT_FAILED, GoalResult
from ioa_p2p.errors import IoAError, IoATimeout
from ioa_p2p.node.goals.eventlog import EventLog

#: Logs of finished launches kept (so a client that lost the end of a stream can read it again).
FINISHED_LAUNCHES = 64
#: The event log of a launch.
LaunchLog = EventLog[GoalEvent]
#: Runs a coroutine in the goals service's nursery, within its fault boundary.
StartJob = Callable[[Callable[[], Awaitable[None]]], None]


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
    except Exception as exc:  # a bug: the followers hear of it, the job's fault boundary counts it
        what = f"the goal stopped on an internal error ({type(exc).__name__}); the node keeps running: "
        log.append(ErrorEvent(StreamError("InternalError", what + "see `ioa faults`", EXIT_FAILED)))
        raise
    else:
        log.append(DoneEvent(result))


class LaunchLogs:
    """The event logs of this node's launches, by launch ID: every running one, and the last
    ``finished`` finished ones."""

    def __init__(self, finished: int = FINISHED_LAUNCHES) -> None:
        self._logs: OrderedDict[str, LaunchLog] = OrderedDict()
        self._keep = finished

    def open(self, launch_id: str, log: LaunchLog) -> None:
        self._logs[launch_id] = log

    def get(self, launch_id: str) -> LaunchLog | None:
        return self._logs.get(launch_id)

    def finish(self, launch_id: str) -> None:
        """Close the launch's log; forget the oldest finished logs beyond the bound."""
        log = self._logs.get(launch_id)
        if log is not None:
            log.close()
        done = [k for k, v in self._logs.items() if v.closed]
        for old in done[: max(0, len(done) - self._keep)]:
            del self._logs[old]

    def start(
        self, launch: Callable[[str, EventSink], Awaitable[GoalResult]], start_job: StartJob
    ) -> tuple[str, LaunchLog]:
        """Start ``launch(launch_id, sink)`` as a job (it outlives the client that asked) with a new log;
        the launch ID and the log, which ends with ``done`` or ``error`` (:func:`run_logged`)."""
        launch_id = secrets.token_hex(8)
        log: LaunchLog = EventLog()
        self.open(launch_id, log)

        async def run(sink: EventSink) -> GoalResult:
            return await launch(launch_id, sink)

        async def job() -> None:
            try:
                await run_logged(run, log)
            finally:
                self.finish(launch_id)

        start_job(job)
        return launch_id, log


__all__ = ["FINISHED_LAUNCHES", "Launch", "LaunchLog", "LaunchLogs", "run_logged"]
