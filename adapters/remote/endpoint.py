"""The OpenAI-compatible endpoint a third-party agent library talks to (smolagents, Open Interpreter).

Same keys as the node's ``[model]`` table (docs/goals.md): ``model``, ``base_url``, ``api_key``,
``timeout``, ``max_retries``, ``temperature`` (``json_mode`` is accepted and ignored), each falling back to
``OPENAI_MODEL``, ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``. The node fills an adapter's ``model`` option
from its own ``[model]`` table when the option is absent, so one endpoint serves the brain and the agent.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ioa_p2p.errors import AdapterOptionsError

#: Every key of the node's ``[model]`` table is accepted (the brain-only ones, ``max_tokens``,
#: ``context_tokens`` and ``max_response_bytes``, are not used by the endpoint).
KNOWN = frozenset({
    "model", "base_url", "api_key", "timeout", "max_retries", "temperature", "json_mode",
    "max_tokens", "context_tokens", "max_response_bytes",
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Endpoint:
    model: str
    base_url: str | None
    api_key: str
    timeout: float
    max_retries: int
    temperature: float | None

    @property
    def model_id(self) -> str:
        """The name usage records carry (``openai/<model>``, as the node's own OpenAIModel reports it)."""
        return f"openai/{self.model}"


def endpoint_from_settings(
    settings: Mapping[str, Any], *, kind: str, env: Mapping[str, str] | None = None
) -> Endpoint:
    """The endpoint ``settings`` (an adapter's ``model`` option) names; raises AdapterOptionsError."""
    env = os.environ if env is None else env
    unknown = sorted(set(settings) - KNOWN)
    if unknown:
        raise AdapterOptionsError(
            f"adapter {kind!r} option model: unknown keys {unknown}; known: {sorted(KNOWN)}"
        )
    base_url = settings.get("base_url") or env.get("OPENAI_BASE_URL") or None
    api_key = settings.get("api_key") or env.get("OPENAI_API_KEY") or ""
    if not base_url and not api_key:
        raise AdapterOptionsError(
            f"adapter {kind!r} needs a model endpoint: set [agent.options] model = {{base_url = ..., "
            "model = ...}}, a [model] table, or OPENAI_BASE_URL / OPENAI_API_KEY"
        )
    try:
        endpoint = Endpoint(
            model=str(settings.get("model") or env.get("OPENAI_MODEL") or "gpt-4o-mini"),
            base_url=None if base_url is None else str(base_url),
            api_key=str(api_key or "unused"),
            timeout=float(settings.get("timeout", 120.0)),
            max_retries=int(settings.get("max_retries", 2)),
            temperature=None if settings.get("temperature") is None else float(settings["temperature"]),
        )
    except (TypeError, ValueError) as exc:
        raise AdapterOptionsError(f"adapter {kind!r} option model: {exc}") from None
    if endpoint.timeout <= 0 or endpoint.max_retries < 0:
        raise AdapterOptionsError(f"adapter {kind!r} option model: timeout must be > 0, max_retries >= 0")
    return endpoint


__all__ = ["Endpoint", "endpoint_from_settings"]
