"""ioa_p2p.teaming.exposure ``over_budget``: a spent identity that is "still needed" joins only a few more
of a window's teams, then it is barred as a member (pure; team formation with made-up cards)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from ioa_p2p.errors import UsageError
from ioa_p2p.teaming import Kinship, choose_team, unproven_keys
from ioa_p2p.teaming.exposure import OFF, ExposurePolicy, ceiling_keys, spent_keys

from .test_teaming_exposure import GOALS, HOUR, MIXTURES, Node


def test_the_ceiling_bars_the_spent_keys_past_their_budget_and_the_teams_they_may_add() -> None:
    policy = ExposurePolicy(window=HOUR, per_window=1, over_budget=1)
    joined = {"fresh": 1, "twice": 2, "veteran": 3, "trusted": 9}
    first_done = {"veteran": 7.0 * HOUR}  # three windows of evidence: a budget of four
    assert ceiling_keys(joined, first_done, now=10 * HOUR, policy=policy, exempt={"trusted"}) == {"twice"}
    assert spent_keys(joined, first_done, now=10 * HOUR, policy=policy, exempt={"trusted"}) == {
        "fresh",
        "twice",
    }
    none = ExposurePolicy(window=HOUR, per_window=1, over_budget=None)
    assert ceiling_keys(joined, first_done, now=10 * HOUR, policy=none) == frozenset()
    assert ceiling_keys(joined, first_done, now=10 * HOUR, policy=OFF) == frozenset()
    zero = ExposurePolicy(window=HOUR, per_window=1, over_budget=0)  # spent is barred: strict
    assert ceiling_keys(joined, first_done, now=10 * HOUR, policy=zero) == {"fresh", "twice", "trusted"}
    with pytest.raises(UsageError):
        ExposurePolicy(over_budget=-1)


class CeilingNode(Node):
    """``Node`` of test_teaming_exposure with the exposure bound's default (not strict), the spent keys
    past the ceiling barred as members (``TeamCaps.barred``), as ``node/goals/teams.py`` does."""

    def team(self, goal: str) -> tuple[str, ...]:
        joined = self.log.joined(self.now - self.exposure.window)
        spent = spent_keys(joined, self.first_done, now=self.now, policy=self.exposure)
        caps = self.policy.caps((), unproven_keys(self.keys, self.first_done), spent)
        over = ceiling_keys(joined, self.first_done, now=self.now, policy=self.exposure)
        caps = replace(caps, barred=over & spent)
        kin = Kinship(self.matcher.vectors, self.line, frozenset(self.first_done), self.held)
        return choose_team(goal, self.matcher, caps=caps, kin=kin).keys


def test_a_sleeper_still_needed_joins_at_most_its_budget_and_the_ceiling_as_a_member() -> None:
    """Twelve sleeper identities of two-skill cards that do every task they get, 24 goals in one window.
    With the bound's default (not strict) and no ceiling, a spent sleeper is "still needed" for the
    two-skill goal and joins it as a member every time (8 teams of 24); with the ceiling (budget 1, one
    more) it joins two at most as a member, and the honest specialists still lead every goal they lead
    without it."""
    goals = GOALS * 4
    loose = CeilingNode(
        MIXTURES * 4, ExposurePolicy(window=HOUR, per_window=1, over_budget=None), defended=True
    )
    loose.run(goals, every=120.0)
    members = Counter(k for team in loose.teams for k in team[1:] if k in loose.sleepers)
    assert max(members.values()) > 4  # the fallback lets it in again and again
    node = CeilingNode(MIXTURES * 4, ExposurePolicy(window=HOUR, per_window=1, over_budget=1), defended=True)
    node.run(goals, every=120.0)
    members = Counter(k for team in node.teams for k in team[1:] if k in node.sleepers)
    assert max(members.values(), default=0) <= 2
    leads, loose_leads = Counter(t[0] for t in node.teams), Counter(t[0] for t in loose.teams)
    assert leads["plotter"] == loose_leads["plotter"] == 12
    assert leads["translator"] == loose_leads["translator"] >= 8


def test_the_reputation_book_hands_discovery_the_peers_past_the_ceiling() -> None:
    """The goals service's book (node/goals/reputation.py): a peer with no accepted work here that joined
    two of this node's goal chats this window is spent and past the ceiling (budget 1, one more); one
    that joined one is spent only; both are handed to discovery, which team formation bars
    (node/goals/teams.py); an hour later neither is."""
    from types import SimpleNamespace

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.goals.reputation import ReputationBook
    from ioa_p2p.teaming.trust import OFF as NO_TRUST

    me, busy, once = (Identity.generate() for _ in range(3))
    now = 100_000.0
    chats = {
        bytes([1]) * 32: (now - 900, [busy, once]),
        bytes([2]) * 32: (now - 300, [busy]),
    }
    store = SimpleNamespace(
        member_chats=lambda: list(chats),
        history=lambda c: [],
        get=lambda c: SimpleNamespace(
            creator=me.peer_id,
            topic="goal: plot and translate",
            genesis=SimpleNamespace(ts=int(chats[c][0] * 1000)),
            members=lambda: frozenset([me.peer_id, *(p.peer_id for p in chats[c][1])]),
        ),
    )
    directory = SimpleNamespace(pin=lambda members: None, ranker=None, __iter__=lambda: iter(()))
    clock = [now]
    discovery = SimpleNamespace(
        node=SimpleNamespace(now=lambda: clock[0], peer_id=me.peer_id),
        directory=directory,
        search=SimpleNamespace(),
    )
    book = ReputationBook(store, discovery, NO_TRUST, exposure=ExposurePolicy(window=HOUR))  # type: ignore[arg-type]
    book.update()
    assert book.expose()
    assert book.spent == {str(busy.peer_id), str(once.peer_id)}
    assert book.over_ceiling == {str(busy.peer_id)}
    book.publish()
    assert discovery.over_ceiling == {str(busy.peer_id)}  # type: ignore[attr-defined]
    clock[0] = now + 2 * HOUR
    assert book.expose() and book.over_ceiling == frozenset() and book.spent == frozenset()
    clock[0] = now
    none = ReputationBook(store, discovery, NO_TRUST, exposure=ExposurePolicy(window=HOUR, over_budget=None))  # type: ignore[arg-type]
    none.update()
    none.expose()
    assert none.spent == {str(busy.peer_id), str(once.peer_id)}  # spent, but no ceiling
    assert none.over_ceiling == frozenset()
