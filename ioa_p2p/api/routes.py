"""Every route of the control API (pure): method, path, request schema, reply schema, streaming.

:data:`ROUTES` is the one list: the node registers a handler for each (in each service's ``routes``
module, through :meth:`ControlAPI.serve <ioa_p2p.node.control.server.ControlAPI.serve>`), the clients
(:mod:`ioa_p2p.control_client`) call them by these objects, and a test checks docs/protocol.md §7
against them. A request is read from the JSON body of a ``POST`` and from the query string of a ``GET``;
a reply is one JSON value, or (``streams``) a stream of goal events (:mod:`ioa_p2p.api.stream`).
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Generic, Literal, Protocol, TypeVar, cast

from ioa_p2p.api import chats as c
from ioa_p2p.api import discovery as d
from ioa_p2p.api import goals as g
from ioa_p2p.api import peers as p
from ioa_p2p.api import status as s
from ioa_p2p.api.codec import ApiObject, Empty, JsonValue, decode, encode, from_query
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.errors import InvalidField

Q = TypeVar("Q", bound=ApiObject)
R = TypeVar("R")
O = TypeVar("O", bound=ApiObject)  # noqa: E741 - the schema type of a reply


@dataclass(frozen=True, slots=True)
class ReplyType(Generic[R]):
    """How a route's reply is read and written: one schema object (``many`` false) or an array of them."""

    schema: type[ApiObject]
    many: bool = False

    @property
    def hint(self) -> object:
        return types.GenericAlias(tuple, (self.schema, ...)) if self.many else self.schema

    def decode(self, data: JsonValue) -> R:
        return cast(R, decode(self.hint, data, "reply"))

    def encode(self, value: R) -> JsonValue:
        return encode(self.hint, value)


def one(schema: type[O]) -> ReplyType[O]:
    return ReplyType(schema)


def many(schema: type[O]) -> ReplyType[tuple[O, ...]]:
    return ReplyType(schema, many=True)


Streams = Literal["no", "optional", "always"]


@dataclass(frozen=True, slots=True)
class Route(Generic[Q, R]):
    """A route: ``streams`` is ``"optional"`` when the body's ``stream_flag`` asks for a stream of goal
    events instead of the reply, ``"always"`` when the route only streams."""

    method: Literal["GET", "POST"]
    path: str
    request: type[Q]
    reply: ReplyType[R]
    summary: str
    streams: Streams = "no"
    stream_flag: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.method, self.path)

    @property
    def reply_hint(self) -> object:
        return self.reply.hint

    def read_request(self, body: JsonValue, query: dict[str, str]) -> tuple[Q, bool]:
        """The typed request of an HTTP request, and whether its body asked for a stream."""
        stream = self.streams == "always"
        if self.method == "POST":
            if query:
                raise InvalidField("query", f"{self.method} {self.path} takes its fields in a JSON body")
            if body is None:
                body = {}
            if self.stream_flag is not None and isinstance(body, dict) and self.stream_flag in body:
                body = dict(body)
                flag = body.pop(self.stream_flag)
                if not isinstance(flag, bool):
                    raise InvalidField(self.stream_flag, "must be true or false")
                stream = flag
            return self.request.from_json(body), stream
        return from_query(self.request, query, body), stream


class RouteInfo(Protocol):
    """What every route has, whatever its request and reply types (the table, the docs check)."""

    @property
    def method(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def request(self) -> type[ApiObject]: ...
    @property
    def reply_hint(self) -> object: ...
    @property
    def summary(self) -> str: ...
    @property
    def streams(self) -> str: ...
    @property
    def stream_flag(self) -> str | None: ...


# --------------------------------------------------------------------------- the routes

ID = Route("GET", "/id", Empty, one(p.IdReply), "this node's peer ID and listen addresses")
PEERS = Route("GET", "/peers", Empty, many(p.PeerInfo), "connected peers and their connections, by peer ID")
NET = Route("GET", "/net", Empty, one(p.NetStatus), "reachability, addresses, bootstrap peers")
CONNECT = Route("POST", "/connect", p.ConnectRequest, one(p.ConnectReply), "dial a peer's multiaddr")
SEND = Route("POST", "/send", p.SendRequest, one(p.SendReply), "a signed direct message, acknowledged")
INBOX = Route("GET", "/inbox", Empty, many(p.InboxMessage), "direct messages received")
FAULTS = Route("GET", "/faults", Empty, one(p.FaultsReply), "what the task boundaries stopped")
BUDGETS = Route("GET", "/budgets", Empty, one(p.BudgetsReply), "resource budgets and the limits")
RELAY = Route("GET", "/relay", Empty, one(p.RelayStatus), "relay state: reservations, circuits")
RELAY_CONNECT = Route(
    "POST", "/relay/connect", p.RelayConnectRequest, one(p.RelayConnectReply), "reach a peer via a relay"
)
NODE = Route("GET", "/node", Empty, one(s.NodeStatus), "this node: identity, uptime, memory, config, faults")
NETWORK = Route(
    "GET", "/network", Empty, one(s.NetworkView), "peers with latency, routing table, gossip mesh"
)
NETWORK_EVENTS = Route(
    "GET",
    "/network/events",
    s.StatusEventsRequest,
    one(Empty),  # never answered: the route only streams
    "the network view, then again each time it changes; resumable",
    streams="always",
)
NODE_EVENTS = Route(
    "GET",
    "/node/events",
    s.StatusEventsRequest,
    one(Empty),  # never answered: the route only streams
    "this node's status, then again each time it changes; resumable",
    streams="always",
)
CHATS_EVENTS = Route(
    "GET",
    "/chats/list/events",
    s.StatusEventsRequest,
    one(Empty),  # never answered: the route only streams
    "the chats and their rounds, then again each time they change; resumable",
    streams="always",
)
UI_CODE = Route("POST", "/ui/code", Empty, one(s.UiCode), "a one-time code that opens a dashboard session")
CHATS = Route("GET", "/chats", Empty, many(c.ChatInfo), "the chats this node takes part in")
HISTORY = Route("GET", "/chats/history", c.ChatRef, one(c.HistoryReply), "a chat's messages, causal order")
EXPORT = Route("GET", "/chats/export", c.ChatRef, one(c.ExportReply), "a chat's history file")
POST = Route("POST", "/chats/post", c.PostRequest, one(c.ChatMessageView), "post a message to a chat")
CREATE_CHAT = Route(
    "POST", "/chats/create", c.CreateChatRequest, one(c.CreateChatReply), "create a chat, invite members"
)
SYNC_CHATS = Route("POST", "/chats/sync", c.SyncChatsRequest, one(c.SyncChatsReply), "pull missed messages")
CHAT_EVENTS = Route(
    "GET",
    "/chats/events",
    c.ChatEventsRequest,
    one(Empty),  # never answered: the route only streams
    "a chat's messages as they arrive, past ones first; resumable",
    streams="always",
)
AUDIT = Route("GET", "/chats/audit", c.ChatRef, one(c.AuditView), "audit this node's copy of a chat")
CHAT_STORE = Route(
    "GET",
    "/chats/store",
    c.ChatStoreRequest,
    one(c.ChatStoreReply),
    "rows kept aside, strangers' chats, pulls",
)
FIND = Route("POST", "/find", d.FindRequest, one(d.FindReply), "agents whose cards best match a text")
CARDS = Route("GET", "/cards", Empty, one(d.CardsReply), "the live cards this node holds")
CARD = Route("GET", "/card", Empty, one(d.OwnCard), "this node's card and the discovery status")
UPDATE_CARD = Route("POST", "/card", d.CardUpdate, one(d.PublishedCard), "change this node's card")
WITHDRAW_CARD = Route(
    "POST", "/card/withdraw", d.WithdrawRequest, one(d.Withdrawal), "withdraw this node's card everywhere"
)
LAUNCH_GOAL = Route(
    "POST",
    "/launch_goal",
    LaunchRequest,
    one(g.GoalResult),
    "form a team for a goal and work it out; the result, or its events as they happen",
    streams="optional",
    stream_flag="stream",
)
GOAL_EVENTS = Route(
    "GET",
    "/goal_events",
    g.GoalEventsRequest,
    one(Empty),  # never answered: the route only streams
    "the events of a launch or of a goal chat, past ones first; resumable",
    streams="always",
)
GOALS = Route("GET", "/goals", Empty, many(g.GoalSummary), "every round this node has seen")
ROUND_RESULT = Route(
    "GET", "/goals/result", g.RoundRequest, one(g.GoalResult), "a round's result, as seen here"
)
CANCEL_GOAL = Route(
    "POST", "/cancel_goal", g.CancelGoalRequest, one(g.CancelGoalReply), "cancel a goal this node launched"
)

ROUTES: tuple[RouteInfo, ...] = (
    ID, PEERS, NET, CONNECT, SEND, INBOX, FAULTS, BUDGETS, RELAY, RELAY_CONNECT, NODE, NETWORK,
    NODE_EVENTS, NETWORK_EVENTS, CHATS_EVENTS, UI_CODE,
    CHATS, HISTORY, EXPORT, POST, CREATE_CHAT, SYNC_CHATS, CHAT_EVENTS, AUDIT, CHAT_STORE,
    FIND, CARDS, CARD, UPDATE_CARD, WITHDRAW_CARD,
    LAUNCH_GOAL, GOAL_EVENTS, GOALS, ROUND_RESULT, CANCEL_GOAL,
)  # fmt: skip


__all__ = [
    "AUDIT",
    "BUDGETS",
    "CANCEL_GOAL",
    "CARD",
    "CARDS",
    "CHATS",
    "CHATS_EVENTS",
    "CHAT_STORE",
    "CHAT_EVENTS",
    "CONNECT",
    "CREATE_CHAT",
    "EXPORT",
    "FAULTS",
    "FIND",
    "GOALS",
    "GOAL_EVENTS",
    "HISTORY",
    "ID",
    "INBOX",
    "LAUNCH_GOAL",
    "NET",
    "NETWORK",
    "NETWORK_EVENTS",
    "NODE",
    "NODE_EVENTS",
    "PEERS",
    "POST",
    "RELAY",
    "RELAY_CONNECT",
    "ROUND_RESULT",
    "ROUTES",
    "SEND",
    "SYNC_CHATS",
    "UI_CODE",
    "UPDATE_CARD",
    "WITHDRAW_CARD",
    "ReplyType",
    "Route",
    "RouteInfo",
    "many",
    "one",
]
