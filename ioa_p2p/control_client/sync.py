"""The blocking client of a running node's control API (what the ``ioa`` command uses).

Typed: one method per route (:mod:`ioa_p2p.api.routes`), requests and replies the schemas of
:mod:`ioa_p2p.api`; :meth:`ControlClient.launch_events` and :meth:`ControlClient.goal_events` stream a
goal's typed events with their cursors, and resume a dropped stream where it stopped (docs/protocol.md
§7.3). :meth:`ControlClient.call` and :meth:`ControlClient.stream` are the raw JSON calls underneath.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

from ioa_p2p.api import routes as r
from ioa_p2p.api.chats import (
    AuditView,
    ChatInfo,
    ChatMessageView,
    ChatRef,
    ChatStoreReply,
    ChatStoreRequest,
    CreateChatReply,
    CreateChatRequest,
    ExportReply,
    HistoryReply,
    PostRequest,
    SyncChatsReply,
    SyncChatsRequest,
)
from ioa_p2p.api.codec import ApiObject, Empty, JsonObject, JsonValue
from ioa_p2p.api.discovery import (
    CardsReply,
    CardUpdate,
    FindReply,
    FindRequest,
    OwnCard,
    PublishedCard,
    Withdrawal,
    WithdrawRequest,
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
from ioa_p2p.api.peers import (
    BudgetsReply,
    ConnectReply,
    ConnectRequest,
    FaultsReply,
    IdReply,
    InboxMessage,
    NetStatus,
    PeerInfo,
    RelayConnectReply,
    RelayConnectRequest,
    RelayStatus,
    SendReply,
    SendRequest,
)
from ioa_p2p.api.routes import Route
from ioa_p2p.api.status import ChatsEvent, NetworkEvent, NetworkView, NodeEvent, NodeStatus, UiCode
from ioa_p2p.api.stream import SSE, Cursor, StreamItem, read_sse
from ioa_p2p.control_client.chat_stream import ChatResume, ChatStreamItem
from ioa_p2p.control_client.endpoint import Endpoint, error_from, node_info, route_target
from ioa_p2p.control_client.resume import Resume
from ioa_p2p.control_client.status_stream import LiveState, StatusResume, StatusStreamItem
from ioa_p2p.errors import ControlAPIError, InvalidField, IoATimeout, NodeNotRunning, UnexpectedReply

Q = TypeVar("Q", bound=ApiObject)
R = TypeVar("R")
T = TypeVar("T")


class ControlClient:
    """Client of the node running for ``home`` (or at ``endpoint``); ``timeout``: seconds per call (a
    stream: per read)."""

    def __init__(self, home: Path | None = None, *, timeout: float = 30.0, endpoint: Endpoint | None = None):
        if home is None and endpoint is None:
            raise ValueError("ControlClient needs the node's home or its endpoint")
        self.home = home
        self.timeout = timeout
        self.endpoint = endpoint

    def node_info(self) -> JsonObject:
        """``node.json`` of the node (NodeNotRunning when it does not run)."""
        if self.home is None:
            raise NodeNotRunning("this client was given an endpoint, not a node home")
        return node_info(self.home)

    def _endpoint(self) -> Endpoint:
        if self.endpoint is not None:
            return self.endpoint
        assert self.home is not None
        return Endpoint.of_home(self.home)

    # ------------------------------------------------------------------ raw JSON

    def _open(
        self, method: str, path: str, body: JsonValue, timeout: float | None, accept: str = "application/json"
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        endpoint = self._endpoint()
        conn = http.client.HTTPConnection(endpoint.host, endpoint.port, timeout=timeout or self.timeout)
        headers = {**endpoint.headers, "Accept": accept}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
        except TimeoutError:
            conn.close()
            raise IoATimeout(f"the node did not answer {method} {path} in time") from None
        except OSError as exc:
            conn.close()
            raise NodeNotRunning(
                f"the node does not answer on {endpoint.host}:{endpoint.port} ({exc}); "
                "it may have stopped: start it with `ioa node start`"
            ) from None
        if response.status >= 400:
            data = response.read()
            conn.close()
            raise error_from(response.status, data)
        return conn, response

    def call(
        self, method: str, path: str, json_body: JsonValue = None, *, timeout: float | None = None
    ) -> JsonValue:
        """One request; the JSON answer."""
        conn, response = self._open(method, path, json_body, timeout)
        try:
            data = response.read()
        except TimeoutError:
            raise IoATimeout(f"the node did not finish answering {method} {path} in time") from None
        finally:
            conn.close()
        try:
            value: JsonValue = json.loads(data) if data else None
        except ValueError:
            raise ControlAPIError(f"the node answered {method} {path} with invalid JSON") from None
        return value

    def stream(
        self, method: str, path: str, json_body: JsonValue = None, *, timeout: float | None = None
    ) -> Iterator[JsonValue]:
        """Each JSON line of a streaming (NDJSON) answer."""
        for line in self._lines(method, path, json_body, timeout, "application/x-ndjson"):
            if line.strip():
                yield json.loads(line)

    def _lines(
        self, method: str, path: str, body: JsonValue, timeout: float | None, accept: str
    ) -> Iterator[bytes]:
        conn, response = self._open(method, path, body, timeout, accept)
        try:
            while True:
                try:
                    line = response.readline()
                except TimeoutError:
                    raise IoATimeout(f"the node went quiet while streaming {path}") from None
                if not line:
                    return
                yield line
        finally:
            conn.close()

    # ------------------------------------------------------------------ typed

    def request(self, route: r.Route[Q, R], request: Q, *, timeout: float | None = None) -> R:
        """Call ``route`` with a typed request; its typed reply (UnexpectedReply if the JSON is not one)."""
        path, body = route_target(route, request)
        data = self.call(route.method, path, body, timeout=timeout)
        try:
            return route.reply.decode(data)
        except InvalidField as exc:
            raise UnexpectedReply(f"{route.method} {route.path}: the node's answer at {exc}") from None

    def node_id(self) -> IdReply:
        return self.request(r.ID, Empty())

    def peers(self) -> tuple[PeerInfo, ...]:
        return self.request(r.PEERS, Empty())

    def net(self) -> NetStatus:
        """``GET /net``: reachability, listen and advertised addresses, bootstrap peers."""
        return self.request(r.NET, Empty())

    def connect(self, addr: str) -> ConnectReply:
        return self.request(r.CONNECT, ConnectRequest(addr))

    def send(self, peer: str, text: str, data: JsonObject | None = None) -> SendReply:
        return self.request(r.SEND, SendRequest(peer, text, data))

    def inbox(self) -> tuple[InboxMessage, ...]:
        return self.request(r.INBOX, Empty())

    def node_status(self) -> NodeStatus:
        """``GET /node``: identity, uptime, memory, config summary, faults."""
        return self.request(r.NODE, Empty())

    def network(self) -> NetworkView:
        """``GET /network``: connected peers with their latency, routing table, gossip mesh."""
        return self.request(r.NETWORK, Empty())

    def ui_code(self) -> UiCode:
        """``POST /ui/code``: a one-time login link for the dashboard (needs the control token)."""
        return self.request(r.UI_CODE, Empty())

    def chat_store(self, chat: str | None = None) -> ChatStoreReply:
        """``GET /chats/store``: rows kept aside as undecodable, strangers' chats, pull pacing."""
        return self.request(r.CHAT_STORE, ChatStoreRequest(chat))

    def audit(self, chat: str) -> AuditView:
        """``GET /chats/audit``: the offline audit of the node's copy of a chat."""
        return self.request(r.AUDIT, ChatRef(chat))

    def round_result(self, chat: str, round_id: str | None = None) -> GoalResult:
        """``GET /goals/result``: an ended round's result as the node saw it."""
        return self.request(r.ROUND_RESULT, RoundRequest(chat, round_id))

    def faults(self) -> FaultsReply:
        return self.request(r.FAULTS, Empty())

    def budgets(self) -> BudgetsReply:
        return self.request(r.BUDGETS, Empty())

    def relay(self) -> RelayStatus:
        return self.request(r.RELAY, Empty())

    def relay_connect(self, request: RelayConnectRequest) -> RelayConnectReply:
        return self.request(r.RELAY_CONNECT, request)

    def chats(self) -> tuple[ChatInfo, ...]:
        return self.request(r.CHATS, Empty())

    def history(self, chat: str) -> HistoryReply:
        return self.request(r.HISTORY, ChatRef(chat))

    def export(self, chat: str) -> ExportReply:
        return self.request(r.EXPORT, ChatRef(chat))

    def post(self, request: PostRequest) -> ChatMessageView:
        return self.request(r.POST, request)

    def create_chat(self, request: CreateChatRequest) -> CreateChatReply:
        return self.request(r.CREATE_CHAT, request)

    def sync_chats(self, chat: str | None = None) -> SyncChatsReply:
        return self.request(r.SYNC_CHATS, SyncChatsRequest(chat))

    def find(self, request: FindRequest) -> FindReply:
        return self.request(r.FIND, request)

    def cards(self) -> CardsReply:
        return self.request(r.CARDS, Empty())

    def card(self) -> OwnCard:
        return self.request(r.CARD, Empty())

    def update_card(self, update: CardUpdate) -> PublishedCard:
        return self.request(r.UPDATE_CARD, update)

    def withdraw_card(self, reason: str = "") -> Withdrawal:
        return self.request(r.WITHDRAW_CARD, WithdrawRequest(reason))

    def goals(self) -> tuple[GoalSummary, ...]:
        return self.request(r.GOALS, Empty())

    def cancel_goal(self, *, chat: str | None = None, launch: str | None = None) -> CancelGoalReply:
        return self.request(r.CANCEL_GOAL, CancelGoalRequest(chat, launch))

    def launch(self, request: LaunchRequest, *, timeout: float | None = None) -> GoalResult:
        """Launch a goal and wait for its result (``timeout``: the whole call)."""
        return self.request(r.LAUNCH_GOAL, request, timeout=timeout)

    # ------------------------------------------------------------------ goal event streams

    def launch_events(
        self, request: LaunchRequest, *, timeout: float | None = None, resume: int = 3
    ) -> Iterator[StreamItem]:
        """Launch a goal and yield its events as they happen, the last one ``done`` (its result) or
        ``error``. A dropped connection is resumed (at most ``resume`` times) after the last cursor read,
        so no event is missed or repeated. ``timeout``: seconds per read (heartbeats come every 10 s)."""
        body = {**request.to_json(), "stream": True}
        state = Resume()
        lines = self._lines("POST", r.LAUNCH_GOAL.path, body, timeout, SSE)
        yield from self._resumed(lines, state, timeout, resume)

    def goal_events(
        self,
        *,
        chat: str | None = None,
        launch: str | None = None,
        round_id: str | None = None,
        after: Cursor | None = None,
        timeout: float | None = None,
        resume: int = 3,
    ) -> Iterator[StreamItem]:
        """The events of a launch of this node (to its end) or of a goal chat (to the end of ``round_id``,
        default its latest round), after ``after`` (default: from the start)."""
        query = GoalEventsRequest(chat, launch, round_id, str(after) if after else None)
        path, _ = route_target(r.GOAL_EVENTS, query)
        state = Resume(launch=launch, chat=chat, round_id=round_id, cursor=after)
        yield from self._resumed(self._lines("GET", path, None, timeout, SSE), state, timeout, resume)

    def chat_events(
        self, chat: str, *, after: Cursor | None = None, timeout: float | None = None, resume: int = 3
    ) -> Iterator[ChatStreamItem]:
        """A chat's messages in this node's order, then each new one as it is accepted (``GET
        /chats/events``), after ``after`` (default: from the first). The stream does not end by itself:
        stop reading to close it. A dropped connection is resumed (at most ``resume`` times in a row)
        after the last cursor read; ``timeout``: seconds per read (heartbeats come every 10 s)."""
        return self._live(r.CHAT_EVENTS, ChatResume(chat, after), timeout, resume)

    def network_events(
        self, *, after: Cursor | None = None, timeout: float | None = None, resume: int = 3
    ) -> Iterator[StatusStreamItem[NetworkEvent]]:
        """The network view (``GET /network/events``) now, then again each time it changes; resumed like
        :meth:`chat_events`. The stream does not end by itself."""
        return self._live(r.NETWORK_EVENTS, StatusResume(NetworkEvent, after), timeout, resume)

    def node_events(
        self, *, after: Cursor | None = None, timeout: float | None = None, resume: int = 3
    ) -> Iterator[StatusStreamItem[NodeEvent]]:
        """This node's status (``GET /node/events``) now, then again each time it changes."""
        return self._live(r.NODE_EVENTS, StatusResume(NodeEvent, after), timeout, resume)

    def chats_events(
        self, *, after: Cursor | None = None, timeout: float | None = None, resume: int = 3
    ) -> Iterator[StatusStreamItem[ChatsEvent]]:
        """The chats and their rounds (``GET /chats/list/events``) now, then again each time they change."""
        return self._live(r.CHATS_EVENTS, StatusResume(ChatsEvent, after), timeout, resume)

    def _live(
        self, route: Route[Any, Any], state: LiveState[T], timeout: float | None, resume: int
    ) -> Iterator[T]:
        attempts = resume
        while True:
            path, _ = route_target(route, state.request())
            try:
                for raw in read_sse(self._lines("GET", path, None, timeout, SSE)):
                    item = state.saw(raw)
                    if item is not None:
                        attempts = resume
                        yield item
                dropped: Exception = ControlAPIError(f"the node closed the stream {route.path}")
            except (OSError, http.client.HTTPException) as exc:
                dropped = exc
            if attempts <= 0:
                if isinstance(dropped, ControlAPIError):
                    raise dropped
                raise ControlAPIError(
                    f"the stream {route.path} broke: {dropped}; see the node's log"
                ) from None
            attempts -= 1

    def _resumed(
        self, lines: Iterator[bytes], state: Resume, timeout: float | None, attempts: int
    ) -> Iterator[StreamItem]:
        while True:
            try:
                for item in read_sse(lines):
                    state.saw(item)
                    yield item
                    if state.ended:
                        return
                if state.ended or not state.needs_end:
                    return
                dropped: Exception = ControlAPIError("the node closed the goal stream before the goal ended")
            except (OSError, http.client.HTTPException) as exc:
                dropped = exc
            if attempts <= 0 or not state.resumable:
                if isinstance(dropped, ControlAPIError):
                    raise dropped
                raise ControlAPIError(f"the goal stream broke: {dropped}; see the node's log") from None
            attempts -= 1
            query = urlencode(state.query())
            lines = self._lines("GET", f"{r.GOAL_EVENTS.path}?{query}", None, timeout, SSE)


__all__ = ["ControlClient"]
