"""The durable chat store: one SQLite file, ``$IOA_HOME/chats.sqlite3``, in WAL mode.

The tables, their migrations and the row types are in :mod:`~ioa_p2p.node.chats.schema` (re-exported
here).

Rules the chat service relies on:

- a message is inserted **before** it is acknowledged, in one committed statement or transaction;
  ``synchronous=NORMAL`` in WAL mode survives a killed process (``kill -9``); ``fsync=true`` in
  ``[chats]`` selects ``synchronous=FULL`` to survive power loss too;
- ``INSERT OR IGNORE`` on the hash: a replayed or re-delivered message changes nothing;
- rowid order is a causal order (a message is only stored after its parents), so loading in rowid
  order rebuilds the in-memory DAG without a sort;
- the author's own message and its outbox rows are written in one transaction, so after a crash
  every own message is either absent or still queued for delivery.

Every sqlite3 error is translated into :class:`ioa_p2p.errors.StoreError` here (:func:`store_error`).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.schema import (
    STATUS_DECLINED,
    STATUS_LEFT,
    STATUS_MEMBER,
    STORE_FILE_NAME,
    ChatRow,
    MessageRow,
    QuarantinedRow,
    open_database,
    store_error,
)
from ioa_p2p.node.sqlite_files import close_quietly


class ChatStore:
    """Synchronous SQLite access (each call is short; callers run it on the trio thread)."""

    def __init__(self, path: Path, *, fsync: bool = False) -> None:
        self.path = path
        self._db, version = open_database(path, fsync=fsync)
        #: the schema version the file had before this open (0: a new file)
        self.upgraded_from = version

    @classmethod
    def open(cls, home: Path, *, fsync: bool = False) -> ChatStore:
        return cls(home / STORE_FILE_NAME, fsync=fsync)

    def close(self) -> None:
        close_quietly(self._db)

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise store_error(self.path, what, exc) from None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic, committed write (BEGIN IMMEDIATE ... COMMIT)."""
        with self._errors("write"):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                with contextlib.suppress(sqlite3.Error):  # SQLite may have rolled back already
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # ------------------------------------------------------------------ chats

    def add_chat(
        self,
        chat_id: bytes,
        genesis: bytes,
        status: str,
        now_ms: int,
        inviter: PeerId | None = None,
        topic: str | None = None,
    ) -> None:
        """Record a chat (an existing row keeps its genesis and inviter; its status is updated).
        ``inviter``: the peer whose invitation this node accepted (None: created here)."""
        with self._errors("save a chat"):
            self._db.execute(
                "INSERT INTO chats (chat_id, genesis, status, joined_ms, inviter, topic) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(chat_id) DO UPDATE SET status = excluded.status",
                (chat_id, genesis, status, now_ms, inviter.raw if inviter else None, topic),
            )

    def count_invited(self, inviter: PeerId | None = None, status: str = "member") -> int:
        """Chats with ``status`` this node joined by an invitation (from ``inviter``, or from anyone)."""
        query = "SELECT COUNT(*) FROM chats WHERE status = ? AND inviter IS NOT NULL"
        args: tuple[object, ...] = (status,)
        if inviter is not None:
            query, args = query + " AND inviter = ?", (status, inviter.raw)
        with self._errors("count chats"):
            return int(self._db.execute(query, args).fetchone()[0])

    def set_status(self, chat_id: bytes, status: str) -> None:
        with self._errors("update a chat"):
            self._db.execute("UPDATE chats SET status = ? WHERE chat_id = ?", (status, chat_id))

    def chats(self) -> list[ChatRow]:
        with self._errors("list chats"):
            rows = self._db.execute(
                "SELECT chat_id, genesis, status, joined_ms, inviter FROM chats ORDER BY joined_ms, chat_id"
            ).fetchall()
        return [ChatRow(*row) for row in rows]

    def chat(self, chat_id: bytes) -> ChatRow | None:
        with self._errors("read a chat"):
            row = self._db.execute(
                "SELECT chat_id, genesis, status, joined_ms, inviter FROM chats WHERE chat_id = ?",
                (chat_id,),
            ).fetchone()
        return ChatRow(*row) if row else None

    def statuses(self) -> list[tuple[bytes, str]]:
        """(chat_id, status) of every chat, in joining order: all a start-up reads."""
        with self._errors("list chats"):
            rows = self._db.execute("SELECT chat_id, status FROM chats ORDER BY joined_ms, chat_id")
            return [(bytes(row[0]), str(row[1])) for row in rows.fetchall()]

    def chats_with_topic(self, prefix: str, status: str = "member") -> list[bytes]:
        """Chats with ``status`` whose topic starts with ``prefix``."""
        with self._errors("list chats"):
            rows = self._db.execute(
                "SELECT chat_id FROM chats WHERE status = ? AND substr(topic, 1, ?) = ? ORDER BY joined_ms",
                (status, len(prefix), prefix),
            ).fetchall()
        return [bytes(row[0]) for row in rows]

    def set_topic(self, chat_id: bytes, topic: str) -> None:
        with self._errors("update a chat"):
            self._db.execute("UPDATE chats SET topic = ? WHERE chat_id = ?", (topic, chat_id))

    def untitled_chats(self) -> list[tuple[bytes, bytes, bytes | None]]:
        """(chat_id, genesis, inviter) of chats stored before topics were (schema 2 and older)."""
        with self._errors("list chats"):
            rows = self._db.execute("SELECT chat_id, genesis, inviter FROM chats WHERE topic IS NULL")
            return [(bytes(r[0]), bytes(r[1]), bytes(r[2]) if r[2] else None) for r in rows.fetchall()]

    def chats_authored_by(self, author: PeerId) -> list[bytes]:
        with self._errors("list chats"):
            rows = self._db.execute("SELECT DISTINCT chat_id FROM messages WHERE author = ?", (author.raw,))
            return [bytes(row[0]) for row in rows.fetchall()]

    def count_stranger_chats(self) -> int:
        """Member chats joined by the invitation of a peer that is not a partner."""
        with self._errors("count chats"):
            row = self._db.execute(
                "SELECT COUNT(*) FROM chats WHERE status = 'member' AND inviter IS NOT NULL "
                "AND inviter NOT IN (SELECT peer FROM partners)"
            ).fetchone()
        return int(row[0])

    def idle_invited_chats(self, joined_before_ms: int) -> list[bytes]:
        """Member chats joined by an invitation before ``joined_before_ms`` that hold no message."""
        with self._errors("list chats"):
            rows = self._db.execute(
                "SELECT chat_id FROM chats WHERE status = 'member' AND inviter IS NOT NULL "
                "AND joined_ms < ? AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.chat_id = chats.chat_id)",
                (joined_before_ms,),
            ).fetchall()
        return [bytes(row[0]) for row in rows]

    def forget_chat(self, chat_id: bytes) -> None:
        """Delete a chat that holds no message, with its outbox rows (an expired invitation)."""
        with self.transaction():
            self._db.execute("DELETE FROM outbox WHERE chat_id = ?", (chat_id,))
            self._db.execute("DELETE FROM chats WHERE chat_id = ?", (chat_id,))

    def active_chats(self, since_ms: int) -> list[bytes]:
        """Member chats with a message stamped at or after ``since_ms``, or with deliveries pending."""
        with self._errors("list chats"):
            rows = self._db.execute(
                "SELECT chat_id FROM chats WHERE status = 'member' AND ("
                "chat_id IN (SELECT DISTINCT chat_id FROM messages WHERE ts >= ?) "
                "OR chat_id IN (SELECT DISTINCT chat_id FROM outbox))",
                (since_ms,),
            ).fetchall()
        return [bytes(row[0]) for row in rows]

    def message_counts(self) -> dict[bytes, int]:
        """Messages stored per chat (chats without any are absent)."""
        with self._errors("count messages"):
            rows = self._db.execute("SELECT chat_id, COUNT(*) FROM messages GROUP BY chat_id").fetchall()
        return {bytes(row[0]): int(row[1]) for row in rows}

    # ------------------------------------------------------------------ messages

    def insert_messages(self, rows: Iterable[MessageRow]) -> int:
        """Insert (ignoring hashes already stored) in one transaction; returns rows added."""
        added = 0
        with self.transaction():
            for row in rows:
                added += self._insert(row)
        return added

    def insert_message(self, row: MessageRow) -> bool:
        """Insert one message in its own committed statement; False when it was already there."""
        with self._errors("save a message"):
            return self._insert(row) == 1

    def _insert(self, row: MessageRow) -> int:
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO messages (hash, chat_id, author, seq, depth, ts, kind, raw) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (row.hash, row.chat_id, row.author, row.seq, row.depth, row.ts, row.kind, row.raw),
        )
        return cursor.rowcount

    def insert_own(self, row: MessageRow, peers: Iterable[PeerId], now_ms: int) -> None:
        """An own message and its outbox rows, atomically."""
        with self.transaction():
            self._insert(row)
            self._db.executemany(
                "INSERT OR IGNORE INTO outbox (hash, peer, chat_id, added_ms) VALUES (?, ?, ?, ?)",
                [(row.hash, p.raw, row.chat_id, now_ms) for p in peers],
            )

    def messages(self, chat_id: bytes) -> list[MessageRow]:
        """A chat's messages in insertion (causal) order."""
        with self._errors("read messages"):
            rows = self._db.execute(
                "SELECT hash, chat_id, author, seq, depth, ts, kind, raw FROM messages "
                "WHERE chat_id = ? ORDER BY rowid",
                (chat_id,),
            ).fetchall()
        return [MessageRow(*row) for row in rows]

    def message_raw(self, digest: bytes) -> bytes | None:
        with self._errors("read a message"):
            row = self._db.execute("SELECT raw FROM messages WHERE hash = ?", (digest,)).fetchone()
        return row[0] if row else None

    def count(self, chat_id: bytes) -> int:
        with self._errors("count messages"):
            row = self._db.execute("SELECT COUNT(*) FROM messages WHERE chat_id = ?", (chat_id,)).fetchone()
        return int(row[0])

    # ------------------------------------------------------------------ outbox

    def add_outbox(self, chat_id: bytes, digests: Iterable[bytes], peer: PeerId, now_ms: int) -> None:
        with self._errors("queue deliveries"):
            self._db.executemany(
                "INSERT OR IGNORE INTO outbox (hash, peer, chat_id, added_ms) VALUES (?, ?, ?, ?)",
                [(d, peer.raw, chat_id, now_ms) for d in digests],
            )

    def outbox(self, peer: PeerId, limit: int = 1000) -> list[tuple[bytes, bytes]]:
        """(chat_id, hash) of deliveries to ``peer`` not yet acknowledged, oldest first."""
        with self._errors("read the outbox"):
            rows = self._db.execute(
                "SELECT outbox.chat_id, outbox.hash FROM outbox "
                "JOIN messages ON messages.hash = outbox.hash "
                "WHERE outbox.peer = ? ORDER BY messages.rowid LIMIT ?",
                (peer.raw, limit),
            ).fetchall()
        return [(row[0], row[1]) for row in rows]

    def outbox_peers(self) -> list[PeerId]:
        with self._errors("read the outbox"):
            rows = self._db.execute("SELECT DISTINCT peer FROM outbox").fetchall()
        return sorted(PeerId.from_bytes(row[0]) for row in rows)

    def acked(self, digests: Iterable[bytes], peer: PeerId) -> None:
        with self._errors("record acknowledgements"):
            self._db.executemany(
                "DELETE FROM outbox WHERE hash = ? AND peer = ?", [(d, peer.raw) for d in digests]
            )

    def drop_outbox(self, chat_id: bytes, peer: PeerId) -> None:
        with self._errors("update the outbox"):
            self._db.execute("DELETE FROM outbox WHERE chat_id = ? AND peer = ?", (chat_id, peer.raw))

    def outbox_size(self) -> int:
        with self._errors("read the outbox"):
            return int(self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])

    # ------------------------------------------------------------------ partners and quarantine

    def add_partners(self, peers: Iterable[PeerId], now_ms: int) -> None:
        with self._errors("save partners"):
            self._db.executemany(
                "INSERT OR IGNORE INTO partners (peer, since_ms) VALUES (?, ?)",
                [(p.raw, now_ms) for p in peers],
            )

    def partners(self) -> list[bytes]:
        with self._errors("read partners"):
            return [bytes(row[0]) for row in self._db.execute("SELECT peer FROM partners").fetchall()]

    def quarantine_message(self, digest: bytes, reason: str, now_ms: int) -> None:
        """Move a stored message that cannot be decoded out of ``messages`` (its bytes are kept)."""
        with self.transaction():
            self._db.execute(
                "INSERT INTO quarantine (chat_id, hash, raw, reason, at_ms) "
                "SELECT chat_id, hash, raw, ?, ? FROM messages WHERE hash = ?",
                (reason, now_ms, digest),
            )
            self._db.execute("DELETE FROM outbox WHERE hash = ?", (digest,))
            self._db.execute("DELETE FROM messages WHERE hash = ?", (digest,))

    def quarantine_chat(self, chat_id: bytes, reason: str, now_ms: int) -> None:
        """Move a chat whose genesis cannot be decoded, with its messages, into the quarantine."""
        with self.transaction():
            self._db.execute(
                "INSERT INTO quarantine (chat_id, hash, raw, reason, at_ms) "
                "SELECT chat_id, NULL, genesis, ?, ? FROM chats WHERE chat_id = ?",
                (reason, now_ms, chat_id),
            )
            self._db.execute(
                "INSERT INTO quarantine (chat_id, hash, raw, reason, at_ms) "
                "SELECT chat_id, hash, raw, ?, ? FROM messages WHERE chat_id = ?",
                (f"in a quarantined chat: {reason}", now_ms, chat_id),
            )
            for table in ("outbox", "messages", "evidence", "chats"):
                self._db.execute(f"DELETE FROM {table} WHERE chat_id = ?", (chat_id,))

    def quarantined(self, chat_id: bytes | None = None) -> list[QuarantinedRow]:
        query = "SELECT chat_id, hash, raw, reason, at_ms FROM quarantine"
        args: tuple[object, ...] = ()
        if chat_id is not None:
            query, args = query + " WHERE chat_id = ?", (chat_id,)
        with self._errors("read the quarantine"):
            rows = self._db.execute(query + " ORDER BY id", args).fetchall()
        return [QuarantinedRow(*row) for row in rows]

    # ------------------------------------------------------------------ evidence

    def add_evidence(self, chat_id: bytes, first: bytes, second: bytes) -> None:
        with self._errors("save equivocation evidence"):
            self._db.execute(
                "INSERT OR IGNORE INTO evidence (chat_id, first, second) VALUES (?, ?, ?)",
                (chat_id, first, second),
            )

    def evidence(self, chat_id: bytes) -> list[tuple[bytes, bytes]]:
        with self._errors("read evidence"):
            rows = self._db.execute(
                "SELECT first, second FROM evidence WHERE chat_id = ?", (chat_id,)
            ).fetchall()
        return [(row[0], row[1]) for row in rows]


__all__ = [
    "STATUS_DECLINED",
    "STATUS_LEFT",
    "STATUS_MEMBER",
    "STORE_FILE_NAME",
    "ChatRow",
    "ChatStore",
    "MessageRow",
    "QuarantinedRow",
]
