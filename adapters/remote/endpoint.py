"""The OpenAI-compatible endpoint a third-party agent library talks to (smolagents, Open Interpreter).

Same keys as the node's ``[model]`` table (docs/goals.md), read by the same section
(:class:`~ioa_p2p.llm.settings.ModelSettings`): ``model``, ``base_url``, ``api_key``, ``timeout``,
``max_retries``, ``temperature`` (the brain-only keys ``json_mode``, ``max_tokens``, ``context_tokens`` and
``max_response_bytes`` are accepted and not used here), each falling back to ``OPENAI_MODEL``,
``OPENAI_BASE_URL``, ``OPENAI_API_KEY``. The node fills an adapter's ``model`` option
from its own ``[model]`` table when the option is absent, so one endpoint serves the brain and the agent.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ioa_p2p.errors import AdapterOptionsError
from ioa_p2p.llm.settings import ModelSettings


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
    where = f"[agent.options.model] of adapter {kind!r}"
    parsed = ModelSettings.from_section(settings, where, AdapterOptionsError)
    env = os.environ if env is None else env
    base_url = parsed.base_url or env.get("OPENAI_BASE_URL") or None
    api_key = parsed.api_key or env.get("OPENAI_API_KEY") or ""
    if not base_url and not api_key:
        raise AdapterOptionsError(
            f"adapter {kind!r} needs a model endpoint: set [agent.options] model = {{base_url = ..., "
            "model = ...}}, a [model] table, or OPENAI_BASE_URL / OPENAI_API_KEY"
        )
    return Endpoint(
        model=parsed.model or env.get("OPENAI_MODEL") or "gpt-4o-mini",
        base_url=base_url,
        api_key=api_key or "unused",
        timeout=parsed.timeout,
        max_retries=parsed.max_retries,
        temperature=parsed.temperature,
    )


__all__ = ["Endpoint", "endpoint_from_settings"]
