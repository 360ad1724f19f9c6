"""Age- and evidence-weighted trust in team formation: young, unproven cards compete for fewer slots (pure).

Identities are free, so a stranger can mint a thousand cards that each read like one plausible agent (a
paraphrase of an honest card, two honest skills joined): no trait of the card gives them away, and each
ranks about as well as the honest card it copies. What such a swarm cannot fake cheaply is *time* and
*evidence*:

- **evidence**: a signed task outcome behind the agent in the histories this node holds (a result of its
  own marked ``ok``: :class:`~ioa_p2p.conversation.reputation.Standing` ``done``), or the operator's trust
  (``[goals] trusted``: peers named in the config);
- **age**: how long this node has held a card of the identity (:attr:`~ioa_p2p.dht.directory.Entry.first_ms`,
  kept across versions). An identity must keep its card live, republished and stamped, for ``trust_age``
  seconds before it counts as established, within the node's total rate limit on new identities.

A card with neither is **young**. :class:`TrustPolicy` says what that costs it:

- ``young_penalty`` fused units off its score in every ranking (a prior, like reputation: one standard
  deviation of the matcher's score by default), so that a young paraphrase ranks below the established
  card it copies, while a young card that is clearly the best match still wins;
- ``max_young``: a team takes at most this many young members (:func:`~ioa_p2p.teaming.join.grow_team`)
  *unless nothing else covers the need*: when the cap is reached and the best candidate is young, the best
  established candidate that reaches the join threshold joins instead; when none does, the young one may
  join (a young agent that is the only one able to do a step is not shut out).

The cost to an honest newcomer is the same penalty until its first task done for this node or
``trust_age``, whichever comes first (measured in ``bench/bench_spam.py``). A patient attacker that waits
out ``trust_age`` with every identity is slowed, not stopped: then only the evidence counts (reputation,
:mod:`ioa_p2p.conversation.reputation`), and the stamp and the rate limits bound how many identities it
keeps live.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ioa_p2p.errors import UsageError

#: Fused units off a young card's score (one standard deviation of the matcher's calibrated score).
YOUNG_PENALTY = 1.0
#: Young members a team takes at most (unless nothing else covers a need).
MAX_YOUNG = 1
#: Seconds a card must have been held before its identity counts as established.
TRUST_AGE = 3600.0


@dataclass(frozen=True, slots=True)
class TrustPolicy:
    """What a young card costs (module docstring); :data:`OFF` turns it off."""

    young_penalty: float = YOUNG_PENALTY
    max_young: int | None = MAX_YOUNG
    trust_age: float = TRUST_AGE

    def __post_init__(self) -> None:
        if self.young_penalty < 0 or self.trust_age < 0:
            raise UsageError("young_penalty and trust_age are non-negative")
        if self.max_young is not None and self.max_young < 0:
            raise UsageError("max_young is a non-negative count (or None: no cap)")


OFF = TrustPolicy(0.0, None, 0.0)


def young_keys(
    first_seen: Mapping[str, float], proven: Collection[str], *, now: float, trust_age: float
) -> frozenset[str]:
    """The keys held for less than ``trust_age`` seconds (``first_seen``: when this node first held a card
    of each, in seconds) with no evidence behind them (``proven``: a signed task done, or trusted)."""
    cutoff = now - trust_age
    return frozenset(k for k, t in first_seen.items() if t > cutoff and k not in proven)


def trust_priors(young: Collection[str], policy: TrustPolicy) -> dict[str, float]:
    """The prior each young key gets (``-young_penalty``; nothing for the others)."""
    if not policy.young_penalty:
        return {}
    return dict.fromkeys(young, -policy.young_penalty)


def over_cap(key: str, team: Collection[str], young: Collection[str], max_young: int | None) -> bool:
    """Whether ``key`` is young and ``team`` already holds ``max_young`` young members."""
    if max_young is None or key not in young:
        return False
    return sum(k in young for k in team) >= max_young


__all__ = [
    "MAX_YOUNG",
    "OFF",
    "TRUST_AGE",
    "YOUNG_PENALTY",
    "TrustPolicy",
    "over_cap",
    "trust_priors",
    "young_keys",
]
