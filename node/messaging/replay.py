"""Replay protection for direct messages (``/ioa/msg/1.0.0``): per-author sequence numbers, persisted.

A direct message is accepted only when (protocol.md §6.1):

1. its ``ts`` is at most ``MAX_FUTURE_MS`` ahead of this node's clock (code ``stale``);
2. its author is tracked and its ``seq`` is strictly above the author's last accepted ``seq``
   (code ``replay``: a replayed or out-of-order message), or
3. its author is not tracked and its ``ts`` is within ``WINDOW_MS`` of this node's clock (code
   ``stale``): a message that old could be a replay of one accepted before its author was evicted.

Accepting records ``(author, seq, max ts)`` in ``$IOA_HOME/msg_replay.sqlite3`` (one committed
statement, WAL) **before** the ``ok`` answer, so a restart keeps every rule.

Bounded: at most ``max_authors`` tracked authors. A full table evicts only authors whose latest
accepted ``ts`` is older than the window (oldest first). Every message ever accepted from an evicted
author has ``ts`` at most that latest ``ts``, so it stays older than the window for ever and rule 3
refuses its replay: eviction never re-opens a replay. When no author is old enough to evict, a new
author is refused (code ``busy``) until one is; authors already tracked are served as before.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from ioa_p2p.errors import ReplayedMessage
from ioa_p2p.identity import PeerId
from ioa_p2p.node.sqlite_files import close_quietly, open_sqlite, store_errors

REPLAY_FILE_NAME = "msg_replay.sqlite3"
#: How old (by its own ts) a message of an author this node does not track may be.
WINDOW_MS = 15 * 60 * 1000
#: How far ahead of this node's clock a message's ts may be.
MAX_FUTURE_MS = 5 * 60 * 1000
DEFAULT_MAX_AUTHORS = 100_000

_ADVICE = (
    "check the disk and permissions "
    "(a corrupt file can be moved away: replay protection then restarts from the time window)"
)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS authors (
    author BLOB PRIMARY KEY,
    seq    BLOB NOT NULL,
    ts     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS authors_by_ts ON authors (ts);
"""


def _seq_key(seq: int) -> bytes:
    """Envelope seqs are uint64: 8 big-endian bytes compare like the numbers (SQLite INTEGER is signed)."""
    return seq.to_bytes(8, "big")


class ReplayGuard:
    """The per-author highest seq of accepted direct messages (synchronous SQLite, short calls)."""

    def __init__(
        self,
        path: Path,
        *,
        max_authors: int = DEFAULT_MAX_AUTHORS,
        window_ms: int = WINDOW_MS,
        max_future_ms: int = MAX_FUTURE_MS,
        clock_ms: Callable[[], int],
    ) -> None:
        self.path = path
        self.max_authors = max_authors
        self.window_ms = window_ms
        self.max_future_ms = max_future_ms
        self._clock_ms = clock_ms
        with self._errors("open"):
            self._db, _ = open_sqlite(path)
            self._db.executescript(_SCHEMA)
            self._count = int(self._db.execute("SELECT COUNT(*) FROM authors").fetchone()[0])

    @classmethod
    def open(cls, home: Path, *, clock_ms: Callable[[], int], **limits: int) -> ReplayGuard:
        return cls(home / REPLAY_FILE_NAME, clock_ms=clock_ms, **limits)

    def close(self) -> None:
        close_quietly(self._db)

    def _errors(self, what: str) -> AbstractContextManager[None]:
        return store_errors("replay store", self.path, what, _ADVICE)

    def __len__(self) -> int:
        return self._count

    def last_seq(self, author: PeerId) -> int | None:
        with self._errors("read"):
            row = self._db.execute("SELECT seq FROM authors WHERE author = ?", (author.raw,)).fetchone()
        return int.from_bytes(row[0], "big") if row else None

    def admit(self, author: PeerId, seq: int, ts: int) -> None:
        """Record a message as accepted, or raise :class:`ReplayedMessage` (``.code`` says which rule)."""
        now = self._clock_ms()
        if ts > now + self.max_future_ms:
            raise ReplayedMessage(
                f"message ts {ts} is more than {self.max_future_ms // 1000} s ahead of this node's clock",
                code="stale",
            )
        with self._errors("read"):
            row = self._db.execute("SELECT seq, ts FROM authors WHERE author = ?", (author.raw,)).fetchone()
        if row is not None:
            last = int.from_bytes(row[0], "big")
            if seq <= last:
                raise ReplayedMessage(
                    f"seq {seq} of {author} is not above its last accepted seq {last} "
                    "(a replayed or out-of-order message)",
                    code="replay",
                )
            with self._errors("save"):
                self._db.execute(
                    "UPDATE authors SET seq = ?, ts = ? WHERE author = ?",
                    (_seq_key(seq), max(ts, int(row[1])), author.raw),
                )
            return
        if ts < now - self.window_ms:
            raise ReplayedMessage(
                f"message ts {ts} is more than {self.window_ms // 1000} s old and this node holds no "
                f"seq of {author}: it could be a replay",
                code="stale",
            )
        self._make_room(now)
        with self._errors("save"):
            self._db.execute(
                "INSERT INTO authors (author, seq, ts) VALUES (?, ?, ?)", (author.raw, _seq_key(seq), ts)
            )
        self._count += 1

    def _make_room(self, now: int) -> None:
        if self._count < self.max_authors:
            return
        excess = self._count - self.max_authors + 1
        batch = max(excess, self.max_authors // 100)  # evict a few at once: one scan per 1 %
        with self._errors("evict"):
            cursor = self._db.execute(
                "DELETE FROM authors WHERE author IN "
                "(SELECT author FROM authors WHERE ts < ? ORDER BY ts LIMIT ?)",
                (now - self.window_ms, batch),
            )
        self._count -= max(cursor.rowcount, 0)
        if self._count >= self.max_authors:
            raise ReplayedMessage(
                f"this node tracks {self._count} authors of direct messages, none older than the "
                f"{self.window_ms // 1000} s window: new authors are refused until one is",
                code="busy",
            )


__all__ = ["MAX_FUTURE_MS", "REPLAY_FILE_NAME", "WINDOW_MS", "ReplayGuard"]
