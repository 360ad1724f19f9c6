"""The async client of a running node's control API, for gateways and other servers (asyncio or trio).

The same typed calls as :class:`~ioa_p2p.control_client.ControlClient`, awaited (httpx under anyio, so it
runs in an asyncio server, an ASGI app or a trio program), and the goal event streams as async iterators
that resume a dropped connection where it stopped (docs/protocol.md §7.3)::

    async with AsyncControlClient(home) as client:
        found = await client.find(FindRequest("convert units"))
        async for item in client.launch_events(LaunchRequest("Convert 26.2 miles to km")):
            print(item.cursor, item.event.to_json())
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import urlencode

import httpx

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
from ioa_p2p.api.stream import SSE, Cursor, SseReader, StreamItem
from ioa_p2p.control_client.chat_stream import ChatResume, ChatStreamItem
from ioa_p2p.control_client.endpoint import Endpoint, error_from, route_target
from ioa_p2p.control_client.resume import Resume
from ioa_p2p.control_client.status_stream import LiveState, StatusResume, StatusStreamItem
from ioa_p2p.errors import ControlAPIError, InvalidField, IoATimeout, NodeNotRunning, UnexpectedReply

Q = TypeVar("Q", bound=ApiObject)
R = TypeVar("R")
T = TypeVar("T")


@asynccontextmanager
async def response_lines(response: httpx.Response) -> AsyncIterator[AsyncIterator[str]]:
    """The lines of a streamed ``response``; on leaving the block (also early: a caller that stopped
    reading, a ``break``) the response is closed and httpx's chain of generators under the line iterator
    (text, bytes, raw, the transport's and httpcore's) runs to its end on the closed socket. Left
    unfinished they would be garbage collected half-way, each a ResourceWarning (an async generator not
    exhausted), and closing the outer one alone does not close those under it."""
    lines = response.aiter_lines()
    try:
        yield lines
    finally:
        await response.aclose()
        try:
            async for _ in lines:  # at most what was buffered, then the closed socket's error
                pass
        except (httpx.HTTPError, httpx.StreamError):
            pass


class AsyncControlClient:
    """Async client of the node running for ``home`` (or at ``endpoint``). Use it as an async context
    manager (one connection pool), or call :meth:`aclose`. ``timeout``: seconds the node may take to answer
    a call (a stream: between two reads; heartbeats come every 10 s); deadlines of whole operations are the
    caller's cancel scopes."""

    def __init__(self, home: Path | None = None, *, timeout: float = 30.0, endpoint: Endpoint | None = None):
        if home is None and endpoint is None:
            raise ValueError("AsyncControlClient needs the node's home or its endpoint")
        self.home = home
        self.timeout = timeout
        self.endpoint = endpoint
        self._http = httpx.AsyncClient(timeout=timeout, trust_env=False)

    async def __aenter__(self) -> AsyncControlClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    def _endpoint(self) -> Endpoint:
        if self.endpoint is not None:
            return self.endpoint
        assert self.home is not None
        return Endpoint.of_home(self.home)

    def _build(self, method: str, path: str, body: JsonValue, accept: str) -> httpx.Request:
        endpoint = self._endpoint()
        headers = {**endpoint.headers, "Accept": accept}
        content = None
        if body is not None:
            content = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        url = f"http://{endpoint.host}:{endpoint.port}{path}"
        return self._http.build_request(method, url, content=content, headers=headers)

    async def _send(self, request: httpx.Request, *, stream: bool) -> httpx.Response:
        try:
            response = await self._http.send(request, stream=stream)
        except httpx.TimeoutException:
            raise IoATimeout(f"the node did not answer {request.method} {request.url.path} in time") from None
        except httpx.TransportError as exc:
            raise NodeNotRunning(
                f"the node does not answer on {request.url.host}:{request.url.port} ({exc}); "
                "it may have stopped: start it with `ioa node start`"
            ) from None
        if response.status_code >= 400:
            data = await response.aread()
            await response.aclose()
            raise error_from(response.status_code, data)
        return response

    # ------------------------------------------------------------------ raw JSON

    async def call(self, method: str, path: str, json_body: JsonValue = None) -> JsonValue:
        """One request; the JSON answer."""
        response = await self._send(self._build(method, path, json_body, "application/json"), stream=False)
        try:
            value: JsonValue = json.loads(response.content) if response.content else None
        except ValueError:
            raise ControlAPIError(f"the node answered {method} {path} with invalid JSON") from None
        return value

    async def request(self, route: r.Route[Q, R], request: Q) -> R:
        """Call ``route`` with a typed request; its typed reply (UnexpectedReply if the JSON is not one)."""
        path, body = route_target(route, request)
        data = await self.call(route.method, path, body)
        try:
            return route.reply.decode(data)
        except InvalidField as exc:
            raise UnexpectedReply(f"{route.method} {route.path}: the node's answer at {exc}") from None

    # ------------------------------------------------------------------ typed

    async def node_id(self) -> IdReply:
        return await self.request(r.ID, Empty())

    async def peers(self) -> tuple[PeerInfo, ...]:
        return await self.request(r.PEERS, Empty())

    async def net(self) -> NetStatus:
        """``GET /net``: reachability, listen and advertised addresses, bootstrap peers."""
        return await self.request(r.NET, Empty())

    async def connect(self, addr: str) -> ConnectReply:
        return await self.request(r.CONNECT, ConnectRequest(addr))

    async def send(self, peer: str, text: str, data: JsonObject | None = None) -> SendReply:
        return await self.request(r.SEND, SendRequest(peer, text, data))

    async def inbox(self) -> tuple[InboxMessage, ...]:
        return await self.request(r.INBOX, Empty())

    async def node_status(self) -> NodeStatus:
        """``GET /node``: identity, uptime, memory, config summary, faults."""
        return await self.request(r.NODE, Empty())

    async def network(self) -> NetworkView:
        """``GET /network``: connected peers with their latency, routing table, gossip mesh."""
        return await self.request(r.NETWORK, Empty())

    async def ui_code(self) -> UiCode:
        """``POST /ui/code``: a one-time login link for the dashboard (needs the control token)."""
        return await self.request(r.UI_CODE, Empty())

    async def chat_store(self, chat: str | None = None) -> ChatStoreReply:
        """``GET /chats/store``: rows kept aside as undecodable, strangers' chats, pull pacing."""
        return await self.request(r.CHAT_STORE, ChatStoreRequest(chat))

    async def audit(self, chat: str) -> AuditView:
        """``GET /chats/audit``: the offline audit of the node's copy of a chat."""
        return await self.request(r.AUDIT, ChatRef(chat))

    async def round_result(self, chat: str, round_id: str | None = None) -> GoalResult:
        """``GET /goals/result``: an ended round's result as the node saw it."""
        return await self.request(r.ROUND_RESULT, RoundRequest(chat, round_id))

    async def faults(self) -> FaultsReply:
        return await self.request(r.FAULTS, Empty())

    async def budgets(self) -> BudgetsReply:
        return await self.request(r.BUDGETS, Empty())

    async def relay(self) -> RelayStatus:
        return await self.request(r.RELAY, Empty())

    async def relay_connect(self, request: RelayConnectRequest) -> RelayConnectReply:
        return await self.request(r.RELAY_CONNECT, request)

    async def chats(self) -> tuple[ChatInfo, ...]:
        return await self.request(r.CHATS, Empty())

    async def history(self, chat: str) -> HistoryReply:
        return await self.request(r.HISTORY, ChatRef(chat))

    async def export(self, chat: str) -> ExportReply:
        return await self.request(r.EXPORT, ChatRef(chat))

    async def post(self, request: PostRequest) -> ChatMessageView:
        return await self.request(r.POST, request)

    async def create_chat(self, request: CreateChatRequest) -> CreateChatReply:
        return await self.request(r.CREATE_CHAT, request)

    async def sync_chats(self, chat: str | None = None) -> SyncChatsReply:
        return await self.request(r.SYNC_CHATS, SyncChatsRequest(chat))

    async def find(self, request: FindRequest) -> FindReply:
        return await self.request(r.FIND, request)

    async def cards(self) -> CardsReply:
        return await self.request(r.CARDS, Empty())

    async def card(self) -> OwnCard:
        return await self.request(r.CARD, Empty())

    async def update_card(self, update: CardUpdate) -> PublishedCard:
        return await self.request(r.UPDATE_CARD, update)

    async def withdraw_card(self, reason: str = "") -> Withdrawal:
        return await self.request(r.WITHDRAW_CARD, WithdrawRequest(reason))

    async def goals(self) -> tuple[GoalSummary, ...]:
        return await self.request(r.GOALS, Empty())

    async def cancel_goal(self, *, chat: str | None = None, launch: str | None = None) -> CancelGoalReply:
        return await self.request(r.CANCEL_GOAL, CancelGoalRequest(chat, launch))

    async def launch(self, request: LaunchRequest) -> GoalResult:
        """Launch a goal and wait for its result (the client's ``timeout`` must exceed the goal's)."""
        return await self.request(r.LAUNCH_GOAL, request)

    # ------------------------------------------------------------------ goal event streams

    def launch_events(self, request: LaunchRequest, *, resume: int = 3) -> AsyncIterator[StreamItem]:
        """Launch a goal and yield its events as they happen (the last: ``done`` or ``error``), resuming a
        dropped connection at most ``resume`` times after the last cursor read. An async generator: a
        caller that stops early closes it (``aclose``, or ``contextlib.aclosing``)."""
        body = {**request.to_json(), "stream": True}
        return self._resumed(self._build("POST", r.LAUNCH_GOAL.path, body, SSE), Resume(), resume)

    def goal_events(
        self,
        *,
        chat: str | None = None,
        launch: str | None = None,
        round_id: str | None = None,
        after: Cursor | None = None,
        resume: int = 3,
    ) -> AsyncIterator[StreamItem]:
        """The events of a launch of this node or of a goal chat, after ``after`` (default: the start)."""
        query = GoalEventsRequest(chat, launch, round_id, str(after) if after else None)
        path, _ = route_target(r.GOAL_EVENTS, query)
        state = Resume(launch=launch, chat=chat, round_id=round_id, cursor=after)
        return self._resumed(self._build("GET", path, None, SSE), state, resume)

    def chat_events(
        self, chat: str, *, after: Cursor | None = None, resume: int = 3
    ) -> AsyncIterator[ChatStreamItem]:
        """A chat's messages in this node's order, then each new one as it is accepted (``GET
        /chats/events``), after ``after`` (default: from the first). The stream does not end by itself:
        a caller that stops closes it (``aclose``, or ``contextlib.aclosing``). A dropped connection is
        resumed (at most ``resume`` times in a row) after the last cursor read."""
        return self._live(r.CHAT_EVENTS, ChatResume(chat, after), resume)

    def network_events(
        self, *, after: Cursor | None = None, resume: int = 3
    ) -> AsyncIterator[StatusStreamItem[NetworkEvent]]:
        """The network view (``GET /network/events``) now, then again each time it changes; resumed like
        :meth:`chat_events`. The stream does not end by itself."""
        return self._live(r.NETWORK_EVENTS, StatusResume(NetworkEvent, after), resume)

    def node_events(
        self, *, after: Cursor | None = None, resume: int = 3
    ) -> AsyncIterator[StatusStreamItem[NodeEvent]]:
        """This node's status (``GET /node/events``) now, then again each time it changes."""
        return self._live(r.NODE_EVENTS, StatusResume(NodeEvent, after), resume)

    def chats_events(
        self, *, after: Cursor | None = None, resume: int = 3
    ) -> AsyncIterator[StatusStreamItem[ChatsEvent]]:
        """The chats and their rounds (``GET /chats/list/events``) now, then again each time they change."""
        return self._live(r.CHATS_EVENTS, StatusResume(ChatsEvent, after), resume)

    async def _live(self, route: Route[Any, Any], state: LiveState[T], resume: int) -> AsyncIterator[T]:
        attempts = resume
        while True:
            path, _ = route_target(route, state.request())
            response = await self._send(self._build("GET", path, None, SSE), stream=True)
            reader = SseReader()
            dropped: Exception = ControlAPIError(f"the node closed the stream {route.path}")
            try:
                async with response_lines(response) as lines:
                    async for line in lines:
                        raw = reader.feed(line)
                        item = state.saw(raw) if raw is not None else None
                        if item is not None:
                            attempts = resume
                            yield item
            except httpx.TimeoutException:
                raise IoATimeout(f"the node went quiet while streaming {route.path}") from None
            except httpx.TransportError as exc:
                dropped = exc
            if attempts <= 0:
                if isinstance(dropped, ControlAPIError):
                    raise dropped
                raise ControlAPIError(f"the stream {route.path} broke: {dropped}; see the node's log")
            attempts -= 1

    async def _resumed(
        self, request: httpx.Request, state: Resume, attempts: int
    ) -> AsyncIterator[StreamItem]:
        while True:
            response = await self._send(request, stream=True)
            reader = SseReader()
            dropped: Exception = ControlAPIError("the node closed the goal stream before the goal ended")
            try:
                async with response_lines(response) as lines:
                    async for line in lines:
                        item = reader.feed(line)
                        if item is not None and not state.ended:
                            state.saw(item)
                            yield item
                if not state.needs_end:
                    return
            except httpx.TimeoutException:
                raise IoATimeout("the node went quiet while streaming goal events") from None
            except httpx.TransportError as exc:
                dropped = exc
            if attempts <= 0 or not state.resumable:
                raise ControlAPIError(f"the goal stream broke: {dropped}; see the node's log")
            attempts -= 1
            query = urlencode(state.query())
            request = self._build("GET", f"{r.GOAL_EVENTS.path}?{query}", None, SSE)


__all__ = ["AsyncControlClient"]
