"""The node's local SQLite files (the chat store, the inbox, the replay guard): opened one way, closed
quietly, every sqlite3 error translated once into ours.

:func:`open_sqlite`: the folder made, autocommit (each statement commits; ``BEGIN`` for a transaction),
usable from a worker thread, WAL journal, ``synchronous`` as asked. :func:`store_errors` turns a
``sqlite3.Error`` into :class:`~ioa_p2p.errors.StoreError` naming the file and what failed, and a full disk
into :class:`~ioa_p2p.errors.StorageFull`.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ioa_p2p.errors import StorageFull, StoreError


def open_sqlite(path: Path, *, synchronous: str = "NORMAL") -> tuple[sqlite3.Connection, str]:
    """A connection to ``path`` and the journal mode SQLite granted (``wal`` unless it refused). Raises
    ``sqlite3.Error`` (callers open it inside :func:`store_errors`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    mode = str(db.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower()
    db.execute(f"PRAGMA synchronous={synchronous}")
    return db, mode


def close_quietly(db: sqlite3.Connection) -> None:
    with contextlib.suppress(sqlite3.Error):  # closing: nothing left to save
        db.close()


def store_error(label: str, path: Path, what: str, exc: sqlite3.Error, advice: str = "") -> StoreError:
    """Our error for a sqlite3 error of the ``label`` file at ``path`` doing ``what``: :class:`StorageFull`
    when the disk is full; else ``advice`` (what the user can do) follows the cause."""
    if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc):
        return StorageFull(f"{label} {path}: cannot {what}: the disk is full; free space and try again")
    return StoreError(f"{label} {path}: cannot {what}: {exc}" + (f"; {advice}" if advice else ""))


@contextmanager
def store_errors(label: str, path: Path, what: str, advice: str = "") -> Iterator[None]:
    """Run the block with its sqlite3 errors translated (:func:`store_error`)."""
    try:
        yield
    except sqlite3.Error as exc:
        raise store_error(label, path, what, exc, advice) from None


__all__ = ["close_quietly", "open_sqlite", "store_error", "store_errors"]
