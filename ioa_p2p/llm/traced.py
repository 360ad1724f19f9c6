"""Model calls as OpenTelemetry GenAI spans (pure: the tracer is a port; no-op unless tracing is on).

One call of a :class:`~ioa_p2p.llm.model.Model` is one client span ``chat <model>`` with the GenAI
semantic conventions' attributes: ``gen_ai.operation.name`` = ``chat``, ``gen_ai.provider.name``
(``openai``: the OpenAI-compatible API, whoever serves it), ``gen_ai.request.model``,
``gen_ai.request.max_tokens``, and from the reply ``gen_ai.response.model``, ``gen_ai.usage.input_tokens``,
``gen_ai.usage.output_tokens``; a failed call sets the span's status to error with ``error.type``.

:func:`traced_complete` is what adapters use (the node's tracer reaches them as the current tracer,
:func:`~ioa_p2p.telemetry.tracer.current_tracer`); the goals service's guarded model uses
:func:`chat_span` and :func:`record_reply` around its retries.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from ioa_p2p.errors import IoAError
from ioa_p2p.llm.model import Message, Model, ModelReply
from ioa_p2p.telemetry import tracer as tr
from ioa_p2p.telemetry.tracer import AttrValue, Span, Tracer, current_tracer


@contextmanager
def chat_span(tracer: Tracer, model_id: str, max_tokens: int | None = None) -> Iterator[Span]:
    """The ``chat <model>`` span of one model call (retries included); an IoAError raised inside marks it
    failed and goes on."""
    attributes: dict[str, AttrValue] = {
        tr.GEN_AI_OPERATION: "chat",
        tr.GEN_AI_PROVIDER: "openai",
        tr.GEN_AI_REQUEST_MODEL: model_id,
    }
    if max_tokens is not None:
        attributes[tr.GEN_AI_MAX_TOKENS] = max_tokens
    with tracer.span(f"chat {model_id}", kind="client", attributes=attributes) as span:
        try:
            yield span
        except IoAError as exc:
            span.record_error(type(exc).__name__, str(exc))
            raise


def record_reply(span: Span, reply: ModelReply) -> None:
    """The reply's model and token usage on its span."""
    if reply.model:
        span.set_attribute(tr.GEN_AI_RESPONSE_MODEL, reply.model)
    if reply.prompt_tokens is not None:
        span.set_attribute(tr.GEN_AI_INPUT_TOKENS, reply.prompt_tokens)
    if reply.completion_tokens is not None:
        span.set_attribute(tr.GEN_AI_OUTPUT_TOKENS, reply.completion_tokens)


async def traced_complete(
    model: Model,
    messages: Sequence[Message],
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    response_format: Mapping[str, Any] | None = None,
    max_tokens: int | None = None,
    tracer: Tracer | None = None,
) -> ModelReply:
    """``model.complete(...)`` as one ``chat <model>`` span of ``tracer`` (default: the current one)."""
    with chat_span(tracer or current_tracer(), model.model_id, max_tokens) as span:
        reply = await model.complete(
            messages, tools=tools, response_format=response_format, max_tokens=max_tokens
        )
        record_reply(span, reply)
        return reply


__all__ = ["chat_span", "record_reply", "traced_complete"]
