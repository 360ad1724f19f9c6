"""Language models behind one small :class:`Model` protocol, with robust structured-output parsing.

- :class:`Model`: ``await model.complete(messages, tools=None, response_format=None) -> ModelReply``;
  ``messages`` are OpenAI-style chat dicts (``{"role": ..., "content": ...}``).
- :class:`OpenAIModel`: any OpenAI-compatible ``/v1/chat/completions`` server (OpenAI, vLLM, Ollama,
  llama.cpp, ...) through the ``openai`` package's async client, which runs under trio (it uses anyio; checked
  by the tests, including cancellation). Settings come from a config table or the usual environment
  variables ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``OPENAI_MODEL`` (:func:`model_from_settings`).
  Library exceptions are translated here, once: connection failures -> :class:`PeerUnreachable`, timeouts ->
  :class:`IoATimeout`, bad key / unknown model -> :class:`ConfigError`, anything else -> :class:`ModelError`.
- :func:`complete_json`: ask for one JSON object (JSON mode, or a tool call's arguments), repair the usual
  damage (code fences, prose around it, trailing commas, Python literals, single quotes, unclosed
  brackets), validate it with the caller's function, and retry a bounded number of times telling the
  model what was wrong; then raise :class:`ModelOutputError` so the caller can fall back visibly.
- :class:`ScriptedModel`: a fake that replays scripted replies (unit tests of the brains).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from ioa_p2p.errors import IoAError, ModelOutputError
from ioa_p2p.llm.json_repair import parse_json_object

Message = Mapping[str, Any]
T = TypeVar("T")

JSON_MODE: Mapping[str, Any] = {"type": "json_object"}


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model wrote it

    def parsed(self) -> dict[str, Any]:
        """The arguments as a dict (repaired if needed); raises :class:`ModelOutputError`."""
        return parse_json_object(self.arguments or "{}")


@dataclass(frozen=True, slots=True)
class ModelReply:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = ""
    model: str = ""

    def as_message(self) -> dict[str, Any]:
        """The reply as an assistant message to append to the conversation sent back to the model."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }  # fmt: skip
                for c in self.tool_calls
            ]
        return message


@runtime_checkable
class Model(Protocol):
    """A chat model. Implementations translate their own errors into ioa_p2p.errors types."""

    @property
    def model_id(self) -> str: ...

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> ModelReply: ...


# --------------------------------------------------------------------------- OpenAI-compatible backend


# --------------------------------------------------------------------------- JSON output, repaired


async def complete_json(
    model: Model,
    messages: Sequence[Message],
    validate: Callable[[dict[str, Any]], T],
    *,
    retries: int = 2,
    tools: Sequence[Mapping[str, Any]] | None = None,
) -> T:
    """Ask ``model`` for one JSON object and return ``validate(obj)``, retrying ``retries`` times.

    The object is taken from the first tool call's arguments when the model called a tool, else from the
    text. ``validate`` raises any :class:`IoAError`, ``ValueError``, ``KeyError`` or ``TypeError`` to reject
    it; the model is then told what was wrong and asked again. Transport errors propagate at once.
    Raises :class:`ModelOutputError` after the last failed attempt.
    """
    history = [dict(m) for m in messages]
    problem = ""
    for _ in range(retries + 1):
        reply = await model.complete(history, tools=tools, response_format=JSON_MODE)
        try:
            raw = reply.tool_calls[0].parsed() if reply.tool_calls else parse_json_object(reply.text)
            return validate(raw)
        except (IoAError, ValueError, KeyError, TypeError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
        history.append({"role": "assistant", "content": reply.text or "(tool call)"})
        history.append({
            "role": "user",
            "content": f"Your reply could not be used ({problem[:500]}). Answer again with only one "
            "JSON object that follows the requested format exactly.",
        })  # fmt: skip
    raise ModelOutputError(
        f"{model.model_id} gave no usable JSON after {retries + 1} attempts; last problem: {problem}"
    )


# --------------------------------------------------------------------------- scripted fake


__all__ = ["JSON_MODE", "Message", "Model", "ModelReply", "ToolCall", "complete_json"]
