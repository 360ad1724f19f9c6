"""The gateways against one real local network (tests/gateway_net.py): a2a-sdk's client in front of the
A2A gateway, the mcp package's client over stdio and over streamable HTTP in front of the MCP server."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import mcp
import pytest
import trio
from a2a.client import Client, ClientConfig, ClientFactory
from a2a.client.card_resolver import A2ACardResolver
from a2a.client.errors import A2AClientError
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from a2a.utils.signing import create_signature_verifier
from cryptography.hazmat.primitives.asymmetric import ed25519
from google.protobuf.json_format import MessageToDict

from ioa_p2p.control_client import ControlClient
from ioa_p2p.control_client.aio import response_lines
from ioa_p2p.gateways.a2a.card import EXTENSION, verify_agent_card
from ioa_p2p.identity import PeerId

from .gateway_net import GatewayNet, clean_env, open_gateway_net

pytestmark = pytest.mark.slow

DONE = TaskState.TASK_STATE_COMPLETED
CANCELED = TaskState.TASK_STATE_CANCELED
SLOW_GOAL = "Repeat the word hello"  # the slow echo node: 8 s in 8 progress steps


@pytest.fixture(scope="module")
def net(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayNet]:
    with open_gateway_net(tmp_path_factory.mktemp(f"gw{os.getpid()}")) as running:
        yield running


# --------------------------------------------------------------------------- A2A helpers


async def a2a_client(net: GatewayNet, http: httpx.AsyncClient, *, streaming: bool = True) -> Client:
    card = await A2ACardResolver(http, net.a2a_url).get_agent_card()
    return ClientFactory(ClientConfig(streaming=streaming, httpx_client=http)).create(card)


def http_client(token: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60.0, trust_env=False)


def ask(
    text: str, skill: str = "team_goal", context: str = "", task: str = "", **options: Any
) -> SendMessageRequest:
    message = Message(message_id=os.urandom(8).hex(), role=Role.ROLE_USER, parts=[Part(text=text)])
    message.context_id, message.task_id = context, task
    message.metadata.update({"skill": skill, **options})
    return SendMessageRequest(message=message)


async def only_reply(client: Client, request: SendMessageRequest) -> StreamResponse:
    """The one reply of a non-streaming client's ``send_message``, read to the end of its generators (one
    left half-way is garbage collected with a ResourceWarning, and so is each generator under it)."""
    replies = [reply async for reply in client.send_message(request)]
    assert len(replies) == 1, replies
    return replies[0]


async def drop_stream(events: AsyncIterator[StreamResponse], http: httpx.AsyncClient) -> None:
    """Drop a task's event stream as a client that goes away does: its connection closes. The SDK's
    generators then end on the closed connection (closing the outer one alone would leave those under
    it, the SDK's and httpx's, to the garbage collector, each a ResourceWarning)."""
    await http.aclose()
    with contextlib.suppress(Exception):  # whatever the SDK makes of the closed connection
        async for _ in events:
            pass


async def updates(client: Client, task_id: str) -> int:
    return int((await client.get_task(GetTaskRequest(id=task_id))).metadata["updates"])


def kind(response: StreamResponse) -> str:
    return response.WhichOneof("payload") or ""


def update_id(response: StreamResponse) -> str:
    return response.status_update.status.message.message_id


def result_data(task: Task) -> dict[str, Any]:
    artifact = next(a for a in task.artifacts if a.artifact_id == "result")
    data: dict[str, Any] = MessageToDict(artifact.parts[1].data)
    assert artifact.parts[0].text == data["answer"]
    return data


async def stream_until(events: AsyncIterator[StreamResponse], stop: str | None) -> list[StreamResponse]:
    """Read a task's stream to its end, or until a status update of event kind ``stop``."""
    seen = []
    async for response in events:
        seen.append(response)
        if stop and kind(response) == "status_update" and response.status_update.metadata["event"] == stop:
            break
    return seen


# --------------------------------------------------------------------------- A2A


async def test_the_agent_card_is_signed_by_the_node_and_verifies_from_the_peer_id_alone(
    net: GatewayNet,
) -> None:
    def key_of(kid: str | None, jku: str | None) -> ed25519.Ed25519PublicKey:
        assert kid is not None and jku is None
        return ed25519.Ed25519PublicKey.from_public_bytes(PeerId.from_string(kid).public_key)

    with trio.fail_after(30):
        async with httpx.AsyncClient(timeout=30.0, trust_env=False) as http:  # the card needs no token
            verifier = create_signature_verifier(key_of, ["EdDSA"])
            card = await A2ACardResolver(http, net.a2a_url).get_agent_card(signature_verifier=verifier)
            raw = (await http.get(net.a2a_url + ".well-known/agent-card.json")).json()
    assert card.name == "front" and [s.id for s in card.skills] == ["run_task", "team_goal"]
    assert card.capabilities.streaming and card.supported_interfaces[0].url == net.a2a_url
    assert "bearer" in card.security_schemes
    extension = next(e for e in card.capabilities.extensions if e.uri == EXTENSION)
    assert extension.params["peer_id"] == net.peers["front"]
    assert str(verify_agent_card(raw, net.peers["front"])) == net.peers["front"]  # docs/protocol.md §11
    tampered = {**raw, "description": raw["description"] + " (and more)"}
    with pytest.raises(Exception, match="does not verify"):
        verify_agent_card(tampered)
    with pytest.raises(Exception, match=f"not by {net.peers['coder']}"):
        verify_agent_card(raw, net.peers["coder"])


async def test_a_node_with_a2a_enabled_serves_its_own_signed_card_from_a_child_gateway(
    net: GatewayNet,
) -> None:
    home = net.homes["slow"]
    with trio.fail_after(60):
        while not (home / "a2a.json").exists():  # noqa: ASYNC110 - another process's file
            await trio.sleep(0.2)
        info = json.loads((home / "a2a.json").read_text())
        async with httpx.AsyncClient(timeout=30.0, trust_env=False) as http:
            raw = (await http.get(info["card"])).json()
            refused = await http.post(info["url"], json={"jsonrpc": "2.0", "id": 1, "method": "GetTask"})
    node_pid = json.loads((home / "node.json").read_text())["pid"]
    stat = await trio.Path(f"/proc/{info['pid']}/stat").read_text()
    parent = int(stat.rsplit(")", 1)[1].split()[1])
    assert parent == node_pid  # the node started it (and stops it)
    assert str(verify_agent_card(raw, net.peers["slow"])) == net.peers["slow"] and raw["name"] == "slow"
    assert refused.status_code == 401 and (home / "a2a.token").stat().st_mode & 0o777 == 0o600


async def test_a_streamed_team_goal_gives_every_event_then_the_exact_audited_answer(net: GatewayNet) -> None:
    with trio.fail_after(90):
        async with http_client(net.a2a_token) as http:
            client = await a2a_client(net, http)
            seen = await stream_until(client.send_message(ask("print(6 * 7)  # Python")), None)
            task = await client.get_task(GetTaskRequest(id=seen[0].task.id))
            listed = await client.list_tasks(
                ListTasksRequest(context_id=task.context_id, include_artifacts=True)
            )
    assert kind(seen[0]) == "task" and seen[0].task.status.state == TaskState.TASK_STATE_SUBMITTED
    updates = [r.status_update for r in seen if kind(r) == "status_update"]
    assert [u.status.state for u in updates[:-1]] == [TaskState.TASK_STATE_WORKING] * (len(updates) - 1)
    assert updates[-1].status.state == DONE and kind(seen[-2]) == "artifact_update"
    data = result_data(task)
    assert data["answer"] == "The answer is 42." and data["audit"]["valid"] is True
    assert data["steps"][0]["who"] == "coder" and data["chat_id"] == task.metadata["chat_id"]
    # every event of the launch, as the node logged it, is one status update, in order, none twice
    launch = task.metadata["launch_id"]
    items = await trio.to_thread.run_sync(lambda: list(ControlClient(net.front).goal_events(launch=launch)))
    logged = [i.event.event for i in items if i.cursor is not None and i.event.event not in ("done", "error")]
    assert [u.metadata["event"] for u in updates[:-1]] == logged
    numbers = [*range(1, len(updates)), len(updates) + 1]  # the artifact is update n - 1 of n
    assert [u.status.message.message_id for u in updates] == [f"{task.id}.{n}" for n in numbers]
    assert [m.message_id for m in task.history[1:]] == [u.status.message.message_id for u in updates]
    assert task.status.state == DONE and listed.tasks[0].id == task.id and listed.tasks[0].artifacts


async def test_cancel_sends_a_signed_cancel_and_ends_the_task_canceled(net: GatewayNet) -> None:
    with trio.fail_after(60):
        async with http_client(net.a2a_token) as http:
            client = await a2a_client(net, http)
            events = client.send_message(ask(SLOW_GOAL))
            seen = await stream_until(events, "progress")  # the slow node is working on its task
            cancelled = await client.cancel_task(CancelTaskRequest(id=seen[0].task.id))
            rest = await stream_until(events, None)  # the same stream ends with the cancel
            with pytest.raises(TaskNotCancelableError):
                await client.cancel_task(CancelTaskRequest(id=seen[0].task.id))
    assert cancelled.status.state == CANCELED and rest[-1].status_update.status.state == CANCELED
    chat = cancelled.metadata["chat_id"]
    history = await trio.to_thread.run_sync(ControlClient(net.homes["slow"]).history, chat)  # a member's copy
    assert any(m.kind == "conv.cancel" and m.author == net.peers["front"] for m in history.messages)


async def test_a_stream_stays_alive_for_a_client_with_a_short_read_timeout(net: GatewayNet) -> None:
    """Keep-alive comments come more often than the 5 s read timeout of a2a-sdk's default client."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
            "params": MessageToDict(ask(SLOW_GOAL))}  # fmt: skip
    headers = {"A2A-Version": "1.0", "Accept": "text/event-stream"}
    pings, task_id = 0, ""
    with trio.fail_after(60):
        async with http_client(net.a2a_token) as http:
            http.timeout = httpx.Timeout(5.0)  # what httpx.AsyncClient() gives the SDK's client by default
            async with (
                http.stream("POST", net.a2a_url, json=body, headers=headers) as response,
                response_lines(response) as lines,
            ):
                async for line in lines:
                    if line.startswith("data:") and not task_id:
                        task_id = json.loads(line[5:])["result"]["task"]["id"]
                    pings += line.startswith(": ping")
                    if pings == 1:
                        break
            client = await a2a_client(net, http)
            cancelled = await client.cancel_task(CancelTaskRequest(id=task_id))
    assert pings == 1 and cancelled.status.state == CANCELED


async def test_a_client_that_resubscribes_after_a_drop_misses_no_event_and_sees_none_twice(
    net: GatewayNet,
) -> None:
    with trio.fail_after(90):
        async with http_client(net.a2a_token) as gone:
            events = (await a2a_client(net, gone)).send_message(ask(SLOW_GOAL))
            before = await stream_until(events, "progress")
            await drop_stream(events, gone)  # the connection drops; the goal goes on without this client
        async with http_client(net.a2a_token) as http:
            client = await a2a_client(net, http)
            task_id = before[0].task.id
            while await updates(client, task_id) < len(before) + 2:  # noqa: ASYNC110 - another process's state
                await trio.sleep(0.2)  # events happen while nobody listens
            after = await stream_until(client.subscribe(SubscribeToTaskRequest(id=task_id)), None)
            final = await client.get_task(GetTaskRequest(id=task_id))
    assert kind(after[0]) == "task"  # the snapshot first, then the live updates
    seen = [update_id(r) for r in before if kind(r) == "status_update"]
    missed = [m.message_id for m in after[0].task.history[1:]]
    missed = missed[missed.index(seen[-1]) + 1 :]
    live = [update_id(r) for r in after[1:] if kind(r) == "status_update"]
    assert missed and live  # some events came while disconnected, others after
    everything = seen + missed + live
    assert len(everything) == len(set(everything))
    assert everything == [m.message_id for m in final.history[1:]]
    assert (
        final.status.state == DONE
        and result_data(final)["answer"] == "The answer is echo: Repeat the word hello."
    )


async def test_a_follow_up_in_the_same_context_continues_the_chat(net: GatewayNet) -> None:
    with trio.fail_after(60):
        async with http_client(net.a2a_token) as http:
            client = await a2a_client(net, http, streaming=False)
            first = await only_reply(client, ask("Calculate 17 * 23", skill="run_task"))
            again = ask("Calculate 2 ** 5", skill="run_task", context=first.task.context_id)
            second = await only_reply(client, again)
            with pytest.raises(UnsupportedOperationError, match="terminal state"):
                await only_reply(client, ask("more", task=first.task.id))
    one, two = result_data(first.task), result_data(second.task)
    assert (one["answer"], two["answer"]) == ("The answer is 391.", "The answer is 32.")
    assert first.task.status.state == second.task.status.state == DONE
    assert second.task.context_id == first.task.context_id and two["chat_id"] == one["chat_id"]
    assert two["round_id"] != one["round_id"] and [t["name"] for t in two["team"]] == ["front"]


async def test_bad_requests_get_the_documented_a2a_errors(net: GatewayNet) -> None:
    with trio.fail_after(60):
        async with http_client(net.a2a_token) as http:
            client = await a2a_client(net, http, streaming=False)
            with pytest.raises(TaskNotFoundError):
                await client.get_task(GetTaskRequest(id="no-such-task"))
            with pytest.raises(TaskNotFoundError):
                await client.cancel_task(CancelTaskRequest(id="no-such-task"))
            with pytest.raises(InvalidParamsError, match="max_turns"):
                await only_reply(client, ask("Calculate 1 + 1", max_turns=0))
            unknown = await only_reply(client, ask("Calculate 1 + 1", team=["nobody"]))
            assert unknown.task.status.state == TaskState.TASK_STATE_FAILED  # found out on the network
            assert "no agent named 'nobody'" in unknown.task.status.message.parts[0].text
            file_part = ask("x")
            file_part.message.parts.append(Part(raw=b"\x00", filename="a.bin"))
            with pytest.raises(ContentTypeNotSupportedError):
                await only_reply(client, file_part)
        async with http_client(net.a2a_token) as http:  # a client of its own: the SDK's adds its headers
            raw = await rpc(http, net, b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": ')
            wrong = await rpc(
                http, net, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "Nope", "params": {}})
            )
            typed = await rpc(http, net, json.dumps({"jsonrpc": "2.0", "id": 3, "method": "GetTask",
                                                     "params": {"id": 5, "historyLength": "x"}}))  # fmt: skip
            old = await rpc(http, net, json.dumps({"jsonrpc": "2.0", "id": 4, "method": "GetTask",
                                                   "params": {"id": "t"}}), version=None)  # fmt: skip
            headers = {"Content-Type": "application/json", "A2A-Version": "1.0"}
            body = b"[" + b" " * (2 << 20) + b"]"
            sized = {**headers, "Content-Length": str(len(body))}
            request = http.build_request("POST", net.a2a_url, headers=sized)
            request.stream = OneChunk(body)
            big = await http.send(request)
        assert big.status_code == 413 and big.json()["error"]["code"] == -32600  # never parsed
        async with http_client("not-the-token-" + net.a2a_token[:8]) as bad:
            client = await a2a_client(net, bad)
            with pytest.raises(A2AClientError, match="401"):
                await only_reply(client, ask("Calculate 1 + 1"))
    assert [r["error"]["code"] for r in (raw, wrong, typed, old)] == [-32700, -32601, -32602, -32009]


class OneChunk(httpx.AsyncByteStream):
    """A request body sent as one chunk, iterated without an async generator: httpx's own body stream is
    one, and a server that answers before it read the whole body (413) leaves it half-way, to be garbage
    collected with a ResourceWarning."""

    def __init__(self, data: bytes) -> None:
        self.data: bytes | None = data

    def __aiter__(self) -> OneChunk:  # type: ignore[override]
        return self

    async def __anext__(self) -> bytes:
        if self.data is None:
            raise StopAsyncIteration
        data, self.data = self.data, None
        return data


async def rpc(
    http: httpx.AsyncClient, net: GatewayNet, body: str | bytes, version: str | None = "1.0"
) -> Any:
    headers = {"Content-Type": "application/json", **({"A2A-Version": version} if version else {})}
    response = await http.post(net.a2a_url, content=body, headers=headers)
    assert response.status_code == 200
    return response.json()


# --------------------------------------------------------------------------- MCP


def stdio_server(home: Path) -> mcp.StdioServerParameters:
    return mcp.StdioServerParameters(
        command=sys.executable, args=["-m", "ioa_p2p", "--home", str(home), "mcp"], env=clean_env()
    )


async def check_tools(session: mcp.Client, net: GatewayNet) -> str:
    """Tools listed; find_agents; launch_goal with progress and the exact answer; audit_chat valid."""
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert set(tools) == {"find_agents", "launch_goal", "goal_status", "cancel_goal", "list_chats",
                          "chat_history", "audit_chat", "send_message"}  # fmt: skip
    assert tools["launch_goal"].output_schema is not None
    found = await session.call_tool("find_agents", {"text": "run python code", "k": 2})
    assert not found.is_error and found.structured_content["results"][0]["name"] == "coder"
    progress: list[tuple[float, str]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, message or ""))

    result = await session.call_tool("launch_goal", {"goal": "Calculate 12 * 12", "team": ["front"]},
                                     progress_callback=on_progress)  # fmt: skip
    output = result.structured_content
    assert (
        not result.is_error and output["answer"] == "The answer is 144." and output["audit"]["valid"] is True
    )
    assert [p for p, _ in progress] == [float(n) for n in range(1, len(progress) + 1)]
    assert any(m.startswith("team: ") for _, m in progress) and any("12 * 12 = 144" in m for _, m in progress)
    audit = await session.call_tool("audit_chat", {"chat": output["chat_id"]})
    assert not audit.is_error and audit.structured_content["valid"] is True
    transcript = await session.read_resource(f"ioa://chats/{output['chat_id']}")
    assert "Calculate 12 * 12" in transcript.contents[0].text  # type: ignore[union-attr]
    unknown = await session.call_tool("chat_history", {"chat": "abcdef0123"})
    assert unknown.is_error and "no chat 'abcdef0123'" in unknown.content[0].text  # type: ignore[union-attr]
    for tool, arguments, words in [
        ("find_agents", {"text": "add numbers", "k": 0}, "k: must be an integer between 1 and"),
        ("launch_goal", {"goal": "Calculate 1 + 1", "timeout": -1}, "timeout"),
        ("launch_goal", {"goal": "   "}, "goal"),
    ]:
        wrong = await session.call_tool(tool, arguments)
        assert wrong.is_error and words in wrong.content[0].text, wrong.content  # type: ignore[union-attr]
    return str(output["chat_id"])


async def test_mcp_over_stdio_lists_finds_launches_with_progress_and_audits(net: GatewayNet) -> None:
    with trio.fail_after(90):
        async with mcp.Client(stdio_server(net.front)) as session:
            chat = await check_tools(session, net)
            resources = {str(r.uri) for r in (await session.list_resources()).resources}
    assert f"ioa://chats/{chat}" in resources and f"ioa://agents/{net.peers['coder']}" in resources


async def test_mcp_over_http_needs_the_token_and_cancels_a_goal(net: GatewayNet) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    def connect(token: str) -> Any:
        http = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=120)
        )
        return http, mcp.Client(streamable_http_client(net.mcp_url, http_client=http))

    with trio.fail_after(120):
        http, client = connect(net.mcp_token)
        async with http, client as session:
            await check_tools(session, net)
            chats: list[str] = []
            outcome: list[Any] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                if message and message.startswith("team: "):
                    chats.append(message.split("chat: ", 1)[1].split()[0])

            async def launch() -> None:
                outcome.append(
                    await session.call_tool("launch_goal", {"goal": SLOW_GOAL}, progress_callback=on_progress)
                )

            async with trio.open_nursery() as nursery:
                nursery.start_soon(launch)
                while not chats:  # noqa: ASYNC110 - the progress callback says when the chat exists
                    await trio.sleep(0.1)
                await trio.sleep(1.0)  # the round is running
                cancel = await session.call_tool("cancel_goal", {"chat": chats[0]})
            assert not cancel.is_error and len(cancel.structured_content["cancelled"]) == 1
            assert outcome[0].is_error and "the goal was aborted" in outcome[0].content[0].text
            status = await session.call_tool("goal_status", {"chat": chats[0]})
            assert status.structured_content["rounds"][-1]["status"] == "aborted"
        http, client = connect("wrong-" + net.mcp_token)
        try:
            async with http, client:
                pytest.fail("connected with a wrong token")
        except BaseException as exc:  # the SDK's error (it does not say the status), inside its task groups
            assert any(isinstance(leaf, mcp.MCPError) for leaf in leaves(exc)), repr(exc)
        async with httpx.AsyncClient(trust_env=False) as raw:
            refused = await raw.post(net.mcp_url, json={}, headers={"Authorization": "Bearer wrong"})
            token = {"Authorization": f"Bearer {net.mcp_token}", "Content-Type": "application/json"}
            big = await raw.post(net.mcp_url, content=b"[" + b" " * (2 << 20) + b"]", headers=token)
        assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer")
        assert big.status_code == 413 and "larger than" in big.json()["error"]


def leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from leaves(inner)
    else:
        yield exc


async def test_an_mcp_call_while_the_node_is_down_is_a_clear_tool_error(tmp_path: Path) -> None:
    home = tmp_path / f"down{os.getpid()}"
    home.mkdir()
    with trio.fail_after(60):
        async with mcp.Client(stdio_server(home)) as session:
            result = await session.call_tool("list_chats", {})
            launched = await session.call_tool("launch_goal", {"goal": "Calculate 1 + 1"})
    for answer in (result, launched):
        assert answer.is_error
        assert "no running node" in answer.content[0].text and "ioa node start" in answer.content[0].text  # type: ignore[union-attr]
