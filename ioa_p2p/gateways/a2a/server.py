"""The A2A gateway process (``ioa a2a serve``): an ASGI app of a2a-sdk's routes on its own asyncio loop.

Why a process of its own, talking to the node's control API: a2a-sdk 1.3's server side (its event queues,
request handlers, SSE responses) is written on asyncio primitives and does not run under trio, which runs
the node. Its own process keeps each on its own loop, and a node that serves no A2A never imports a2a-sdk
(docs/gateways.md). The gateway holds no secret of the network beyond the node's key, which it reads only
to sign the agent card.

Routes: ``GET /.well-known/agent-card.json`` (public, signed: :mod:`~ioa_p2p.gateways.a2a.card`) and the
JSON-RPC endpoint ``POST /`` (bearer token; :class:`~ioa_p2p.gateways.a2a.handler.GatewayHandler`).
Served by hypercorn (HTTP/1.1, TLS when configured); ``$IOA_HOME/a2a.json`` says where while it runs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import time
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

from a2a.server.routes import create_jsonrpc_routes
from a2a.types.a2a_pb2 import AgentCard
from hypercorn.asyncio import serve
from hypercorn.config import Config as HypercornConfig
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ioa_p2p.cli._base import PARENT_PID_ENV
from ioa_p2p.config.gateway import A2ASettings, check_exposure
from ioa_p2p.control_client.aio import AsyncControlClient
from ioa_p2p.control_client.endpoint import Endpoint
from ioa_p2p.errors import IoAError
from ioa_p2p.gateways.a2a.card import agent_card, card_json, sign_agent_card
from ioa_p2p.gateways.a2a.handler import GatewayHandler
from ioa_p2p.gateways.a2a.pumps import GoalPump
from ioa_p2p.gateways.a2a.tasks import TaskBook
from ioa_p2p.gateways.auth import BearerAuth, SendTimeout, gateway_token
from ioa_p2p.gateways.guards import BodyLimit, RequestLimit, jsonrpc_refusal
from ioa_p2p.gateways.listen import bind_socket
from ioa_p2p.identity import Identity, load_key_file

log = logging.getLogger("ioa_p2p.gateways.a2a")

CARD_PATH = "/.well-known/agent-card.json"
#: Seconds the signed card is reused before the node's card is read again.
CARD_TTL = 10.0
INFO_FILE = "a2a.json"
#: Seconds between the keep-alive comments (``: ping``) of a task's SSE stream: under the 5 s read timeout
#: of a2a-sdk's default HTTP client, so that a quiet goal (a long turn) does not end such a client's stream.
SSE_PING = 4


class CardSource:
    """The node's A2A card, signed; rebuilt when the node's capability card changes."""

    def __init__(self, client: AsyncControlClient, identity: Identity, url: str) -> None:
        self.client = client
        self.identity = identity
        self.url = url
        self._card: AgentCard | None = None
        self._version = -1
        self._read_at = 0.0

    async def get(self) -> AgentCard:
        if self._card is not None and time.monotonic() - self._read_at < CARD_TTL:
            return self._card
        own = await self.client.card()
        if own.peer_id != str(self.identity.peer_id):
            raise IoAError(
                f"the node runs as {own.peer_id}, not as the key of this home; restart the gateway"
            )
        if self._card is None or own.version != self._version:
            self._card = sign_agent_card(agent_card(own, self.url), self.identity)
            self._version = own.version
        self._read_at = time.monotonic()
        return self._card


class Gateway:
    """The gateway's state: its client of the node, tasks, pump, handler, and the task group of pumps."""

    def __init__(self, home: Path, settings: A2ASettings, identity: Identity, url: str) -> None:
        self.client = AsyncControlClient(home, timeout=30.0)
        self.book = TaskBook(settings)
        self.pump = GoalPump(self.book, self.client)
        self.cards = CardSource(self.client, identity, url)
        self.handler = GatewayHandler(self.book, self.pump, self.spawn, self.peer_id)
        self._group: asyncio.TaskGroup | None = None
        self._jobs: set[asyncio.Task[None]] = set()

    async def peer_id(self) -> str:
        return str(self.cards.identity.peer_id)

    def spawn(self, job: Coroutine[Any, Any, None]) -> None:
        """Run ``job`` in the gateway's task group (it outlives the request that started it)."""
        if self._group is None:
            job.close()
            raise RuntimeError("the A2A gateway is not running")
        task = self._group.create_task(job)
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    @asynccontextmanager
    async def running(self, app: Starlette) -> AsyncIterator[None]:
        """The app's lifespan: the task group of the pumps; at the end, the pumps stop, then the client."""
        try:
            async with asyncio.TaskGroup() as group:
                self._group = group
                try:
                    yield
                finally:
                    self._group = None
                    for job in list(self._jobs):
                        job.cancel()
        finally:
            await self.client.aclose()

    async def card_endpoint(self, request: Request) -> Response:
        try:
            card = await self.cards.get()
        except IoAError as exc:
            return JSONResponse({"error": f"{type(exc).__name__}: {exc}"}, status_code=503)
        headers = {"Cache-Control": f"max-age={int(CARD_TTL)}"}
        return JSONResponse(card_json(card), headers=headers)

    def app(self, token: str) -> SendTimeout:
        # a2a-sdk makes its SSE responses with sse-starlette's default ping interval (15 s) and offers no
        # option; this process serves nothing else, so the class default is this gateway's setting
        EventSourceResponse.DEFAULT_PING_INTERVAL = SSE_PING
        routes = [Route(CARD_PATH, self.card_endpoint, methods=["GET"])]
        routes += create_jsonrpc_routes(self.handler, "/")
        starlette = Starlette(routes=routes, lifespan=self.running)
        bounded = RequestLimit(BodyLimit(starlette, refusal=jsonrpc_refusal), refusal=jsonrpc_refusal)
        return SendTimeout(BearerAuth(bounded, token, public=(CARD_PATH,), realm="ioa-a2a"))


async def serve_a2a(home: Path, settings: A2ASettings, *, announce: Any = print) -> None:
    """Serve the A2A gateway of the node of ``home`` until SIGINT/SIGTERM."""
    listen = settings.listen_at
    check_exposure(listen, tls=settings.tls, public_url=settings.url)
    identity = load_key_file(home / "node.key")
    token_path = settings.token_path(home)
    token = gateway_token(token_path)
    sock = bind_socket(listen, "[a2a].listen / --listen")
    port = sock.getsockname()[1]
    url = settings.url or listen.url(port, tls=settings.tls)
    gateway = Gateway(home, settings, identity, url)
    config = HypercornConfig()
    config.bind = [f"fd://{sock.detach()}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    config.graceful_timeout = 2.0
    config.keep_alive_timeout = 30.0
    if settings.tls_cert and settings.tls_key:
        config.certfile, config.keyfile = settings.tls_cert, settings.tls_key
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    parent = os.environ.get(PARENT_PID_ENV, "")
    watcher = asyncio.create_task(_watch_parent(int(parent), stop)) if parent.isdigit() else None
    info = home / INFO_FILE
    _write_info(info, {"pid": os.getpid(), "url": url, "card": url.rstrip("/") + CARD_PATH,
                       "peer_id": str(identity.peer_id), "token_file": str(token_path)})  # fmt: skip
    announce(f"a2a gateway on {url} for node {identity.peer_id}")
    announce(f"agent card {url.rstrip('/')}{CARD_PATH}; bearer token in {token_path}")
    try:
        Endpoint.of_home(home)
    except IoAError as exc:  # the gateway still serves: it answers once the node runs
        announce(f"warning: {exc}; until then every request answers that the node is not running")
    try:
        await serve(gateway.app(token), config, shutdown_trigger=stop.wait)  # type: ignore[arg-type]
    finally:
        if watcher is not None:
            watcher.cancel()
        with suppress(FileNotFoundError):
            info.unlink()


async def _watch_parent(pid: int, stop: asyncio.Event) -> None:
    """Stop when the process that started the gateway (the node, ``$IOA_PARENT_PID``) is gone."""
    while os.getppid() == pid:  # noqa: ASYNC110 - no event tells us the parent exited
        await asyncio.sleep(1.0)
    stop.set()


def _write_info(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.replace(tmp, path)


__all__ = ["CARD_PATH", "INFO_FILE", "SSE_PING", "CardSource", "Gateway", "serve_a2a"]
