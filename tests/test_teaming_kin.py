"""ioa_p2p.teaming.kin: near-duplicate cards count as one (pure), in team formation and in ``find``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from ioa_p2p.card import issue_card
from ioa_p2p.dht.ranking import CardRanker
from ioa_p2p.embedding import HashingEmbedder, WordLlamaEmbedder
from ioa_p2p.errors import UsageError
from ioa_p2p.identity import Identity
from ioa_p2p.matching import CardProfile, lite_matcher
from ioa_p2p.teaming import (
    Kinship,
    TeamCaps,
    choose_team,
    kin_groups,
    kin_threshold,
    leaders_first,
    seniority,
)
from ioa_p2p.teaming.offline import PoolScores, lead_first

#: Twenty agents that do unrelated things (an honest population), and the one the crowd copies.
AGENTS = {
    "plotter": "Draws charts and plots from CSV tables with matplotlib: line, bar and scatter plots.",
    "translator": "Translates documents between English, French and German, keeping the layout.",
    "weather": "Current weather and seven-day forecasts for any city in the world.",
    "calculator": "Exact arithmetic: percentages, fractions, powers, sums and averages.",
    "scribe": "Transcribes audio recordings of meetings and interviews into text.",
    "lawyer": "Reviews rental contracts and flags unfair clauses under tenancy law.",
    "chef": "Suggests recipes from the ingredients in your fridge, with cooking times.",
    "travel": "Plans trips: train and flight connections, hotels and day-by-day itineraries.",
    "coder": "Reviews Python pull requests for bugs, style and missing tests.",
    "tax": "Prepares income tax returns and lists the deductions you may claim.",
    "music": "Composes short piano melodies and exports them as MIDI files.",
    "garden": "Diagnoses plant diseases from photos of leaves and suggests treatments.",
    "fitness": "Writes weekly workout plans for strength and endurance training.",
    "sql": "Writes and optimises SQL queries for PostgreSQL databases.",
    "security": "Scans web servers for known vulnerabilities and misconfigured TLS.",
    "medic": "Explains medical lab results in plain language for patients.",
    "astronomy": "Tells which planets and satellites are visible tonight from your location.",
    "chess": "Analyses chess games move by move and points out blunders.",
    "realestate": "Estimates apartment prices from size, location and recent sales.",
    "poet": "Writes rhyming poems for birthdays, weddings and other occasions.",
}
#: An attacker's crowd: the plotter's card in other words, each from a new identity.
CROWD = [
    "I help with this: draws plots and charts from CSV tables with matplotlib; scatter, bar and line plots.",
    "Reliable service. Charts and plots drawn from CSV tables with matplotlib: bar, line and scatter plots.",
    "Draws line, bar and scatter plots and charts from CSV tables with matplotlib - fast and cheap.",
]


def _units(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.parametrize(
    "embedder", [WordLlamaEmbedder(), HashingEmbedder(256)], ids=["wordllama", "hashing"]
)
def test_the_kin_line_is_relative_to_the_embedder_and_spares_unrelated_cards(embedder: object) -> None:
    """With two embedders whose cosines live on different scales, the line sits above every pair of the
    honest agents and below the paraphrases of one of them."""
    embed = embedder.embed  # type: ignore[attr-defined]
    honest = _units(np.asarray(embed(list(AGENTS.values())), dtype=np.float32))
    line = kin_threshold(honest)
    cosines = honest @ honest.T
    np.fill_diagonal(cosines, -1.0)
    assert cosines.max() < line < 1.0
    crowd = _units(np.asarray(embed(CROWD), dtype=np.float32))
    plotter = honest[list(AGENTS).index("plotter")]
    assert (crowd @ plotter >= line).all()
    order = [*AGENTS, *(f"copy-{i}" for i in range(len(CROWD)))]
    groups = kin_groups(order, np.concatenate([honest, crowd]), line)
    assert {k for k, leader in groups.items() if leader != k} == {f"copy-{i}" for i in range(len(CROWD))}
    assert {groups[f"copy-{i}"] for i in range(len(CROWD))} == {"plotter"}


def test_the_line_needs_a_population_and_moves_with_a_common_component() -> None:
    rng = np.random.default_rng(7)
    few = rng.normal(size=(8, 32)).astype(np.float32)
    assert kin_threshold(few) > 1.0  # too few cards to say what unrelated looks like: nobody is kin
    many = rng.normal(size=(400, 512)).astype(np.float32)
    assert 0.1 < kin_threshold(many) < 0.5  # unrelated: cosines around 0 with a std of 1/sqrt(512)
    shifted = many + 15.0 * np.ones(512, dtype=np.float32) / np.sqrt(512)  # a common direction
    assert kin_threshold(shifted) > kin_threshold(many) + 0.2
    assert kin_threshold(many) == kin_threshold(many)  # a fixed sample: the same index, the same line


def test_groups_do_not_chain_through_a_card_between_two_leaders() -> None:
    a, b = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    between = (a + b) / np.sqrt(2.0)  # cosine 0.71 with each
    vectors = np.stack([a, b, between]).astype(np.float32)
    assert kin_groups(["a", "b", "m"], vectors, 0.7) == {"a": "a", "b": "b", "m": "a"}
    assert kin_groups(["m", "a", "b"], vectors[[2, 0, 1]], 0.7) == {"m": "m", "a": "m", "b": "m"}
    with pytest.raises(UsageError):
        kin_groups(["a"], vectors, 0.7)


def test_seniority_puts_proven_cards_first_then_the_first_held() -> None:
    held = {"old": 1.0, "older": 0.0, "new": 5.0, "worker": 9.0}
    assert seniority(held.keys() | {"unknown"}, {"worker"}, held) == [
        "worker",
        "older",
        "old",
        "new",
        "unknown",
    ]
    assert leaders_first(["c1", "h", "c2", "x"], {"c1": "h", "c2": "h"}) == ["h", "x", "c1", "c2"]


def _matcher(crowd: Sequence[str]) -> tuple[object, dict[str, float]]:
    matcher = lite_matcher()
    cards = {name: CardProfile.make(name, text) for name, text in AGENTS.items()}
    cards.update({f"copy-{i}": CardProfile.make(f"agent-{i}", text) for i, text in enumerate(crowd)})
    matcher.index(cards)
    held = {key: float(i) for i, key in enumerate(cards)}  # the honest cards were held first
    return matcher, held


def test_a_crowd_of_paraphrases_competes_for_one_team_slot_and_its_original_leads_it() -> None:
    crowd = CROWD * 4  # twelve identities, three texts
    matcher, held = _matcher(crowd)
    goal = "Translate this French report into English and plot its sales table as a bar chart"
    loose = choose_team(goal, matcher)  # type: ignore[arg-type]
    kin = Kinship(matcher.vectors, kin_threshold(matcher.vectors(list(AGENTS))), held=held)  # type: ignore[attr-defined]
    pick = choose_team(goal, matcher, kin=kin)  # type: ignore[arg-type]
    assert "plotter" in pick.keys and not any(k.startswith("copy-") for k in pick.keys)
    assert any(k.startswith("copy-") for k in loose.keys) or "plotter" in loose.keys
    # a copy that did a task for this node (proven) leads the group instead of the original
    proven = Kinship(kin.vectors, kin.threshold, frozenset({"copy-0"}), held)
    assert "copy-0" in choose_team(goal, matcher, kin=proven).keys  # type: ignore[arg-type]
    assert "plotter" not in choose_team(goal, matcher, kin=proven).keys  # type: ignore[arg-type]


def _signed(identity: Identity, name: str, text: str) -> object:
    return issue_card(
        identity, name=name, description=text, model="test/0", vector=[1.0], version=1, now_ms=1
    )


def test_find_shows_a_crowd_once_after_the_other_cards() -> None:
    """CardRanker.rank puts the kin of a card after every leader (here without the copy rule, which
    would catch these crowds by their words); kin=False ranks as before."""
    crowd: dict[bool, set[str]] = {}
    tops: dict[bool, list[str]] = {}
    for kin in (True, False):
        ranker = CardRanker(lite_matcher(), defences=False, kin=kin)
        honest = [_signed(Identity.generate(), name, text) for name, text in AGENTS.items()]
        for card in honest:
            ranker.add(card)  # type: ignore[arg-type]
        ranker.refresh()  # the honest cards were held first
        crowd[kin] = set()
        for i, text in enumerate(CROWD):
            card = _signed(Identity.generate(), f"agent-{i}", text)
            ranker.add(card)  # type: ignore[arg-type]
            crowd[kin].add(str(card.peer_id))  # type: ignore[attr-defined]
        tops[kin] = [m.key for m in ranker.rank("bar chart of a CSV table", 5)]
        assert (ranker.kinship() is None) is not kin
    assert len(crowd[False] & set(tops[False])) >= 3  # the crowd fills the top 5
    assert not crowd[True] & set(tops[True][:4])  # its original leads it, the other cards come next


def test_an_unproven_lead_gives_way_to_a_proven_card_within_the_margin() -> None:
    from ioa_p2p.matching.base import Match

    def scored(goal: dict[str, float]) -> PoolScores:
        ranked = tuple(Match(k, 0.5, v, {}) for k, v in sorted(goal.items(), key=lambda kv: -kv[1]))
        return PoolScores(ranked, (), goal, {})

    caps = TeamCaps(unproven=frozenset({"copy", "newcomer"}), max_unproven=1)
    close = scored({"copy": 10.0, "newcomer": 9.8, "plotter": 9.5, "other": 1.0})
    assert lead_first(close, caps).ranked[0].key == "plotter"
    far = scored({"copy": 10.0, "plotter": 8.5})
    assert lead_first(far, caps).ranked[0].key == "copy"  # nothing proven comes close: the best leads
    assert lead_first(close, TeamCaps()).ranked[0].key == "copy"  # no caps: the best card leads
    assert lead_first(close, caps, 0.1).ranked[0].key == "copy"
    assert [m.key for m in lead_first(close, caps).ranked] == ["plotter", "copy", "newcomer", "other"]


def test_capped_pools_are_widened_so_a_crowd_cannot_hide_the_proven_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CAPPED_WIDEN: with caps in force the pools are four times larger. Thirty unproven copies of the
    plotter that outrank it fill the goal's pool of 12; only the wider pool still holds the proven
    plotter that the caps let lead instead of a copy."""
    import ioa_p2p.teaming.offline as offline

    crowd = [f"{AGENTS['plotter']} Sales tables as bar charts, {word}." for word in ("fast", "cheap")] * 15
    matcher, _ = _matcher(crowd)
    copies = frozenset(f"copy-{i}" for i in range(len(crowd)))
    caps = TeamCaps(unproven=copies | {"newcomer"}, max_unproven=0)
    goal = "Translate this French report into English and plot its sales table as a bar chart"
    assert offline.CAPPED_WIDEN == 4
    wide = choose_team(goal, matcher, caps=caps)  # type: ignore[arg-type]
    assert wide.keys[:2] == ("plotter", "translator")  # the proven plotter leads (within the margin)
    monkeypatch.setattr(offline, "CAPPED_WIDEN", 1)
    narrow = choose_team(goal, matcher, caps=caps)  # type: ignore[arg-type]
    assert narrow.keys[0] in copies  # the goal's pool of 12 is all copies: one leads, nothing else near


def test_the_nodes_shortlist_counts_a_crowd_as_one() -> None:
    """CardRanker.shortlist (what the goals service calls) passes its kinship to the team choice: the
    crowd's original joins, none of the crowd does; with kin off a copy may take its place."""
    teams = {}
    for kin in (True, False):
        ranker = CardRanker(lite_matcher(), defences=False, kin=kin)
        names = {}
        for name, text in AGENTS.items():
            card = _signed(Identity.generate(), name, text)
            ranker.add(card)  # type: ignore[arg-type]
            names[str(card.peer_id)] = name  # type: ignore[attr-defined]
        ranker.refresh()  # the honest cards were held first
        for i, text in enumerate(CROWD * 4):
            card = _signed(Identity.generate(), f"agent-{i}", text)
            ranker.add(card)  # type: ignore[arg-type]
            names[str(card.peer_id)] = f"agent-{i}"  # type: ignore[attr-defined]
        pick, shortlist = ranker.shortlist(
            "Translate this French report into English and plot its sales table as a bar chart", size=8
        )
        teams[kin] = [names[k] for k in pick.keys]
        assert set(pick.keys) <= set(shortlist)
    assert "plotter" in teams[True] and not any(n.startswith("agent-") for n in teams[True])
    assert any(n.startswith("agent-") for n in teams[False])
