"""How many unrelated things a card claims: the discount for cards that match everything (pure).

A keyword-stuffed card ("expert in Python, SQL, translation, legal advice, weather, cooking ...") ranks
high for every query that mentions any of them. Its claims are *unrelated to each other*, which a
specialist's are not, and that can be measured from the card alone, whatever the other cards (a spammer
who floods the directory with such cards cannot make them look normal by their number):

- the card's items are the parts of its description (cut at sentence ends, commas, semicolons, slashes,
  "and"/"or") and its skills, task types and structured fields, each a short text (at most
  :data:`MAX_ITEMS`);
- each item is embedded (wordllama, unit rows), and the breadth is the participation ratio of their Gram
  matrix, ``(sum of eigenvalues)^2 / (sum of squared eigenvalues)``: about 1 when the items say the same
  thing in different words, about the number of items when they are unrelated. The 160 agents of the
  teaming dev data set measure 4.7 at the median, 8.3 at the 99th percentile, 8.6 at most; ten
  concatenated descriptions measure 33-39 and a list of twenty skills 19 (``docs/matching.md``);
- :func:`breadth_discount` is ``weight * log2(breadth / free)`` above ``free`` (default 8 topics), capped:
  in the fused score units of :class:`~ioa_p2p.matching.HybridMatcher` (its priors), so a card claiming
  16 unrelated things loses ``weight`` (2) and one claiming 64 loses ``3 * weight``.

**Against the card population** (:func:`free_topics`): what counts as broad depends on the network (a
network of generalist LLM agents claims more per card than the dev data's specialists). With at least
:data:`MIN_REFERENCE` *reference* cards, ``free`` is the 99th percentile of their breadths (never below
:data:`MIN_FREE`); the reference cards are the ones this node has evidence for
(``ioa_p2p.teaming.trust``: a signed task done, or trusted; never age alone, which a patient attacker
can wait out), so a flood of stuffed cards cannot move the line, whatever their number or age. With
fewer, :data:`FREE_TOPICS` (the dev data's 99th percentile).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from .profile import CardProfile

MAX_ITEMS = 64
#: Breadth below which a card is not discounted (above the honest agents of the dev data, ``docs``).
FREE_TOPICS = 8.0
#: Reference cards needed before the population sets ``free`` (:func:`free_topics`), and its floor.
MIN_REFERENCE = 50
MIN_FREE = 4.0
#: The share of the reference population that is never discounted.
REFERENCE_QUANTILE = 0.99
#: Discount per doubling of the breadth above :data:`FREE_TOPICS`, in fused units, and its cap.
WEIGHT = 2.0
MAX_DISCOUNT = 6.0

#: The listed fields whose values count as separate claims (languages and media types do not: an agent
#: that reads ten languages claims one skill).
LISTED = ("skills", "task_types", "tools")
_SPLIT = re.compile(r"[.;:!?\n/|]+|,\s*|\s+(?:and|or|&|plus)\s+|[()\[\]]", re.IGNORECASE)

Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]


def card_items(profile: CardProfile) -> list[str]:
    """The separate claims of a card: description parts, then every listed field value."""
    parts = [p.strip() for p in _SPLIT.split(profile.description) if len(p.strip()) > 2]
    listed = [v for key in LISTED for v in getattr(profile, key)]
    return list(dict.fromkeys([*parts, *listed]))[:MAX_ITEMS]


def breadth(items: Sequence[str], embed: Embed) -> float:
    """The participation ratio of the items' embeddings (1.0 for fewer than two items)."""
    if len(items) < 2:
        return 1.0
    rows = np.asarray(embed(list(items)), dtype=np.float64)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    rows = rows / np.where(norms == 0, 1.0, norms)
    eigen = np.clip(np.linalg.eigvalsh(rows @ rows.T), 0.0, None)
    squares = float((eigen**2).sum())
    return 1.0 if squares == 0 else float(eigen.sum() ** 2 / squares)


def free_topics(reference: Sequence[float]) -> float:
    """The breadth above which a card is discounted, measured against the ``reference`` population's
    breadths (module docstring): their 99th percentile, at least :data:`MIN_FREE`; :data:`FREE_TOPICS`
    with fewer than :data:`MIN_REFERENCE` of them."""
    if len(reference) < MIN_REFERENCE:
        return FREE_TOPICS
    return max(MIN_FREE, float(np.quantile(np.asarray(reference, dtype=np.float64), REFERENCE_QUANTILE)))


def breadth_discount(value: float, *, free: float = FREE_TOPICS, weight: float = WEIGHT) -> float:
    """The (non-negative) amount taken off a card's fused score for its breadth."""
    if value <= free:
        return 0.0
    return min(MAX_DISCOUNT, weight * math.log2(value / free))


__all__ = [
    "FREE_TOPICS",
    "MAX_DISCOUNT",
    "MAX_ITEMS",
    "MIN_FREE",
    "MIN_REFERENCE",
    "WEIGHT",
    "breadth",
    "breadth_discount",
    "card_items",
    "free_topics",
]
