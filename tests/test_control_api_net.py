"""The typed control API against real nodes (in-process libp2p hosts on 127.0.0.1, the control API over
real HTTP): every route answers JSON its schema reads and writes back byte for byte, through the async
client (httpx under trio) and the blocking one; a goal's event stream dropped mid-goal resumes after its
last cursor with no event missed or repeated (docs/protocol.md §7.3).
"""

from __future__ import annotations

import http.client
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing, asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from ioa_p2p.api import routes as r
from ioa_p2p.api.chats import ChatMessageEvent, CreateChatRequest, PostRequest
from ioa_p2p.api.codec import ApiObject, Empty, JsonValue
from ioa_p2p.api.discovery import CardUpdate, FindRequest, WithdrawRequest
from ioa_p2p.api.events import DoneEvent, StartEvent, TeamEvent
from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.api.peers import RelayConnectRequest
from ioa_p2p.api.status import ChatsEvent, NetworkEvent, NetworkView, NodeEvent, NodeStatus
from ioa_p2p.api.stream import Cursor, StreamItem
from ioa_p2p.control_client import AsyncControlClient, ControlClient, Endpoint
from ioa_p2p.control_client.aio import response_lines
from ioa_p2p.control_client.chat_stream import ChatStreamItem
from ioa_p2p.errors import ControlAPIError, InvalidField, IoAError
from ioa_p2p.node import Node
from tests.goal_event_shapes import check_shape
from tests.test_goals_net import CALCULATOR, COORDINATOR, open_agents

pytestmark = pytest.mark.slow

#: An agent whose task takes a few seconds (two progress steps): a goal for it runs long enough to drop
#: its stream in the middle.
SLOW = {
    "name": "translator",
    "adapter": "echo",
    "description": "Translates reports into French.",
    "options": {"delay": 3.0, "steps": 3},
}
SLOW_GOAL = "Translate the report into French"


def endpoint(node: Node) -> Endpoint:
    return Endpoint(node.control.port, node.control.token)


@asynccontextmanager
async def agents_and_client(
    tmp_path: Path, agents: list[dict[str, Any]]
) -> AsyncIterator[tuple[list[Node], AsyncControlClient]]:
    """Agents whose cards reached every node, and an async client of the first one's control API."""
    async with (
        open_agents(tmp_path, agents) as nodes,
        AsyncControlClient(endpoint=endpoint(nodes[0])) as client,
    ):
        yield nodes, client


def same_bytes(route: Any, raw: JsonValue) -> None:
    """The reply's JSON, read by the route's schema and written again, is the same bytes."""
    typed = route.reply.decode(raw)
    assert json.dumps(route.reply.encode(typed)) == json.dumps(raw), route.path


async def test_every_route_of_a_real_node_answers_its_schema(tmp_path: Path) -> None:
    with trio.fail_after(120):
        async with agents_and_client(tmp_path, [COORDINATOR, CALCULATOR]) as (
            (coordinator, calculator),
            client,
        ):
            called: set[tuple[str, str]] = set()

            async def check(route: Any, request: ApiObject) -> Any:
                """The typed call, and the raw JSON of the same call read back byte for byte."""
                called.add(route.key)
                typed = await client.request(route, request)
                if route.method == "GET":
                    path = route.path + (f"?chat={request.chat}" if hasattr(request, "chat") else "")
                    same_bytes(route, await client.call("GET", path))
                return typed

            for route in (
                r.ID,
                r.PEERS,
                r.NET,
                r.INBOX,
                r.FAULTS,
                r.BUDGETS,
                r.RELAY,
                r.CHATS,
                r.CARDS,
                r.CARD,
                r.NODE,
            ):
                await check(route, Empty())
            network = await check(r.NETWORK, Empty())
            assert [p.peer_id for p in network.peers] == [str(calculator.peer_id)]
            assert network.peers[0].name == "calculator" and network.peers[0].latency_ms is not None
            assert [c["kind"] for c in network.peers[0].connections] == ["direct"]
            code = await check(r.UI_CODE, Empty())
            assert code.url.endswith(f"/ui/#code={code.code}") and code.expires_in > 0
            calc = str(calculator.peer_id)
            assert (await check(r.CONNECT, r.CONNECT.request(calculator.listen_addrs()[0]))).peer_id == calc
            sent = await check(r.SEND, r.SEND.request(calc, "hello", {"n": 1}))
            assert sent.acked and sent.hash in {m.hash for m in calculator_inbox(calculator)}
            found = await check(r.FIND, FindRequest("exact arithmetic", 2))
            assert found.results[0].name == "calculator" and found.k == 2
            updated = await check(r.UPDATE_CARD, CardUpdate(skills=("planning",)))
            assert "planning" in updated.skills and (await client.card()).version == updated.version
            assert updated.stamp_bits >= 16
            gone = await check(r.WITHDRAW_CARD, WithdrawRequest("moving"))
            assert gone.withdrawn and gone.version > updated.version and gone.reason == "moving"
            own = await client.card()
            assert own.withdrawn is not None and own.withdrawn.version == gone.version
            back = await check(r.UPDATE_CARD, CardUpdate(skills=("planning", "notes")))
            assert back.version > gone.version and (await client.card()).withdrawn is None
            made = await check(r.CREATE_CHAT, CreateChatRequest((calc,), "notes"))
            assert made.accepted == (calc,)
            posted = await check(r.POST, PostRequest(made.chat_id[:12], text="hi"))
            assert posted.kind == "text" and posted.content == {"text": "hi"}
            await check(r.SYNC_CHATS, r.SYNC_CHATS.request(made.chat_id))
            history = await check(r.HISTORY, r.HISTORY.request(made.chat_id[:12]))
            assert history.messages[-1].hash == posted.hash and history.chat.chat_id == made.chat_id
            exported = await check(r.EXPORT, r.EXPORT.request(made.chat_id))
            assert exported.messages == len(history.messages)
            audited = await check(r.AUDIT, r.AUDIT.request(made.chat_id))
            assert audited.valid and audited.messages == len(history.messages) and not audited.findings
            store = await check(r.CHAT_STORE, r.CHAT_STORE.request(made.chat_id))
            assert store.quarantined == () and store.partners >= 1  # the calculator: it made a chat with it
            again = await client.chat_store(made.chat_id)  # the same reply, but for the live pull pacing
            assert replace(again, pulls=store.pulls) == store  # (a pull may start between the two reads)
            called.add(r.CHAT_EVENTS.key)
            streamed = await chat_events(coordinator, made.chat_id, len(history.messages))
            assert [e["message"]["hash"] for e in streamed] == [m.hash for m in history.messages]
            assert {e["signature"] for e in streamed} == {"valid"}
            typed = await typed_chat_events(client, made.chat_id, len(history.messages))
            assert [i.event.message for i in typed] == list(history.messages)
            assert [i.cursor.seq for i in typed if i.cursor] == list(range(1, len(typed) + 1))
            result = await check(r.LAUNCH_GOAL, LaunchRequest("Calculate 6 * 7", timeout=30))
            assert isinstance(result, GoalResult) and result.answer == "The answer is 42."
            same_bytes(r.LAUNCH_GOAL, await client.call("POST", "/launch_goal", {"goal": "Calculate 2 + 2"}))
            again = await check(r.ROUND_RESULT, r.ROUND_RESULT.request(result.chat_id))
            assert again.answer == result.answer and again.round_id == result.round_id
            goals = await check(r.GOALS, Empty())
            assert [g.status for g in goals if g.round_id == result.round_id] == ["concluded"]
            called.add(r.CANCEL_GOAL.key)
            with pytest.raises(ControlAPIError) as cancel:  # nothing of this node runs there
                await client.cancel_goal(chat=result.chat_id)
            assert cancel.value.status == 400 and cancel.value.error_type == "UsageError"
            called.add(r.RELAY_CONNECT.key)
            circuit = f"{calculator.listen_addrs()[0]}/p2p-circuit/p2p/{coordinator.peer_id}"
            with pytest.raises(IoAError):  # the calculator is no relay
                await client.relay_connect(RelayConnectRequest(addr=circuit))
            called.add(r.GOAL_EVENTS.key)
            items = [i async for i in client.goal_events(chat=result.chat_id, round_id=result.round_id)]
            assert isinstance(items[0].event, TeamEvent) and isinstance(items[1].event, StartEvent)
            assert [i.cursor.seq for i in items if i.cursor] == list(range(1, len(items) + 1))
            for item in items:
                check_shape(item.event.to_json())
            for route, kind, schema in (
                (r.NETWORK_EVENTS, "network", NetworkView),
                (r.NODE_EVENTS, "node", NodeStatus),
            ):
                called.add(route.key)
                cursor, event = await first_status_event(coordinator, route.path)
                assert event["event"] == kind and Cursor.parse(cursor).seq >= 1
                schema.from_json(event["view"])
            called.add(r.CHATS_EVENTS.key)
            cursor, event = await first_status_event(coordinator, r.CHATS_EVENTS.path)
            listed = ChatsEvent.from_json(event)
            assert made.chat_id in {c.chat_id for c in listed.chats}
            assert result.round_id in {g.round_id for g in listed.goals}
            # the typed client streams: the current view first, with its cursor
            for stream, kind in (
                (client.network_events(), NetworkEvent),
                (client.node_events(), NodeEvent),
                (client.chats_events(), ChatsEvent),
            ):
                async with aclosing(stream):
                    first = await anext(stream)
                assert isinstance(first.event, kind) and first.cursor is not None
            assert called == {route.key for route in r.ROUTES}
            assert set(coordinator.control.routes) == called  # the node serves exactly the table


async def first_status_event(node: Node, path: str) -> tuple[str, Any]:
    """The cursor and JSON of the first event of a status stream (which stays open)."""
    url = f"http://127.0.0.1:{node.control.port}{path}"
    headers = {"Authorization": f"Bearer {node.control.token}", "Accept": "text/event-stream"}
    ident = ""
    async with httpx.AsyncClient(timeout=30) as http, http.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200
        async with response_lines(response) as lines:
            async for line in lines:
                if line.startswith("id: "):
                    ident = line[4:]
                if line.startswith("data: "):
                    return ident, json.loads(line[6:])
    raise AssertionError(f"{path} ended without an event")


async def chat_events(node: Node, chat: str, count: int) -> list[Any]:
    """The first ``count`` events of ``GET /chats/events`` (a stream that stays open)."""
    url = f"http://127.0.0.1:{node.control.port}/chats/events?chat={chat}"
    headers = {"Authorization": f"Bearer {node.control.token}", "Accept": "text/event-stream"}
    events: list[Any] = []
    async with httpx.AsyncClient(timeout=30) as http, http.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200
        async with response_lines(response) as lines:
            async for line in lines:
                if line.startswith("data: "):
                    events.append(json.loads(line[6:]))
                if len(events) == count:
                    break
    return events


async def typed_chat_events(
    client: AsyncControlClient, chat: str, count: int, after: Cursor | None = None
) -> list[ChatStreamItem]:
    """The first ``count`` messages of a chat through the async client's typed stream."""
    items: list[ChatStreamItem] = []
    stream = client.chat_events(chat, after=after)
    async with aclosing(stream):
        async for item in stream:
            assert isinstance(item.event, ChatMessageEvent) and item.event.signature == "valid"
            items.append(item)
            if len(items) == count:
                break
    return items


def calculator_inbox(node: Node) -> list[Any]:
    assert node.services.messaging is not None
    from ioa_p2p.node.messaging.routes import inbox_message

    return [inbox_message(env) for env in node.services.messaging.inbox]


async def test_a_wrong_field_is_a_400_naming_it_and_the_client_raises_it_typed(tmp_path: Path) -> None:
    with trio.fail_after(60):
        async with agents_and_client(tmp_path, [COORDINATOR]) as (_, client):
            for method, path, body, field in (
                ("POST", "/find", {"text": "x", "k": 0}, "k"),
                ("POST", "/find", {"text": "x", "colour": "red"}, "body"),
                ("POST", "/launch_goal", {"goal": "x", "max_turns": 1001}, "max_turns"),
                ("POST", "/launch_goal", {"goal": "x", "team": [3]}, "team[0]"),
                ("POST", "/chats/create", {"members": ["nobody"], "topic": "t"}, "members[0]"),
                ("GET", "/goal_events?launch=l&after=nope", None, "after"),
                ("GET", "/peers?verbose=1", None, "body"),
                ("POST", "/send?peer=x", {"peer": "x", "text": "t"}, "query"),
            ):
                with pytest.raises(InvalidField) as caught:
                    await client.call(method, path, body)
                assert caught.value.path == field, (path, body, caught.value)


def collect(items: Iterator[StreamItem], until: type) -> list[StreamItem]:
    out = []
    for item in items:
        out.append(item)
        if isinstance(item.event, until):
            break
    return out


def wire(items: list[StreamItem]) -> list[tuple[str | None, str]]:
    """What a client read: each event's cursor and JSON bytes (heartbeats left out)."""
    return [(str(i.cursor) if i.cursor else None, json.dumps(i.event.to_json())) for i in items
            if i.event.event != "heartbeat"]  # fmt: skip


# Dropping the stream abandons httpx's own nested async generators mid-read; trio reports them as
# ResourceWarnings of httpx's modules (harmless: the response and its connection are closed).
@pytest.mark.filterwarnings("ignore::ResourceWarning")
async def test_a_goal_stream_dropped_mid_goal_resumes_after_its_cursor(tmp_path: Path) -> None:
    """The async client reads a launch's events up to its team, drops the connection while the slow task
    runs, and resumes after its last cursor: with what it read first, exactly the launch's whole log."""
    with trio.fail_after(120):
        async with agents_and_client(tmp_path, [COORDINATOR, SLOW]) as (_, client):
            first: list[StreamItem] = []
            stream = client.launch_events(LaunchRequest(SLOW_GOAL, team=("translator",), timeout=60))
            async for item in stream:
                first.append(item)
                if isinstance(item.event, StartEvent):
                    break
            await stream.aclose()  # the connection closes here, mid-goal
            launch = next(i.event.launch_id for i in first if isinstance(i.event, TeamEvent))
            last = first[-1].cursor
            assert last is not None
            running = [g for g in await client.goals() if g.status == "running"]
            assert running, "the goal ended before the drop: it must still be running"
            rest = [i async for i in client.goal_events(launch=launch, after=last)]
            assert isinstance(rest[-1].event, DoneEvent) and rest[-1].event.result.ok
            assert any(i.event.event == "progress" for i in rest)  # what happened while away
            whole = [i async for i in client.goal_events(launch=launch)]
            assert wire(first) + wire(rest) == wire(whole)
            seqs = [i.cursor.seq for i in whole if i.cursor]
            assert seqs == list(range(1, len(seqs) + 1))


class DroppingClient(ControlClient):
    """A blocking client whose first goal stream breaks after ``keep`` lines (its connection closed
    under it, as when a network path drops): the client must resume by itself."""

    def __init__(self, *args: Any, keep: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.keep = keep
        self.dropped = 0

    def _lines(
        self, method: str, path: str, body: JsonValue, timeout: float | None, accept: str
    ) -> Iterator[bytes]:
        lines = super()._lines(method, path, body, timeout, accept)
        if self.dropped:
            return lines
        self.dropped += 1
        return self._cut(lines)

    def _cut(self, lines: Iterator[bytes]) -> Iterator[bytes]:
        for n, line in enumerate(lines):
            if n == self.keep:
                lines.close()  # type: ignore[attr-defined]  # closes the HTTP connection
                raise http.client.IncompleteRead(b"")
            yield line


async def test_the_blocking_client_resumes_a_broken_stream_by_itself(tmp_path: Path) -> None:
    with trio.fail_after(120):
        async with open_agents(tmp_path, [COORDINATOR, SLOW]) as (coordinator, _):
            client = DroppingClient(endpoint=endpoint(coordinator), timeout=60, keep=9)
            request = LaunchRequest(SLOW_GOAL, team=("translator",), timeout=60)

            def run() -> list[StreamItem]:
                return collect(client.launch_events(request), DoneEvent)

            items = await trio.to_thread.run_sync(run)
            assert client.dropped == 1 and isinstance(items[-1].event, DoneEvent)
            launch = next(i.event.launch_id for i in items if isinstance(i.event, TeamEvent))

            def whole() -> list[StreamItem]:
                return collect(client.goal_events(launch=launch), DoneEvent)

            assert wire(items) == wire(await trio.to_thread.run_sync(whole))


async def test_the_blocking_client_follows_a_chat_live_and_resumes_a_broken_stream(tmp_path: Path) -> None:
    """``ControlClient.chat_events``: the chat's messages, then one posted while the client reads (live),
    across a connection broken after the first message (resumed after its cursor: none missed or
    repeated)."""
    with trio.fail_after(120):
        async with agents_and_client(tmp_path, [COORDINATOR, CALCULATOR]) as ((coordinator, calc), client):
            made = await client.create_chat(CreateChatRequest((str(calc.peer_id),), "notes"))
            await client.post(PostRequest(made.chat_id, text="first"))
            held = (await client.history(made.chat_id)).messages
            blocking = DroppingClient(endpoint=endpoint(coordinator), timeout=30, keep=3)  # after message 1
            seen: list[ChatStreamItem] = []
            read_all = trio.Event()

            def follow() -> None:
                for item in blocking.chat_events(made.chat_id):
                    seen.append(item)
                    if len(seen) == len(held):
                        trio.from_thread.run_sync(read_all.set)
                    if len(seen) == len(held) + 1:
                        return

            async with trio.open_nursery() as nursery:
                nursery.start_soon(trio.to_thread.run_sync, follow)
                await read_all.wait()
                live = await client.post(PostRequest(made.chat_id, text="live"))
            assert blocking.dropped == 1
            assert [i.event.message for i in seen] == [*held, live]  # type: ignore[union-attr]
            assert [i.event.index for i in seen] == list(range(1, len(held) + 2))  # type: ignore[union-attr]
