"""Model calls under the caller's deadline: retries and ``Retry-After`` only within what is left.

The core's :class:`~ioa_p2p.llm.model.Model` makes one attempt per call and knows no clock. The goals service
wraps it in :class:`GuardedModel`, which every caller uses inside a cancel scope (the turn's or the team-up
phase's deadline: ``trio.current_effective_deadline()``):

- HTTP 429 with ``Retry-After``: waited for when the wait plus :data:`MIN_CALL` fits before the deadline,
  else raised at once (the turn falls back to the offline planner now rather than at its deadline);
- a 5xx, a connection failure or a timeout: retried up to ``retries`` times after :data:`BACKOFF`
  seconds, when that fits too;
- everything else (bad key, unusable output) propagates at once.

The whole call, retries included, therefore ends by the caller's deadline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import trio

from ioa_p2p.errors import (
    ConfigError,
    IoATimeout,
    ModelError,
    ModelOutputError,
    ModelRateLimited,
    PeerUnreachable,
)
from ioa_p2p.llm.model import Message, Model, ModelReply
from ioa_p2p.llm.traced import chat_span, record_reply
from ioa_p2p.telemetry.tracer import NOOP_TRACER, Tracer

#: Seconds a retried call needs at least, after its wait, for a retry to be worth it.
MIN_CALL = 1.0
BACKOFF = 0.5


class GuardedModel:
    """A :class:`Model` whose retries stay within the caller's cancel scope (see the module docstring)."""

    def __init__(self, inner: Model, *, retries: int = 2, tracer: Tracer = NOOP_TRACER) -> None:
        self.inner = inner
        self.retries = retries
        self.tracer = tracer
        self.rate_limited = 0  # 429 answers seen (waited for or not)

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ModelReply:
        """One model call (retries included) as one ``chat <model>`` span (GenAI semantic conventions)."""
        with chat_span(self.tracer, self.model_id, max_tokens) as span:
            reply = await self._complete(messages, tools, response_format, max_tokens)
            record_reply(span, reply)
            return reply

    async def _complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        response_format: Mapping[str, Any] | None,
        max_tokens: int | None,
    ) -> ModelReply:
        failures = 0
        while True:
            try:
                return await self.inner.complete(
                    messages, tools=tools, response_format=response_format, max_tokens=max_tokens
                )
            except ModelRateLimited as exc:
                self.rate_limited += 1
                if exc.retry_after is None or not _fits(exc.retry_after):
                    raise
                await trio.sleep(exc.retry_after)
            except (ModelOutputError, ConfigError):
                raise
            except (ModelError, PeerUnreachable, IoATimeout):
                failures += 1
                if failures > self.retries or not _fits(BACKOFF):
                    raise
                await trio.sleep(BACKOFF)


def _fits(wait: float) -> bool:
    """A wait of ``wait`` seconds plus one more call fits before the current cancel scope's deadline."""
    return trio.current_time() + wait + MIN_CALL <= trio.current_effective_deadline()


__all__ = ["BACKOFF", "MIN_CALL", "GuardedModel"]
