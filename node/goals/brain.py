"""The brain this node speaks with in goal chats, from ``[goals] brain`` and ``[model]``.

:func:`make_brain_for`: the offline planner (no model), or the LLM brain over the ``[model]`` table (or
``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``) with the offline planner as its fallback; the model is wrapped in
:class:`~ioa_p2p.node.goals.model_calls.GuardedModel` (retries only within the caller's deadline).
``[goals] brain = "offline"`` forces the planner; ``"llm"`` without a model is a :class:`ConfigError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ioa_p2p.conversation.brains.base import CONTEXT_TOKENS, OFFLINE_LABEL, Brain
from ioa_p2p.conversation.brains.deferred import DeferredBrain
from ioa_p2p.embedding import Embedder
from ioa_p2p.errors import ConfigError
from ioa_p2p.llm.model import Model
from ioa_p2p.llm.openai_compat import model_from_settings
from ioa_p2p.llm.settings import ModelSettings
from ioa_p2p.node.goals.model_calls import GuardedModel
from ioa_p2p.node.goals.types import GoalsConfig
from ioa_p2p.telemetry.tracer import NOOP_TRACER, Tracer

if TYPE_CHECKING:
    from ioa_p2p.conversation.brains.offline import OfflineBrain


def make_brain_for(
    config: GoalsConfig,
    settings: Mapping[str, Any],
    embedder: Embedder,
    env: Mapping[str, str] | None = None,
    tracer: Tracer = NOOP_TRACER,
) -> tuple[Brain, Model | None]:
    """The brain ``[goals] brain`` and ``[model]`` ask for, and its model (None for the offline planner).

    The offline planner is made at its first turn (:class:`DeferredBrain`): an agent that waits for work
    does not hold the planner's modules (issue 26); the LLM brain, given a model, is made now."""
    offline = DeferredBrain(lambda: _offline_brain(embedder), OFFLINE_LABEL)
    if config.brain == "offline":
        return offline, None
    raw = model_from_settings(settings, env)
    if raw is None:
        if config.brain == "llm":
            raise ConfigError(
                "[goals] brain = 'llm' needs a [model] table or OPENAI_API_KEY / OPENAI_BASE_URL"
            )
        return offline, None
    from ioa_p2p.conversation.brains.llm import LLMBrain

    parsed = ModelSettings.from_section(settings)
    context_tokens = parsed.context_tokens or CONTEXT_TOKENS
    model = GuardedModel(raw, retries=parsed.max_retries, tracer=tracer)
    fallback = _offline_brain(embedder)
    brain = LLMBrain(model, fallback=fallback, context_tokens=context_tokens, max_tokens=raw.max_tokens)
    return brain, model


def _offline_brain(embedder: Embedder) -> OfflineBrain:
    from ioa_p2p.conversation.brains.offline import OfflineBrain

    return OfflineBrain(embedder)


__all__ = ["make_brain_for"]
