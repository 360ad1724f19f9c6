"""The inbox of direct messages: the last ``size`` accepted envelopes, on disk before the acknowledgement.

An ``ok`` answer tells the sender its message was delivered, so the message must outlive a crash of the
receiving node the moment after: :meth:`Inbox.append` commits the envelope (as received: canonical CBOR,
signature included) to ``$IOA_HOME/msg_inbox.sqlite3`` (WAL; a committed transaction survives the process
being killed) before the service answers. Bounded: only the newest ``size`` are kept, on disk and in
memory. A row that cannot be decoded any more (a file written by another version) is skipped on load.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

from ioa_p2p.errors import InvalidMessage
from ioa_p2p.node.sqlite_files import close_quietly, open_sqlite, store_errors
from ioa_p2p.wire.envelope import Envelope

INBOX_FILE_NAME = "msg_inbox.sqlite3"
INBOX_SIZE = 1000

log = logging.getLogger("ioa_p2p.messaging")
_ADVICE = "check the disk and permissions (a corrupt file can be moved away: the inbox then starts empty)"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS inbox (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    envelope BLOB NOT NULL
);
"""


class Inbox:
    """The newest ``size`` direct messages this node accepted, oldest first (synchronous SQLite)."""

    def __init__(self, path: Path, size: int = INBOX_SIZE) -> None:
        self.path = path
        self.size = size
        self._rows: collections.deque[tuple[int, Envelope]] = collections.deque(maxlen=size)
        with self._errors("open"):
            self._db, _ = open_sqlite(path)
            self._db.executescript(_SCHEMA)
            rows = self._db.execute(
                "SELECT id, envelope FROM inbox WHERE id > (SELECT COALESCE(MAX(id), 0) FROM inbox) - ? "
                "ORDER BY id",
                (size,),
            ).fetchall()
        for row_id, data in rows:
            try:
                self._rows.append((int(row_id), Envelope.from_cbor(bytes(data))))
            except InvalidMessage as exc:
                log.warning("inbox %s: skipping stored message %s: %s", path, row_id, exc)

    @classmethod
    def open(cls, home: Path, size: int = INBOX_SIZE) -> Inbox:
        return cls(home / INBOX_FILE_NAME, size)

    def close(self) -> None:
        close_quietly(self._db)

    def _errors(self, what: str) -> AbstractContextManager[None]:
        return store_errors("inbox store", self.path, what, _ADVICE)

    def append(self, env: Envelope, data: bytes) -> None:
        """Store ``env`` (``data``: its bytes as received) durably, dropping the oldest beyond ``size``."""
        with self._errors("save"):
            cursor = self._db.execute("INSERT INTO inbox (envelope) VALUES (?)", (data,))
            row_id = int(cursor.lastrowid or 0)
            self._db.execute("DELETE FROM inbox WHERE id <= ?", (row_id - self.size,))
        self._rows.append((row_id, env))

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[Envelope]:
        return iter([env for _, env in self._rows])

    def __getitem__(self, index: int) -> Envelope:
        return self._rows[index][1]


__all__ = ["INBOX_FILE_NAME", "INBOX_SIZE", "Inbox"]
