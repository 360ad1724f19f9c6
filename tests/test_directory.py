"""Local directory: newest-version rule, expiry, capacity, model separation, similarity search."""

from __future__ import annotations

import numpy as np
import pytest

from ioa_p2p.card import SignedCard, issue_card
from ioa_p2p.dht.directory import Directory, Offer
from ioa_p2p.dht.index import AnnoyIndex
from ioa_p2p.errors import UsageError
from ioa_p2p.identity import Identity

NOW = 1_700_000_000_000
MODEL = "test/4"
PEERS = [Identity(bytes([i]) * 32) for i in range(1, 9)]


def card(
    who: int,
    vector: list[float],
    *,
    version: int = 1,
    ttl_ms: int = 60_000,
    model: str = MODEL,
    now_ms: int = NOW,
) -> SignedCard:
    return issue_card(
        PEERS[who],
        name=f"agent{who}",
        description="d",
        model=model,
        vector=vector,
        version=version,
        now_ms=now_ms,
        ttl_ms=ttl_ms,
    )


def test_newer_version_replaces_older_and_never_the_reverse() -> None:
    d = Directory(MODEL, 4)
    v1 = card(0, [1, 0, 0, 0], version=1)
    v2 = card(0, [0, 1, 0, 0], version=2)
    assert d.offer(v1, NOW, "gossip") is Offer.ADDED
    assert d.offer(v2, NOW, "dht") is Offer.UPDATED
    assert d.offer(v1, NOW, "gossip") is Offer.STALE
    assert d.offer(card(0, [0, 0, 1, 0], version=2), NOW, "gossip") is Offer.UNCHANGED
    assert d.get(PEERS[0].peer_id) == v2
    assert d.entry(PEERS[0].peer_id).source == "dht"  # type: ignore[union-attr]
    assert d.version_of(PEERS[0].peer_id) == 2
    # The index follows the replacement.
    assert d.search([0, 1, 0, 0], 1, NOW)[0].score == pytest.approx(1.0)
    assert Offer.UPDATED.changed and not Offer.STALE.changed


def test_expired_cards_are_refused_and_dropped() -> None:
    d = Directory(MODEL, 4)
    short = card(0, [1, 0, 0, 0], ttl_ms=1_000)
    long = card(1, [1, 0.1, 0, 0], ttl_ms=10_000)
    assert d.offer(short, NOW + 1_000, "gossip") is Offer.EXPIRED
    assert d.offer(short, NOW, "gossip") is Offer.ADDED
    assert d.offer(long, NOW, "gossip") is Offer.ADDED
    assert d.next_expiry() == NOW + 1_000
    assert [m.card.peer_id for m in d.search([1, 0, 0, 0], 5, NOW + 500)] == [
        PEERS[0].peer_id,
        PEERS[1].peer_id,
    ]
    assert [m.card.peer_id for m in d.search([1, 0, 0, 0], 5, NOW + 1_000)] == [PEERS[1].peer_id]
    assert PEERS[0].peer_id not in d
    assert d.expire(NOW + 20_000) == [PEERS[1].peer_id]
    assert len(d) == 0 and d.next_expiry() is None


def test_an_expired_stored_card_gives_way_even_to_a_lower_version() -> None:
    d = Directory(MODEL, 4)
    d.offer(card(0, [1, 0, 0, 0], version=5, ttl_ms=1_000), NOW, "dht")
    later = card(0, [1, 0, 0, 0], version=3, now_ms=NOW + 2_000)
    assert d.get(PEERS[0].peer_id, NOW + 1_500) is None
    assert d.offer(later, NOW + 2_000, "dht") is Offer.ADDED


def test_expiry_of_a_replaced_version_does_not_remove_the_new_one() -> None:
    d = Directory(MODEL, 4)
    d.offer(card(0, [1, 0, 0, 0], version=1, ttl_ms=1_000), NOW, "gossip")
    d.offer(card(0, [1, 0, 0, 0], version=2, ttl_ms=5_000), NOW, "gossip")
    assert d.expire(NOW + 2_000) == []
    assert d.version_of(PEERS[0].peer_id) == 2


def test_other_models_are_kept_but_never_ranked() -> None:
    d = Directory(MODEL, 4)
    d.offer(card(0, [1, 0, 0, 0]), NOW, "gossip")
    d.offer(card(1, [1, 0, 0, 0], model="other/4"), NOW, "gossip")
    d.offer(card(2, [1, 0, 0, 0, 0], model=MODEL), NOW, "gossip")  # same id, wrong dim
    assert len(d) == 3
    assert [m.card.peer_id for m in d.search([1, 0, 0, 0], 10, NOW)] == [PEERS[0].peer_id]
    # A peer that switches model leaves the index.
    d.offer(card(0, [1, 0, 0, 0], version=2, model="other/4"), NOW, "gossip")
    assert d.search([1, 0, 0, 0], 10, NOW) == []


def test_search_ranks_by_cosine_and_excludes() -> None:
    d = Directory(MODEL, 4)
    vectors = [[1, 0, 0, 0], [0.9, 0.1, 0, 0], [0, 1, 0, 0], [-1, 0, 0, 0]]
    for i, v in enumerate(vectors):
        d.offer(card(i, v), NOW, "gossip")
    matches = d.search([1, 0, 0, 0], 3, NOW)
    assert [m.card.peer_id for m in matches] == [PEERS[i].peer_id for i in (0, 1, 2)]
    assert matches[0].to_json()["score"] == 1.0
    assert matches[0].to_json()["name"] == "agent0"
    excluded = d.search([1, 0, 0, 0], 2, NOW, exclude=frozenset({PEERS[0].peer_id}))
    assert [m.card.peer_id for m in excluded] == [PEERS[1].peer_id, PEERS[2].peer_id]
    assert d.search([1, 0, 0, 0], 0, NOW) == []


def test_full_directory_evicts_the_card_closest_to_expiry() -> None:
    d = Directory(MODEL, 4, max_cards=2)
    d.offer(card(0, [1, 0, 0, 0], ttl_ms=5_000), NOW, "gossip")
    d.offer(card(1, [1, 0, 0, 0], ttl_ms=9_000), NOW, "gossip")
    assert d.offer(card(2, [1, 0, 0, 0], ttl_ms=4_000), NOW, "gossip") is Offer.FULL
    assert d.offer(card(3, [1, 0, 0, 0], ttl_ms=20_000), NOW, "gossip") is Offer.ADDED
    assert set(e.card.peer_id for e in d) == {PEERS[1].peer_id, PEERS[3].peer_id}
    # Updating a stored peer never needs room.
    assert d.offer(card(1, [0, 1, 0, 0], version=2, ttl_ms=1_000), NOW, "gossip") is Offer.UPDATED


def test_works_with_the_annoy_index() -> None:
    rng = np.random.default_rng(0)
    index = AnnoyIndex(4, min_size=3, n_trees=5)
    d = Directory(MODEL, 4, index)
    for i in range(6):
        d.offer(card(i, list(rng.normal(size=4))), NOW, "gossip")
    assert index.needs_rebuild()
    index.install(index.prepare_rebuild().build())
    q = d.get(PEERS[2].peer_id).embedding()  # type: ignore[union-attr]
    assert d.search(q, 1, NOW)[0].card.peer_id == PEERS[2].peer_id
    d.remove(PEERS[2].peer_id)
    assert PEERS[2].peer_id not in [m.card.peer_id for m in d.search(q, 6, NOW)]


def test_index_dimension_must_match() -> None:
    with pytest.raises(UsageError):
        Directory(MODEL, 4, AnnoyIndex(5))


def test_past_keep_all_only_wanted_cards_are_kept_and_the_least_used_makes_room() -> None:
    directory = Directory(MODEL, 4, keep_all=3)
    for who in range(3):
        assert directory.offer(card(who, [1, 0, 0, who]), NOW, "gossip", wanted=False) is Offer.ADDED
    assert not directory.partial
    # a gossip card nobody asked for is not kept once the directory holds keep_all cards
    assert directory.offer(card(3, [0, 1, 0, 0]), NOW, "gossip", wanted=False) is Offer.NOT_KEPT
    assert directory.partial and PEERS[3].peer_id not in directory
    # a wanted card (fetched for a find) is stored; trimming drops the least recently used unpinned one
    directory.used([PEERS[0].peer_id])
    directory.pin(frozenset({PEERS[1].peer_id}))
    assert directory.offer(card(4, [0, 0, 1, 0]), NOW, "dht") is Offer.ADDED
    assert len(directory) == 4 and directory.trim(NOW) == [PEERS[2].peer_id]  # neither used lately nor pinned
    assert {PEERS[0].peer_id, PEERS[1].peer_id, PEERS[4].peer_id} <= set(e.card.peer_id for e in directory)
    # updates of held cards are always stored
    assert directory.offer(card(0, [1, 0, 0, 0], version=2), NOW, "gossip", wanted=False) is Offer.UPDATED
    # a pinned peer's card is kept even from gossip
    directory.pin(frozenset({PEERS[5].peer_id, PEERS[1].peer_id}))
    assert directory.offer(card(5, [0, 1, 1, 0]), NOW, "gossip", wanted=False) is Offer.ADDED
    directory.trim(NOW)
    assert len(directory) == 3 and PEERS[5].peer_id in directory


def test_a_card_unconfirmed_past_the_stale_age_is_never_returned_before_it_is_dropped() -> None:
    """A node back from a long sleep holds cards its owners withdrew meanwhile: reads skip every card
    not confirmed within ``stale_after_ms`` at once, not only once the revalidation loop drops it."""
    d = Directory(MODEL, 4, stale_after_ms=10_000)
    ttl = 3_600_000
    d.offer(card(0, [1, 0, 0, 0], ttl_ms=ttl), NOW, "gossip")
    d.offer(card(1, [0.9, 0.1, 0, 0], ttl_ms=ttl), NOW + 8_000, "gossip")
    later = NOW + 12_000  # card 0 last confirmed 12 s ago, card 1 4 s ago
    assert [m.card.peer_id for m in d.search([1, 0, 0, 0], 5, later)] == [PEERS[1].peer_id]
    assert [c.peer_id for c in d.cards(later)] == [PEERS[1].peer_id]
    assert PEERS[0].peer_id in d and len(d.cards()) == 2  # held (to be confirmed again), not returned
    d.touch(PEERS[0].peer_id, later)  # its owner confirmed it
    assert len(d.search([1, 0, 0, 0], 5, later)) == 2
    d.offer(card(2, [0, 1, 0, 0], ttl_ms=ttl), NOW, "self")  # this node's own card is never stale
    assert PEERS[2].peer_id in {c.peer_id for c in d.cards(NOW + 60_000)}
    assert len(Directory(MODEL, 4).cards()) == 0
    with pytest.raises(UsageError):
        Directory(MODEL, 4, stale_after_ms=-1)
