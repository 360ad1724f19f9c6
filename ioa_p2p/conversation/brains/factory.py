"""Choosing the brain a node uses from its ``[model]`` config (or the OPENAI_* environment)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ioa_p2p.conversation.brains.base import Brain


def make_brain(
    settings: Mapping[str, Any] | None, *, embedder: Any, env: Mapping[str, str] | None = None
) -> Brain:
    """The brain the ``[model]`` config (or OPENAI_* environment) asks for; offline when none is set."""
    from ioa_p2p.conversation.brains.llm import LLMBrain
    from ioa_p2p.conversation.brains.offline import OfflineBrain
    from ioa_p2p.llm.openai_compat import model_from_settings

    offline = OfflineBrain(embedder)
    model = model_from_settings(settings, env)
    return offline if model is None else LLMBrain(model, fallback=offline)


__all__ = [
    "make_brain",
]
