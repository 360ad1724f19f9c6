"""The OpenAI-compatible chat backend of :class:`~ioa_p2p.llm.model.Model` and the ``[model]`` config table.

:class:`OpenAIModel` talks to any OpenAI-compatible ``/v1/chat/completions`` server (OpenAI, vLLM, Ollama,
llama.cpp, ...) through the ``openai`` package's async client, which runs under trio (it uses anyio; checked
by the tests, including cancellation). Settings come from a config table or the usual environment
variables ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``OPENAI_MODEL`` (:func:`model_from_settings`).
Library exceptions are translated here, once: connection failures -> :class:`PeerUnreachable`, timeouts ->
:class:`IoATimeout`, bad key / unknown model -> :class:`ConfigError`, anything else -> :class:`ModelError`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ioa_p2p.errors import ConfigError, IoAError, IoATimeout, ModelError, PeerUnreachable
from ioa_p2p.llm.model import Message, ModelReply, ToolCall


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
        return ModelReply(
            text=str(message.content or ""),
            tool_calls=calls,
            finish_reason=str(choices[0].finish_reason or ""),
            model=str(getattr(reply, "model", "") or self._model),
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


__all__ = [
    "OpenAIModel",
    "model_from_settings",
]
