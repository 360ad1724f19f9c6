"""The simulated agents' identities, embeddings and real signed cards.

:meth:`CardSet.build` gives every agent an Ed25519 identity (derived from the seed, so runs repeat) and
embeds all descriptions at once with the embedder given (the node's card vectors are wordllama's by
default: ``card_text`` of the agent, as a node embeds its own card). :meth:`CardSet.issue` signs a card
version with the node's own :func:`~ioa_p2p.card.issue_card`, stamped with ``stamp_bits`` of proof of
work; the nonce found for an agent is reused by its later versions, as a node reuses it while its
content does not change. Minting costs ``2**stamp_bits`` hashes per agent, so simulations use a low
difficulty (the default node mints 18 bits: ~0.3 s a card on this project's machine).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ioa_p2p.card import SignedCard, SignedWithdrawal, card_text, issue_card, issue_withdrawal
from ioa_p2p.card.sketch import SignedSketch, issue_sketch
from ioa_p2p.dht.sim.corpus import AgentText
from ioa_p2p.embedding import Embedder, normalise
from ioa_p2p.identity import Identity

TTL_MS = 30 * 60 * 1000


@dataclass
class CardSet:
    """Agents, their identities and unit-length card vectors (row ``i`` is agent ``i``'s)."""

    agents: list[AgentText]
    identities: list[Identity]
    vectors: npt.NDArray[np.float32]
    model_id: str
    stamp_bits: int = 8
    stamps: dict[int, bytes] = field(default_factory=dict)
    sketch_stamps: dict[int, bytes] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    @classmethod
    def build(
        cls, agents: Sequence[AgentText], embedder: Embedder, *, seed: int = 1, stamp_bits: int = 8
    ) -> CardSet:
        rng = random.Random(seed)
        started = time.perf_counter()
        identities = [Identity(rng.randbytes(32)) for _ in agents]
        made = time.perf_counter()
        texts = [card_text(a.name, a.description, a.skills) for a in agents]
        vectors = normalise(embedder.embed(texts))
        out = cls(list(agents), identities, vectors, embedder.model_id, stamp_bits)
        out.timings = {"identities_s": made - started, "embed_s": time.perf_counter() - made}
        return out

    def __len__(self) -> int:
        return len(self.agents)

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def issue(self, index: int, now_ms: int, *, version: int | None = None, addrs: Any = ()) -> SignedCard:
        """A new signed card version of agent ``index`` issued at ``now_ms``."""
        agent = self.agents[index]
        card = issue_card(
            self.identities[index],
            name=agent.name,
            description=agent.description,
            skills=agent.skills,
            model=self.model_id,
            vector=self.vectors[index],
            addrs=addrs,
            version=now_ms if version is None else version,
            now_ms=now_ms,
            ttl_ms=TTL_MS,
            stamp_bits=self.stamp_bits,
            stamp=self.stamps.get(index, b""),
        )
        if self.stamp_bits:
            self.stamps[index] = getattr(card.card, "stamp", b"")
        return card

    def sketch(self, index: int, card: SignedCard, now_ms: int) -> SignedSketch:
        """The signed sketch of agent ``index``'s ``card`` (its vector is its own family's view), stamped
        with ``stamp_bits`` as the node stamps it (version 3; the nonce found is reused by later versions)."""
        sketch = issue_sketch(
            self.identities[index],
            version=card.version,
            model=self.model_id,
            vector=self.vectors[index],
            now_ms=now_ms,
            expires_at=card.card.expires_at,
            stamp_bits=self.stamp_bits,
            stamp=self.sketch_stamps.get(index, b""),
        )
        if self.stamp_bits:
            self.sketch_stamps[index] = getattr(sketch.body, "stamp", b"")
        return sketch

    def withdraw(self, index: int, now_ms: int, version: int) -> SignedWithdrawal:
        return issue_withdrawal(self.identities[index], version=version, now_ms=now_ms, reason="simulated")


__all__ = ["TTL_MS", "CardSet"]
