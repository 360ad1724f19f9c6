"""Card sketches, bucket pages and the page search (pure: card/sketch.py, dht/pages.py, dht/expand.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from ioa_p2p.card.sketch import (
    decode_sketch,
    issue_sketch,
    matches_card,
    parse_sketch,
    quantise,
    sketch_vector,
)
from ioa_p2p.dht.expand import MAX_PAGES, PageSearch, page_level
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.pages import (
    PAGE_ENTRIES,
    decode_page,
    encode_page,
    in_cell,
    merge_page,
    page_key,
    parse_page_key,
    read_page,
    validate_page,
)
from ioa_p2p.dht.validators import IoaNamespaceValidator
from ioa_p2p.errors import ExpiredCard, InvalidCard, InvalidMessage, SignatureError, UsageError
from ioa_p2p.identity import Identity

MODEL, DIM = "example/16", 16
NOW = 1_700_000_000_000
TTL = 30 * 60 * 1000


def ident(i: int) -> Identity:
    return Identity(bytes([i % 256, i // 256]) + b"\x07" * 30)


def sketch_of(i: int, vector: np.ndarray, *, version: int = 1, now: int = NOW):
    return issue_sketch(
        ident(i), version=version, model=MODEL, vector=vector, now_ms=now, expires_at=now + TTL
    )


def own_page(sketch, level: int = 8, table: int = 0) -> tuple[str, bytes]:
    forest = forest_for(MODEL, DIM)
    cell = next(c for c in forest.cells(sketch.vector(), (level,)) if c.table == table)
    return page_key(cell, MODEL, DIM), encode_page([sketch.encoded])


def test_quantise_keeps_direction_and_is_exact_on_integers() -> None:
    rng = np.random.default_rng(1)
    v = rng.normal(size=DIM)
    q = sketch_vector(quantise(v))
    assert np.max(np.abs(q)) == 127
    assert float(q @ v) / (np.linalg.norm(q) * np.linalg.norm(v)) > 0.999
    with pytest.raises(InvalidCard):
        quantise(np.zeros(DIM))
    with pytest.raises(InvalidCard):
        quantise(np.array([1.0, float("nan")]))


def test_sketch_round_trip_and_checks() -> None:
    v = np.random.default_rng(2).normal(size=DIM)
    s = sketch_of(1, v, version=7)
    back = parse_sketch(s.encoded, now_ms=NOW + 1)
    assert back.version == 7 and back.peer_id == ident(1).peer_id and back.body.dim == DIM
    assert matches_card(back, 7, v) and not matches_card(back, 8, v) and not matches_card(back, 7, -v)
    with pytest.raises(ExpiredCard):
        parse_sketch(s.encoded, now_ms=NOW + TTL)
    forged = dataclasses.replace(s.envelope, body=dataclasses.replace(s.body, sketch=quantise(-v)))
    with pytest.raises(SignatureError):
        parse_sketch(forged.to_cbor(), now_ms=NOW)
    with pytest.raises(InvalidMessage):
        decode_sketch(b"\x00" * 10)


def test_page_key_round_trip_and_refusals() -> None:
    cell = forest_for("wordllama/l2_supercat/256", 256).cell(3, 8, 200)
    key = page_key(cell, "wordllama/l2_supercat/256", 256)
    assert key == "/ioa/page/2/wordllama/l2_supercat/256/256/8x12/3/8/200"
    parsed = parse_page_key(key)
    assert (parsed.model, parsed.dim, parsed.table, parsed.level, parsed.prefix) == (
        "wordllama/l2_supercat/256",
        256,
        3,
        8,
        200,
    )
    for bad in (
        "/ioa/page/2/m/16/8x12/0/8/256",  # prefix out of range
        "/ioa/page/2/m/16/8x12/9/8/1",  # no table 9
        "/ioa/page/2/m/16/8x12/0/5/1",  # no level 5
        "/ioa/page/2/m/016/8x12/0/8/1",  # not canonical
        "/ioa/page/2/16/8x12/0/8/1",  # no model
        "/ioa/card/x",
    ):
        with pytest.raises(InvalidCard):
            parse_page_key(bad)


def test_validator_accepts_own_bucket_only() -> None:
    v = np.random.default_rng(3).normal(size=DIM)
    s = sketch_of(4, v)
    key, page = own_page(s)
    validator = IoaNamespaceValidator(lambda: NOW)
    validator.validate(key, page)
    assert validate_page(key, page, NOW)[0].peer_id == ident(4).peer_id
    cell = parse_page_key(key)
    other = page_key(forest_for(MODEL, DIM).cell(0, 8, cell.prefix ^ 1), MODEL, DIM)
    with pytest.raises(InvalidCard, match="does not belong"):
        validator.validate(other, page)
    with pytest.raises(InvalidCard):
        validator.validate(key, encode_page([]))
    with pytest.raises(InvalidCard):
        validator.validate(key, encode_page([s.encoded, s.encoded]))
    assert validator.select(key, [page, page]) == 1
    assert validator.select(key, [page, b"junk"]) == 0


def test_merge_keeps_one_entry_per_peer_newest_first_come_and_admitted() -> None:
    v = np.random.default_rng(4).normal(size=DIM)
    a1, a2, b = sketch_of(1, v, version=1), sketch_of(1, v, version=2), sketch_of(2, v)
    m = merge_page(None, [a1], NOW)
    assert m.page is not None and m.added == (a1.peer_id,)
    m2 = merge_page(m.page, [a2, b], NOW)
    assert m2.replaced == (a1.peer_id,) and m2.added == (b.peer_id,)
    entries = [decode_sketch(e) for e in decode_page(m2.page or b"")]
    assert {(e.peer_id, e.version) for e in entries} == {(a1.peer_id, 2), (b.peer_id, 1)}
    assert merge_page(m2.page, [a1], NOW).page is None  # an older version changes nothing
    assert merge_page(m2.page, [sketch_of(3, v)], NOW, admit=()).refused == 1
    full = merge_page(None, [sketch_of(10 + i, v) for i in range(PAGE_ENTRIES)], NOW)
    late = merge_page(full.page, [sketch_of(999, v)], NOW)
    assert late.refused == 1 and late.page is None
    # expired entries go, and make room
    assert read_page(m2.page or b"", NOW + TTL) == []
    assert merge_page(full.page, [sketch_of(999, v, now=NOW + TTL)], NOW + TTL).added


def clustered(n: int, dim: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Cards around 40 topics and queries that only weakly align with a topic (as goals do)."""
    rng = np.random.default_rng(seed)
    topics = rng.normal(size=(40, dim))
    cards = topics[rng.integers(0, 40, n)] + 0.9 * rng.normal(size=(n, dim))
    queries = topics[rng.integers(0, 40, 30)] + 2.5 * rng.normal(size=(30, dim))
    unit = lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)  # noqa: E731
    return unit(cards), unit(queries)


def test_page_search_recovers_the_exact_top_5() -> None:
    n, dim = 1500, 64
    model = "example/64"
    cards, queries = clustered(n, dim, 5)
    forest = forest_for(model, dim)
    sketches = [
        issue_sketch(ident(i), version=1, model=model, vector=cards[i], now_ms=NOW, expires_at=NOW + TTL)
        for i in range(n)
    ]
    pages: dict[bytes, list] = {}
    for s in sketches:
        for cell in forest.cells(s.vector(), (4, 8, 12)):
            page = pages.setdefault(cell.key, [])
            if len(page) < PAGE_ENTRIES:
                page.append(s)
    assert page_level(100) is None and page_level(500) is None and page_level(1500) == 8
    assert page_level(20000) == 12
    # a searcher that overestimates a network of 10,000 by half keeps its level-8 seeds
    assert page_level(15000) == 8 and page_level(16500) == 12
    index = {s.peer_id: i for i, s in enumerate(sketches)}
    recall, asked = [], []
    for q in queries:
        search = PageSearch(forest, q, n)
        cells = search.start()
        while cells:
            for cell in cells:
                assert (
                    in_cell(pages[cell.key][0], parse_page_key(page_key(cell, model, dim)))
                    if pages.get(cell.key)
                    else True
                )
                search.offer(cell.key, pages.get(cell.key, []))
            cells = search.next_cells()
        exact = set(np.argsort(-(cards @ q))[:5].tolist())
        got = {index[s.peer_id] for s in search.best(5)}
        recall.append(len(exact & got) / 5)
        asked.append(len(search.asked))
    assert np.mean(recall) >= 0.9, np.mean(recall)
    assert max(asked) <= MAX_PAGES


def test_the_validators_page_prefix_is_the_pages_prefix() -> None:
    from ioa_p2p.dht import pages, validators

    assert validators.PAGE_PREFIX == pages.PAGE_PREFIX


@pytest.mark.parametrize(("model", "dim"), [("wordllama/l2_supercat/256", 256), (MODEL, DIM), ("odd/7", 7)])
def test_the_integer_prefix_a_storing_peer_checks_is_the_float64_code(model: str, dim: int) -> None:
    """``Forest.prefix`` (exact integers, no numpy: what a storing peer runs for every page entry) gives
    the bits of ``Forest.codes`` (float64) for every table and level, ties at zero included."""
    rng = np.random.default_rng(dim)
    forest = forest_for(model, dim)
    vectors = [rng.integers(-128, 128, size=dim) for _ in range(40)]
    vectors += [rng.integers(-1, 2, size=dim) for _ in range(40)]  # many projections of exactly 0
    for v in vectors:
        codes = forest.codes(v.astype(np.float64))
        raw = v.astype(np.int8).tobytes()
        for table in range(forest.tables):
            for level in (0, 4, 8, 12):
                assert forest.prefix(raw, table, level) == codes[table] & ((1 << level) - 1)
    with pytest.raises(UsageError):
        forest.prefix(bytes(dim + 1), 0, 4)


def test_the_publisher_makes_its_page_and_keys_once_per_sketch_and_levels() -> None:
    """The publishing loop asks :meth:`PagePublisher.record` every second: the same sketch at the same
    levels returns what was made (no new cells or page); a network grown into a finer level, or a new card
    version, makes them again."""
    from ioa_p2p.card import issue_card
    from ioa_p2p.dht.lsh import card_buckets
    from ioa_p2p.dht.probing import provided_levels
    from ioa_p2p.node.discovery.pages import PagePublisher

    identity = Identity.generate()
    rng = np.random.default_rng(7)
    vector = rng.standard_normal(64)
    vector /= np.linalg.norm(vector)

    def signed(version: int) -> Any:
        return issue_card(
            identity, name="plotter", description="plots charts", model="m", vector=vector,
            version=version, now_ms=NOW,
        )  # fmt: skip

    lsh = card_buckets("m", 64)
    publisher = PagePublisher()
    first = signed(1)
    made = publisher.record(identity, first, vector, lsh, NOW, 10.0)
    assert made is not None
    assert publisher.record(identity, first, vector, lsh, NOW + 1000, 12.0) is made  # same sketch, levels
    big = 10_000.0
    assert provided_levels(big) != provided_levels(10.0)
    grown = publisher.record(identity, first, vector, lsh, NOW, big)
    assert grown is not None and grown is not made and len(grown[0]) > len(made[0])
    renewed = publisher.record(identity, signed(2), vector, lsh, NOW, big)
    assert renewed is not None and renewed is not grown and renewed[1] != grown[1]  # a new sketch's page


def test_the_publisher_makes_no_page_for_an_expired_card() -> None:
    """A node starved for longer than its card's TTL (a 6 s TTL, a loaded machine) asked for the page of
    its current card once that card had expired: the sketch would live 0 ms, InvalidCard ended the node
    (tests/test_discovery_net.py, under load). Nothing is made until the republished card comes."""
    from ioa_p2p.card import issue_card
    from ioa_p2p.dht.lsh import card_buckets
    from ioa_p2p.node.discovery.pages import PagePublisher

    identity = Identity.generate()
    vector = np.random.default_rng(3).standard_normal(64)
    vector /= np.linalg.norm(vector)

    def signed(version: int, now_ms: int) -> Any:
        return issue_card(
            identity, name="plotter", description="plots charts", model="m", vector=vector,
            version=version, now_ms=now_ms, ttl_ms=6_000,
        )  # fmt: skip

    lsh, publisher = card_buckets("m", 64), PagePublisher()
    card = signed(1, NOW)
    assert publisher.record(identity, card, vector, lsh, NOW + 6_000, 10.0) is None  # expired: no page
    assert publisher.record(identity, card, vector, lsh, NOW + 5_999, 10.0) is not None
    assert publisher.record(identity, card, vector, lsh, NOW + 7_000, 10.0) is None  # not the old page
    renewed = publisher.record(identity, signed(2, NOW + 7_000), vector, lsh, NOW + 7_000, 10.0)
    assert renewed is not None
