"""The tracing ports (pure): :class:`Tracer` makes :class:`Span` s; :data:`NOOP_TRACER` is the default.

A span is opened with ``with tracer.span(name, parent=..., attributes=...) as span:``. Its parent is
``parent`` when given, a W3C ``traceparent`` text (``00-<trace id>-<span id>-<flags>``, the context that
travelled in a signed ``conv.start`` or task turn from another node, docs/protocol.md §10.11), else the
span open in the current task, else none (a new trace). ``span.traceparent()`` is the text to put in a
message so the receiver's spans become its children ("" when nothing is recorded).

The node's tracer is also the **current tracer** of the tasks it runs (:func:`use_tracer`, a context
variable, so it reaches every trio task and worker thread started inside): adapters, which are built
without the node, open their own spans (model calls, tool calls, HTTP calls to remote agents) with
:func:`current_tracer` (the no-op tracer outside).

Span names and attributes follow the OpenTelemetry GenAI semantic conventions where they apply
(``chat <model>`` with ``gen_ai.*`` for model calls, ``invoke_agent <name>`` for calls to remote agents)
and use ``ioa.*`` for the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import Protocol

AttrValue = str | bool | int | float | Sequence[str]

_TRACEPARENT = re.compile(r"00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})")
#: Longest ``trace`` value a message may carry (a version 00 traceparent is 55 characters).
MAX_TRACEPARENT = 55

# Span names (docs/dashboard.md, "Traces").
GOAL = "ioa.goal"
TEAM = "ioa.team_formation"
ROUND = "ioa.round"
TURN = "ioa.turn"
TASK = "ioa.task"

# GenAI semantic conventions (the attribute keys we set).
GEN_AI_OPERATION = "gen_ai.operation.name"
GEN_AI_PROVIDER = "gen_ai.provider.name"
GEN_AI_REQUEST_MODEL = "gen_ai.request.model"
GEN_AI_RESPONSE_MODEL = "gen_ai.response.model"
GEN_AI_INPUT_TOKENS = "gen_ai.usage.input_tokens"
GEN_AI_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
GEN_AI_MAX_TOKENS = "gen_ai.request.max_tokens"
GEN_AI_AGENT_NAME = "gen_ai.agent.name"
GEN_AI_AGENT_ID = "gen_ai.agent.id"
GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id"
GEN_AI_TOOL_NAME = "gen_ai.tool.name"
ERROR_TYPE = "error.type"


def parse_traceparent(text: str) -> tuple[str, str, int] | None:
    """``(trace id, span id, flags)`` of a version 00 ``traceparent``, or None when it is not one (or
    has the all-zero ids the W3C spec forbids)."""
    found = _TRACEPARENT.fullmatch(text.strip()) if isinstance(text, str) else None
    if found is None:
        return None
    trace_id, span_id, flags = found.groups()
    if trace_id == "0" * 32 or span_id == "0" * 16:
        return None
    return trace_id, span_id, int(flags, 16)


class Span(Protocol):
    def set_attribute(self, key: str, value: AttrValue) -> None: ...
    def record_error(self, kind: str, message: str = "") -> None: ...
    def traceparent(self) -> str: ...


class Tracer(Protocol):
    @property
    def enabled(self) -> bool: ...

    def span(
        self,
        name: str,
        *,
        parent: str | None = None,
        kind: str = "internal",
        attributes: Mapping[str, AttrValue] | None = None,
    ) -> AbstractContextManager[Span]: ...

    def describe(self) -> str: ...


class NoopSpan:
    """A span that records nothing."""

    __slots__ = ()

    def set_attribute(self, key: str, value: AttrValue) -> None:
        return None

    def record_error(self, kind: str, message: str = "") -> None:
        return None

    def traceparent(self) -> str:
        return ""


NOOP_SPAN = NoopSpan()


class NoopTracer:
    """Tracing off: spans cost one context manager and record nothing."""

    __slots__ = ()

    @property
    def enabled(self) -> bool:
        return False

    def span(
        self,
        name: str,
        *,
        parent: str | None = None,
        kind: str = "internal",
        attributes: Mapping[str, AttrValue] | None = None,
    ) -> AbstractContextManager[Span]:
        return _noop()

    def describe(self) -> str:
        return "off"


@contextmanager
def _noop() -> Iterator[Span]:
    yield NOOP_SPAN


NOOP_TRACER = NoopTracer()
_CURRENT: ContextVar[Tracer] = ContextVar("ioa_tracer", default=NOOP_TRACER)


def current_tracer() -> Tracer:
    """The tracer of the task running now (:func:`use_tracer`), else the no-op tracer."""
    return _CURRENT.get()


@contextmanager
def use_tracer(tracer: Tracer) -> Iterator[None]:
    """Make ``tracer`` the current tracer of this task (and the tasks and threads it starts) for the block."""
    token = _CURRENT.set(tracer)
    try:
        yield
    finally:
        _CURRENT.reset(token)


__all__ = [
    "GOAL",
    "MAX_TRACEPARENT",
    "NOOP_SPAN",
    "NOOP_TRACER",
    "ROUND",
    "TASK",
    "TEAM",
    "TURN",
    "AttrValue",
    "NoopSpan",
    "NoopTracer",
    "Span",
    "Tracer",
    "current_tracer",
    "parse_traceparent",
    "use_tracer",
]
