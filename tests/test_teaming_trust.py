"""ioa_p2p.teaming.trust: young, unproven cards pay a score penalty and a team takes few of them (pure)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from ioa_p2p.card import issue_card
from ioa_p2p.conversation.reputation import Standing, reputation_prior
from ioa_p2p.dht.directory import Directory
from ioa_p2p.errors import UsageError
from ioa_p2p.identity import Identity
from ioa_p2p.matching.calibration import ADVANTAGE, GAP, GOAL, JoinRule
from ioa_p2p.node.goals.reputation import ReputationBook
from ioa_p2p.planning import PlanStep
from ioa_p2p.teaming import (
    Candidate,
    TeamCaps,
    TrustPolicy,
    cover_steps,
    grow_team,
    over_cap,
    trust_priors,
    unproven_keys,
    young_keys,
)
from ioa_p2p.teaming.trust import OFF, trim_to_caps

RULE = JoinRule({GAP: 0.1, GOAL: 0.3, ADVANTAGE: 0.3}, -4.0)
# translate, then plot: "plotter-copy" (a young paraphrase of the plotter) scores a little better than it
GOAL_SCORES = {"translator": 14.0, "plotter-copy": 10.5, "plotter": 10.0, "weather": 1.0}
NEEDS = [
    {"translator": 16.0, "plotter-copy": 0.0, "plotter": 0.0, "weather": 0.0},
    {"translator": 2.0, "plotter-copy": 15.5, "plotter": 15.0, "weather": 1.0},
]


def test_young_keys_are_recent_and_without_evidence() -> None:
    first_seen = {"old": 0.0, "new": 9_000.0, "new-proven": 9_500.0, "edge": 6_400.0}
    young = young_keys(first_seen, {"new-proven"}, now=10_000.0, trust_age=3_600.0)
    assert young == {"new"}  # "edge" was held exactly trust_age seconds: established
    assert young_keys(first_seen, (), now=10_000.0, trust_age=0.0) == frozenset()
    assert young_keys({}, (), now=0.0, trust_age=3_600.0) == frozenset()


def test_trust_priors_and_the_cap() -> None:
    policy = TrustPolicy()
    assert trust_priors({"a", "b"}, policy) == {"a": -policy.young_penalty, "b": -policy.young_penalty}
    assert trust_priors({"a"}, OFF) == {}
    assert over_cap("a", ["x", "b"], {"a", "b"}, 1)
    assert not over_cap("a", ["x"], {"a", "b"}, 1)  # no young member yet
    assert not over_cap("x", ["a", "b"], {"a", "b"}, 1)  # established candidates are never capped
    assert not over_cap("a", ["b"], {"a", "b"}, None)
    assert over_cap("a", [], {"a"}, 0)
    bad: dict[str, Any]
    for bad in ({"young_penalty": -1.0}, {"trust_age": -1.0}, {"max_young": -1}, {"max_unproven": -1}):
        with pytest.raises(UsageError):
            TrustPolicy(**bad)


def test_a_young_copy_gives_way_to_an_established_card_past_the_cap() -> None:
    def grow(young: set[str], max_young: int | None) -> list[str]:
        return grow_team(
            "translator",
            GOAL_SCORES,
            NEEDS,
            RULE,
            threshold=0.5,
            max_team=4,
            caps=TeamCaps(frozenset(young), max_young),
        )

    assert grow(set(), None) == ["translator", "plotter-copy"]
    # the lead is young and the cap is one: the established plotter covers the need instead
    assert grow({"translator", "plotter-copy"}, 1) == ["translator", "plotter"]
    # below the cap the young copy still joins: the cap limits young members, it does not ban them
    assert grow({"plotter-copy"}, 1) == ["translator", "plotter-copy"]
    assert grow({"translator", "plotter-copy"}, None) == ["translator", "plotter-copy"]  # no cap


def test_a_young_card_joins_past_the_cap_when_nothing_else_covers_the_need() -> None:
    scores = {k: v for k, v in GOAL_SCORES.items() if k != "plotter"}
    needs = [{k: v for k, v in need.items() if k != "plotter"} for need in NEEDS]
    caps = TeamCaps(frozenset({"plotter-copy"}), 0)
    team = grow_team("translator", scores, needs, RULE, threshold=0.5, max_team=4, caps=caps)
    assert team == ["translator", "plotter-copy"]  # the weather card does not reach the threshold


def test_unproven_keys_are_those_without_evidence_however_old() -> None:
    assert unproven_keys({"old", "new", "worker"}, {"worker"}) == {"old", "new"}
    assert unproven_keys({"old", "new"}, ()) == frozenset()  # nobody proven yet: everyone alike
    assert unproven_keys({"old"}, {"someone-not-held"}) == frozenset()


def test_an_old_unproven_copy_gives_way_to_a_proven_card_past_the_cap() -> None:
    """Waiting buys nothing: a patient copy held for as long as the plotter (not young) is still unproven."""

    def grow(unproven: set[str], max_unproven: int | None) -> list[str]:
        caps = TeamCaps(unproven=frozenset(unproven), max_unproven=max_unproven)
        return grow_team("translator", GOAL_SCORES, NEEDS, RULE, threshold=0.5, max_team=4, caps=caps)

    # the lead is unproven (the team's one unproven member): the proven plotter covers the need
    assert grow({"translator", "plotter-copy"}, 1) == ["translator", "plotter"]
    assert grow({"plotter-copy"}, 1) == ["translator", "plotter-copy"]  # below the cap: it may join
    assert grow({"translator", "plotter-copy", "plotter"}, 1) == ["translator", "plotter-copy"]  # no proof
    assert grow({"translator", "plotter-copy"}, None) == ["translator", "plotter-copy"]
    # both caps at once: young and unproven are separate sets, each with its own cap
    both = TeamCaps(frozenset({"plotter-copy"}), 1, frozenset({"translator"}), 1)
    assert both.blocks("plotter-copy", ["translator"]) is False and both.limited("translator")
    assert TeamCaps(frozenset({"a"}), 1, frozenset({"a", "b"}), 1).blocks("b", ["a"])


def test_a_team_chosen_elsewhere_keeps_to_the_caps_with_offline_stand_ins() -> None:
    caps = TeamCaps(unproven=frozenset({"spam-1", "spam-2", "newcomer"}), max_unproven=1)
    offline = ["proven", "other-proven", "plotter"]  # the offline team, chosen within the caps
    picked = ["spam-1", "proven", "spam-2", "newcomer"]
    assert trim_to_caps(picked, caps, offline) == ["spam-1", "proven", "other-proven", "plotter"]
    assert trim_to_caps(["proven", "spam-1", "spam-2"], caps, offline) == ["proven", "spam-1", "other-proven"]
    assert trim_to_caps(["spam-1"], TeamCaps(unproven=frozenset({"spam-1"}), max_unproven=0)) == ["spam-1"]
    # nothing else covers what they were chosen for (no stand-in left): the blocked members stay
    assert trim_to_caps(["proven", "spam-1", "spam-2"], caps) == ["proven", "spam-1", "spam-2"]
    assert trim_to_caps(["spam-1", "spam-2", "newcomer"], caps, ["proven"]) == [
        "spam-1",
        "proven",
        "newcomer",
    ]
    # a stand-in the caps block is no stand-in
    blocked = TeamCaps(unproven=frozenset({"spam-1", "spam-2", "new-2"}), max_unproven=1)
    assert trim_to_caps(["spam-1", "spam-2"], blocked, ["new-2", "proven"]) == ["spam-1", "proven"]


def _candidate(key: str, score: float, abilities: tuple[str, ...] = ()) -> Candidate:
    return Candidate(key, key, key, score, (), abilities)


def test_cover_steps_respects_the_unproven_cap() -> None:
    """Ability coverage adds an able member within the caps when one is able; a blocked one only when no
    other can do the step; a step's best agent over the cap is left out."""
    lead = _candidate("lead", 0.9)
    spam, calc = _candidate("spam-calc", 0.8, ("arithmetic",)), _candidate("calc", 0.6, ("arithmetic",))
    steps = [PlanStep(1, "calc", "add 2 and 3", "2 + 3")]
    caps = TeamCaps(unproven=frozenset({"lead", "spam-calc", "words"}), max_unproven=1)
    team = cover_steps([lead], [spam, calc], steps, [None], max_team=4, threshold=0.2, caps=caps)
    assert [c.peer_id for c in team] == ["lead", "calc"]
    team = cover_steps([lead], [spam], steps, [None], max_team=4, threshold=0.2, caps=caps)
    assert [c.peer_id for c in team] == ["lead", "spam-calc"]  # nothing else can do the step
    words = _candidate("words", 0.9)
    team = cover_steps([lead], [calc], steps, [words], max_team=4, threshold=0.2, caps=caps)
    assert [c.peer_id for c in team] == ["lead", "calc"]
    team = cover_steps([lead], [calc], steps, [words], max_team=4, threshold=0.2)
    assert [c.peer_id for c in team] == ["lead", "calc", "words"]  # without caps the step's best joins


class _Ranker:
    def __init__(self) -> None:
        self.priors: dict[str, float] = {}

    def set_reputation(self, priors: dict[str, float]) -> None:
        self.priors = dict(priors)

    def set_reference(self, keys: frozenset[str]) -> None:
        self.reference = frozenset(keys)


def _directory_with(ages: dict[str, float], now: float) -> tuple[Directory, dict[str, str]]:
    """A real directory holding one signed card per name, first held ``ages[name]`` seconds before ``now``."""
    directory = Directory("m", 1)
    keys = {}
    for name, age in ages.items():
        identity = Identity.generate()
        held_ms = int((now - age) * 1000)
        card = issue_card(
            identity, name=name, description=name, model="m", vector=[1.0], version=held_ms, now_ms=held_ms,
            ttl_ms=24 * 3600 * 1000,
        )  # fmt: skip
        directory.offer(card, held_ms, "gossip")
        keys[name] = str(identity.peer_id)
    return directory, keys


def test_the_reputation_book_marks_young_peers_and_lowers_them_once_someone_is_established() -> None:
    now = 100_000.0
    directory, key = _directory_with({"old": 7200.0, "new": 60.0, "partner": 60.0, "worker": 60.0}, now)
    ranker = _Ranker()
    directory.ranker = ranker  # type: ignore[assignment]
    search = SimpleNamespace(settled=None, young_penalty=0.0)
    discovery = SimpleNamespace(
        directory=directory,
        node=SimpleNamespace(now=lambda: now),
        young=frozenset(),
        unproven=frozenset(),
        search=search,
    )
    chats = SimpleNamespace(member_chats=lambda: [])
    book = ReputationBook(chats, discovery, TrustPolicy(), (key["partner"],))  # type: ignore[arg-type]
    book.standings = {key["worker"]: Standing(done=1), key["new"]: Standing(failed=1)}
    assert book.age() and book.young == {key["new"]}  # trusted, proven by a task done, or held long enough
    assert book.unproven == {key["old"], key["new"]}  # age is not evidence
    book.publish()
    assert discovery.young == {key["new"]} and discovery.unproven == {key["old"], key["new"]}
    assert search.settled == {key["old"], key["partner"], key["worker"]} and search.young_penalty == 1.0
    assert search.proven == {key["partner"], key["worker"]}  # the page search's fetch slots for them
    assert ranker.reference == {key["partner"], key["worker"]}  # breadth's reference: proven cards only
    assert ranker.priors[key["new"]] == pytest.approx(reputation_prior(Standing(failed=1)) - 1.0)
    assert key["partner"] not in ranker.priors and ranker.priors[key["worker"]] > 0
    assert not book.age()  # unchanged


def test_nobody_is_young_while_no_peer_is_established() -> None:
    now = 100_000.0
    directory, _ = _directory_with({"a": 60.0, "b": 10.0}, now)
    discovery = SimpleNamespace(directory=directory, node=SimpleNamespace(now=lambda: now), young=frozenset())
    book = ReputationBook(SimpleNamespace(member_chats=lambda: []), discovery, TrustPolicy())  # type: ignore[arg-type]
    assert not book.age() and book.young == frozenset() and book.settled is None
    off = ReputationBook(SimpleNamespace(member_chats=lambda: []), discovery, OFF)  # type: ignore[arg-type]
    assert not off.age() and off.young == frozenset() and off.settled is None


def test_a_new_version_keeps_the_first_time_the_peer_was_held() -> None:
    directory = Directory("m", 1)
    identity = Identity.generate()

    def card(version: int) -> Any:
        return issue_card(
            identity, name="a", description="a", model="m", vector=[1.0], version=version, now_ms=version
        )

    directory.offer(card(1_000), 1_000, "gossip")
    directory.offer(card(5_000), 5_000, "dht")
    directory.touch(identity.peer_id, 6_000)
    entry = directory.entry(identity.peer_id)
    assert entry is not None and entry.card.version == 5_000
    assert (entry.first_ms, entry.learned_ms) == (1_000, 6_000)


def test_a_page_search_lowers_listed_peers_it_never_held_unless_they_are_settled() -> None:
    from ioa_p2p.card.sketch import issue_sketch
    from ioa_p2p.node.discovery.pages import _young_priors

    ids = [Identity.generate() for _ in range(3)]
    pool = [
        issue_sketch(i, version=1, model="m", vector=[1.0, 0.5], now_ms=1_000, expires_at=100_000)
        for i in ids
    ]
    directory = Directory("m", 1)
    held = issue_card(ids[2], name="c", description="c", model="m", vector=[1.0], version=1_000, now_ms=1_000)
    directory.offer(held, 1_000, "dht")  # a held young peer has its penalty in the ranker's priors already
    search = SimpleNamespace(settled=frozenset({str(ids[0].peer_id)}), young_penalty=1.0, directory=directory)
    priors = _young_priors(search, pool, {ids[1].peer_id: -0.5})  # type: ignore[arg-type]
    assert priors == {ids[1].peer_id: -1.5}
    search.settled = None  # trust off (or nobody established yet): the priors as they were
    assert _young_priors(search, pool, None) is None  # type: ignore[arg-type]
