"""The arrival record across restarts: ``$IOA_HOME/arrivals.sqlite3`` (``[discovery] keep_arrivals``).

What the node keeps is :class:`~ioa_p2p.dht.arrival.ArrivalBook`'s evidence: when each identity first
reached it by gossip, from which source network (where observed: the connection its first admitted
announcement came on), and how many new identities each hour brought. Without it a restarted node forgot
which identities came in a flood (``docs/performance.md``, "Spam: floods of new identities"); with it the
restarted node judges them as before (:meth:`~ioa_p2p.dht.arrival.ArrivalBook.resume`).

- :func:`open_arrivals`: the book kept in the file, resumed now, and the :class:`ArrivalStore` that saves
  it. A missing file starts an empty book (the node's first start); a file that is not a readable
  arrival record (corrupt, another program's, from a clock ahead of ours, another window length) is
  moved aside to ``arrivals.sqlite3.corrupt`` and an empty book starts, with a warning; when even that
  fails the book lives in memory only, with a warning. Never an exception: this is evidence, and no
  evidence is only less defence.
- :meth:`ArrivalStore.save`: what changed since the last save (:meth:`~ioa_p2p.dht.arrival.ArrivalBook.
  drain`: new first-seen times, forgotten identities, the few hundred windows of the history) in one
  transaction. The discovery service saves every :data:`SAVE_EVERY` seconds and when it stops; a crash
  loses at most that much (arrivals since, which the next start's warm-up does not judge either way).

Bounded like the book: at most its ``capacity`` identities (forgotten ones are deleted, their source with
them), sources of at most :data:`~ioa_p2p.dht.arrival.MAX_SOURCE_LEN` characters, and the windows of its
history. A record of schema version 2 (no sources) is read as it is and gains the column.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from ioa_p2p.dht.arrival import (
    CAPACITY,
    MAX_SOURCE_LEN,
    NEVER,
    WINDOW_MS,
    ArrivalBook,
    ArrivalChanges,
    ArrivalState,
)
from ioa_p2p.errors import InvalidPeerId, StoreError
from ioa_p2p.identity import PeerId
from ioa_p2p.node.sqlite_files import close_quietly, open_sqlite, store_errors

if TYPE_CHECKING:
    from ioa_p2p.node.discovery.search import CardSearch

log = logging.getLogger("ioa_p2p.discovery")

ARRIVALS_FILE_NAME = "arrivals.sqlite3"
#: Seconds between two saves of the arrival record (and one more when discovery stops).
SAVE_EVERY = 60.0
#: How far (ms) a first-seen time kept may lie ahead of the clock at start before the record is suspect.
MAX_AHEAD_MS = 10 * 60 * 1000
SCHEMA_VERSION = 3
#: Earlier schema versions read as they are (2: first-seen rows without a source).
READABLE_VERSIONS = (2, SCHEMA_VERSION)

_ADVICE = "check the disk and permissions; the node keeps the arrival record in memory meanwhile"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS first_seen (peer BLOB PRIMARY KEY, ms INTEGER NOT NULL, source TEXT);
CREATE TABLE IF NOT EXISTS windows (
    w        INTEGER PRIMARY KEY,
    count    INTEGER NOT NULL,
    catch_up INTEGER
);
"""


class UnreadableRecord(ValueError):
    """The file holds no arrival record this node can use (the reason is the message)."""


class ArrivalStore:
    """One SQLite file holding an arrival book (synchronous calls: :func:`open_arrivals` runs through
    ``open_local_state``, in a worker thread when agents share the process; a save is a few ms, inline)."""

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        self.path, self._db = path, db

    def close(self) -> None:
        close_quietly(self._db)

    def save(self, changes: ArrivalChanges) -> None:
        """Write ``changes`` in one transaction (raises :class:`~ioa_p2p.errors.StoreError`)."""
        with store_errors("arrival record", self.path, "save", _ADVICE):
            db = self._db
            db.execute("BEGIN")
            try:
                _write_meta(db, changes.origin_ms)
                if changes.rewrite:
                    db.execute("DELETE FROM first_seen")
                db.executemany("DELETE FROM first_seen WHERE peer = ?", [(p.raw,) for p in changes.forgotten])
                db.executemany(
                    "INSERT OR REPLACE INTO first_seen (peer, ms, source) VALUES (?, ?, ?)",
                    [(p.raw, ms, changes.sources.get(p)) for p, ms in changes.added],
                )
                db.execute("DELETE FROM windows")
                db.executemany(
                    "INSERT INTO windows (w, count, catch_up) VALUES (?, ?, ?)",
                    list(changes.windows),
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise


async def keep_arrivals(search: CardSearch, store: ArrivalStore) -> None:
    """Save ``search``'s arrival book every :data:`SAVE_EVERY` seconds and once more when cancelled (the
    discovery service's nursery ends), then close the file. A save that fails is said in a warning (once
    per run of failures) and the next one writes the whole book."""
    failing = False

    def save() -> None:
        nonlocal failing
        book = search.arrivals
        try:
            store.save(book.drain(search.now_ms()))
        except StoreError as exc:
            book.unsaved()
            if not failing:
                log.warning("%s; it is kept in memory and saved again later", exc)
            failing = True
        else:
            failing = False

    try:
        while True:
            await trio.sleep(SAVE_EVERY)
            save()
    finally:
        save()  # synchronous: a cancelled nursery still writes what it saw
        store.close()


def _add_sources(db: sqlite3.Connection) -> None:
    """Give a version 2 record's ``first_seen`` table its ``source`` column (none known for its rows)."""
    columns = {str(row[1]) for row in db.execute("PRAGMA table_info(first_seen)")}
    if "source" not in columns:
        db.execute("ALTER TABLE first_seen ADD COLUMN source TEXT")


def _write_meta(db: sqlite3.Connection, origin_ms: int) -> None:
    db.executemany(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
        [("version", SCHEMA_VERSION), ("origin_ms", origin_ms), ("window_ms", WINDOW_MS)],
    )


def read_state(db: sqlite3.Connection, now_ms: int, capacity: int = CAPACITY) -> ArrivalState | None:
    """The arrival record in ``db`` (None: an empty file). Raises :class:`UnreadableRecord` when it is not
    one this node can use, ``sqlite3.Error`` when SQLite cannot read it."""
    meta = {str(k): v for k, v in db.execute("SELECT key, value FROM meta")}
    if not meta:
        return None
    if meta.get("version") not in READABLE_VERSIONS:
        raise UnreadableRecord(f"version {meta.get('version')!r}, this node reads {READABLE_VERSIONS}")
    if meta.get("window_ms") != WINDOW_MS:
        raise UnreadableRecord(f"windows of {meta.get('window_ms')!r} ms, this node counts {WINDOW_MS}")
    origin = meta.get("origin_ms")
    if not isinstance(origin, int) or origin > now_ms:
        raise UnreadableRecord(f"it starts at {origin!r} ms, after this node's clock ({now_ms} ms)")
    first: list[tuple[PeerId, int]] = []
    sources: dict[PeerId, str] = {}
    rows = db.execute("SELECT peer, ms, source FROM first_seen ORDER BY ms DESC LIMIT ?", (capacity,))
    for raw, ms, source in rows:
        if not isinstance(ms, int) or ms > now_ms + MAX_AHEAD_MS or not isinstance(raw, bytes):
            raise UnreadableRecord(f"a first-seen time {ms!r} that is no time before now")
        try:
            peer = PeerId.from_bytes(raw)
        except InvalidPeerId as exc:
            raise UnreadableRecord(f"a first-seen row that names no peer ({exc})") from None
        first.append((peer, min(ms, now_ms)))
        if isinstance(source, str) and 0 < len(source) <= MAX_SOURCE_LEN:  # anything else: not known
            sources[peer] = source
    counts, watched, catch_up = {}, set(), {}
    for w, count, down in db.execute("SELECT w, count, catch_up FROM windows"):
        if (
            not isinstance(w, int)
            or not isinstance(count, int)
            or count < 0
            or not (down is None or (isinstance(down, int) and down >= NEVER))
        ):
            raise UnreadableRecord(f"a window row ({w!r}, {count!r}, {down!r}) that is no count")
        watched.add(w)
        counts[w] = count
        if down is not None:
            catch_up[w] = down
    first.reverse()
    return ArrivalState(origin, tuple(first), counts, frozenset(watched), catch_up, sources)


def open_arrivals(
    home: Path, now_ms: int, *, capacity: int = CAPACITY
) -> tuple[ArrivalBook, ArrivalStore | None]:
    """The arrival book kept under ``home``, resumed at ``now_ms``, and the store that saves it (None:
    the book is kept in memory only, said in a warning). See the module docstring; never raises."""
    path = home / ARRIVALS_FILE_NAME
    existed = path.exists()
    try:
        db, _ = open_sqlite(path)
    except (sqlite3.Error, OSError) as exc:  # not a database (corrupt), or no folder
        return _start_over(path, now_ms, capacity, exc)
    try:
        db.executescript(_SCHEMA)
        _add_sources(db)
        state = read_state(db, now_ms, capacity)
        book = ArrivalBook(now_ms, capacity=capacity)
        if state is not None:
            book = ArrivalBook.resume(state, now_ms, capacity=capacity)
            log.info("arrival record %s: %d identities, origin %d ms", path, len(book), state.origin_ms)
        elif existed:
            log.info("arrival record %s was empty: starting an empty one", path)
        book.drain(now_ms)  # what was read is on disk already
        store = ArrivalStore(path, db)
        store.save(book.drain(now_ms))
        return book, store
    except (sqlite3.Error, ValueError, StoreError) as exc:
        close_quietly(db)
        return _start_over(path, now_ms, capacity, exc)


def _start_over(
    path: Path, now_ms: int, capacity: int, exc: Exception
) -> tuple[ArrivalBook, ArrivalStore | None]:
    """Move an unusable record aside and start an empty one (in memory only when that fails too)."""
    aside = path.with_name(path.name + ".corrupt")
    log.warning(
        "the arrival record %s is unusable (%s): moved to %s; starting an empty one (floods of new "
        "identities seen before this start are forgotten)",
        path,
        exc,
        aside,
    )
    book = ArrivalBook(now_ms, capacity=capacity)
    try:
        for suffix in ("-wal", "-shm"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        path.replace(aside)
        db, _ = open_sqlite(path)
        db.executescript(_SCHEMA)
        store = ArrivalStore(path, db)
        store.save(book.drain(now_ms))
        return book, store
    except (sqlite3.Error, OSError, StoreError) as again:
        log.warning("cannot start a new arrival record %s (%s): it is kept in memory only", path, again)
        return book, None


__all__ = [
    "ARRIVALS_FILE_NAME",
    "SAVE_EVERY",
    "ArrivalStore",
    "UnreadableRecord",
    "keep_arrivals",
    "open_arrivals",
    "read_state",
]
