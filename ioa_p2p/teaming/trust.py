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
``trust_age``, whichever comes first (measured in ``bench/bench_spam.py``).

Age is not evidence: a patient attacker that keeps its identities live past ``trust_age`` without doing
any work is no longer *young*, but it stays **unproven** (no signed task done, not trusted), and

- ``max_unproven``: a team takes at most this many unproven members, lead included, *unless nothing
  proven covers the need* (the same rule as ``max_young``). Waiting buys a patient identity no team slot
  that a proven agent able to do the work would take; only a task done for this node (or the operator's
  trust) does. While this node has evidence for nobody (a new node), nobody is unproven.

The lead is capped too (:func:`~ioa_p2p.teaming.offline.lead_first`): a young or unproven best card
leads only when no card the caps leave alone comes within ``LEAD_MARGIN`` (one standard deviation of
the score) of it; otherwise the best such card leads and the young or unproven one may still join as a
member, within the caps.

:class:`TeamCaps` carries both caps to team formation (:func:`~ioa_p2p.teaming.join.grow_team`,
:func:`~ioa_p2p.teaming.offline.choose_team`, :func:`~ioa_p2p.teaming.coverage.cover_steps`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ioa_p2p.errors import UsageError

#: Fused units off a young card's score (one standard deviation of the matcher's calibrated score).
YOUNG_PENALTY = 1.0
#: Young members a team takes at most (unless nothing else covers a need).
MAX_YOUNG = 1
#: Seconds a card must have been held before its identity counts as established.
TRUST_AGE = 3600.0
#: Unproven members (no signed task done for this node, not trusted) a team takes at most, lead included,
#: unless nothing proven covers a need.
MAX_UNPROVEN = 1


@dataclass(frozen=True, slots=True)
class TrustPolicy:
    """What a young card costs (module docstring); :data:`OFF` turns it off."""

    young_penalty: float = YOUNG_PENALTY
    max_young: int | None = MAX_YOUNG
    trust_age: float = TRUST_AGE
    max_unproven: int | None = MAX_UNPROVEN

    def __post_init__(self) -> None:
        if self.young_penalty < 0 or self.trust_age < 0:
            raise UsageError("young_penalty and trust_age are non-negative")
        for name in ("max_young", "max_unproven"):
            cap = getattr(self, name)
            if cap is not None and cap < 0:
                raise UsageError(f"{name} is a non-negative count (or None: no cap)")

    def caps(
        self,
        young: Collection[str],
        unproven: Collection[str],
        spent: Collection[str] = (),
        *,
        strict: bool = False,
        unproven_left: int | None = None,
    ) -> TeamCaps:
        """The team caps of this policy over these ``young`` and ``unproven`` keys (and the ``spent``
        ones: :func:`~ioa_p2p.teaming.exposure.spent_keys`; ``strict``: they never join as members).
        ``unproven_left``: the member slots the window still gives unproven identities over all teams
        (:func:`~ioa_p2p.teaming.exposure.unproven_slots_left`; None: no such bound): this team's cap on
        unproven members is at most that."""
        young, unproven = frozenset(young), frozenset(unproven)
        cap = self.max_unproven
        if cap is None or unproven_left is None:
            return TeamCaps(young, self.max_young, unproven, cap, frozenset(spent), strict)
        left = max(0, unproven_left)
        return TeamCaps(young, self.max_young, unproven, min(cap, left), frozenset(spent), strict, left)


OFF = TrustPolicy(0.0, None, 0.0, None)


def young_keys(
    first_seen: Mapping[str, float], proven: Collection[str], *, now: float, trust_age: float
) -> frozenset[str]:
    """The keys held for less than ``trust_age`` seconds (``first_seen``: when this node first held a card
    of each, in seconds) with no evidence behind them (``proven``: a signed task done, or trusted)."""
    cutoff = now - trust_age
    return frozenset(k for k, t in first_seen.items() if t > cutoff and k not in proven)


def unproven_keys(keys: Collection[str], proven: Collection[str]) -> frozenset[str]:
    """The ``keys`` with no evidence behind them (``proven``: a signed task done, or trusted), however long
    they were held; none while nothing is proven (a node with no evidence yet treats everyone alike)."""
    proven = frozenset(proven)
    if not proven & frozenset(keys):
        return frozenset()
    return frozenset(k for k in keys if k not in proven)


def trust_priors(young: Collection[str], policy: TrustPolicy) -> dict[str, float]:
    """The prior each young key gets (``-young_penalty``; nothing for the others)."""
    if not policy.young_penalty:
        return {}
    return dict.fromkeys(young, -policy.young_penalty)


def over_cap(key: str, team: Collection[str], young: Collection[str], max_young: int | None) -> bool:
    """Whether ``key`` is one of ``young`` and ``team`` already holds ``max_young`` of them (any capped set:
    young or unproven keys)."""
    if max_young is None or key not in young:
        return False
    return sum(k in young for k in team) >= max_young


@dataclass(frozen=True, slots=True)
class TeamCaps:
    """How many young and how many unproven members a team takes at most (module docstring); a cap of
    None is no cap. ``spent``: identities that joined as many of this node's recent teams as their
    exposure budget allows (:mod:`~ioa_p2p.teaming.exposure`), capped at none: one joins only when it
    is still needed after a penalty and no other candidate able to join is there, or with ``strict``
    never as a member (it may still lead). ``unproven_left``: the member slots the window still gives
    unproven identities over all of this node's teams (:func:`~ioa_p2p.teaming.exposure.unproven_slots_left`;
    None: no such bound); past them (:meth:`over_total`) an unproven candidate no proven one can replace
    joins only for a need it covers clearly better than every chosen member
    (:func:`~ioa_p2p.teaming.join.grow_team`), not merely as the one candidate left above the join
    threshold, and with none left (:meth:`closed_to`) an unproven card leads only when clearly best.
    ``barred``: spent identities that never join as members, however needed (``strict`` for them alone:
    the spent ones that reached this node in a flood of new identities and have not yet shed it by work
    here, :mod:`~ioa_p2p.dht.arrival`; they may still lead). :data:`NO_CAPS` caps nothing."""

    young: frozenset[str] = frozenset()
    max_young: int | None = None
    unproven: frozenset[str] = frozenset()
    max_unproven: int | None = None
    spent: frozenset[str] = frozenset()
    strict: bool = False
    unproven_left: int | None = None
    barred: frozenset[str] = frozenset()

    def blocks(self, key: str, team: Collection[str]) -> bool:
        """Whether ``team`` is full of young or of unproven members for ``key`` (one of them), or ``key``
        is spent."""
        return key in self.spent or self.capped(key, team)

    def limited(self, key: str) -> bool:
        """Whether some cap could ever block ``key`` (it is young or unproven under a cap, or spent)."""
        return (
            key in self.spent
            or (self.max_young is not None and key in self.young)
            or (self.max_unproven is not None and key in self.unproven)
        )

    def tier(self, key: str) -> int:
        """How limited ``key`` is: 0 not at all, 1 young or unproven under a cap, 2 spent (its budget of
        this node's teams used: :mod:`~ioa_p2p.teaming.exposure`), 3 unproven while the window's unproven
        slots are given (:meth:`closed_to`: a proven agent that is busy is worth more than an unknown
        one); the lead goes to the least limited card within the margin
        (:func:`~ioa_p2p.teaming.offline.lead_first`)."""
        if self.closed_to(key):
            return 3
        if key in self.spent:
            return 2
        return 1 if self.limited(key) else 0

    def capped(self, key: str, team: Collection[str]) -> bool:
        """Whether ``team`` is full of young or of unproven members for ``key`` (one of them)."""
        return over_cap(key, team, self.young, self.max_young) or over_cap(
            key, team, self.unproven, self.max_unproven
        )

    def closed_to(self, key: str) -> bool:
        """Whether ``key`` is unproven while the window gives unproven identities no slot any more."""
        return self.unproven_left == 0 and key in self.unproven

    def over_total(self, key: str, team: Collection[str]) -> bool:
        """Whether ``key`` is unproven and ``team`` holds as many unproven members as the window's slots
        left (``unproven_left``)."""
        if self.unproven_left is None or key not in self.unproven:
            return False
        return sum(k in self.unproven for k in team) >= self.unproven_left

    @property
    def active(self) -> bool:
        """Whether some key is capped at all (team formation then widens its pools)."""
        return bool(self.young or self.unproven or self.spent)


NO_CAPS = TeamCaps()


def trim_to_caps(keys: Sequence[str], caps: TeamCaps, stand_ins: Sequence[str] = ()) -> list[str]:
    """``keys`` (a team another rule chose, best first: the LLM team-up's pick from the shortlist) within
    ``caps``: a member that ``caps`` blocks, given those kept before it, is replaced by the first of
    ``stand_ins`` (the offline team, which covered the goal's needs within the caps) that is not in the
    team and that no cap blocks; when none is left, the blocked member stays (nothing else covers what
    it was chosen for, the rule of :class:`TeamCaps`), unless it is ``barred``. The first member always
    stays."""
    kept: list[str] = []
    spare = [k for k in stand_ins if k not in keys]
    for key in keys:
        if kept and caps.blocks(key, kept):
            stand_in = next((k for k in spare if k not in kept and not caps.blocks(k, kept)), None)
            if stand_in is not None:
                spare.remove(stand_in)
                key = stand_in
            elif key in caps.barred:
                continue
        if key not in kept:
            kept.append(key)
    return kept


__all__ = [
    "MAX_UNPROVEN",
    "MAX_YOUNG",
    "NO_CAPS",
    "OFF",
    "TRUST_AGE",
    "YOUNG_PENALTY",
    "TeamCaps",
    "TrustPolicy",
    "over_cap",
    "trim_to_caps",
    "trust_priors",
    "unproven_keys",
    "young_keys",
]
