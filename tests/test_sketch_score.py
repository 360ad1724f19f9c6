"""Version 2 card sketches (rest of the card vector, term hashes) and how a page search scores sketches
(pure: card/sketch.py, dht/sketchscore.py, dht/expand.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ioa_p2p.card.sketch import (
    MAX_SKETCH_TERMS,
    CardSketch,
    CardSketchV2,
    decode_sketch,
    issue_sketch,
    matches_card,
    pack_terms,
    parse_sketch,
    quantise,
    sketch_rest,
    sketch_terms,
    term_hash,
)
from ioa_p2p.dht.expand import PageSearch
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.pages import encode_page, merge_page, page_key, read_page, validate_page
from ioa_p2p.dht.sketchscore import SketchScorer, fetch_count, query_terms, settle_count
from ioa_p2p.errors import InvalidCard, SignatureError
from ioa_p2p.identity import Identity
from ioa_p2p.matching.calibration import HYBRID, MINILM, WORDLLAMA

MODEL, DIM, SCHEME = "example/16", 16, "example/40"
NOW = 1_700_000_000_000
TTL = 30 * 60 * 1000


def ident(i: int) -> Identity:
    return Identity(bytes([i % 256, i // 256]) + b"\x09" * 30)


def v2(i: int, view, rest=None, terms=(), *, version: int = 1, scheme: str = SCHEME):
    return issue_sketch(
        ident(i),
        version=version,
        model=MODEL,
        vector=view,
        now_ms=NOW,
        expires_at=NOW + TTL,
        scheme=scheme,
        rest=rest,
        terms=terms,
    )


def v1(i: int, view, *, version: int = 1):
    return issue_sketch(ident(i), version=version, model=MODEL, vector=view, now_ms=NOW, expires_at=NOW + TTL)


def test_a_version_2_sketch_carries_the_rest_and_the_terms_and_is_checked_against_its_card() -> None:
    rng = np.random.default_rng(3)
    view, rest = rng.normal(size=DIM), rng.normal(size=24)
    s = v2(1, view, rest, ["plot", "chart", "plot", "python"], version=9)
    back = parse_sketch(s.encoded, now_ms=NOW + 1)
    assert isinstance(back.body, CardSketchV2) and back.envelope.body.VERSION == 2
    assert sketch_terms(back) == {term_hash("plot"), term_hash("chart"), term_hash("python")}
    scheme, values = sketch_rest(back) or ("", None)
    assert scheme == SCHEME and np.array_equal(values, np.frombuffer(quantise(rest), np.int8))
    assert matches_card(back, 9, view, rest)
    assert not matches_card(back, 9, view, -rest) and not matches_card(back, 9, view, None)
    assert not matches_card(back, 9, -view, rest)
    forged = dataclasses.replace(s.envelope, body=dataclasses.replace(s.body, terms=pack_terms(["spam"])))
    with pytest.raises(SignatureError):
        parse_sketch(forged.to_cbor(), now_ms=NOW)
    # a version 1 sketch reads as before: no rest, no terms, checked on its view alone
    old = parse_sketch(v1(2, view, version=9).encoded, now_ms=NOW)
    assert type(old.body) is CardSketch and sketch_rest(old) is None and sketch_terms(old) == frozenset()
    assert matches_card(old, 9, view)
    # a scheme whose vector is the family's view: an empty rest
    assert sketch_rest(v2(3, view, None, ["x"])) is None


def test_version_2_fields_are_bounded() -> None:
    view = np.arange(1, DIM + 1, dtype=float)
    terms = [f"t{i}" for i in range(200)]
    assert len(sketch_terms(v2(1, view, None, terms))) == MAX_SKETCH_TERMS
    good = v2(1, view, np.ones(4), ["a", "b"])
    bad_bodies = [
        dataclasses.replace(good.body, terms=good.body.terms[4:] + good.body.terms[:4]),  # not sorted
        dataclasses.replace(good.body, terms=b"\x00\x00\x00\x01" * 2),  # repeated
        dataclasses.replace(good.body, terms=b"\x00" * 5),  # not whole hashes
        dataclasses.replace(good.body, terms=b"".join(i.to_bytes(4, "big") for i in range(65))),
        dataclasses.replace(good.body, rest=b"\x00" * 4),  # all zero
        dataclasses.replace(good.body, rest=b"\x80"),  # -128
        dataclasses.replace(good.body, rest=b"\x01" * 1020),  # over 1,024 values in all
        dataclasses.replace(good.body, scheme=""),
    ]
    for body in bad_bodies:
        with pytest.raises(InvalidCard):
            body.validate()
    with pytest.raises(InvalidCard):
        decode_sketch(dataclasses.replace(good.envelope, body=bad_bodies[0]).to_cbor())


def test_pages_hold_version_1_and_version_2_sketches_side_by_side() -> None:
    """A storing peer checks and merges either version; a newer card version replaces the entry whatever
    its sketch version (nodes of the previous release keep publishing version 1)."""
    forest = forest_for(MODEL, DIM)
    view = np.random.default_rng(4).normal(size=DIM)
    old, new = v1(1, view), v2(2, view, np.ones(3), ["plot"])
    cell = next(c for c in forest.cells(old.vector(), (8,)) if c.table == 0)
    key = page_key(cell, MODEL, DIM)
    both = validate_page(key, encode_page([old.encoded, new.encoded]), NOW)
    assert [type(s.body) for s in both] == [CardSketch, CardSketchV2]
    merged = merge_page(None, both, NOW)
    upgraded = merge_page(merged.page, [v2(1, view, None, ["plot"], version=2)], NOW)
    assert upgraded.replaced == (ident(1).peer_id,)
    held = {s.peer_id: s for s in read_page(upgraded.page, NOW)}
    assert isinstance(held[ident(1).peer_id].body, CardSketchV2)


def test_the_scorer_mirrors_the_matchers_first_stage() -> None:
    rng = np.random.default_rng(5)
    qv, qr = rng.normal(size=DIM), rng.normal(size=24)
    unit = lambda x: x / np.linalg.norm(x)  # noqa: E731
    scorer = SketchScorer(qv, scheme=SCHEME, rest=qr, terms=query_terms("plot the sales data"))
    view, rest = rng.normal(size=DIM), rng.normal(size=24)
    s = v2(1, view, rest, [])
    (m1, s1), (m2, s2) = HYBRID.standard[WORDLLAMA], HYBRID.standard[MINILM]
    q1 = np.frombuffer(quantise(view), np.int8).astype(float)
    q2 = np.frombuffer(quantise(rest), np.int8).astype(float)
    expected = (unit(q1) @ unit(qv) - m1) / s1 + (unit(q2) @ unit(qr) - m2) / s2
    assert scorer.dense(s) == pytest.approx(expected, abs=1e-9)
    # a sketch without a comparable rest (version 1, another scheme) counts its view twice
    twice = 2 * (unit(q1) @ unit(qv) - m1) / s1
    assert scorer.dense(v1(2, view)) == pytest.approx(twice, abs=1e-9)
    assert scorer.dense(v2(3, view, rest, [], scheme="other/24")) == pytest.approx(twice, abs=1e-9)
    # a query without a rest (a node of the wordllama scheme) counts the view once, for every sketch
    plain = SketchScorer(qv)
    assert plain.dense(s) == pytest.approx(twice / 2, abs=1e-9) == plain.dense(v1(2, view))
    # a sketch of another family size never wins
    small = issue_sketch(ident(4), version=1, model=MODEL, vector=np.ones(8), now_ms=NOW, expires_at=NOW + 1)
    assert scorer.dense(small) == -np.inf


def test_term_hashes_score_like_bm25_over_the_candidates_listed() -> None:
    view = np.ones(DIM)
    scorer = SketchScorer(view, terms=query_terms("plot sales charts"))
    rare = v2(1, view, None, ["chart", "sale", "plot", "python"])
    common = v2(2, view, None, ["plot", "python"])
    neither = v2(3, view, None, ["weather", "forecast"])
    for s in (rare, common, neither):
        scorer.listed(s)
    scores = scorer.lexical([s.peer_id.raw for s in (rare, common, neither)])
    assert scores[rare.peer_id.raw] == pytest.approx(HYBRID.weights["lexical"])  # the best one: 1 x weight
    assert 0 < scores[common.peer_id.raw] < scores[rare.peer_id.raw]
    assert neither.peer_id.raw not in scores
    scorer.dropped(rare)
    after = scorer.lexical([common.peer_id.raw, neither.peer_id.raw])
    assert after[common.peer_id.raw] == pytest.approx(HYBRID.weights["lexical"])
    assert SketchScorer(view).lexical([common.peer_id.raw]) == {}  # a query without terms


def test_a_page_search_ranks_by_terms_when_the_vectors_tie() -> None:
    """Candidates whose vectors score alike are ordered by the query's terms; a replaced sketch's terms
    stop counting."""
    forest = forest_for(MODEL, DIM)
    view = np.random.default_rng(6).normal(size=DIM)
    search = PageSearch(
        forest, view, 10, scorer=SketchScorer(view, terms=query_terms("translate legal contracts"))
    )
    cells = search.start()
    plain = [v2(i, view, None, ["cook", "legal"]) for i in range(1, 5)]
    lawyer = v2(9, view, None, ["legal", "contract", "translat"])
    search.offer(cells[0].key, [*plain, lawyer])
    assert search.best(1)[0].peer_id == lawyer.peer_id
    search.offer(cells[0].key, [v2(9, view, None, ["cook"], version=2)])
    assert search.best(1)[0].peer_id != lawyer.peer_id
    search.drop(plain[0].peer_id)
    assert plain[0].peer_id not in {s.peer_id for s in search.best(10)}


def test_half_as_many_cards_are_fetched_when_the_sketches_carry_a_comparable_rest() -> None:
    rng = np.random.default_rng(7)
    view, rest = rng.normal(size=DIM), rng.normal(size=24)
    scorer = SketchScorer(view, scheme=SCHEME, rest=rest)
    rich = [v2(i, view, rest, ["a"]) for i in range(24)]
    plain = [v2(i, view, None, ["a"]) for i in range(24)]
    other = [v2(i, view, rest, ["a"], scheme="other/40") for i in range(24)]
    assert all(scorer.comparable(s) for s in rich) and not any(scorer.comparable(s) for s in plain + other)
    assert fetch_count(scorer, rich, 24, 5) == 12
    assert fetch_count(scorer, plain, 24, 5) == 24 and fetch_count(scorer, other, 24, 5) == 24
    assert fetch_count(scorer, rich[:20] + plain[:4], 24, 5) == 12  # 20 of 24 carry one: >= 0.8
    assert fetch_count(scorer, rich[:19] + plain[:5], 24, 5) == 24
    assert fetch_count(scorer, rich, 24, 20) == 20  # never fewer than k
    assert fetch_count(scorer, [], 24, 5) == 0
    assert fetch_count(SketchScorer(view), rich, 24, 5) == 24  # a query without a rest
    assert settle_count(24, 5) == 20 and settle_count(12, 5) == 10 and settle_count(6, 5) == 5
    assert settle_count(3, 5) == 3


def _listing(size_estimate: float, cards: int, *, hide: int = 0):
    """A level-4 listing of ``cards`` sketches whose network size is estimated at ``size_estimate``;
    ``hide``: that many cards are missing from the pages of table 0 (not stored there yet)."""
    forest = forest_for(MODEL, DIM)
    rng = np.random.default_rng(8)
    sketches = [v2(i, rng.normal(size=DIM), None, []) for i in range(cards)]
    pages: dict[bytes, list] = {}
    for i, s in enumerate(sketches):
        for cell in forest.cells(s.vector(), (4,)):
            if cell.table == 0 and i < hide:
                continue
            pages.setdefault(cell.key, []).append(s)
    search = PageSearch(forest, rng.normal(size=DIM), size_estimate)
    rounds = []
    cells = search.start()
    while cells:
        rounds.append({c.table for c in cells})
        for cell in cells:
            search.offer(cell.key, pages.get(cell.key, []))
        cells = search.next_cells()
    return search, rounds


def test_a_listing_short_of_an_overestimated_size_is_confirmed_by_the_second_table() -> None:
    """The size estimate said 38 for 25 cards: table 1's pages name no one new, so the listing is
    complete after two rounds (no probing search)."""
    search, rounds = _listing(38, 25)
    assert rounds == [{0}, {1}] and len(search.candidates) == 25 and search.level is None
    # a listing that covers the estimate needs one round
    assert _listing(25, 25)[1] == [{0}]


def test_entries_missing_from_table_0_start_a_probing_search() -> None:
    search, rounds = _listing(25, 25, hide=8)
    assert rounds[:2] == [{0}, {1}] and len(rounds) > 2 and search.level == 8
    assert len(search.candidates) == 25
