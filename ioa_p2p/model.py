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

import json
import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from .errors import (
    ConfigError,
    IoAError,
    IoATimeout,
    ModelError,
    ModelOutputError,
    PeerUnreachable,
)

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
    #: Tokens the server reported in ``usage`` for this reply; ``None`` when it reported none.
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

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


class OpenAIModel:
    """An OpenAI-compatible chat completions endpoint through ``openai.AsyncOpenAI`` (works under trio)."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 2,
        temperature: float | None = None,
        json_mode: bool = True,
    ) -> None:
        import openai

        if not model:
            raise ConfigError("no model name: set `model` in the [model] config or OPENAI_MODEL")
        self._model = model
        self._base_url = base_url or "https://api.openai.com/v1"
        self._temperature = temperature
        self.json_mode = json_mode
        self._client = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=max_retries
        )

    @property
    def model_id(self) -> str:
        return f"openai/{self._model}"

    async def aclose(self) -> None:
        await self._client.close()

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> ModelReply:
        kwargs: dict[str, Any] = {"model": self._model, "messages": [dict(m) for m in messages]}
        if tools:
            kwargs["tools"] = [dict(t) for t in tools]
        if response_format is not None and self.json_mode:
            kwargs["response_format"] = dict(response_format)
        if self._temperature is not None:
            kwargs["temperature"] = self._temperature
        try:
            reply = await self._client.chat.completions.create(**kwargs)
        except Exception as exc:
            translated = self._translate(exc)
            if translated is None:
                raise
            if "response_format" in kwargs and _rejects_json_mode(exc):
                self.json_mode = False  # an older server without JSON mode: ask in the prompt only
                return await self.complete(messages, tools=tools, response_format=None)
            raise translated from exc
        return self._reply(reply)

    def _reply(self, reply: Any) -> ModelReply:
        choices = getattr(reply, "choices", None) or []
        if not choices:
            raise ModelError(f"the model server at {self._base_url} answered with no choices")
        message = choices[0].message
        calls = tuple(
            ToolCall(str(c.id or f"call_{i}"), str(c.function.name), str(c.function.arguments or ""))
            for i, c in enumerate(getattr(message, "tool_calls", None) or [])
            if getattr(c, "function", None) is not None
        )
        usage = getattr(reply, "usage", None)
        return ModelReply(
            text=str(message.content or ""),
            tool_calls=calls,
            finish_reason=str(choices[0].finish_reason or ""),
            model=str(getattr(reply, "model", "") or self._model),
            prompt_tokens=_token_count(getattr(usage, "prompt_tokens", None)),
            completion_tokens=_token_count(getattr(usage, "completion_tokens", None)),
        )

    def _translate(self, exc: Exception) -> IoAError | None:
        import openai

        where = f"the model server at {self._base_url}"
        if isinstance(exc, openai.APITimeoutError):
            return IoATimeout(f"{where} did not answer in time; raise [model] timeout or check the server")
        if isinstance(exc, openai.APIConnectionError):
            return PeerUnreachable(f"cannot reach {where}: {exc}; check base_url and that it runs")
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return ConfigError(f"{where} refused the API key ({exc}); check api_key / OPENAI_API_KEY")
        if isinstance(exc, openai.NotFoundError):
            return ConfigError(
                f"{where} does not know model {self._model!r} or the URL is wrong ({exc}); "
                "check model / OPENAI_MODEL and base_url"
            )
        if isinstance(exc, openai.APIStatusError):
            return ModelError(f"{where} failed with HTTP {exc.status_code}: {exc}")
        if isinstance(exc, openai.OpenAIError):
            return ModelError(f"{where} failed: {exc}")
        return None


def _token_count(value: Any) -> int | None:
    """A server-reported token count, or None when it is absent or not a sane integer."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**40:
        return None
    return value


def _rejects_json_mode(exc: Exception) -> bool:
    import openai

    return isinstance(exc, openai.BadRequestError) and "response_format" in str(exc)


def model_from_settings(
    settings: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None
) -> OpenAIModel | None:
    """The model a ``[model]`` config table (or the environment) asks for; None when none is configured.

    Keys: ``model``, ``base_url``, ``api_key``, ``timeout``, ``max_retries``, ``temperature``,
    ``json_mode``. Missing keys fall back to ``OPENAI_MODEL``, ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``.
    With neither an API key nor a base URL there is no model (the offline brain is used).
    """
    settings = dict(settings or {})
    env = os.environ if env is None else env
    known = {"model", "base_url", "api_key", "timeout", "max_retries", "temperature", "json_mode"}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise ConfigError(f"unknown [model] settings {unknown}; known: {sorted(known)}")
    api_key = settings.get("api_key") or env.get("OPENAI_API_KEY")
    base_url = settings.get("base_url") or env.get("OPENAI_BASE_URL")
    if not api_key and not base_url:
        return None
    model = settings.get("model") or env.get("OPENAI_MODEL") or "gpt-4o-mini"
    try:
        return OpenAIModel(
            model=str(model),
            base_url=base_url,
            api_key=api_key,
            timeout=float(settings.get("timeout", 120.0)),
            max_retries=int(settings.get("max_retries", 2)),
            temperature=None if settings.get("temperature") is None else float(settings["temperature"]),
            json_mode=bool(settings.get("json_mode", True)),
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad [model] setting: {exc}") from None


# --------------------------------------------------------------------------- JSON output, repaired


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)


def parse_json_object(text: str) -> dict[str, Any]:
    """The JSON object in a model's text, repaired if needed; raises :class:`ModelOutputError`."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        snippet = _outermost_object(candidate)
        if snippet is None:
            continue
        for attempt in (snippet, _repair(snippet)):
            try:
                value = json.loads(attempt)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    raise ModelOutputError(f"no JSON object found in the model's reply: {text[:200]!r}")


def _outermost_object(text: str) -> str | None:
    start = text.find("{")
    if start < 0:
        return None
    depth, in_string, escape = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return text[start:]  # unclosed: let _repair close it


def _repair(text: str) -> str:
    s = text.strip()
    s = s.replace("\u201c", '"').replace("\u201d", '"').replace("\u2018", "'").replace("\u2019", "'")
    s = re.sub(r"(?m)^\s*//.*$", "", s)  # whole-line comments
    if '"' not in s:
        s = s.replace("'", '"')
    s = re.sub(r"(?<![\w\"])(True|False|None)(?![\w\"])",
               lambda m: {"True": "true", "False": "false", "None": "null"}[m.group(1)], s)  # fmt: skip
    s = re.sub(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*:)", r'\1"\2"\3', s)  # unquoted keys
    s = re.sub(r",\s*([}\]])", r"\1", s)  # trailing commas
    return _close_brackets(s)


def _close_brackets(s: str) -> str:
    stack: list[str] = []
    in_string = escape = False
    for ch in s:
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
    if in_string:
        s += '"'
    s = re.sub(r",\s*$", "", s)
    return s + "".join(reversed(stack))


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


class ScriptedModel:
    """A fake :class:`Model` replaying scripted replies (str = text reply, ModelReply, or an exception)."""

    def __init__(self, replies: Iterable[str | ModelReply | Exception] = (), name: str = "scripted") -> None:
        self.replies: deque[str | ModelReply | Exception] = deque(replies)
        self.calls: list[list[dict[str, Any]]] = []
        self.name = name

    @property
    def model_id(self) -> str:
        return f"scripted/{self.name}"

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> ModelReply:
        self.calls.append([dict(m) for m in messages])
        if not self.replies:
            raise ModelError("the scripted model has no replies left")
        reply = self.replies.popleft()
        if isinstance(reply, Exception):
            raise reply
        return reply if isinstance(reply, ModelReply) else ModelReply(text=reply)


__all__ = [
    "JSON_MODE",
    "Message",
    "Model",
    "ModelReply",
    "OpenAIModel",
    "ScriptedModel",
    "ToolCall",
    "complete_json",
    "model_from_settings",
    "parse_json_object",
]
