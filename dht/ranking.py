"""Ranking the directory's cards for a query with the offline matcher (pure: no I/O, no clock).

:class:`CardRanker` keeps a :class:`~ioa_p2p.matching.HybridMatcher` in step with a
:class:`~ioa_p2p.dht.directory.Directory`: every stored card is indexed under its peer id with its
:class:`~ioa_p2p.matching.CardProfile` (name, description, skills, task types and, on version 2 cards, the
structured capability fields).

Mixed-version networks: a card whose vector was made under the matcher's scheme (``card.model`` equals
the matcher's :attr:`~ioa_p2p.matching.HybridMatcher.model_id` and ``card.dim`` its ``dim``) is indexed
with that vector as published; a card of any other model (an older node's ``wordllama/l2_supercat/256``,
an OpenAI embedder) is re-embedded locally from its text. Either way every card is ranked by the same
signals, so the answer does not depend on which version each peer runs.

Re-embedding costs a MiniLM pass per card (a few ms), so :meth:`CardRanker.add` only queues the card;
:meth:`CardRanker.refresh` embeds the queue in one batch. The node calls ``refresh`` and ``rank`` in a
worker thread; a lock serialises them, so concurrent finds are safe.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable

import numpy as np

from ioa_p2p.card import AgentCard, SignedCard
from ioa_p2p.matching import CardProfile, HybridMatcher, Match

#: Cards embedded per batch by :meth:`CardRanker.refresh` (bounds one pass of the model).
BATCH = 256


def card_profile(card: AgentCard) -> CardProfile:
    """What the matcher knows of a card: its text fields and its structured capability fields."""
    extra = {
        name: tuple(getattr(card, name, ()) or ())
        for name in ("languages", "input_types", "output_types", "tools")
        if getattr(card, name, None)
    }
    return CardProfile.make(
        card.name, card.description, skills=card.skills, task_types=card.task_types, **extra
    )


class CardRanker:
    """The directory's cards in a matcher, keyed by peer id string (see the module docstring)."""

    def __init__(self, matcher: HybridMatcher) -> None:
        self.matcher = matcher
        self._lock = threading.Lock()
        self._pending: dict[str, SignedCard] = {}
        self.reembedded = 0  # cards of another model embedded locally (a mixed-version network)

    @property
    def model_id(self) -> str:
        return self.matcher.model_id

    def compatible(self, card: SignedCard) -> bool:
        """True when the card's published vector is in this matcher's scheme."""
        return card.model == self.matcher.model_id and card.card.dim == self.matcher.dim

    def add(self, card: SignedCard) -> None:
        """Queue ``card`` (a new card, or a new version of a card) for :meth:`refresh`."""
        with self._lock:
            self._pending[str(card.peer_id)] = card

    def remove(self, key: str) -> None:
        with self._lock:
            self._pending.pop(key, None)
            self.matcher.remove([key])

    def pending(self) -> int:
        return len(self._pending)

    def refresh(self) -> int:
        """Index every queued card (embedding the foreign ones); returns how many were indexed."""
        with self._lock:
            return self._refresh_locked()

    def rank(self, query: str, k: int, *, among: Collection[str] | None = None) -> list[Match]:
        """The ``k`` best indexed cards for ``query``, after indexing the queue."""
        with self._lock:
            self._refresh_locked()
            return self.matcher.rank(query, k, among=among)

    def ranked_keys(self, query: str, k: int, *, exclude: Iterable[str] = ()) -> list[tuple[str, float]]:
        """``(peer id, calibrated score)`` of the ``k`` best cards, ``exclude`` left out."""
        skip = set(exclude)
        found = self.rank(query, k + len(skip))
        return [(m.key, m.score) for m in found if m.key not in skip][:k]

    def _refresh_locked(self) -> int:
        done = 0
        while self._pending:
            batch = dict(list(self._pending.items())[:BATCH])
            profiles = {key: card_profile(card.card) for key, card in batch.items()}
            vectors = {
                key: np.asarray(card.embedding(), dtype=np.float32)
                for key, card in batch.items()
                if self.compatible(card)
            }
            self.matcher.index(profiles, vectors)
            self.reembedded += len(batch) - len(vectors)
            for key in batch:
                self._pending.pop(key, None)
            done += len(batch)
        return done


__all__ = ["BATCH", "CardRanker", "card_profile"]
