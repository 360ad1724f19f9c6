"""When identities first reached this node, and floods of them (pure: dht/arrival.py and its use in
choose_fetch)."""

from __future__ import annotations

import numpy as np
import pytest

from ioa_p2p.dht.arrival import (
    FLOOD_WEIGHT,
    MIN_WINDOWS,
    PROOF_WINDOW_MS,
    PROOF_WINDOWS,
    SLACK,
    WINDOW_MS,
    ArrivalBook,
    unproven_share,
)
from ioa_p2p.dht.fetchchoice import choose_fetch
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.identity import Identity, PeerId

from .test_fetch_choice import DIM, sketch

START = 1_700_000_000_000
HOUR = WINDOW_MS


def peer(i: int) -> PeerId:
    return Identity(bytes([i % 256, i // 256, 77]) + b"\x05" * 29).peer_id


def steady_book(hours: int = 48, per_hour: int = 2) -> ArrivalBook:
    """A node up for ``hours``: 30 identities at its start, then ``per_hour`` new ones every hour."""
    book = ArrivalBook(START)
    for i in range(30):
        book.note(peer(i), START + 1000 * i)
    n = 30
    for h in range(1, hours):
        for j in range(per_hour):
            book.note(peer(n), START + h * HOUR + 60_000 * (j + 1))
            n += 1
    return book


def test_first_seen_is_kept_and_each_identity_counts_once() -> None:
    book = ArrivalBook(START)
    assert book.note(peer(1), START + 5) is True
    assert book.note(peer(1), START + 2 * HOUR) is False
    assert book.first_seen(peer(1)) == START + 5
    assert book.first_seen(peer(2)) is None
    assert len(book) == 1 and book.counts() == {0: 1}
    with pytest.raises(ValueError):
        ArrivalBook(START, window_ms=0)


def test_nothing_is_judged_without_history_or_in_the_nodes_first_window() -> None:
    """A node that just started sees the whole network at once: no flood, no penalty."""
    book = ArrivalBook(START)
    everyone = [peer(i) for i in range(500)]
    for i, p in enumerate(everyone):
        book.note(p, START + i)
    now = START + (MIN_WINDOWS - 1) * HOUR
    assert book.usual(now) is None and book.penalties(everyone, now) == {}
    later = START + 30 * HOUR  # enough history now, but the start window is never judged
    assert book.usual(later) == 1.0
    assert book.penalties(everyone, later) == {}


def test_a_flood_of_new_identities_is_penalised_and_the_steady_arrivals_are_not() -> None:
    book = steady_book()
    now = START + 48 * HOUR
    steady = [peer(i) for i in range(30 + 2 * 47)]
    flood = [peer(1000 + i) for i in range(400)]
    for i, p in enumerate(flood):
        book.note(p, now + 10 * i)
    assert book.usual(now + HOUR) == 2.0
    penalties = book.penalties([*steady, *flood], now + HOUR)
    assert set(penalties) == set(flood)
    expected = FLOOD_WEIGHT * (1 - SLACK * 2.0 / 400)
    assert all(v == pytest.approx(expected) for v in penalties.values())
    # a proven identity that came with the flood keeps its place: evidence of work outweighs arrival
    assert flood[0] not in book.penalties(flood, now + HOUR, exempt={flood[0]})
    # a window a little above the usual rate is no flood
    quiet = steady_book()
    for i in range(int(SLACK * 2)):
        quiet.note(peer(2000 + i), now + i)
    assert quiet.penalties([peer(2000 + i) for i in range(8)], now + HOUR) == {}


def test_a_trickle_at_the_usual_rate_is_not_a_flood_and_the_history_is_bounded() -> None:
    """An attacker that spreads its identities over the node's history raises the usual count: nothing
    is penalised (what it pays is time), and old windows are forgotten."""
    book = steady_book(hours=400, per_hour=6)
    now = START + 400 * HOUR
    assert book.usual(now) == 6.0
    assert book.penalties([peer(30 + i) for i in range(6 * 399)], now) == {}
    assert min(book.counts()) >= 399 - book.history - 1


def test_the_book_forgets_the_oldest_identities_past_its_capacity() -> None:
    book = ArrivalBook(START, capacity=10)
    for i in range(25):
        book.note(peer(i), START + i)
    assert len(book) == 10
    assert book.first_seen(peer(0)) is None and book.first_seen(peer(24)) == START + 24


def test_a_flood_yields_its_fetch_slots_to_entries_that_came_one_by_one() -> None:
    """Thirty plausible sketches from a flood score a little above eight honest ones: the score alone
    fetches the flood; with the arrival evidence the honest entries win the slots within the margin, and
    the best flooded sketch still beats an honest one far below it."""
    rng = np.random.default_rng(11)
    book = steady_book()
    now = START + 48 * HOUR
    spam = [sketch(600 + i, rng.normal(size=DIM)) for i in range(30)]
    honest = [sketch(700 + i, rng.normal(size=DIM)) for i in range(8)]
    for i, s in enumerate(honest):
        book.note(s.peer_id, START + (10 + i) * HOUR + 1)
    for i, s in enumerate(spam):
        book.note(s.peer_id, now + 10 * i)
    for i in range(300):  # the rest of the flood, listed for other queries
        book.note(peer(3000 + i), now + 1000 + i)
    scored = [(9.0 - 0.02 * i, s) for i, s in enumerate(spam)]
    scored += [(8.0 - 0.01 * i, s) for i, s in enumerate(honest)]
    scored += [(0.0, sketch(800, rng.normal(size=DIM)))]
    plain = choose_fetch(scored, 8)
    assert plain == spam[:8]
    flood = book.penalties((s.peer_id for _, s in scored), now + HOUR)
    assert set(flood) == {s.peer_id for s in spam}
    chosen = choose_fetch(scored, 8, flood=flood)
    assert chosen == honest
    # the evidence is the node's own: without the defences nothing changes
    assert choose_fetch(scored, 8, flood=flood, defences=False) == plain
    assert (
        choose_fetch(scored, 9, flood=flood)[:8] == honest
        and choose_fetch(scored, 9, flood=flood)[8] == spam[0]
    )


def test_work_lifts_a_flood_penalty_a_share_per_window_never_at_once() -> None:
    assert unproven_share(None, START) == 1.0
    assert unproven_share(START, START) == pytest.approx(1 - 1 / PROOF_WINDOWS)
    assert unproven_share(START, START + PROOF_WINDOW_MS - 1) == pytest.approx(1 - 1 / PROOF_WINDOWS)
    assert unproven_share(START, START + PROOF_WINDOW_MS) == pytest.approx(1 - 2 / PROOF_WINDOWS)
    assert unproven_share(START, START + PROOF_WINDOWS * PROOF_WINDOW_MS) == 0.0
    assert unproven_share(START + 5, START) == pytest.approx(1 - 1 / PROOF_WINDOWS)  # a clock step back


def test_a_sleeper_that_did_its_tasks_keeps_most_of_its_penalty_for_hours() -> None:
    """One identity of a flood does every task it gets: its first accepted task lifts a third of its
    penalty, a burst of more tasks in the same hour nothing more; after the proof windows it is clear.
    An operator-trusted peer of the flood is exempt at once."""
    book = steady_book()
    now = START + 48 * HOUR
    flood = [peer(4000 + i) for i in range(300)]
    for i, p in enumerate(flood):
        book.note(p, now + i)
    sleeper, trusted = flood[0], flood[1]
    later = now + HOUR
    full = book.penalties([sleeper], later)[sleeper]
    worked = book.penalties(
        [sleeper, trusted], later, exempt={trusted}, proven_since={sleeper: later - 60_000}
    )
    assert trusted not in worked
    assert worked[sleeper] == pytest.approx(full * (1 - 1 / PROOF_WINDOWS))
    cleared = later + PROOF_WINDOWS * PROOF_WINDOW_MS
    assert sleeper not in book.penalties([sleeper], cleared, proven_since={sleeper: later - 60_000})


def test_the_nodes_search_bars_the_spent_identities_still_under_a_flood() -> None:
    """``CardSearch.flooded`` (what ``node/goals/teams.py`` bars from member slots when spent): the keys
    with a flood penalty left after their evidence of work; trusted and cleared ones are not; text that
    is no peer ID is skipped."""
    from ioa_p2p.node.discovery.search import CardSearch

    book = steady_book()
    now = START + 48 * HOUR
    flood = [peer(5000 + i) for i in range(300)]
    for i, p in enumerate(flood):
        book.note(p, now + i)
    search = CardSearch.__new__(CardSearch)
    search.arrivals, search.now_ms = book, lambda: now + HOUR
    search.settings = DiscoverySettings()
    sleeper, trusted, cleared, honest = flood[0], flood[1], flood[2], peer(40)
    search.proven = frozenset(str(p) for p in (sleeper, trusted, cleared))
    search.proven_since = {
        str(sleeper): now + HOUR - 1,
        str(cleared): now + HOUR - PROOF_WINDOWS * PROOF_WINDOW_MS,
    }
    search.trusted = frozenset({str(trusted)})
    keys = [str(p) for p in (sleeper, trusted, cleared, honest, flood[3])] + ["not a peer id"]
    assert search.flooded(keys) == {str(sleeper), str(flood[3])}
    penalties = search.flood_penalties([sleeper, flood[3]])
    assert penalties[sleeper] == pytest.approx(penalties[flood[3]] * (1 - 1 / PROOF_WINDOWS))
    search.settings = DiscoverySettings(flood_weight=0.0)  # [discovery] flood_weight = 0: off
    assert search.flooded(keys) == frozenset() and search.flood_penalties(flood) == {}


def test_the_nodes_page_search_fetches_entries_that_came_one_by_one_before_a_flood() -> None:
    """``_verified_best`` (the node's fetch choice) takes the flood penalties of its real
    ``CardSearch.flood_penalties``: listed entries of a flood lose the slots to those that came one by
    one; on a node with no arrival history the same listing fetches the flood."""
    from ioa_p2p.dht.expand import PageSearch
    from ioa_p2p.dht.forest import forest_for
    from ioa_p2p.node.discovery.pages import _verified_best
    from ioa_p2p.node.discovery.search import CardSearch

    from .test_fetch_choice import MODEL

    rng = np.random.default_rng(12)
    query = rng.normal(size=DIM)
    flood = [sketch(900 + i, query + 0.3 * rng.normal(size=DIM)) for i in range(30)]
    honest = [sketch(950 + i, query + 0.5 * rng.normal(size=DIM)) for i in range(8)]
    now = START + 48 * HOUR

    def node(book: ArrivalBook) -> CardSearch:
        search = CardSearch.__new__(CardSearch)
        search.me, search.arrivals, search.now_ms = peer(999), book, lambda: now + HOUR
        search.needs_fetch = lambda peer, version=None: True  # type: ignore[method-assign]
        search.settled, search.young_penalty = None, 0.0
        search.proven, search.proven_since, search.trusted = frozenset(), {}, frozenset()
        search.settings = DiscoverySettings(min_stamp_bits=0)
        return search

    def listing() -> PageSearch:
        pages = PageSearch(forest_for(MODEL, DIM), query, 100.0)
        pages.offer(b"page", [*flood, *honest])
        return pages

    book = steady_book()
    for i, s in enumerate(honest):
        book.note(s.peer_id, START + (5 + i) * HOUR)
    for i, s in enumerate(flood):
        book.note(s.peer_id, now + i)
    for i in range(300):
        book.note(peer(6000 + i), now + 100 + i)
    blind = _verified_best(listing(), 8, node(ArrivalBook(now)))
    assert sum(s in flood for s in blind) >= 6  # the flood's sketches score higher
    watched = _verified_best(listing(), 8, node(book))
    assert set(watched) == set(honest)


def test_a_flood_larger_than_the_pool_cannot_push_the_steady_entries_out_of_it() -> None:
    """The pool ``choose_fetch`` chooses among (``POOL`` times the fetch count) is cut after each peer's
    own evidence (``fetchchoice.pool_of``): cut by sketch score alone, 30 flood entries that outscore the
    8 that came one by one fill a fetch of 2's pool of 16, and no flood penalty could lift the others back
    in (before: both picks were the flood's)."""
    from ioa_p2p.dht.expand import PageSearch
    from ioa_p2p.dht.fetchchoice import POOL, evidence_units, pool_of
    from ioa_p2p.dht.forest import forest_for
    from ioa_p2p.node.discovery.pages import _verified_best
    from ioa_p2p.node.discovery.search import CardSearch

    from .test_fetch_choice import MODEL

    rng = np.random.default_rng(12)
    query = rng.normal(size=DIM)
    flood = [sketch(900 + i, query + 0.3 * rng.normal(size=DIM)) for i in range(30)]
    honest = [sketch(950 + i, query + 0.5 * rng.normal(size=DIM)) for i in range(8)]
    now = START + 48 * HOUR
    book = steady_book()
    for i, s in enumerate(honest):
        book.note(s.peer_id, START + (5 + i) * HOUR)
    for i, s in enumerate(flood):
        book.note(s.peer_id, now + i)
    for i in range(300):
        book.note(peer(6000 + i), now + 100 + i)
    search = CardSearch.__new__(CardSearch)
    search.me, search.arrivals, search.now_ms = peer(999), book, lambda: now + HOUR
    search.needs_fetch = lambda peer, version=None: True  # type: ignore[method-assign]
    search.settled, search.young_penalty = None, 0.0
    search.proven, search.proven_since, search.trusted = frozenset(), {}, frozenset()
    search.settings = DiscoverySettings(min_stamp_bits=0)
    pages = PageSearch(forest_for(MODEL, DIM), query, 100.0)
    pages.offer(b"page", [*flood, *honest])
    assert set(pages.best(POOL * 2)) <= set(flood)  # by sketch score alone the pool is the flood's
    picked = _verified_best(pages, 2, search)
    assert len(picked) == 2 and set(picked) <= set(honest)
    # the pure rule: the evidence orders the pool, the scores handed on are the sketch scores
    penalties = search.fetch_flood(s.peer_id for s in [*flood, *honest])
    scored = pages.scored([*flood, *honest])
    pool = pool_of(scored, 8, flood=penalties)
    assert {s for _, s in pool} == set(honest) and all((x, s) in scored for x, s in pool)
    assert evidence_units(flood[0].peer_id, {flood[0].peer_id: -1.0}, penalties) < -FLOOD_WEIGHT
    assert evidence_units(honest[0].peer_id, {honest[0].peer_id: 2.0}) == 0.0  # standing is no evidence here


def test_a_young_identity_of_a_flood_pays_the_larger_penalty_not_both() -> None:
    """``beyond`` and ``CardSearch.fetch_flood``: the fetch already charges a young identity its young
    penalty (a prior, PRIOR_WEIGHT units per unit); a flood penalty comes on top only where it is larger.
    Barring from teams (``flooded``) reads the whole flood penalty."""
    from ioa_p2p.dht.arrival import beyond
    from ioa_p2p.dht.fetchchoice import PRIOR_WEIGHT
    from ioa_p2p.node.discovery.search import CardSearch

    assert beyond({peer(1): 3.0, peer(2): 1.0}, {peer(1): 2.0, peer(2): 2.0}) == {peer(1): 1.0}
    book = steady_book()
    now = START + 48 * HOUR
    flood = [peer(7000 + i) for i in range(300)]
    for i, p in enumerate(flood):
        book.note(p, now + i)
    search = CardSearch.__new__(CardSearch)
    search.arrivals, search.now_ms = book, lambda: now + HOUR
    search.settings = DiscoverySettings()
    search.proven, search.proven_since, search.trusted = frozenset(), {}, frozenset()
    search.settled, search.young_penalty = frozenset({str(flood[1])}), 1.0  # flood[0] is young
    whole = search.flood_penalties(flood[:2])
    net = search.fetch_flood(flood[:2])
    assert net[flood[0]] == pytest.approx(whole[flood[0]] - PRIOR_WEIGHT * 1.0)
    assert net[flood[1]] == whole[flood[1]]  # not young: the whole penalty
    assert search.flooded([str(flood[0])]) == {str(flood[0])}
    search.settled = None  # trust off: nobody is young
    assert search.fetch_flood(flood[:2]) == whole
