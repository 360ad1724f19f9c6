"""The matcher port: what discovery and team formation need from any matching method (pure types).

A :class:`Matcher` indexes :class:`~ioa_p2p.matching.profile.CardProfile` objects under caller-chosen keys
(peer ids) and ranks them for a text query. Scores are calibrated: ``Match.score`` is in [0, 1] and
means the same for every query and directory size (see :mod:`~ioa_p2p.matching.calibration`), so callers
can threshold it. ``Match.fused`` is the raw fused score (standardised units) that margins are taken in.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from .calibration import Calibration
from .profile import CardProfile


@dataclass(frozen=True, slots=True)
class Match:
    """One ranked card: ``score`` is the calibrated probability in [0, 1], ``fused`` the raw fused score,
    ``parts`` the raw value of each signal (cosines, normalised BM25, late-interaction score)."""

    key: str
    score: float
    fused: float
    parts: Mapping[str, float]


@runtime_checkable
class Matcher(Protocol):
    """Ranks indexed cards for a query. Implementations: :class:`~ioa_p2p.matching.HybridMatcher`."""

    @property
    def model_id(self) -> str:
        """Versioned id of the card vectors this matcher makes (see ``docs/matching.md``)."""
        ...

    @property
    def calibration(self) -> Calibration: ...

    def index(self, cards: Mapping[str, CardProfile]) -> None:
        """Add or replace cards by key."""
        ...

    def remove(self, keys: Iterable[str]) -> None: ...

    def rank(self, query: str, k: int, *, among: Collection[str] | None = None) -> list[Match]:
        """The ``k`` best cards (of all, or of those ``among``) for ``query``, best first."""
        ...


__all__ = ["Match", "Matcher"]
