"""The sketch-level spam defences of a page search's fetch (pure: dht/fetchchoice.py, PageSearch.centre)."""

from __future__ import annotations

import numpy as np
import pytest

from ioa_p2p.card.sketch import issue_sketch
from ioa_p2p.conversation.reputation import Standing, reputation_prior
from ioa_p2p.dht.expand import PageSearch
from ioa_p2p.dht.fetchchoice import (
    CENTRAL_FREE,
    EXTRA,
    GROUP_FETCH,
    MIN_REFERENCE,
    breadth_penalty,
    central_free,
    centrality,
    centre_of,
    choose_fetch,
    copy_groups,
    superset_copies,
)
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.embedding import HashingEmbedder, WordLlamaEmbedder
from ioa_p2p.identity import Identity

from .test_teaming_kin import AGENTS

MODEL, DIM = "example/64", 64
NOW = 1_700_000_000_000
TTL = 30 * 60 * 1000


def sketch(i: int, vector: np.ndarray, terms: tuple[str, ...] = (), version: int = 1):
    return issue_sketch(
        Identity(bytes([i % 256, i // 256, 12]) + b"\x07" * 29),
        version=version,
        model=MODEL,
        vector=vector,
        now_ms=NOW,
        expires_at=NOW + TTL,
        scheme=MODEL if terms else None,
        terms=terms,
    )


def test_without_copies_the_fetch_is_the_best_count_and_costs_nothing_extra() -> None:
    rng = np.random.default_rng(1)
    honest = [sketch(i, rng.normal(size=DIM)) for i in range(30)]
    scored = [(10.0 - 0.1 * i, s) for i, s in enumerate(honest)]
    assert choose_fetch(scored, 8) == honest[:8]
    assert choose_fetch(scored[::-1], 8) == honest[:8]  # by score, whatever the order given
    assert choose_fetch(scored, 8, defences=False) == honest[:8]


def test_copies_take_one_slot_and_the_best_groups_are_fetched_whole_held_cards_first() -> None:
    rng = np.random.default_rng(2)
    good = rng.normal(size=DIM)
    original = sketch(0, good)
    clones = [sketch(100 + i, good) for i in range(30)]  # one text, thirty identities
    honest = [sketch(1 + i, rng.normal(size=DIM)) for i in range(10)]
    scored = [(9.0, s) for s in [*clones, original]] + [(5.0 - 0.1 * i, s) for i, s in enumerate(honest)]
    chosen = choose_fetch(scored, 8, known={original.peer_id})
    assert chosen[0] == original  # the card this node holds comes first among its copies
    assert chosen[1:8] == honest[:7]  # eight distinct contents
    group = [s for s in chosen if s in clones or s == original]
    assert len(group) == GROUP_FETCH  # the best group is fetched whole (up to GROUP_FETCH)
    assert len(chosen) == 7 + GROUP_FETCH <= 8 * (1 + EXTRA)
    # without a held card the members are in a fixed order (the original may not be among them)
    again = choose_fetch(scored, 8)
    assert again[1:8] == honest[:7] and len(again) == 7 + GROUP_FETCH
    # without the defence the clones take every slot
    assert all(s in clones or s == original for s in choose_fetch(scored, 8, defences=False))


def test_many_groups_of_copies_keep_one_slot_each_and_the_extra_fetches_are_bounded() -> None:
    rng = np.random.default_rng(3)
    texts = [rng.normal(size=DIM) for _ in range(10)]
    scored = [(9.0 - g, sketch(1000 * g + i, texts[g])) for g in range(10) for i in range(20)]
    chosen = choose_fetch(scored, 8)
    assert len(chosen) == int(8 * (1 + EXTRA))
    group_of = {s.peer_id: score for score, s in scored}
    assert [group_of[s.peer_id] for s in chosen[:8]] == [9.0 - g for g in range(8)]  # 8 texts, best first
    assert all(group_of[s.peer_id] >= 9.0 - 4 for s in chosen[8:])  # the extras: copies of the best 5


def test_copy_groups_need_the_same_vector_and_the_same_terms() -> None:
    rng = np.random.default_rng(4)
    v = rng.normal(size=DIM)
    words = tuple(f"w{i}" for i in range(10))
    a, b = sketch(1, v, words), sketch(2, v, words)
    other_terms = sketch(3, v, tuple(f"x{i}" for i in range(10)))  # same vector, other claims
    near = sketch(4, v + 0.02 * rng.normal(size=DIM), words)
    far = sketch(5, rng.normal(size=DIM), words)
    groups = copy_groups([a, b, other_terms, near, far])
    assert groups == [[0, 1, 3], [2], [4]]
    assert copy_groups([]) == []


def test_a_superset_of_a_listed_card_ranks_after_every_other_candidate() -> None:
    rng = np.random.default_rng(5)
    topic, other = rng.normal(size=DIM), rng.normal(size=DIM)
    own = tuple(f"own{i}" for i in range(10))
    honest = sketch(1, topic, own)
    superset = sketch(
        2,
        topic / np.linalg.norm(topic) + 1.5 * other / np.linalg.norm(other),
        own + tuple(f"more{i}" for i in range(12)),
    )
    unrelated = [
        sketch(10 + i, rng.normal(size=DIM), (f"u{i}a", f"u{i}b", f"u{i}c", f"u{i}d")) for i in range(3)
    ]
    assert superset_copies([honest, superset, *unrelated]) == {superset.peer_id}
    scored = [(9.0, superset), (8.0, honest)] + [(1.0 - 0.1 * i, s) for i, s in enumerate(unrelated)]
    assert choose_fetch(scored, 4) == [honest, *unrelated]
    assert choose_fetch(scored, 2, defences=False) == [superset, honest]


def test_a_short_card_made_of_an_honest_cards_words_does_not_push_the_honest_card_down() -> None:
    rng = np.random.default_rng(6)
    topic = rng.normal(size=DIM)
    own = tuple(f"own{i}" for i in range(12))
    honest = sketch(1, topic, own)
    subset = sketch(2, topic + 0.2 * rng.normal(size=DIM), own[:5])  # the honest card is its superset
    assert superset_copies([honest, subset]) == set()  # alike in vector: not a superset that adds claims


def test_a_card_near_the_centre_of_all_cards_loses_its_breadth() -> None:
    rng = np.random.default_rng(7)
    topics = rng.normal(size=(40, DIM))
    topics /= np.linalg.norm(topics, axis=1, keepdims=True)
    honest = [sketch(i, topics[i] + 0.3 * rng.normal(size=DIM) / np.sqrt(DIM)) for i in range(40)]
    stuffed = [sketch(100 + i, topics[rng.choice(40, 20, replace=False)].mean(axis=0)) for i in range(40)]
    centre = centre_of([*honest, *stuffed])
    assert centre is not None
    assert (
        max(centrality(s, centre) for s in honest)
        < CENTRAL_FREE
        < min(centrality(s, centre) for s in stuffed)
    )
    assert all(breadth_penalty(centrality(s, centre)) == 0.0 for s in honest)
    scored = [(9.0, s) for s in stuffed] + [(6.0 - 0.01 * i, s) for i, s in enumerate(honest)]
    assert choose_fetch(scored, 10, centre=centre) == honest[:10]
    assert all(s in stuffed for s in choose_fetch(scored, 10, defences=False))
    assert centrality(honest[0], None) == 0.0 and centrality(honest[0], np.zeros(3)) == 0.0


def test_bad_standing_lowers_a_sketch_below_the_honest_candidates_and_good_standing_wins_among_copies() -> (
    None
):
    rng = np.random.default_rng(9)
    a, b, c = (sketch(i, rng.normal(size=DIM)) for i in range(3))
    scored = [(4.0, a), (3.8, b), (3.0, c)]
    failed = reputation_prior(Standing(unanswered=1))
    for defences in (True, False):
        assert choose_fetch(scored, 3, defences=defences) == [a, b, c]
        assert choose_fetch(scored, 3, priors={a.peer_id: failed}, defences=defences) == [b, c, a]
        assert choose_fetch(scored, 2, priors={a.peer_id: 0.5}, defences=defences) == [a, b]
    same = rng.normal(size=DIM)
    copies = [sketch(10 + i, same) for i in range(5)]
    trusted = copies[3]
    assert choose_fetch([(5.0, s) for s in copies], 1, priors={trusted.peer_id: 0.4})[0] == trusted


def test_the_page_search_keeps_the_centre_of_its_candidates() -> None:
    rng = np.random.default_rng(10)
    search = PageSearch(forest_for(MODEL, DIM), rng.normal(size=DIM), 100.0)
    assert search.centre() is None
    vectors = [rng.normal(size=DIM) for _ in range(5)]
    sketches = [sketch(i, v) for i, v in enumerate(vectors)]
    search.offer(b"cell", sketches)
    expected = centre_of(sketches)
    assert np.allclose(search.centre(), expected)
    newer = sketch(0, rng.normal(size=DIM), version=2)  # a newer version replaces the old one's share
    search.offer(b"cell2", [newer])
    assert np.allclose(search.centre(), centre_of([newer, *sketches[1:]]))
    search.drop(sketches[1].peer_id)
    assert np.allclose(search.centre(), centre_of([newer, *sketches[2:]]))
    wrong = issue_sketch(
        Identity(b"\x09" * 32),
        version=1,
        model=MODEL,
        vector=rng.normal(size=32),
        now_ms=NOW,
        expires_at=NOW + TTL,
    )
    search.offer(b"cell3", [wrong])  # another shape counts nothing
    assert np.allclose(search.centre(), centre_of([newer, *sketches[2:]]))


def test_the_node_fetches_only_sketches_whose_signature_verifies_and_skips_cards_it_holds_first() -> None:
    import dataclasses
    from types import SimpleNamespace

    from ioa_p2p.card.sketch import SignedSketch, quantise
    from ioa_p2p.node.discovery.pages import _verified_best

    rng = np.random.default_rng(11)
    query = rng.normal(size=DIM)
    search = PageSearch(forest_for(MODEL, DIM), query, 100.0)
    honest = [sketch(i, query + 0.8 * rng.normal(size=DIM)) for i in range(12)]
    liar = sketch(50, rng.normal(size=DIM))
    body = dataclasses.replace(liar.body, sketch=quantise(query))  # claims the query; signature broken
    forged_envelope = dataclasses.replace(liar.envelope, body=body)
    forged = SignedSketch(forged_envelope, forged_envelope.to_cbor())
    same = query + 0.5 * rng.normal(size=DIM)
    original, clone = sketch(60, same), sketch(61, same)
    search.offer(b"page", [*honest, forged, original, clone])
    me = honest[0].peer_id
    settings = SimpleNamespace(min_stamp_bits=8)  # a reader that requires stamped page entries
    node = SimpleNamespace(
        me=me,
        needs_fetch=lambda peer: peer != original.peer_id,
        settled=None,
        young_penalty=0.0,
        proven=frozenset(),
        fetch_flood=lambda peers: {},  # no flood seen (tests/test_arrival.py)
        settings=settings,
    )
    assert _verified_best(search, 6, node) == []  # type: ignore[arg-type]  # none of these is stamped
    settings.min_stamp_bits = 0
    search.offer(b"page", [*honest, forged, original, clone])
    chosen = _verified_best(search, 6, node)  # type: ignore[arg-type]
    assert forged not in chosen and forged.peer_id not in search.candidates  # dropped for good
    assert me not in {s.peer_id for s in chosen}
    assert {original, clone} <= set(chosen)  # a best content: every copy fetched
    assert len({s.peer_id for s in chosen}) == len(chosen)


def test_in_a_listing_of_the_querys_neighbourhood_relevant_cards_are_not_taken_for_broad_ones() -> None:
    rng = np.random.default_rng(12)
    topics = rng.normal(size=(40, DIM))
    topics /= np.linalg.norm(topics, axis=1, keepdims=True)
    query = topics[0]
    near = [sketch(i, topics[0] + 0.8 * rng.normal(size=DIM) / np.sqrt(DIM)) for i in range(30)]
    stuffed = [sketch(100 + i, topics[rng.choice(40, 20, replace=False)].mean(axis=0)) for i in range(10)]
    centre = centre_of([*near, *stuffed])
    assert centre is not None
    # without the query taken out, the cards closest to the query look the most central
    assert min(centrality(s, centre) for s in near) > CENTRAL_FREE
    with_query = [centrality(s, centre, query) for s in near]
    assert max(with_query) < CENTRAL_FREE < min(centrality(s, centre, query) for s in stuffed)
    scored = [(9.0, s) for s in stuffed] + [(6.0 - 0.01 * i, s) for i, s in enumerate(near)]
    assert choose_fetch(scored, 10, centre=centre, query=query) == near[:10]


@pytest.mark.parametrize(
    "embedder", [WordLlamaEmbedder(), HashingEmbedder(256)], ids=["wordllama", "hashing"]
)
def test_the_breadth_line_is_set_by_the_held_cards_for_any_embedder(embedder: object) -> None:
    """With two embedders whose centralities differ (the hashing embedder's honest cards sit above the
    wordllama line of 0.45), the line from held cards spares every honest card and catches stuffed ones;
    with too few held cards the wordllama family's default line applies."""
    embed = embedder.embed  # type: ignore[attr-defined]
    topics = list(AGENTS.values())
    rng = np.random.default_rng(3)
    stuffed_texts = [
        "Expert agent: " + "; ".join(rng.choice(topics, 12, replace=False)) for _ in range(len(topics))
    ]
    vectors = np.asarray(embed([*topics, *stuffed_texts]), dtype=np.float64)
    honest = [sketch(i, v) for i, v in enumerate(vectors[: len(topics)])]
    stuffed = [sketch(200 + i, v) for i, v in enumerate(vectors[len(topics) :])]
    centre = centre_of([*honest, *stuffed])
    central = {s.peer_id: centrality(s, centre) for s in [*honest, *stuffed]}
    held = [s.peer_id for s in honest]
    free = central_free([central[p] for p in held])
    assert max(central[s.peer_id] for s in honest) < free < min(central[s.peer_id] for s in stuffed)
    assert central_free([central[p] for p in held[: MIN_REFERENCE - 1]]) == CENTRAL_FREE
    scored = [(9.0, s) for s in stuffed] + [(6.0 - 0.01 * i, s) for i, s in enumerate(honest)]
    assert choose_fetch(scored, 10, centre=centre, known=held) == honest[:10]
    if isinstance(embedder, HashingEmbedder):  # what a fixed line would have cost the honest cards
        assert sum(central[p] > CENTRAL_FREE for p in held) >= len(held) // 4
