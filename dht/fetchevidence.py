"""Fetch slots for proven candidates: evidence that costs no fetch decides who wins the last slots (pure).

A page search fetches ``count`` cards (24) out of the sketches it listed (:mod:`~ioa_p2p.dht.fetchchoice`),
and the node's ranker and team choice see nothing else. Under a flood of plausible cards from fresh or
patient identities (ten per honest card), 85 % of the fetch was spam: for many needs of a goal no
candidate this node has worked with was among the fetched cards, so its trust rules had no proven card to
prefer and an unproven one "covered a need nothing else covers" (``docs/matching.md``, "A total bound on
unproven members per window"). Which sketches are spam the sketch cannot say; what this node knows
without a fetch can:

- **Proven** (``proven``): a signed task done for this node, or trusted by its operator
  (``node/goals/reputation.py`` ``ReputationBook.proven``; evidence from this node's own signed
  histories, never a claim). Up to :data:`PROVEN_SHARE` of the slots are kept for proven candidates of
  the pool whose score comes within :data:`PROVEN_MARGIN` of the last slot the score alone would fill
  (:func:`proven_first`): they replace the *last* unproven picks, never the best ones, so a proven card
  that ranks high for the query is fetched, and one far off the query is not. Among copies of one content,
  a proven member comes before an unproven one (after a held one: it costs no fetch).
- **Held** and **reputation** act in :func:`~ioa_p2p.dht.fetchchoice.choose_fetch` already (held cards
  first among copies; a negative prior lowers a sketch's score); a young, never-held peer's penalty is the
  node's first-seen time (``CardSearch.settled``).

- **Arrival** (:mod:`~ioa_p2p.dht.arrival`, ``flood`` in :func:`~ioa_p2p.dht.fetchchoice.choose_fetch`):
  the identities that reached this node in a flood of new ones lose score before the fetch, which is
  what a node with no signed outcomes yet has (a cold node: no proven peer to give slots to).

Left out on purpose: a stamp above the network's ``min_stamp_bits`` earns nothing (an attacker buys bits
per identity for minutes of CPU; an honest card at the default would lose its slot to one that paid); a
page entry's bucket count is one per table by construction (a storing peer admits an entry only in its
own cell: :func:`~ioa_p2p.dht.pages.check_entry`), so it tells nothing; and which source put an entry is
known to the storing peer only (its rate limits per source network act there).

Measured: ``bench/bench_spam.py --pages --fetch-only --warm`` and ``--pages --matcher lite --warm``
(``docs/performance.md``, "Spam: proven candidates win fetch slots").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: Share of the fetch's distinct slots kept for proven candidates (rounded up).
PROVEN_SHARE = 0.25
#: Score units (standardised cosines, :class:`~ioa_p2p.dht.sketchscore.SketchScorer`: one unit is about
#: 0.04-0.08 of a wordllama cosine) a proven candidate may score below the last slot the score alone fills.
PROVEN_MARGIN = 3.0


def proven_slots(count: int, share: float = PROVEN_SHARE) -> int:
    """Slots of ``count`` kept for proven candidates: ``ceil(share * count)``, never more than ``count``."""
    if count <= 0 or share <= 0:
        return 0
    return min(count, math.ceil(share * count))


def proven_first(
    scores: Sequence[float],
    proven: Sequence[bool],
    count: int,
    *,
    share: float = PROVEN_SHARE,
    margin: float = PROVEN_MARGIN,
) -> list[int]:
    """Indices of the ``count`` candidates to fetch, from candidates already in the order the score ranks
    them (``scores`` their scores, ``proven`` whether each is proven): the first ``count``, except that
    proven candidates past them whose score is at least the ``count``-th score minus ``margin`` take the
    places of the last unproven ones, until :func:`proven_slots` of the chosen are proven. The result is in
    the given order (a proven candidate that moved in keeps its rank among the chosen)."""
    if len(scores) != len(proven):
        raise ValueError("scores and proven differ in length")
    n = min(count, len(scores))
    if n <= 0:
        return []
    chosen = list(range(n))
    want = proven_slots(count, share) - sum(proven[i] for i in chosen)
    if want <= 0 or n == len(scores):
        return chosen
    line = scores[n - 1] - margin
    movers = [i for i in range(n, len(scores)) if proven[i] and scores[i] >= line][:want]
    leaving = [i for i in reversed(chosen) if not proven[i]][: len(movers)]
    return sorted((set(chosen) - set(leaving)) | set(movers[: len(leaving)]))


__all__ = ["PROVEN_MARGIN", "PROVEN_SHARE", "proven_first", "proven_slots"]
