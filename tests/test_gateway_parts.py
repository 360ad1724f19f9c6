"""The gateways' parts without a network: the signed agent card, what an A2A client asks, the bounded task
book, tokens, listen addresses and the ASGI guards; and that the node and the CLI never load a2a-sdk or
mcp."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from a2a.client.card_resolver import parse_agent_card
from a2a.types.a2a_pb2 import (
    TASK_STATE_CANCELED,
    TASK_STATE_COMPLETED,
    TASK_STATE_FAILED,
    TASK_STATE_WORKING,
    Message,
    Part,
    Role,
    SendMessageRequest,
)
from a2a.utils.errors import ContentTypeNotSupportedError, InvalidParamsError
from a2a.utils.signing import create_signature_verifier
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric import ed25519

from ioa_p2p.api.discovery import CardSummary
from ioa_p2p.api.goals import goal_result
from ioa_p2p.cli import main
from ioa_p2p.config.gateway import A2ASettings, Listen, check_exposure
from ioa_p2p.config.sections import parse_section
from ioa_p2p.errors import ConfigError, KeyFileError, SignatureError, UsageError
from ioa_p2p.gateways.a2a.asks import read_ask
from ioa_p2p.gateways.a2a.card import agent_card, card_json, sign_agent_card, verify_agent_card
from ioa_p2p.gateways.a2a.mapping import agent_message, final_state, status_update
from ioa_p2p.gateways.a2a.tasks import Busy, GatewayTask, TaskBook, UpdateLog
from ioa_p2p.gateways.auth import BearerAuth, SendTimeout, gateway_token
from ioa_p2p.gateways.guards import BodyLimit, RequestLimit, jsonrpc_refusal
from ioa_p2p.identity import Identity, PeerId

ME = Identity(b"\x07" * 32)


def own_card(identity: Identity = ME) -> CardSummary:
    return CardSummary(
        str(identity.peer_id), "calculator ü", "Exact arithmetic \u2014 sums", ("arithmetic",), "calculator",
        ("text",), "", ("/ip4/127.0.0.1/tcp/4001",), 3, 1_700_000_000_000, 1_700_000_900_000, ("en",),
        (), (), (),
    )  # fmt: skip


# --------------------------------------------------------------------------- the agent card


def test_the_card_signature_verifies_here_and_with_the_sdk_from_the_peer_id_alone() -> None:
    data = card_json(sign_agent_card(agent_card(own_card(), "http://127.0.0.1:8470/"), ME))
    assert verify_agent_card(data, str(ME.peer_id)) == ME.peer_id

    def key_of(kid: str | None, jku: str | None) -> ed25519.Ed25519PublicKey:
        return ed25519.Ed25519PublicKey.from_public_bytes(PeerId.from_string(kid or "").public_key)

    create_signature_verifier(key_of, ["EdDSA"])(parse_agent_card(data))  # raises when it does not verify


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(name="someone else"),
        lambda d: d["skills"].pop(),
        lambda d: d["capabilities"]["extensions"][0]["params"].update(peer_id="12D3KooWother"),
        lambda d: d["signatures"][0].update(signature=d["signatures"][0]["signature"][::-1]),
        lambda d: d.pop("signatures"),
    ],
)
def test_a_changed_card_or_signature_does_not_verify(change: Any) -> None:
    data = card_json(sign_agent_card(agent_card(own_card(), "http://127.0.0.1:8470/"), ME))
    change(data)
    with pytest.raises(SignatureError):
        verify_agent_card(data)


def test_a_card_signed_by_another_key_is_refused_for_this_peer() -> None:
    other = Identity(b"\x08" * 32)
    data = card_json(sign_agent_card(agent_card(own_card(other), "http://127.0.0.1:8470/"), other))
    assert verify_agent_card(data) == other.peer_id
    with pytest.raises(SignatureError, match=f"not by {ME.peer_id}"):
        verify_agent_card(data, str(ME.peer_id))


# --------------------------------------------------------------------------- what a client asks


def request(*parts: Part, **options: Any) -> SendMessageRequest:
    message = Message(message_id="m", role=Role.ROLE_USER, parts=list(parts))
    message.metadata.update(options)
    return SendMessageRequest(message=message)


def test_an_ask_reads_the_text_the_skill_and_the_options() -> None:
    ask = read_ask(request(Part(text="Calculate"), Part(text="2 + 2"), team="calc, coder", max_turns=6.0))
    assert (ask.text, ask.skill, ask.team, ask.max_turns) == (
        "Calculate\n2 + 2",
        "team_goal",
        ("calc", "coder"),
        6,
    )
    solo = read_ask(request(Part(text="Calculate 2 + 2"), skill="run_task", timeout=30))
    assert solo.launch(me=str(ME.peer_id)).team == (str(ME.peer_id),) and solo.timeout == 30.0
    assert solo.launch(me=str(ME.peer_id), chat="ab" * 32).chat == "ab" * 32


@pytest.mark.parametrize(
    ("parts", "options", "error", "words"),
    [
        ((Part(text="  "),), {}, InvalidParamsError, "needs a text part"),
        ((Part(text="x"), Part(raw=b"\x00")), {}, ContentTypeNotSupportedError, "text parts only"),
        ((Part(text="x"),), {"skill": "dance"}, InvalidParamsError, "metadata.skill"),
        ((Part(text="x"),), {"skill": "run_task", "team": ["a"]}, InvalidParamsError, "alone"),
        ((Part(text="x"),), {"max_turns": 0}, InvalidParamsError, "metadata.max_turns"),
        ((Part(text="x"),), {"max_turns": 2.5}, InvalidParamsError, "an integer"),
        ((Part(text="x"),), {"timeout": "soon"}, InvalidParamsError, "seconds"),
        ((Part(text="x" * 20_000),), {}, InvalidParamsError, "message.parts"),
    ],
)
def test_a_wrong_ask_is_an_a2a_error_naming_what(parts: Any, options: Any, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        read_ask(request(*parts, **options))


# --------------------------------------------------------------------------- tasks and their bounds


def settings(**values: Any) -> A2ASettings:
    return A2ASettings.from_section(values)


def task(n: int) -> GatewayTask:
    message = Message(message_id=f"m{n}", role=Role.ROLE_USER, parts=[Part(text="goal")])
    return GatewayTask(f"t{n}", "ctx", "team_goal", message, 1000 + n)


def say(book: TaskBook, t: GatewayTask, text: str, state: Any = TASK_STATE_WORKING) -> None:
    message = agent_message(t.task_id, t.context_id, t.next_n, text)
    book.publish(t, status_update(t.task_id, t.context_id, state, message, 2000))


def test_the_book_bounds_running_and_kept_tasks_and_forgets_finished_ones_first() -> None:
    book = TaskBook(settings(max_tasks=3, max_running=2, max_bytes=1 << 20))
    one, two = book.open(task(1)), book.open(task(2))
    with pytest.raises(Busy, match="2 tasks at once"):
        book.open(task(3))
    say(book, one, "done", TASK_STATE_COMPLETED)
    three = book.open(task(3))
    say(book, two, "done", TASK_STATE_COMPLETED)
    book.open(task(4))  # four kept would be over max_tasks: the oldest finished one goes
    assert list(book.tasks) == ["t2", "t3", "t4"] and not three.terminal
    say(book, one, "late")  # a forgotten task takes no more updates
    assert one.log.last == 1


def test_the_byte_budget_forgets_finished_tasks_then_trims_the_growing_one() -> None:
    book = TaskBook(settings(max_tasks=10, max_running=5, max_bytes=1 << 20))
    old = book.open(task(1))
    for _ in range(100):
        say(book, old, "x" * 3000)
    say(book, old, "done", TASK_STATE_COMPLETED)
    busy = book.open(task(2))
    for _ in range(400):
        say(book, busy, "y" * 3000)
    assert "t1" not in book.tasks and book.bytes <= 1 << 20
    assert busy.log.last == 400 and busy.log.after(0).missed > 0  # a reader that far behind is told
    snapshot = busy.snapshot()
    assert snapshot.history[-1].message_id == "t2.400" and len(snapshot.history) < 401


def test_a_reader_waits_for_the_next_update_and_sees_the_end() -> None:
    async def main() -> list[int]:
        log = UpdateLog(capacity=5)
        seen: list[int] = []

        async def reader() -> None:
            position = 0
            while True:
                batch = await log.wait_after(position)
                seen.extend(n for n, _ in batch.entries)
                if batch.entries:
                    position = batch.entries[-1][0]
                if log.closed and not log.after(position).entries:
                    return

        running = asyncio.create_task(reader())
        for n in range(3):
            log.append(status_update("t", "c", TASK_STATE_WORKING, agent_message("t", "c", n + 1, "u"), 0))
            await asyncio.sleep(0)
        log.close()
        await asyncio.wait_for(running, 5)
        return seen

    assert asyncio.run(main()) == [1, 2, 3]


def test_the_final_state_of_a_goal() -> None:
    result = goal_result(
        goal="g", chat_id="ab" * 32, round_id="r1", status="concluded", conclusion="42", forced=False,
        team=(), declined=(), unanswered=(), tasks=(), turns=2, messages=5, size=900, brain="offline",
        depth=1, parent_chat="", parent_task="", timings={}, origins={}, fallbacks={}, team_fallback="",
        plan=(),
    )  # fmt: skip
    assert final_state(result, False) == TASK_STATE_COMPLETED
    assert final_state(replace(result, exit_code=3), False) == TASK_STATE_FAILED  # concluded, tasks failed
    aborted = replace(result, status="aborted", exit_code=4)
    assert (final_state(aborted, True), final_state(aborted, False)) == (
        TASK_STATE_CANCELED,
        TASK_STATE_FAILED,
    )


# --------------------------------------------------------------------------- settings, addresses, tokens


def test_the_a2a_table_is_read_by_the_section_parser() -> None:
    assert parse_section(A2ASettings, {}, "[a2a]").listen == "127.0.0.1:8470"
    with pytest.raises(ConfigError, match=r"\[a2a\]\.listen: "):
        A2ASettings.from_section({"listen": "8470"})
    with pytest.raises(ConfigError, match="both tls_cert and tls_key"):
        A2ASettings.from_section({"tls_cert": "c.pem"})
    with pytest.raises(ConfigError, match="url"):
        A2ASettings.from_section({"url": "ftp://x"})
    assert settings().with_options(listen="0.0.0.0:9", url=None).listen == "0.0.0.0:9"


def test_listen_addresses_and_no_plain_http_off_the_loopback() -> None:
    assert Listen.parse("[::1]:0").loopback and Listen.parse("localhost:80").loopback
    assert Listen.parse("0.0.0.0:8470").url(9) == "http://127.0.0.1:9/"
    for bad in ("8470", "host:1", "1.2.3.4:99999", ":80"):
        with pytest.raises(UsageError):
            Listen.parse(bad)
    with pytest.raises(UsageError, match="in clear|plain HTTP"):
        check_exposure(Listen.parse("0.0.0.0:8470"), tls=False, public_url=None)
    check_exposure(Listen.parse("0.0.0.0:8470"), tls=True, public_url=None)
    check_exposure(Listen.parse("10.0.0.5:8470"), tls=False, public_url="https://agents.example/")


def test_a_token_file_is_made_once_with_mode_0600_and_refused_when_readable(tmp_path: Path) -> None:
    path = tmp_path / f"t{os.getpid()}" / "a2a.token"
    token = gateway_token(path)
    assert gateway_token(path) == token and len(token) >= 32 and path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o644)
    with pytest.raises(KeyFileError, match="0600"):
        gateway_token(path)


async def test_the_guards_refuse_a_wrong_token_and_drop_a_stalled_client() -> None:
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"x", "more_body": True})

    async def record(message: Any) -> None:
        sent.append(dict(message))

    async def stalled(message: Any) -> None:
        if message["type"] == "http.response.body":
            await trio.sleep_forever()  # the client reads nothing more

    guarded = SendTimeout(BearerAuth(app, "s3cret-token-xyz", public=("/card",)), seconds=0.2)
    scope = {"type": "http", "path": "/", "headers": [(b"authorization", b"Bearer nope")]}
    await guarded(scope, None, record)
    assert sent[0]["status"] == 401 and (b"www-authenticate", b'Bearer realm="ioa"') in sent[0]["headers"]
    await guarded({**scope, "path": "/card"}, None, record)
    assert sent[-2]["status"] == 200  # a public path needs no token
    good = {**scope, "headers": [(b"Authorization", b"Bearer s3cret-token-xyz")]}
    with trio.fail_after(5), pytest.raises(TimeoutError):
        await guarded(good, None, stalled)


class Recorder:
    """An ASGI ``send`` that keeps what it is sent; ``status`` and ``body`` of the response."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def __call__(self, message: Any) -> None:
        self.sent.append(dict(message))

    @property
    def status(self) -> int:
        return int(self.sent[0]["status"])

    @property
    def body(self) -> Any:
        return json.loads(b"".join(m.get("body", b"") for m in self.sent[1:]))


def chunks(*parts: bytes, stall: bool = False) -> Any:
    queue = [{"type": "http.request", "body": p, "more_body": i < len(parts) - 1 or stall}
             for i, p in enumerate(parts)]  # fmt: skip

    async def receive() -> Any:
        if queue:
            return queue.pop(0)
        await trio.sleep_forever()  # a client that sends nothing more

    return receive


async def test_bodies_are_bounded_in_size_and_time_before_the_app_reads_them() -> None:
    seen: list[bytes] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append((await receive())["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    guarded = BodyLimit(app, limit=10, seconds=0.2, refusal=jsonrpc_refusal)
    scope = {"type": "http", "path": "/", "headers": [(b"content-length", b"11")]}
    declared, summed, stalled, fine = Recorder(), Recorder(), Recorder(), Recorder()
    with trio.fail_after(5):
        await guarded(scope, chunks(b"x" * 11), declared)
        await guarded({**scope, "headers": []}, chunks(b"x" * 6, b"y" * 6), summed)  # chunked: no length
        await guarded({**scope, "headers": []}, chunks(b"x", stall=True), stalled)
        await guarded({**scope, "headers": []}, chunks(b"abc", b"def"), fine)
    assert (declared.status, summed.status, stalled.status, fine.status) == (413, 413, 408, 200)
    assert (
        declared.body["error"]["code"] == -32600 and "larger than 10 bytes" in summed.body["error"]["message"]
    )
    assert seen == [b"abcdef"]  # only the good body reached the app, in one piece


async def test_requests_at_once_are_bounded_in_total() -> None:
    release = trio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    limited = RequestLimit(app, limit=2)
    scope = {"type": "http", "path": "/", "headers": []}
    answers = [Recorder() for _ in range(3)]
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(limited, scope, None, answers[0])
            nursery.start_soon(limited, scope, None, answers[1])
            await trio.testing.wait_all_tasks_blocked()
            await limited(scope, None, answers[2])  # the third, at once
            assert answers[2].status == 503 and "2 requests at once" in answers[2].body["error"]
            release.set()
        again = Recorder()
        await limited(scope, None, again)  # the slots are free again
    assert [a.status for a in answers[:2]] == [200, 200] and again.status == 200 and limited.inside == 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["mcp", "--http", "10.1.2.3:0"], "over plain HTTP across the network"),
        (["mcp", "--http", "127.0.0.1:70000"], "--http must be HOST:PORT"),
        (["mcp", "--http", "127.0.0.1:0", "--tls-cert", "c.pem"], "give both --tls-cert and --tls-key"),
        (["a2a", "serve", "--listen", "0.0.0.0:0"], "TLS proxy in front (--url)"),
        (["a2a", "serve", "--listen", "nope"], "must be HOST:PORT"),
    ],
)
def test_a_gateway_command_with_a_wrong_address_is_a_usage_error(
    tmp_path: Path, args: list[str], words: str
) -> None:
    result = CliRunner().invoke(main, ["--home", str(tmp_path), *args])
    assert result.exit_code == 2 and words in result.output, result.output
    assert not isinstance(result.exception, BaseExceptionGroup)


def test_a_node_with_an_exposed_plain_http_gateway_refuses_to_start(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[a2a]\nenabled = true\nlisten = '0.0.0.0:8470'\n")
    result = CliRunner().invoke(main, ["--home", str(tmp_path), "node", "start"])
    assert result.exit_code == 2 and "over plain HTTP across the network" in result.output, result.output
    assert not (tmp_path / "node.json").exists()


def test_a_taken_port_is_a_config_error_naming_the_option(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["--home", str(tmp_path), "mcp", "--http", f"127.0.0.1:{port}"])
    assert result.exit_code == 2 and f"--http 127.0.0.1:{port}: cannot listen there" in result.output


def test_neither_the_node_nor_the_cli_loads_the_gateway_sdks() -> None:
    code = (
        "import sys, ioa_p2p.node, ioa_p2p.cli\n"
        "sdks = {'a2a', 'mcp', 'starlette', 'sse_starlette'}\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & sdks)\n"
        "print(','.join(loaded))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == ""
