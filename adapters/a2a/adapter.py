"""Kind ``a2a``: this node's agent IS a remote Agent2Agent (A2A v1.0) agent.

Config: its URL. When the adapter is started (:func:`~ioa_p2p.adapters.lifecycle.start_adapter`, at node
start) it fetches the remote's agent card within ``card_timeout`` seconds and turns it into our card (name,
description, skills). **An unreachable agent, or one that serves no valid card, is a typed error at start**
(:class:`~ioa_p2p.errors.AdapterLoadError`): our card would otherwise advertise skills nobody vouches for.
Each task is one remote task (:mod:`.exchange`: streaming when the remote supports it, progress per status
update, the remote task canceled at our deadline or when the chat ends; A2A states mapped as in
:mod:`.tracking`).

An adapter that is never started still works: each task then fetches the card first (within its
deadline), and ``describe()`` gives a placeholder card built from the URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import httpx
import trio

from ioa_p2p.adapters.a2a.exchange import ExchangeSettings, run_exchange
from ioa_p2p.adapters.a2a.remote import KIND, RemoteAgent, adapter_card, connect, placeholder_card
from ioa_p2p.adapters.base import CRASH, TIMEOUT, AdapterCard, Task, TaskContext, TaskResult, parse_options
from ioa_p2p.adapters.lifecycle import Lifetime
from ioa_p2p.adapters.needs import AdapterNeeds
from ioa_p2p.adapters.remote import (
    check_http_url,
    expand_headers,
    header_secrets,
    open_http_client,
    strip_userinfo,
    usage_record,
)
from ioa_p2p.errors import AdapterLoadError, AdapterOptionsError, IoAError, IoATimeout


@dataclass(frozen=True, slots=True)
class A2AOptions:
    url: str  # the agent's base URL; its card is at <url><card_path>
    card_path: str = "/.well-known/agent-card.json"
    streaming: bool = True  # stream when the remote supports it (else send + poll)
    card_timeout: float = 10.0  # seconds to fetch the card at start
    timeout: float = 600.0  # cap on one task (the task deadline usually ends it first)
    poll_interval: float = 0.5  # GetTask period when not streaming
    cancel_timeout: float = 5.0  # bound on CancelTask; also the margin kept before the deadline
    read_timeout: float = 60.0  # longest silence between two bytes of one answer
    headers: dict[str, Any] = field(default_factory=dict)  # values may use ${ENV_VAR} (secrets)
    max_response_kb: int = 4096  # per HTTP response (a whole SSE stream counts as one)
    max_events: int = 5000  # status/artifact events (or polls) per task
    task_types: tuple[str, ...] = ("text", "question")


def _validate(o: A2AOptions) -> None:
    check_http_url(o.url, kind="a2a")
    positive = ("card_timeout", "timeout", "poll_interval", "cancel_timeout", "read_timeout")
    for name in positive:
        if not getattr(o, name) > 0:
            raise AdapterOptionsError(f"adapter 'a2a' option {name} must be > 0")
    if o.poll_interval < 0.05:
        raise AdapterOptionsError("adapter 'a2a' option poll_interval must be at least 0.05 s")
    if o.max_response_kb < 1 or o.max_events < 1:
        raise AdapterOptionsError("adapter 'a2a' options max_response_kb and max_events must be >= 1")


class A2AAdapter:
    """A remote A2A agent as this node's adapter (see the module docstring)."""

    NEEDS: ClassVar[AdapterNeeds] = AdapterNeeds(calls_remote=True)  # its card is the remote agent's own
    OPTIONS: ClassVar[type] = A2AOptions

    def __init__(self, options: A2AOptions, *, env: Mapping[str, str] | None = None) -> None:
        _validate(options)
        self.options = options
        self._headers = expand_headers(options.headers, kind=KIND, env=env)
        self._settings = ExchangeSettings(
            timeout=options.timeout,
            poll_interval=options.poll_interval,
            cancel_timeout=options.cancel_timeout,
            max_events=options.max_events,
            secrets=tuple(header_secrets(self._headers)),
        )
        self._card = placeholder_card(options.url, options.task_types)
        self._remote: RemoteAgent | None = None
        self._life = Lifetime()

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> A2AAdapter:
        return cls(parse_options(A2AOptions, options, KIND))

    def describe(self) -> AdapterCard:
        return self._card

    def _http(self) -> httpx.AsyncClient:
        o = self.options
        return open_http_client(
            max_response_bytes=o.max_response_kb * 1024,
            timeout=o.read_timeout,
            connect_timeout=min(o.card_timeout, 10.0),
            headers=self._headers,
        )

    async def _connect(self, http: httpx.AsyncClient) -> RemoteAgent:
        o = self.options
        remote = await connect(
            http, o.url, card_path=o.card_path, time_limit=o.card_timeout, want_streaming=o.streaming
        )
        self._card = adapter_card(remote.card, o.task_types)
        return remote

    async def serve(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Fetch the remote's card (a typed error when that fails) and keep one HTTP client until closed."""
        with self._life.running():
            async with self._http() as http:
                try:
                    self._remote = await self._connect(http)
                except IoAError as exc:
                    raise AdapterLoadError(
                        f"adapter 'a2a': cannot use the agent at {strip_userinfo(self.options.url)}: {exc}"
                    ) from exc
                try:
                    await self._life.ready_until_closed(task_status)
                finally:
                    self._remote = None

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        if self._life.closing:
            return TaskResult.failed(CRASH, "the a2a adapter is closed")
        if self._remote is not None:
            return await run_exchange(self._remote, task, ctx, self._settings)
        async with self._http() as http:  # never started: connect for this task only
            started = trio.current_time()
            try:
                remote = await self._connect(http)
            except IoAError as exc:
                wall_ms = int((trio.current_time() - started) * 1000)
                kind = TIMEOUT if isinstance(exc, IoATimeout) else CRASH
                return TaskResult.failed(kind, str(exc), data={"usage": usage_record(wall_ms=wall_ms)})
            return await run_exchange(remote, task, ctx, self._settings)

    async def aclose(self) -> None:
        await self._life.close()


__all__ = ["A2AAdapter", "A2AOptions"]
