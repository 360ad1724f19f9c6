"""Team formation without an LLM: who should work on a goal, and which need each member covers (pure).

1. The goal as a whole is ranked; its best card is the first member (the lead pick, what ``find`` shows).
2. The goal is cut into needs (:func:`~ioa_p2p.matching.goals.split_goal`) and every need is ranked over
   a pool: the goal's best cards plus each need's own best cards.
3. Needs are visited from the most confidently matched to the least. A need is *covered* when a chosen
   member's fused score for it is within ``cover_margin`` of the need's best candidate. An uncovered need
   adds its best candidate, but only when that candidate's calibrated score reaches ``need_threshold``
   (so a fragment like "with uncertainty bands" or "Tom in Seattle" adds nobody), up to ``max_team``.
4. Each need is reported with the member that covers it best (or none).

``need_threshold`` and ``cover_margin`` come from the matcher's :class:`~ioa_p2p.matching.Calibration`
(calibrated per matcher on the dev data); callers may override them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ioa_p2p.errors import UsageError

from .base import Match, Matcher
from .goals import Need, split_goal

POOL = 6  # best cards for the whole goal that may join (their need scores decide)


@dataclass(frozen=True, slots=True)
class Member:
    """A chosen teammate: its key, its calibrated score for the goal and the needs it covers."""

    key: str
    score: float
    needs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NeedCover:
    need: str
    key: str  # "" when no member covers it
    score: float  # calibrated score of that member (or of the best candidate when uncovered)


@dataclass(frozen=True, slots=True)
class TeamPick:
    members: tuple[Member, ...]
    coverage: tuple[NeedCover, ...]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(m.key for m in self.members)


def choose_team(
    goal: str,
    matcher: Matcher,
    *,
    among: Collection[str] | None = None,
    exclude: Collection[str] = (),
    max_team: int = 4,
    need_threshold: float | None = None,
    cover_margin: float | None = None,
    pool: int = POOL,
    need_pool: int = 0,
) -> TeamPick:
    """Pick 1..``max_team`` members for ``goal`` from the matcher's cards (see the module docstring)."""
    if max_team < 1:
        raise UsageError("max_team must be at least 1")
    cal = matcher.calibration
    threshold = cal.need_threshold if need_threshold is None else need_threshold
    margin = cal.cover_margin if cover_margin is None else cover_margin
    candidates = _allowed(among, exclude)
    ranked = [m for m in matcher.rank(goal, pool, among=candidates) if m.key not in exclude]
    needs = split_goal(goal)
    if not ranked:
        return TeamPick((), tuple(NeedCover(n.text, "", 0.0) for n in needs))
    keys = {m.key for m in ranked}
    for need in needs if need_pool else ():
        keys.update(
            m.key for m in matcher.rank(need.text, need_pool, among=candidates) if m.key not in exclude
        )
    table = {need.index: _by_key(matcher.rank(need.text, len(keys), among=keys)) for need in needs}
    chosen = [ranked[0].key]
    for need in sorted(needs, key=lambda n: -_best(table[n.index]).fused):
        scores = table[need.index]
        best = _best(scores)
        if len(chosen) >= max_team or best.key in chosen:
            continue
        covered = [scores[k].fused for k in chosen if k in scores]
        if covered and max(covered) >= best.fused - margin:
            continue
        if best.score >= threshold:
            chosen.append(best.key)
    return _pick(chosen, ranked, needs, table)


def _allowed(among: Collection[str] | None, exclude: Collection[str]) -> Collection[str] | None:
    if not exclude:
        return among
    if among is None:
        return None  # excluded keys are filtered from the results instead
    return [k for k in among if k not in exclude]


def _by_key(matches: Sequence[Match]) -> dict[str, Match]:
    return {m.key: m for m in matches}


def _best(scores: Mapping[str, Match]) -> Match:
    return max(scores.values(), key=lambda m: (m.fused, m.key))


def _pick(
    chosen: list[str],
    ranked: Sequence[Match],
    needs: Sequence[Need],
    table: Mapping[int, Mapping[str, Match]],
) -> TeamPick:
    goal_scores = {m.key: m.score for m in ranked}
    covers: dict[str, list[str]] = {k: [] for k in chosen}
    coverage = []
    for need in needs:
        scores = table[need.index]
        present = [k for k in chosen if k in scores]
        if not present:
            coverage.append(NeedCover(need.text, "", _best(scores).score if scores else 0.0))
            continue
        key = max(present, key=lambda k: scores[k].fused)
        covers[key].append(need.text)
        coverage.append(NeedCover(need.text, key, scores[key].score))
    members = tuple(Member(k, goal_scores.get(k, 0.0), tuple(covers[k])) for k in chosen)
    return TeamPick(members, tuple(coverage))


__all__ = ["POOL", "Member", "NeedCover", "TeamPick", "choose_team"]
