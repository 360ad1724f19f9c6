"""Control routes of the goals service: ``POST /launch_goal``, ``GET /goal_events``, ``GET /goals``,
``GET /goals/result`` (an ended round's result as this node saw it), ``POST /cancel_goal`` (schemas:
:mod:`ioa_p2p.api.goals`, :mod:`ioa_p2p.api.launch`; docs/protocol.md §7).

``POST /launch_goal`` reads a :class:`~ioa_p2p.api.launch.LaunchRequest` (IoA's shape). Without ``stream``
it answers the :class:`~ioa_p2p.api.goals.GoalResult` when the round ends; with ``"stream": true`` the
goal runs in the service (it goes on if the client goes away) and the answer is its events as they
happen, ending with ``done`` (the result) or ``error``: NDJSON, or server-sent events with a cursor per
event when the client accepts ``text/event-stream``. ``GET /goal_events?launch=ID`` streams a launch's
events again (from the start, or ``after`` a cursor / ``Last-Event-ID``: the events the client missed,
each once); ``GET /goal_events?chat=ID[&round=ID]`` a goal chat's events (past ones first) until the
round ends. The stream itself: :mod:`ioa_p2p.api.stream`; the logs: :mod:`ioa_p2p.node.goals.eventlog`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Protocol, TypeVar

import trio

from ioa_p2p.api import routes as r
from ioa_p2p.api.codec import Empty
from ioa_p2p.api.events import (
    END_EVENTS,
    FINAL_EVENTS,
    ChatEvent,
    Event,
    GapEvent,
    GoalEvent,
    HeartbeatEvent,
    ResetEvent,
)
from ioa_p2p.api.goals import (
    CancelGoalReply,
    CancelGoalRequest,
    GoalEventsRequest,
    GoalResult,
    GoalSummary,
    RoundRequest,
)
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.api.stream import NDJSON, SSE, SSE_HEARTBEAT, Cursor, ndjson_line, sse_frame
from ioa_p2p.errors import UsageError
from ioa_p2p.node.control.server import CallInfo, Streaming
from ioa_p2p.node.goals.eventlog import EventLog
from ioa_p2p.node.goals.launches import LaunchLog, LaunchLogs

if TYPE_CHECKING:
    from ioa_p2p.node.chats import Chats
    from ioa_p2p.node.goals.driver import ChatDriver
    from ioa_p2p.node.ports import NodePort

#: Seconds of silence after which a stream sends a heartbeat.
HEARTBEAT = 10.0
E = TypeVar("E", bound=Event)


class GoalsPort(Protocol):
    """What the routes use of :class:`~ioa_p2p.node.goals.service.Goals`."""

    @property
    def chats(self) -> Chats: ...
    @property
    def drivers(self) -> Mapping[bytes, ChatDriver]: ...
    @property
    def launch_logs(self) -> LaunchLogs: ...

    async def launch_goal(self, request: LaunchRequest) -> GoalResult: ...
    def start_launch(self, request: LaunchRequest) -> tuple[str, LaunchLog]: ...
    def list_goals(self) -> tuple[GoalSummary, ...]: ...
    def round_result(self, chat_ref: str, round_id: str | None = None) -> GoalResult: ...
    async def cancel_goal(self, ref: str) -> CancelGoalReply: ...


async def stream_log(
    log: EventLog[E],
    start: int,
    *,
    sse: bool,
    ends: Callable[[E], bool],
    first: Event | None = None,
    drain: bool = False,
) -> AsyncIterator[bytes]:
    """The events of ``log`` after ``start`` as NDJSON lines or server-sent events, live, until an event
    ``ends`` the stream or the log closes (``drain``: only what the log holds now); a heartbeat after
    :data:`HEARTBEAT` seconds of silence, a ``gap`` event where the log no longer holds what the reader
    missed."""

    def frame(event: Event, seq: int | None = None) -> bytes:
        if not sse:
            return ndjson_line(event)
        return sse_frame(event, log.cursor(seq) if seq is not None else None)

    if first is not None:
        yield frame(first)
    seq = start
    while True:
        with trio.move_on_after(HEARTBEAT) as quiet:
            batch = log.entries_after(seq) if drain else await log.wait_after(seq)
        if quiet.cancelled_caught:
            yield SSE_HEARTBEAT if sse else ndjson_line(HeartbeatEvent())
            continue
        if batch.missed:
            yield frame(GapEvent(batch.missed))
        for seq, event in batch.entries:  # noqa: B007 - seq is the reader's position
            yield frame(event, seq)
            if ends(event):
                return
        if drain or (log.closed and not log.entries_after(seq).entries):
            return


def add_goal_routes(node: NodePort, goals: GoalsPort) -> None:
    async def launch(request: LaunchRequest, call: CallInfo) -> GoalResult | Streaming:
        if request.chat:
            goals.chats.resolve(request.chat)  # an unknown chat is an error before a stream starts
        if not call.stream:
            return await goals.launch_goal(request)
        _, log = goals.start_launch(request)
        chunks = stream_log(log, 0, sse=call.sse, ends=_final)
        return Streaming(chunks, SSE if call.sse else NDJSON)

    async def goal_events(request: GoalEventsRequest, call: CallInfo) -> Streaming:
        text = call.last_event_id or request.after  # a browser's reconnection sends the newest
        after = Cursor.parse(text) if text else None
        sse = call.sse or after is not None
        if request.launch is not None:
            found = goals.launch_logs.get(request.launch)
            if found is None:
                raise UsageError(
                    f"no launch {request.launch!r} on this node: it ended long ago, or the node restarted"
                )
            start, reset = found.start(after)
            chunks = stream_log(found, start, sse=sse, ends=_final, first=reset)
            return Streaming(chunks, SSE if sse else NDJSON)
        assert request.chat is not None  # the request checks: launch or chat
        chat_id = goals.chats.resolve(request.chat)
        driver = goals.drivers.get(chat_id)
        if driver is None:
            raise UsageError(f"chat {chat_id.hex()[:16]}... carries no goal on this node")
        start, reset = driver.log.start(after)
        return Streaming(_chat_stream(driver, request.round, start, reset, sse), SSE if sse else NDJSON)

    async def list_goals(request: Empty, call: CallInfo) -> tuple[GoalSummary, ...]:
        return goals.list_goals()

    async def get_result(request: RoundRequest, call: CallInfo) -> GoalResult:
        return goals.round_result(request.chat, request.round)

    async def cancel(request: CancelGoalRequest, call: CallInfo) -> CancelGoalReply:
        return await goals.cancel_goal(request.ref)

    node.control.add_route(r.LAUNCH_GOAL, launch)
    node.control.add_route(r.GOAL_EVENTS, goal_events)
    node.control.add_route(r.GOALS, list_goals)
    node.control.add_route(r.ROUND_RESULT, get_result)
    node.control.add_route(r.CANCEL_GOAL, cancel)


def _final(event: GoalEvent) -> bool:
    """The last event of a launch's stream."""
    return isinstance(event, FINAL_EVENTS)


def _chat_stream(
    driver: ChatDriver, wanted: str | None, start: int, reset: ResetEvent | None, sse: bool
) -> AsyncIterator[bytes]:
    """A goal chat's events after ``start`` until the end of round ``wanted`` (default: the latest round
    when an end event comes); when that round ended and its end event is not among them (the client saw
    it, or the log no longer holds it), just the events the log holds now."""

    def target() -> str | None:
        latest = driver.latest_round()
        return wanted or (latest.round_id if latest else None)

    def ends(event: ChatEvent) -> bool:
        return isinstance(event, END_EVENTS) and event.round_id == target()

    ended_at = next((seq for seq, event in driver.log.entries_after(0).entries if ends(event)), None)
    known = driver.rounds.get(target() or "")
    # the client read the end already; or the end is not (or no longer) in the log and the round ended
    ended = known is not None and known.outcome is not None
    drain = ended_at <= start if ended_at is not None else ended
    return stream_log(driver.log, start, sse=sse, ends=ends, first=reset, drain=drain)


__all__ = ["HEARTBEAT", "GoalsPort", "add_goal_routes", "stream_log"]
