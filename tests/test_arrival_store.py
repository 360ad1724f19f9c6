"""The arrival record across restarts (node/discovery/arrival_store.py, ArrivalBook.resume): real SQLite
files under a real home folder, a restarted node on the in-memory network."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.dht.arrival import FLOOD_WEIGHT, MIN_WINDOWS, NEVER, SLACK, WINDOW_MS, ArrivalBook
from ioa_p2p.identity import Identity
from ioa_p2p.node.discovery.arrival_store import (
    ARRIVALS_FILE_NAME,
    SAVE_EVERY,
    ArrivalStore,
    open_arrivals,
)
from ioa_p2p.testing.memagents import open_memory_agent
from ioa_p2p.testing.memcards import MemoryCards
from ioa_p2p.testing.memnet import MemoryNetwork

from .test_arrival import START, peer, steady_book

HOUR = WINDOW_MS


def flooded_book() -> tuple[ArrivalBook, list, int]:
    """Two days of two new identities an hour, then 300 in one hour; ``now`` an hour after the flood."""
    book = steady_book()
    now = START + 48 * HOUR
    flood = [peer(1000 + i) for i in range(300)]
    for i, p in enumerate(flood):
        book.note(p, now + 10 * i)
    return book, flood, now + HOUR


def saved(home: Path, book: ArrivalBook, now: int) -> None:
    """``book`` written to a new record under ``home`` through the store (as the node's loop does)."""
    _, store = open_arrivals(home, book.started_ms)
    assert store is not None
    store.save(book.drain(now))
    store.close()


def test_a_restarted_node_still_knows_which_identities_came_in_a_flood(tmp_path: Path) -> None:
    book, flood, now = flooded_book()
    before = book.penalties([*flood, peer(40)], now)
    assert set(before) == set(flood)
    saved(tmp_path, book, now)
    restart = now + 2 * HOUR  # down for an hour
    again, store = open_arrivals(tmp_path, restart)
    assert store is not None
    assert len(again) == len(book) and again.first_seen(flood[0]) == book.first_seen(flood[0])
    assert again.started_ms == START
    after = again.penalties([*flood, peer(40)], restart)
    assert set(after) == set(flood)
    assert after[flood[0]] == pytest.approx(before[flood[0]])
    assert again.note(flood[0], restart + 5000) is False  # known before the restart: not new
    store.close()


def test_the_hour_after_a_restart_allows_the_catch_up_and_judges_a_flood_beyond_it(tmp_path: Path) -> None:
    """What joined while the node was down arrives at once after its restart: up to SLACK times the usual
    count for each window it was down and the one it restarts in is no flood; a flood timed for the
    restart is. The first start's window is never judged."""
    book, _, now = flooded_book()  # usual: two new identities an hour
    saved(tmp_path, book, now)
    restart = now + 4 * HOUR  # down for three windows
    again, store = open_arrivals(tmp_path, restart)
    assert store is not None
    w = again.window(restart)
    assert again.catch_up[w] == 3 and again.catch_up[0] == NEVER
    catch_up = [peer(3000 + i) for i in range(int(SLACK * 2 * 4))]  # all the allowance
    for i, p in enumerate(catch_up):
        again.note(p, restart + 1000 + i)
    later = restart + 2 * HOUR
    assert again.usual(later) == 2.0  # the catch-up hour does not count towards the usual rate
    assert again.penalties(catch_up, later) == {}
    timed = [peer(4000 + i) for i in range(300)]  # a flood timed for the restart
    for i, p in enumerate(timed):
        again.note(p, restart + 5000 + i)
    penalties = again.penalties([*catch_up, *timed], later)
    assert set(penalties) == {*catch_up, *timed}  # one window: every arrival of it shares the excess
    assert penalties[timed[0]] == pytest.approx(FLOOD_WEIGHT * (1 - SLACK * 2.0 * 4 / (len(catch_up) + 300)))
    store.close()


def test_the_hours_a_node_was_down_are_no_history(tmp_path: Path) -> None:
    """Six busy hours (ten new identities each), then the node is down for three days: the usual count
    stays ten, not the median of the empty days, so honest arrivals after the restart are no flood."""
    book = ArrivalBook(START)
    n = 0
    for h in range(1, 1 + MIN_WINDOWS):
        for j in range(10):
            book.note(peer(n), START + h * HOUR + j)
            n += 1
    now = START + (1 + MIN_WINDOWS) * HOUR
    assert book.usual(now) == 10.0
    saved(tmp_path, book, now)
    restart = now + 72 * HOUR
    again, store = open_arrivals(tmp_path, restart)
    assert store is not None
    assert again.usual(restart + 3 * HOUR) == 10.0
    honest = [peer(5000 + i) for i in range(20)]
    for i, p in enumerate(honest):
        again.note(p, restart + 2 * HOUR + i)
    assert again.penalties(honest, restart + 3 * HOUR) == {}
    store.close()


def test_changes_are_saved_incrementally_and_the_file_stays_bounded(tmp_path: Path) -> None:
    _, store = open_arrivals(tmp_path, START, capacity=50)
    assert store is not None
    book = ArrivalBook(START, capacity=50)
    for i in range(30):
        book.note(peer(i), START + i)
    store.save(book.drain(START + 100))
    for i in range(30, 120):
        book.note(peer(i), START + HOUR + i)
    store.save(book.drain(START + 2 * HOUR))
    store.close()
    db = sqlite3.connect(tmp_path / ARRIVALS_FILE_NAME)
    rows = db.execute("SELECT COUNT(*), MIN(ms) FROM first_seen").fetchone()
    windows = db.execute("SELECT w, count, catch_up FROM windows ORDER BY w").fetchall()
    db.close()
    assert rows == (50, START + HOUR + 70)  # the oldest were forgotten in the file too
    assert windows == [(0, 30, NEVER), (1, 90, None), (2, 0, None)]
    again, store = open_arrivals(tmp_path, START + 3 * HOUR, capacity=50)
    assert len(again) == 50 and again.first_seen(peer(119)) == START + HOUR + 119
    assert again.first_seen(peer(69)) is None and again.counts() == {0: 30, 1: 90}
    assert store is not None
    store.close()


def test_the_first_seen_source_of_each_identity_is_kept_across_a_restart_and_bounded(tmp_path: Path) -> None:
    book = ArrivalBook(START, capacity=50)
    for i in range(60):  # the first ten are forgotten (capacity 50), their sources with them
        source = "8.8.4.0/24" if i % 2 else None  # every other one arrived unobserved
        book.note(peer(i), START + i, source)
    book.note(peer(59), START + 100, "9.9.9.0/24")  # a later arrival changes neither time nor source
    book.note(peer(60), START + 101, "x" * 500)  # longer than any source: not kept
    assert book.first_source(peer(59)) == "8.8.4.0/24" and book.first_source(peer(1)) is None
    assert book.from_source("8.8.4.0/24") == 25
    saved(tmp_path, book, START + 200)
    again, store = open_arrivals(tmp_path, START + HOUR, capacity=50)
    assert store is not None
    assert again.first_source(peer(59)) == "8.8.4.0/24" and again.first_source(peer(58)) is None
    assert again.first_source(peer(60)) is None and again.first_seen(peer(60)) == START + 101
    assert again.from_source("8.8.4.0/24") == 25  # the odd ones of 11..59 (0..10 forgotten)
    store.close()
    db = sqlite3.connect(tmp_path / ARRIVALS_FILE_NAME)
    assert db.execute("SELECT count(*) FROM first_seen WHERE source IS NOT NULL").fetchone() == (25,)
    db.close()


def test_a_record_of_schema_version_2_is_read_and_gains_sources(tmp_path: Path) -> None:
    """A node upgraded from the release before keeps its flood evidence (no source known for it)."""
    path = tmp_path / ARRIVALS_FILE_NAME
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
        "CREATE TABLE first_seen (peer BLOB PRIMARY KEY, ms INTEGER NOT NULL);"
        "CREATE TABLE windows (w INTEGER PRIMARY KEY, count INTEGER NOT NULL, catch_up INTEGER);"
    )
    db.executemany(
        "INSERT INTO meta VALUES (?, ?)", [("version", 2), ("origin_ms", START), ("window_ms", WINDOW_MS)]
    )
    db.execute("INSERT INTO first_seen VALUES (?, ?)", (peer(1).raw, START + 5))
    db.execute("INSERT INTO windows VALUES (0, 1, ?)", (NEVER,))
    db.commit()
    db.close()
    book, store = open_arrivals(tmp_path, START + HOUR)
    assert store is not None and not (tmp_path / (ARRIVALS_FILE_NAME + ".corrupt")).exists()
    assert book.first_seen(peer(1)) == START + 5 and book.first_source(peer(1)) is None
    book.note(peer(2), START + HOUR + 1, "relay:QmRelay")
    store.save(book.drain(START + HOUR + 2))
    store.close()
    again, store = open_arrivals(tmp_path, START + 2 * HOUR)
    assert again.first_source(peer(2)) == "relay:QmRelay" and again.first_seen(peer(1)) == START + 5
    assert store is not None
    store.close()


@pytest.mark.parametrize(
    "damage",
    ["garbage", "truncated", "foreign", "version", "bad peer", "ahead"],
)
def test_a_damaged_record_is_moved_aside_and_an_empty_one_starts(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    book, _, now = flooded_book()
    path = tmp_path / ARRIVALS_FILE_NAME
    if damage == "garbage":
        path.write_bytes(b"this is not a database" * 100)
    else:
        saved(tmp_path, book, now)
        if damage == "truncated":
            data = path.read_bytes()
            path.write_bytes(data[: len(data) // 3] + b"\x00" * 50)
        else:
            db = sqlite3.connect(path)
            statement = {
                "foreign": "ALTER TABLE meta RENAME COLUMN value TO other",  # another program's
                "version": "UPDATE meta SET value = 99 WHERE key = 'version'",
                "bad peer": "INSERT INTO first_seen (peer, ms) VALUES (x'0102', 5)",
                "ahead": f"UPDATE meta SET value = {now + 100 * HOUR} WHERE key = 'origin_ms'",
            }[damage]
            db.execute(statement)
            db.commit()
            db.close()
    with caplog.at_level(logging.WARNING, logger="ioa_p2p.discovery"):
        again, store = open_arrivals(tmp_path, now)
    assert store is not None and len(again) == 0
    assert again.started_ms == now  # a fresh book: nothing judged before its own history
    if damage not in ("truncated",):  # a truncated file may still open: then the rows read are kept
        assert any("unusable" in r.getMessage() for r in caplog.records), damage
        assert (tmp_path / (ARRIVALS_FILE_NAME + ".corrupt")).exists()
    # the new record works: what is saved now is there after the next restart
    again.note(peer(9), now + 1)
    store.save(again.drain(now + 2))
    store.close()
    third, store = open_arrivals(tmp_path, now + HOUR)
    assert third.first_seen(peer(9)) == now + 1
    assert store is not None
    store.close()


def test_a_home_where_no_file_can_be_made_keeps_the_record_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home = tmp_path / "home"
    home.write_text("a file where the folder should be")
    with caplog.at_level(logging.WARNING, logger="ioa_p2p.discovery"):
        book, store = open_arrivals(home, START)
    assert store is None and len(book) == 0
    assert any("in memory only" in r.getMessage() for r in caplog.records)
    assert book.note(peer(1), START + 1)


def test_a_missing_record_starts_empty_without_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="ioa_p2p.discovery"):
        book, store = open_arrivals(tmp_path / "new", START)
    assert store is not None and len(book) == 0 and not caplog.records
    assert (tmp_path / "new" / ARRIVALS_FILE_NAME).exists()
    store.close()


def test_a_failed_save_is_retried_in_full(tmp_path: Path) -> None:
    """A save that fails (here: the file closed under it) makes the next drain give the whole book."""
    _, store = open_arrivals(tmp_path, START)
    assert store is not None
    book = ArrivalBook(START)
    for i in range(5):
        book.note(peer(i), START + i)
    store.close()
    from ioa_p2p.errors import StoreError

    with pytest.raises((StoreError, sqlite3.ProgrammingError)):
        store.save(book.drain(START + 10))
    book.unsaved()
    changes = book.drain(START + 10)
    assert changes.rewrite and {p for p, _ in changes.added} == {peer(i) for i in range(5)}
    path = tmp_path / ARRIVALS_FILE_NAME
    fresh = ArrivalStore(path, sqlite3.connect(path, isolation_level=None))
    fresh.save(changes)
    fresh.close()
    again, store = open_arrivals(tmp_path, START + HOUR)
    assert len(again) == 5
    assert store is not None
    store.close()


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


async def test_the_node_keeps_its_arrival_record_across_a_restart(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """Two agents on the in-memory network: the second learns the first by gossip, is stopped and started
    again with the same identity and home; it still knows when the first reached it (saved when the
    service stopped), and the periodic save wrote it before that."""
    net = MemoryNetwork()
    cards = MemoryCards(net)
    me = Identity.generate()
    raw = {"agent": {"name": "plotter", "description": "draws plots and charts"}}
    other_raw = {"agent": {"name": "weather", "description": "weather forecasts for any city"}}
    with trio.fail_after(600):
        async with open_memory_agent(net, cards, tmp_path / "other", other_raw) as other:
            async with open_memory_agent(net, cards, tmp_path / "me", raw, me) as (_, services):
                assert services.discovery is not None
                search = services.discovery.search
                while search.arrivals.first_seen(other[0].peer_id) is None:  # noqa: ASYNC110
                    await trio.sleep(0.5)
                first = search.arrivals.first_seen(other[0].peer_id)
                await trio.sleep(SAVE_EVERY + 1)
                db = sqlite3.connect(tmp_path / "me" / ARRIVALS_FILE_NAME)
                assert db.execute("SELECT COUNT(*) FROM first_seen").fetchone()[0] == 1
                db.close()
            await trio.sleep(30)
            async with open_memory_agent(net, cards, tmp_path / "me", raw, me) as (_, services):
                assert services.discovery is not None
                assert services.discovery.search.arrivals.first_seen(other[0].peer_id) == first
            off = {**raw, "discovery": {"keep_arrivals": False}}
            async with open_memory_agent(net, cards, tmp_path / "me", off, me) as (_, services):
                assert services.discovery is not None
                assert services.discovery.search.arrivals.first_seen(other[0].peer_id) is None
