"""Fetch slots for proven candidates (pure: dht/fetchevidence.py and its use in choose_fetch)."""

from __future__ import annotations

import numpy as np
import pytest

from ioa_p2p.dht.fetchchoice import choose_fetch
from ioa_p2p.dht.fetchevidence import PROVEN_MARGIN, proven_first, proven_slots

from .test_fetch_choice import DIM, sketch


def test_proven_slots_are_a_share_of_the_count_rounded_up() -> None:
    assert proven_slots(24) == 6
    assert proven_slots(5) == 2
    assert proven_slots(1) == 1
    assert proven_slots(0) == 0
    assert proven_slots(8, share=0.0) == 0
    assert proven_slots(3, share=2.0) == 3


def test_without_proven_candidates_the_best_count_is_kept_in_order() -> None:
    scores = [9.0, 8.0, 7.0, 6.0, 5.0, 4.0]
    assert proven_first(scores, [False] * 6, 4) == [0, 1, 2, 3]
    assert proven_first(scores, [False] * 6, 10) == [0, 1, 2, 3, 4, 5]
    assert proven_first([], [], 4) == []
    with pytest.raises(ValueError):
        proven_first(scores, [False], 4)


def test_proven_candidates_near_the_last_slot_replace_the_last_unproven_picks() -> None:
    scores = [10.0, 9.5, 9.0, 8.5, 8.4, 8.3, 8.2, 8.1, 8.0, 7.9, 7.0]
    proven = [False] * 8 + [True, True, True]
    # 8 slots, 2 kept for proven: the two proven just past the line move in, the last two unproven leave
    assert proven_first(scores, proven, 8) == [0, 1, 2, 3, 4, 5, 8, 9]
    # a proven candidate already chosen counts against the kept slots
    already = [False, True] + [False] * 6 + [True, True, True]
    assert proven_first(scores, already, 8) == [0, 1, 2, 3, 4, 5, 6, 8]


def test_a_proven_candidate_far_below_the_last_slot_is_not_fetched() -> None:
    scores = [10.0, 9.0, 8.0, 7.0, 7.0 - PROVEN_MARGIN - 0.5]
    proven = [False, False, False, False, True]
    assert proven_first(scores, proven, 4) == [0, 1, 2, 3]
    scores[-1] = 7.0 - PROVEN_MARGIN + 0.5
    assert proven_first(scores, proven, 4) == [0, 1, 2, 4]


def test_proven_candidates_never_push_out_a_proven_pick_or_the_best_ones() -> None:
    scores = [10.0 - 0.1 * i for i in range(40)]
    proven = [i % 2 == 1 and i >= 20 for i in range(40)]  # ten proven, all past the first 20
    chosen = proven_first(scores, proven, 20)
    assert len(chosen) == 20
    assert chosen[:15] == list(range(15))  # the best unproven stay
    assert sum(proven[i] for i in chosen) == proven_slots(20)


def test_a_flood_of_unproven_sketches_leaves_room_for_the_proven_agent_of_a_need() -> None:
    """Thirty plausible unproven cards score a little above the honest agent this node worked with: the
    score alone fetches only spam; with the agent proven it is fetched, and the best spam still is."""
    rng = np.random.default_rng(7)
    spam = [sketch(200 + i, rng.normal(size=DIM)) for i in range(30)]
    worker = sketch(1, rng.normal(size=DIM))
    scored = [(9.0 - 0.02 * i, s) for i, s in enumerate(spam)] + [(8.0, worker)]
    plain = choose_fetch(scored, 8)
    assert worker not in plain and plain == spam[:8]
    chosen = choose_fetch(scored, 8, proven={worker.peer_id})
    assert worker in chosen and len(chosen) == 8
    assert chosen[:6] == spam[:6]
    # evidence is not a claim: without the defences, or for a peer not proven, nothing changes
    assert worker not in choose_fetch(scored, 8, defences=False, proven={worker.peer_id})
    assert choose_fetch(scored, 8, proven={sketch(999, rng.normal(size=DIM)).peer_id}) == plain


def test_a_proven_member_comes_first_among_copies() -> None:
    rng = np.random.default_rng(8)
    text = rng.normal(size=DIM)
    copies = [sketch(300 + i, text) for i in range(20)]
    others = [sketch(400 + i, rng.normal(size=DIM)) for i in range(10)]
    scored = [(9.0, s) for s in copies] + [(5.0 - 0.1 * i, s) for i, s in enumerate(others)]
    proven = copies[13]
    chosen = choose_fetch(scored, 4, proven={proven.peer_id})
    assert chosen[0] == proven  # the group's slot goes to the member with evidence
    held = copies[17]
    assert choose_fetch(scored, 4, proven={proven.peer_id}, known={held.peer_id})[0] == held


def test_the_node_gives_its_proven_peers_fetch_slots() -> None:
    """``_verified_best`` hands ``CardSearch.proven`` (peer ID text) to the fetch choice: a proven peer
    ranked past the fetch but near its last slot is fetched, one far off the query is not."""
    from types import SimpleNamespace

    from ioa_p2p.dht.expand import PageSearch
    from ioa_p2p.dht.forest import forest_for
    from ioa_p2p.node.discovery.pages import _verified_best

    from .test_fetch_choice import MODEL

    rng = np.random.default_rng(9)
    query = rng.normal(size=DIM)
    search = PageSearch(forest_for(MODEL, DIM), query, 100.0)
    near = [sketch(500 + i, query + 0.3 * rng.normal(size=DIM)) for i in range(30)]
    worker = sketch(2, query + 0.7 * rng.normal(size=DIM))  # relevant, but below thirty others
    stranger = sketch(3, query + 2.0 * rng.normal(size=DIM))  # proven, but far off this query
    search.offer(b"page", [*near, worker, stranger])
    count = 8
    ranked = search.best(len(near) + 2)
    scores = {s.peer_id: v for v, s in search.scored(ranked)}
    line = scores[ranked[count - 1].peer_id]
    assert ranked.index(worker) >= count and scores[worker.peer_id] >= line - PROVEN_MARGIN
    assert scores[stranger.peer_id] < line - PROVEN_MARGIN
    node = SimpleNamespace(
        me=sketch(999, query).peer_id,
        needs_fetch=lambda peer, version=None: True,
        settled=None,
        young_penalty=0.0,
        proven=frozenset(),
        fetch_flood=lambda peers: {},  # no flood seen (tests/test_arrival.py)
        settings=SimpleNamespace(min_stamp_bits=0),
    )
    assert worker not in _verified_best(search, count, node)  # type: ignore[arg-type]
    node.proven = frozenset({str(worker.peer_id), str(stranger.peer_id)})
    chosen = _verified_best(search, count, node)  # type: ignore[arg-type]
    assert worker in chosen and stranger not in chosen and len(chosen) == count
