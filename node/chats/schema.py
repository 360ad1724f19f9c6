"""The chat store's file: its tables, their migrations and the rows read from them.

Tables (schema version 3, ``PRAGMA user_version``; a version 1 file gains ``chats.inviter``, a
version 2 file ``chats.topic`` and the ``partners`` and ``quarantine`` tables)::

    chats      chat_id PK, genesis (signed envelope CBOR), status, joined_ms, inviter (NULL: created
               here), topic (the genesis topic, so start-up need not decode any genesis)
    messages   hash PK, chat_id, author, seq, depth, ts, kind, raw   (insertion order = rowid)
    outbox     (hash, peer) PK, chat_id, added_ms                   (deliveries not yet acknowledged)
    evidence   chat_id, first, second                               (equivocation proofs)
    partners   peer PK, since_ms          (peers this node worked with: in a chat it created or posted in)
    quarantine id PK, chat_id, hash, raw, reason, at_ms   (rows that could not be decoded, kept aside)

:func:`open_database` opens the file in WAL mode and brings an older schema up to date;
:func:`store_error` translates a sqlite3 error into ours. The queries are
:class:`~ioa_p2p.node.chats.store.ChatStore`'s.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ioa_p2p.errors import StoreError
from ioa_p2p.history.dag import Entry
from ioa_p2p.node.sqlite_files import open_sqlite
from ioa_p2p.node.sqlite_files import store_error as sqlite_store_error

STORE_FILE_NAME = "chats.sqlite3"
SCHEMA_VERSION = 3

STATUS_MEMBER = "member"
STATUS_DECLINED = "declined"
STATUS_LEFT = "left"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS chats (
    chat_id   BLOB PRIMARY KEY,
    genesis   BLOB NOT NULL,
    status    TEXT NOT NULL,
    joined_ms INTEGER NOT NULL,
    inviter   BLOB,
    topic     TEXT
);
CREATE TABLE IF NOT EXISTS messages (
    hash    BLOB PRIMARY KEY,
    chat_id BLOB NOT NULL REFERENCES chats(chat_id),
    author  BLOB NOT NULL,
    seq     INTEGER NOT NULL,
    depth   INTEGER NOT NULL,
    ts      INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    raw     BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_chat ON messages (chat_id);
CREATE TABLE IF NOT EXISTS outbox (
    hash     BLOB NOT NULL,
    peer     BLOB NOT NULL,
    chat_id  BLOB NOT NULL,
    added_ms INTEGER NOT NULL,
    PRIMARY KEY (hash, peer)
);
CREATE INDEX IF NOT EXISTS outbox_by_peer ON outbox (peer);
CREATE TABLE IF NOT EXISTS evidence (
    chat_id BLOB NOT NULL,
    first   BLOB NOT NULL,
    second  BLOB NOT NULL,
    PRIMARY KEY (chat_id, first, second)
);
CREATE TABLE IF NOT EXISTS partners (
    peer     BLOB PRIMARY KEY,
    since_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS quarantine (
    id      INTEGER PRIMARY KEY,
    chat_id BLOB,
    hash    BLOB,
    raw     BLOB,
    reason  TEXT NOT NULL,
    at_ms   INTEGER NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class ChatRow:
    chat_id: bytes
    genesis: bytes
    status: str
    joined_ms: int
    inviter: bytes | None = None


@dataclass(frozen=True, slots=True)
class QuarantinedRow:
    """A stored row that could not be decoded: kept aside, reported, flagged by the audit."""

    chat_id: bytes | None
    hash: bytes | None  # None: the chat's genesis
    raw: bytes | None
    reason: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class MessageRow:
    hash: bytes
    chat_id: bytes
    author: bytes
    seq: int
    depth: int
    ts: int
    kind: str
    raw: bytes


def message_row(entry: Entry) -> MessageRow:
    """The row of a verified message."""
    env, msg = entry.env, entry.msg
    return MessageRow(
        entry.hash, msg.chat_id, env.author.raw, env.seq, entry.depth, env.ts, msg.kind, env.to_cbor()
    )


def open_database(path: Path, *, fsync: bool = False) -> tuple[sqlite3.Connection, int]:
    """The store's connection (autocommit, WAL; ``fsync``: ``synchronous=FULL``) with the current schema,
    and the schema version the file had before (0: a new file). Raises :class:`StoreError`."""
    try:
        db, mode = open_sqlite(path, synchronous="FULL" if fsync else "NORMAL")
        if mode != "wal":
            raise StoreError(f"{path}: SQLite refused WAL mode (got {mode!r})")
        db.execute("PRAGMA foreign_keys=ON")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, 1, 2, SCHEMA_VERSION):
            raise StoreError(
                f"{path} has chat store schema {version}; this version reads {SCHEMA_VERSION}. "
                "Upgrade ioa-p2p, or move the file away to start with an empty store"
            )
        db.executescript(_SCHEMA)
        if version == 1:  # schema 2 added who invited this node to each chat
            db.execute("ALTER TABLE chats ADD COLUMN inviter BLOB")
        if version in (1, 2):  # schema 3: the topic column, partners, quarantine
            db.execute("ALTER TABLE chats ADD COLUMN topic TEXT")
        db.execute("CREATE INDEX IF NOT EXISTS chats_by_inviter ON chats (inviter, status)")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except sqlite3.Error as exc:
        raise StoreError(
            f"cannot open the chat store {path}: {exc}; check the disk and permissions "
            "(a corrupt file can be moved away, losing local chat history)"
        ) from None
    return db, int(version)


def store_error(path: Path, what: str, exc: sqlite3.Error) -> StoreError:
    """Our error for a sqlite3 error of the chat store: :class:`StorageFull` when the disk is full."""
    return sqlite_store_error("chat store", path, what, exc)


__all__ = [
    "SCHEMA_VERSION",
    "STATUS_DECLINED",
    "STATUS_LEFT",
    "STATUS_MEMBER",
    "STORE_FILE_NAME",
    "ChatRow",
    "MessageRow",
    "QuarantinedRow",
    "message_row",
    "open_database",
    "store_error",
]
