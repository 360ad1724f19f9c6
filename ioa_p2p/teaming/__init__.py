"""ioa_p2p.teaming: who should work on a goal (pure, apart from the model call of ``llm_team``).

- ``clauses.py``    :func:`split_goal`: a goal's clauses (sub-needs, steps)
- ``selection.py``  :class:`Candidate` and :func:`choose_team`: each sub-need to the most similar
  candidate above a threshold (no model)
- ``llm_team.py``   the IoA-style team-up by a model: ``search_agents`` / ``team_up`` tools over a ranked
  shortlist (:func:`llm_choose_team`)

Imports: :mod:`ioa_p2p.card`, :mod:`ioa_p2p.embedding`, :mod:`ioa_p2p.llm`, :mod:`ioa_p2p.errors`.
"""

from ioa_p2p.teaming.clauses import ACTION_VERBS, Clause, split_goal
from ioa_p2p.teaming.llm_team import (
    SEARCH_TOOL,
    TEAM_TOOLS,
    TEAM_UP_TOOL,
    llm_choose_team,
    merge_results,
    parse_search_queries,
    parse_team_choice,
    render_shortlist,
)
from ioa_p2p.teaming.selection import Candidate, NeedCover, TeamChoice, choose_team, choose_team_for_goal

__all__ = [
    "ACTION_VERBS",
    "SEARCH_TOOL",
    "TEAM_TOOLS",
    "TEAM_UP_TOOL",
    "Candidate",
    "Clause",
    "NeedCover",
    "TeamChoice",
    "choose_team",
    "choose_team_for_goal",
    "llm_choose_team",
    "merge_results",
    "parse_search_queries",
    "parse_team_choice",
    "render_shortlist",
    "split_goal",
]
