"""Near-duplicate crowds count as one candidate: kin groups in team formation and ``find`` (pure).

Identities are free: an attacker mints ten cards that each paraphrase one honest card (or one another),
and each of the ten ranks about as well as the card it copies. Counted one by one they win ten chances
at every slot a team or a top 5 offers. Counted as one, they compete *with each other* for one.

Two cards are **kin** when their card vectors are closer than the population's unrelated cards ever are:
the cosine ``threshold`` is ``median + z * spread`` of the cosines of *random pairs* of cards
(:func:`kin_threshold`; the spread is the median absolute deviation scaled to a standard deviation, and
:data:`KIN_Z` = 7.5). It is relative to the embedding model (a model whose vectors share a large common
component has a high median) and to the population (a network of generalists), and robust: a crowd of
copies, whose pairs are all alike, does not widen the spread. The population is the *proven* cards (a
signed task done for this node, or trusted) once there are :data:`MIN_REFERENCE` of them, so a flood
cannot move the line; before that, every card held (a flood of paraphrases raises the median, so the
line moves *up*: grouping gets more cautious, never more aggressive).

Measured on the 160 honest agents of the hard dev set (written with near-miss agents on purpose) and
the held-out attacker's 1,600 cards (``bench/spam_attacks.py``), with the honest cards as the
population: wordllama alone (``lite``) line 0.65, wordllama + MiniLM (``hybrid``) 0.61, against an
honest card's nearest honest neighbour at 0.55 / 0.57 at most (no honest card is kin to another), while
52 % / 59 % of the attacker's cards have an honest card above the line. With every card as the
population (a node with no evidence, under the flood) the lines are 0.83 / 0.82 and 29 % / 26 % of the
attacker's cards are caught. The hashing embedder's cosines are heavy-tailed (its line is 0.93): there
the rule is cautious and catches near-verbatim copies only.

**Groups** (:func:`kin_groups`) are formed by *leaders*, in seniority order (:func:`seniority`): proven
cards first (a signed task done for this node, or trusted), then by how long this node has held the
card (first held first), then by key. Each card joins the first leader it is kin to, or leads a group
of its own. There is no chaining: a card kin to two leaders joins one, and two leaders are never
merged through it, so a card written halfway between two honest cards cannot tie them together and
suppress one of them. A copy necessarily comes after the card it copies, so the original leads its
copies unless a copy earned evidence the original lacks.

In a team a group is one candidate: only its leader may join (:func:`followers` are left out of the
pool); in ``find`` a follower ranks after every leader (``dht/ranking.py``). An honest card that is kin
to an earlier card (two near-identical agents) is one candidate with it, which costs nothing in a team
(it brings what the earlier one brings) and is measured in ``bench/bench_spam.py`` (mode ``kin``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ioa_p2p.errors import UsageError

#: Spreads (scaled median absolute deviations) of the random-pair cosine above its median at which two
#: cards are kin.
KIN_Z = 7.5
#: The median absolute deviation times this estimates a normal distribution's standard deviation.
MAD_SCALE = 1.4826
#: Random pairs sampled to measure the population (the rows of at most this many cards).
SAMPLE = 256
#: Fewest cards for a population to say anything; with fewer nobody is kin.
MIN_CARDS = 16
#: Proven cards needed before they alone are the population (:func:`kin_threshold`).
MIN_REFERENCE = 50

Matrix = npt.NDArray[np.float32]


def kin_threshold(vectors: Matrix, *, z: float = KIN_Z, seed: int = 0) -> float:
    """The cosine above which two of these cards' vectors are kin: ``median + z * spread`` of the cosines
    of the pairs among at most :data:`SAMPLE` rows (the spread: the median absolute deviation, scaled to a
    standard deviation; robust, so a crowd of copies, whose pairs are all alike, does not widen it); a
    fixed-seed sample, so the same index gives the same line; above 1 (nobody is kin) for fewer than
    :data:`MIN_CARDS` rows."""
    n = len(vectors)
    if n < MIN_CARDS:
        return 2.0
    rows = vectors
    if n > SAMPLE:
        rows = vectors[np.random.default_rng(seed).choice(n, SAMPLE, replace=False)]
    units = _units(rows)
    cosines = (units @ units.T)[np.triu_indices(len(units), 1)]
    median = float(np.median(cosines))
    spread = MAD_SCALE * float(np.median(np.abs(cosines - median)))
    return median + z * spread


def seniority(keys: Collection[str], proven: Collection[str], held: Mapping[str, float]) -> list[str]:
    """``keys`` most senior first: proven ones, then by when this node first held them (``held``; a key
    missing from it last), then by key."""
    late = float("inf")
    return sorted(keys, key=lambda k: (k not in proven, held.get(k, late), k))


def kin_groups(order: Sequence[str], vectors: Matrix, threshold: float) -> dict[str, str]:
    """Each key of ``order`` (most senior first; row ``i`` of ``vectors`` is ``order[i]``) and the leader
    of its group: the first more senior leader whose vector it is kin to (cosine ``>= threshold``), or
    itself (module docstring)."""
    if len(order) != len(vectors):
        raise UsageError("kin_groups needs one vector per key")
    units = _units(vectors)
    leaders: list[int] = []
    out: dict[str, str] = {}
    for i, key in enumerate(order):
        if leaders:
            close = units[leaders] @ units[i] >= threshold
            if close.any():
                out[key] = order[leaders[int(np.argmax(close))]]
                continue
        leaders.append(i)
        out[key] = key
    return out


@dataclass(frozen=True, slots=True)
class Kinship:
    """What team formation needs to count kin as one: the cards' ``vectors`` (by key, from the matcher),
    the kin ``threshold`` (:func:`kin_threshold`), and each key's seniority (``proven``, ``held``)."""

    vectors: Callable[[Sequence[str]], Matrix]
    threshold: float
    proven: frozenset[str] = frozenset()
    held: Mapping[str, float] | None = None

    def followers(self, keys: Collection[str]) -> dict[str, str]:
        """The ``keys`` that follow another of them (key -> its leader); leaders are left out."""
        if self.threshold > 1.0 or len(keys) < 2:
            return {}
        order = seniority(keys, self.proven, self.held or {})
        groups = kin_groups(order, self.vectors(order), self.threshold)
        return {k: leader for k, leader in groups.items() if k != leader}


def leaders_first(ranked: Sequence[str], followers: Mapping[str, str]) -> list[str]:
    """``ranked`` (best first) with every follower moved after every leader, each part in its order: a
    crowd of kin shows its leader once, then the other cards, then the crowd."""
    return [k for k in ranked if k not in followers] + [k for k in ranked if k in followers]


def _units(vectors: Matrix) -> Matrix:
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return (array / np.where(norms == 0.0, 1.0, norms)).astype(np.float32)


__all__ = [
    "KIN_Z",
    "MIN_CARDS",
    "MIN_REFERENCE",
    "SAMPLE",
    "Kinship",
    "kin_groups",
    "kin_threshold",
    "leaders_first",
    "seniority",
]
