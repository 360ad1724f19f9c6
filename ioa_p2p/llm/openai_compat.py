"""The OpenAI-compatible chat backend of :class:`~ioa_p2p.llm.model.Model` and the ``[model]`` config table.

:class:`OpenAIModel` talks to any OpenAI-compatible ``/v1/chat/completions`` server (OpenAI, vLLM, Ollama,
llama.cpp, ...) through the ``openai`` package's async client, which runs under trio (it uses anyio; checked
by the tests, including cancellation). Settings come from a config table or the usual environment
variables ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``OPENAI_MODEL`` (:func:`model_from_settings`).

- Time: the client's own timeout is per read and its retries multiply it, so the client makes ONE attempt
  (``max_retries=0``); the caller bounds the whole call with a cancel scope and retries within it
  (``ioa_p2p.node.goals.model_calls``).
- ``max_tokens`` is always sent (``[model] max_tokens``, default 1024, unless the call asks for less).
- Structured output: a ``json_schema`` response format is sent as asked until the server refuses it (HTTP
  400 naming the response format); then JSON mode, then none, remembered for this server
  (:attr:`OpenAIModel.format_support`; one model object per node).
- Size: every response body is bounded (``[model] max_response_bytes``, default 2 MiB) by the transport
  under the client (:mod:`~ioa_p2p.llm.bounded_http`); a larger one is a :class:`ModelOutputError`.
- Secrets: ``user:password@`` in ``base_url`` is taken out of the URL (sent as HTTP basic auth when no API
  key is set), and no error message quotes the server (its body can echo our headers) or shows userinfo.
- Library exceptions are translated here, once: connection failures -> :class:`PeerUnreachable`, timeouts
  -> :class:`IoATimeout`, HTTP 429 -> :class:`ModelRateLimited` (with ``Retry-After``), bad key / unknown
  model -> :class:`ConfigError`, a body that is not a chat completion -> :class:`ModelOutputError`,
  anything else -> :class:`ModelError`.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ioa_p2p.errors import (
    ConfigError,
    IoAError,
    IoATimeout,
    ModelError,
    ModelOutputError,
    ModelRateLimited,
    PeerUnreachable,
)
from ioa_p2p.llm.bounded_http import DEFAULT_MAX_RESPONSE_BYTES, ResponseTooLarge, capped_http_client
from ioa_p2p.llm.failures import redact_url, url_userinfo
from ioa_p2p.llm.model import JSON_MODE, Message, ModelReply, ToolCall
from ioa_p2p.llm.settings import DEFAULT_MAX_TOKENS, ModelSettings

_DOWNGRADE = {"json_schema": "json_object", "json_object": "none"}


class OpenAIModel:
    """An OpenAI-compatible chat completions endpoint through ``openai.AsyncOpenAI`` (works under trio)."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 120.0,
        temperature: float | None = None,
        json_mode: bool = True,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> None:
        import openai

        if not model:
            raise ConfigError("no model name: set `model` in the [model] config or OPENAI_MODEL")
        self._model = model
        self._url = redact_url(base_url or "https://api.openai.com/v1")
        self._temperature = temperature
        self.max_tokens = max_tokens
        #: The response formats this server accepts, learnt once: "json_schema" (or not known yet),
        #: "json_object" or "none".
        self.format_support = "json_schema" if json_mode else "none"
        headers: dict[str, str] = {}
        userinfo = url_userinfo(base_url or "")
        if userinfo is not None and not api_key:  # an API key, when given, is the Authorization
            token = base64.b64encode(f"{userinfo[0]}:{userinfo[1]}".encode()).decode()
            headers["Authorization"] = f"Basic {token}"
        self._client = openai.AsyncOpenAI(
            base_url=self._url if base_url else None,
            api_key=api_key or "unused",
            timeout=timeout,
            max_retries=0,
            default_headers=headers or None,
            http_client=capped_http_client(max_response_bytes),
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
        max_tokens: int | None = None,
    ) -> ModelReply:
        kwargs: dict[str, Any] = {
            "model": self._model,
            "messages": [dict(m) for m in messages],
            "max_tokens": min(max_tokens or self.max_tokens, self.max_tokens),
        }
        if tools:
            kwargs["tools"] = [dict(t) for t in tools]
        if self._temperature is not None:
            kwargs["temperature"] = self._temperature
        while True:
            asked = self._format(response_format)
            if asked is not None:
                kwargs["response_format"] = asked
            else:
                kwargs.pop("response_format", None)
            try:
                reply = await self._client.chat.completions.create(**kwargs)
            except IoAError:
                raise
            except Exception as exc:
                if isinstance(exc.__cause__, ResponseTooLarge):  # the client wraps transport errors
                    raise exc.__cause__ from None
                translated = self._translate(exc)
                if translated is None:
                    raise
                if asked is not None and _rejects_format(exc):
                    level = str(asked.get("type"))
                    self.format_support = _DOWNGRADE.get(level, "none")
                    continue
                raise translated from None
            return self._reply(reply)

    def _format(self, wanted: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """The response format to send for ``wanted``, given what this server accepts."""
        if wanted is None:
            return None
        support = self.format_support
        if support == "none":
            return None
        if wanted.get("type") == "json_schema" and support == "json_object":
            return JSON_MODE
        return dict(wanted)

    def _reply(self, reply: Any) -> ModelReply:
        where = f"the model server at {self._url}"
        choices = getattr(reply, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise ModelOutputError(f"{where} answered something that is not a chat completion")
        message = getattr(choices[0], "message", None)
        if message is None:
            raise ModelOutputError(f"{where} answered a completion without a message")
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
        """Our error for a library exception; never quotes the server (see the module docstring)."""
        import openai

        where = f"the model server at {self._url}"
        if isinstance(exc, openai.APITimeoutError):
            return IoATimeout(f"{where} did not answer in time; check the server")
        if isinstance(exc, openai.APIConnectionError):
            return PeerUnreachable(f"cannot reach {where}; check base_url and that it runs")
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return ConfigError(f"{where} refused the API key; check api_key / OPENAI_API_KEY")
        if isinstance(exc, openai.NotFoundError):
            return ConfigError(
                f"{where} does not know model {self._model!r} or the URL is wrong (HTTP 404); "
                "check model / OPENAI_MODEL and base_url"
            )
        if isinstance(exc, openai.RateLimitError):
            after = _retry_after(exc)
            hint = f" (Retry-After {after:g} s)" if after is not None else ""
            return ModelRateLimited(f"{where} asked to slow down: HTTP 429{hint}", after)
        if isinstance(exc, openai.APIStatusError):
            return ModelError(f"{where} failed with HTTP {exc.status_code}")
        if isinstance(exc, openai.OpenAIError):
            return ModelError(f"{where} failed ({type(exc).__name__})")
        if isinstance(exc, ValueError):  # a body that is not JSON (json.JSONDecodeError)
            return ModelOutputError(f"{where} answered a body that is not valid JSON")
        return None


def _token_count(value: Any) -> int | None:
    """A server-reported token count, or None when it is absent or not a sane integer."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**40:
        return None
    return value


def _retry_after(exc: Any) -> float | None:
    try:
        value = float(exc.response.headers.get("retry-after", ""))
    except (AttributeError, TypeError, ValueError):
        return None
    return value if 0 <= value < 1e9 else None


def _rejects_format(exc: Exception) -> bool:
    """A 400 about the response format (the server does not support it), not about the prompt."""
    import openai

    if not isinstance(exc, openai.BadRequestError):
        return False
    text = str(exc).lower()
    return any(word in text for word in ("response_format", "json_schema", "json schema", "grammar"))


def model_from_settings(
    settings: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    where: str = "[model]",
    error: type[ConfigError] = ConfigError,
) -> OpenAIModel | None:
    """The model a ``[model]`` config table (or the environment) asks for; None when none is configured.

    The keys are :class:`~ioa_p2p.llm.settings.ModelSettings`'; missing ``model``, ``base_url`` and
    ``api_key`` fall back to ``OPENAI_MODEL``, ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``. With neither an
    API key nor a base URL there is no model (the offline brain is used). A bad table raises ``error``
    naming ``where`` and the key.
    """
    parsed = ModelSettings.from_section(settings, where, error)
    env = os.environ if env is None else env
    api_key = parsed.api_key or env.get("OPENAI_API_KEY")
    base_url = parsed.base_url or env.get("OPENAI_BASE_URL")
    if not api_key and not base_url:
        return None
    return OpenAIModel(
        model=parsed.model or env.get("OPENAI_MODEL") or "gpt-4o-mini",
        base_url=base_url,
        api_key=api_key,
        timeout=parsed.timeout,
        max_tokens=parsed.max_tokens,
        temperature=parsed.temperature,
        json_mode=parsed.json_mode,
        max_response_bytes=parsed.max_response_bytes,
    )


__all__ = [
    "OpenAIModel",
    "model_from_settings",
]
