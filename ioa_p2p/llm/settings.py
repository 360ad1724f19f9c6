"""The ``[model]`` table (``[llm]`` is its older name): one OpenAI-compatible endpoint and how it is used.

Keys: ``model``, ``base_url``, ``api_key`` (each falling back to ``OPENAI_MODEL``, ``OPENAI_BASE_URL``,
``OPENAI_API_KEY``), ``timeout`` (seconds per read; callers bound the whole call), ``max_retries``
(0..10, retries within the caller's bound), ``temperature``, ``json_mode``, ``max_tokens``,
``context_tokens`` (the prompt budget of the LLM brain, >= 512; read by the goals service) and
``max_response_bytes`` (a response body's size bound, :mod:`~ioa_p2p.llm.bounded_http`).

The node's brain reads it as ``[model]``; a model-using adapter reads the same keys from its ``model``
option (:mod:`ioa_p2p.adapters.remote.endpoint`), so one table serves both. Read by the one section parser
(:func:`~ioa_p2p.config.sections.parse_section`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.errors import ConfigError
from ioa_p2p.llm.bounded_http import DEFAULT_MAX_RESPONSE_BYTES

DEFAULT_MAX_TOKENS = 1024


@dataclass(frozen=True, slots=True)
class ModelSettings:
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = setting(120.0, above=0, unit="seconds")
    max_retries: int = setting(2, low=0, high=10)
    temperature: float | None = setting(None, low=0)
    json_mode: bool = True
    max_tokens: int = setting(DEFAULT_MAX_TOKENS, above=0)
    #: None: the brain's default prompt budget
    context_tokens: int | None = setting(None, low=512)
    max_response_bytes: int = setting(DEFAULT_MAX_RESPONSE_BYTES, above=0)

    @classmethod
    def from_section(
        cls, table: Mapping[str, Any] | None, where: str = "[model]", error: type[ConfigError] = ConfigError
    ) -> ModelSettings:
        """The parsed table; ``where`` names it in messages (an adapter's option: its own place, with
        :class:`~ioa_p2p.errors.AdapterOptionsError`)."""
        return parse_section(cls, table, where, error=error)


__all__ = ["DEFAULT_MAX_TOKENS", "ModelSettings"]
