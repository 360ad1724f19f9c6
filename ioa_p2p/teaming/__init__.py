"""ioa_p2p.teaming: who joins the team of a goal (pure, apart from the model call of ``llm_team``).

The one home of team choice; ``node/goals/teams.py`` finds the cards (discovery, the DHT) and invites the
team it decides here.

- ``candidates.py`` :class:`Candidate`: a possible teammate, from a verified agent card
- ``offline.py``    the offline team over the matcher's cards (:func:`choose_team`: the goal's best card
  leads, members join by the join rule; the needs each member covers) and the shortlist a model may choose
  from (:func:`team_shortlist`)
- ``join.py``       the calibrated join rule: who joins the lead, one at a time (:func:`grow_team`)
- ``trust.py``      age- and evidence-weighted trust: young, unproven cards pay a score penalty; a team
  takes at most ``max_young`` young and ``max_unproven`` unproven members (no signed task done, however
  old) unless nothing else covers a need (:class:`TrustPolicy`, :class:`TeamCaps`)
- ``exposure.py``   exposure bounded per time: an identity joins at most ``per_window`` of this node's
  teams per window, one more per window since its first accepted task here (:class:`ExposurePolicy`,
  :class:`TeamLog`, :func:`spent_keys`; a spent identity is capped in :class:`TeamCaps`), and all
  teams together give unproven identities ``unproven_per_window`` member slots per window
  (:func:`unproven_slots_left`)
- ``kin.py``        near-duplicate cards count as one: kin groups led by the most senior card (proven,
  then first held), the kin line relative to the population (:class:`Kinship`, :func:`kin_groups`)
- ``coverage.py``   ability coverage: the team can do every step of the goal's offline plan
  (:func:`cover_steps`: :func:`add_able`, :func:`add_best`)
- ``llm_team.py``   the LLM re-rank of the shortlist: IoA's ``search_agents`` / ``team_up`` tools over
  the offline shortlist, never beyond it (:func:`llm_team_from_shortlist`)

A goal's needs (its clauses) are the matcher's (:func:`ioa_p2p.matching.split_goal`); the join rule's
calibrated weights are the matcher's calibration (:class:`ioa_p2p.matching.JoinRule`).
Imports: :mod:`ioa_p2p.card`, :mod:`ioa_p2p.matching`, :mod:`ioa_p2p.planning`, :mod:`ioa_p2p.llm`.
"""

from typing import TYPE_CHECKING

from ioa_p2p.lazy import lazy_exports

if TYPE_CHECKING:
    from ioa_p2p.teaming.candidates import Candidate
    from ioa_p2p.teaming.coverage import add_able, add_best, cover_steps, step_abilities
    from ioa_p2p.teaming.exposure import (
        ExposurePolicy,
        TeamLog,
        newcomers_closed,
        spent_keys,
        unproven_slots_left,
    )
    from ioa_p2p.teaming.join import grow_team, in_context, join_features
    from ioa_p2p.teaming.kin import Kinship, kin_groups, kin_threshold, leaders_first, seniority
    from ioa_p2p.teaming.llm_team import (
        SEARCH_TOOL,
        TEAM_TOOLS,
        TEAM_UP_TOOL,
        check_in_shortlist,
        llm_team_from_shortlist,
        merge_results,
        parse_search_queries,
        parse_team_choice,
        render_shortlist,
    )
    from ioa_p2p.teaming.offline import (
        NEED_POOL,
        POOL,
        Member,
        NeedCover,
        PoolScores,
        TeamPick,
        choose_team,
        score_pool,
        team_shortlist,
    )
    from ioa_p2p.teaming.trust import (
        NO_CAPS,
        TeamCaps,
        TrustPolicy,
        over_cap,
        trust_priors,
        unproven_keys,
        young_keys,
    )

#: Where each public name lives: imported on first use (:func:`__getattr__`), so that importing one module
#: of the package (the goals service's :mod:`.trust`) does not load the team choice and the LLM team-up
#: (issue 26: an idle agent loads them at its first goal or invitation).
_LAZY = {
    "Candidate": "candidates",
    "add_able": "coverage",
    "add_best": "coverage",
    "cover_steps": "coverage",
    "step_abilities": "coverage",
    "ExposurePolicy": "exposure",
    "TeamLog": "exposure",
    "spent_keys": "exposure",
    "newcomers_closed": "exposure",
    "unproven_slots_left": "exposure",
    "grow_team": "join",
    "in_context": "join",
    "join_features": "join",
    "Kinship": "kin",
    "kin_groups": "kin",
    "kin_threshold": "kin",
    "leaders_first": "kin",
    "seniority": "kin",
    "SEARCH_TOOL": "llm_team",
    "TEAM_TOOLS": "llm_team",
    "TEAM_UP_TOOL": "llm_team",
    "check_in_shortlist": "llm_team",
    "llm_team_from_shortlist": "llm_team",
    "merge_results": "llm_team",
    "parse_search_queries": "llm_team",
    "parse_team_choice": "llm_team",
    "render_shortlist": "llm_team",
    "NEED_POOL": "offline",
    "POOL": "offline",
    "Member": "offline",
    "NeedCover": "offline",
    "PoolScores": "offline",
    "TeamPick": "offline",
    "choose_team": "offline",
    "score_pool": "offline",
    "team_shortlist": "offline",
    "NO_CAPS": "trust",
    "TeamCaps": "trust",
    "TrustPolicy": "trust",
    "over_cap": "trust",
    "trust_priors": "trust",
    "unproven_keys": "trust",
    "young_keys": "trust",
}


__getattr__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "NEED_POOL",
    "NO_CAPS",
    "POOL",
    "SEARCH_TOOL",
    "TEAM_TOOLS",
    "TEAM_UP_TOOL",
    "Candidate",
    "ExposurePolicy",
    "Kinship",
    "Member",
    "NeedCover",
    "PoolScores",
    "TeamCaps",
    "TeamLog",
    "TeamPick",
    "TrustPolicy",
    "add_able",
    "add_best",
    "check_in_shortlist",
    "choose_team",
    "cover_steps",
    "grow_team",
    "in_context",
    "join_features",
    "kin_groups",
    "kin_threshold",
    "leaders_first",
    "llm_team_from_shortlist",
    "merge_results",
    "newcomers_closed",
    "over_cap",
    "parse_search_queries",
    "parse_team_choice",
    "render_shortlist",
    "score_pool",
    "seniority",
    "spent_keys",
    "step_abilities",
    "team_shortlist",
    "trust_priors",
    "unproven_keys",
    "unproven_slots_left",
    "young_keys",
]
