"""Exposure bounded per time: an identity joins a few of this node's teams per window until its evidence
has aged (pure).

Evidence of work cannot tell a *sleeper* from an honest agent: an attacker's identity that does every
task it gets, accepted by the requester, earns the standing an honest agent earns
(:mod:`~ioa_p2p.conversation.reputation`), and one done task used to make it *proven* at once, free of
the caps of :mod:`~ioa_p2p.teaming.trust`. Proven, it then won need after need over honest agents this
node had not worked with yet, each win earning more evidence: one sleeper identity joined 3-4 % of a
node's teams (``bench/bench_spam.py``, the patient attacker). What a thousand identities cannot buy
is *time with evidence*: each must earn its own, and this rule makes evidence count by how long it has
been on record, not by how much of it arrived at once.

:class:`ExposurePolicy`: over any ``window`` seconds, an identity may join at most
:meth:`~ExposurePolicy.budget` of the teams this node forms: ``per_window`` teams while no accepted
work of it is on record, and ``per_window`` more for every whole ``window`` since its first accepted
task for this node (``since``). An identity the operator trusts (``[goals] trusted``) has no budget. An
identity whose teams of the last window reached its budget is *spent* (:func:`spent_keys`;
:class:`~ioa_p2p.teaming.trust.TeamCaps` ``spent``):

- as a member its scores lose :data:`~ioa_p2p.teaming.offline.SPENT_PENALTY` (one standard deviation)
  and it yields to the best candidate no cap blocks, else to the best candidate that is not spent (the
  young and unproven caps yield to this bound), if either reaches the join threshold; it joins only when
  it is still needed after the penalty and no other candidate able to join is there (a small network's
  only calculator still joins every goal that needs it). With ``strict`` (``[goals] exposure_strict``)
  it never joins as a member;
- as the lead it yields to the best less limited card within
  :data:`~ioa_p2p.teaming.offline.LEAD_MARGIN` (:func:`~ioa_p2p.teaming.offline.lead_first`); a spent
  card that is clearly the goal's best match (nothing else within the margin) still leads;
- near-duplicates share one budget: a kin group's leader is spent when one of its followers is
  (:func:`~ioa_p2p.teaming.offline.shared_spent`);
- **a ceiling** (``over_budget``, :func:`ceiling_keys`): "still needed" lets a spent identity in only
  ``over_budget`` more teams per window; past its budget plus that it is *barred*
  (:class:`~ioa_p2p.teaming.trust.TeamCaps` ``barred``: never a member, however needed; it may still
  lead when clearly the best). Without it, a *sleeper* whose card crowds out the honest card it copies
  (the fetch held no other candidate for the need) was "needed" again and again: one such identity
  joined 1.7 % of 240 teams formed within one window (``bench/bench_spam.py``, the patient attacker).
  A need nothing else covers is then left uncovered for the rest of the window rather than given to an
  identity whose whole evidence here is younger than the window.

What it costs whom:

- an attacker: each identity gets ``per_window`` teams per window at first, then one more per window of
  evidence it keeps up, each paid with real accepted work; a thousand identities buy a thousand small
  shares, none large, and the kin rule (:mod:`~ioa_p2p.teaming.kin`) folds near-copies into one;
- an honest newcomer: the same path (one team per window at first, and a fair share grows with every
  window it keeps delivering); it still joins whenever nothing else covers what it brings;
- an established honest agent: nothing once its first accepted task here is a few windows old (its
  budget then exceeds what any one agent is asked for); on a node that has just started (no evidence on
  record) every agent is a newcomer for the first windows: the honest cost measured in
  ``bench/bench_spam.py`` (mode ``exposure``) and ``docs/matching.md``.

**A total over all identities** (``unproven_per_window``). A bound per identity does not bound how
many identities there are: with ten sleepers per honest card, each sleeper joining one team as a
newcomer (its budget) and doing its task, a sleeper was in 12.5 % of teams. Over any ``window`` the
teams this node forms give at most ``unproven_per_window`` member slots to identities unproven at the
time (no accepted work here before that team: :meth:`TeamLog.unproven_joins`): a team takes at most
the slots left (:func:`unproven_slots_left`; ``TeamCaps.unproven_left``), and past them an unproven
candidate joins only where no proven one can, for a need it covers clearly better than the team
(:func:`~ioa_p2p.teaming.join.grow_team`); once they are all given (:func:`newcomers_closed`) an
unproven card leads only when clearly better than any proven one
(:func:`~ioa_p2p.teaming.offline.lead_first`). Newcomers, honest or not, then share a few slots per
window, whatever the number of identities; a newcomer whose skill nothing proven covers still joins
every team that needs it. Its cost, how long an honest newcomer waits for its first team, is measured
in ``bench/bench_spam.py``.

:class:`TeamLog` is the memory of the teams this node formed (time and members, bounded); a node
rebuilds it from the chats it created (``node/goals/reputation.py``), so it survives restarts.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from ioa_p2p.errors import UsageError

#: Seconds over which an identity's teams are counted (and per which its budget grows).
EXPOSURE_WINDOW = 3600.0
#: Teams per window an identity may join with no accepted work on record (and the budget's step).
PER_WINDOW = 1
#: Member slots per window that all of this node's teams together give to unproven identities (no
#: accepted work here before that team), apart from those that nothing proven could fill; 0: no such
#: bound, the default (measured in ``bench/bench_spam.py``, mode ``total``: on a node that worked before
#: the attack it halved the teams with spam at a 13 % cost in honest team quality; on a node with no
#: evidence it helped little and let one early-proven sleeper into 3.3 % of teams: docs/matching.md).
UNPROVEN_PER_WINDOW = 0
#: Teams past its budget a spent identity may still join per window where nothing else can (then it is
#: barred: :func:`ceiling_keys`); None: no ceiling (before 2026-11-29).
OVER_BUDGET = 1
#: Teams a :class:`TeamLog` remembers at most (the oldest are forgotten first).
MAX_TEAMS = 4096


@dataclass(frozen=True, slots=True)
class ExposurePolicy:
    """How many of this node's teams per ``window`` seconds an identity may join (module docstring);
    ``per_window`` None: no bound (:data:`OFF`)."""

    window: float = EXPOSURE_WINDOW
    per_window: int | None = PER_WINDOW
    strict: bool = False  # a spent identity never joins as a member (else: when nothing else can)
    #: unproven members per window over all teams (:func:`unproven_slots_left`); None: no total bound
    unproven_per_window: int | None = UNPROVEN_PER_WINDOW or None
    #: teams past its budget a spent identity may still join per window (:func:`ceiling_keys`); None: no
    #: ceiling
    over_budget: int | None = OVER_BUDGET

    def __post_init__(self) -> None:
        if not self.window > 0:
            raise UsageError("the exposure window is a positive number of seconds")
        if self.per_window is not None and self.per_window < 1:
            raise UsageError("per_window is a positive count of teams (or None: no bound)")
        if self.unproven_per_window is not None and self.unproven_per_window < 1:
            raise UsageError("unproven_per_window is a positive count of members (or None: no bound)")
        if self.over_budget is not None and self.over_budget < 0:
            raise UsageError("over_budget is a count of teams, 0 or more (or None: no ceiling)")

    def budget(self, since: float | None, now: float) -> int | None:
        """Teams of one window an identity may join: ``per_window``, and ``per_window`` more for every
        whole window since its first accepted work for this node (``since``, seconds; None: none on
        record); None when this policy bounds nothing."""
        if self.per_window is None:
            return None
        windows = 0 if since is None else int(max(0.0, now - since) // self.window)
        return self.per_window * (1 + windows)


OFF = ExposurePolicy(per_window=None, unproven_per_window=None, over_budget=None)


class TeamLog:
    """The teams this node formed: when (seconds) and their members, oldest first, at most ``limit``."""

    def __init__(self, limit: int = MAX_TEAMS) -> None:
        if limit < 1:
            raise UsageError("a team log remembers at least one team")
        self._teams: deque[tuple[float, tuple[str, ...]]] = deque(maxlen=limit)

    def __len__(self) -> int:
        return len(self._teams)

    def record(self, when: float, keys: Iterable[str]) -> None:
        """A team formed at ``when`` with these members (lead included); out of order is fine."""
        self._teams.append((when, tuple(dict.fromkeys(keys))))

    def joined(self, since: float) -> Counter[str]:
        """How many of the teams formed at or after ``since`` each key joined."""
        out: Counter[str] = Counter()
        for when, keys in self._teams:
            if when >= since:
                out.update(keys)
        return out

    def unproven_joins(
        self, since: float, first_done: Mapping[str, float], exempt: Collection[str] = ()
    ) -> int:
        """Member slots of the teams formed at or after ``since`` that went to an identity unproven then:
        no accepted work of it on record before that team (``first_done``: when this node first recorded
        accepted work of each key; the team that brought its first accepted work counts it as unproven),
        apart from ``exempt`` ones (trusted). A team formed while this node had evidence for nobody
        counts none (nobody was unproven: :func:`~ioa_p2p.teaming.trust.unproven_keys`)."""
        first_evidence = min(first_done.values(), default=math.inf)
        count = 0
        for when, keys in self._teams:
            if when < since or first_evidence >= when:
                continue
            count += sum(k not in exempt and first_done.get(k, math.inf) >= when for k in keys)
        return count


def spent_keys(
    joined: Mapping[str, int],
    first_done: Mapping[str, float],
    *,
    now: float,
    policy: ExposurePolicy,
    exempt: Collection[str] = (),
) -> frozenset[str]:
    """The keys whose teams of the last window (``joined``: :meth:`TeamLog.joined` from ``now - window``)
    reached their budget (:meth:`ExposurePolicy.budget`; ``first_done``: when this node first recorded
    accepted work of each key, seconds), apart from ``exempt`` ones (trusted)."""
    if policy.per_window is None:
        return frozenset()
    return _over_budget(joined, first_done, now, policy, exempt, 0)


def ceiling_keys(
    joined: Mapping[str, int],
    first_done: Mapping[str, float],
    *,
    now: float,
    policy: ExposurePolicy,
    exempt: Collection[str] = (),
) -> frozenset[str]:
    """The spent keys (:func:`spent_keys`) whose teams of the last window also used the ``over_budget``
    teams a spent identity may still join where nothing else can: they are barred from joining as
    members until the window moves on (``TeamCaps.barred``); empty when the policy has no ceiling."""
    if policy.per_window is None or policy.over_budget is None:
        return frozenset()
    return _over_budget(joined, first_done, now, policy, exempt, policy.over_budget)


def _over_budget(
    joined: Mapping[str, int],
    first_done: Mapping[str, float],
    now: float,
    policy: ExposurePolicy,
    exempt: Collection[str],
    extra: int,
) -> frozenset[str]:
    """The keys (``exempt`` ones apart) that joined at least their budget plus ``extra`` teams."""
    out = set()
    for key, count in joined.items():
        budget = None if key in exempt else policy.budget(first_done.get(key), now)
        if budget is not None and count >= budget + extra:
            out.add(key)
    return frozenset(out)


def unproven_slots_left(
    log: TeamLog,
    first_done: Mapping[str, float],
    *,
    now: float,
    policy: ExposurePolicy,
    exempt: Collection[str] = (),
) -> int | None:
    """Member slots the window still gives unproven identities: ``policy.unproven_per_window`` less those
    this node's teams of the last window gave (:meth:`TeamLog.unproven_joins`), at least 0; None when
    there is no total bound (:meth:`~ioa_p2p.teaming.trust.TrustPolicy.caps` ``unproven_left``)."""
    if policy.unproven_per_window is None:
        return None
    used = log.unproven_joins(now - policy.window, first_done, exempt)
    return max(0, policy.unproven_per_window - used)


def newcomers_closed(
    log: TeamLog,
    first_done: Mapping[str, float],
    *,
    now: float,
    policy: ExposurePolicy,
    exempt: Collection[str] = (),
) -> bool:
    """Whether this node's teams of the last window gave unproven identities all their member slots."""
    return unproven_slots_left(log, first_done, now=now, policy=policy, exempt=exempt) == 0


__all__ = [
    "EXPOSURE_WINDOW",
    "MAX_TEAMS",
    "OFF",
    "OVER_BUDGET",
    "PER_WINDOW",
    "ExposurePolicy",
    "UNPROVEN_PER_WINDOW",
    "TeamLog",
    "ceiling_keys",
    "newcomers_closed",
    "spent_keys",
    "unproven_slots_left",
]
