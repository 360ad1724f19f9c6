"""The SQLite chat store: WAL, dedup, causal load order, outbox, evidence, kill -9 durability."""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from ioa_p2p.errors import StoreError
from ioa_p2p.history.bodies import make_genesis
from ioa_p2p.history.dag import ChatHistory, Entry
from ioa_p2p.identity import Identity
from ioa_p2p.node.chats.store import STATUS_DECLINED, STATUS_MEMBER, ChatStore, MessageRow
from ioa_p2p.wire.envelope import Envelope

A, B = Identity(b"\x31" * 32), Identity(b"\x32" * 32)


def row_of(entry: Entry) -> MessageRow:
    env = entry.env
    return MessageRow(
        entry.hash,
        entry.msg.chat_id,
        env.author.raw,
        env.seq,
        entry.depth,
        env.ts,
        entry.msg.kind,
        env.to_cbor(),
    )


def chat_with(messages: int) -> ChatHistory:
    h = ChatHistory(make_genesis(A, [B.peer_id], "store", now_ms=1, nonce=bytes(16)))
    for i in range(messages):
        h.add(h.compose([A, B][i % 2], "text", {"text": str(i)}, now_ms=10 + i))
    return h


def test_wal_mode_and_chats(tmp_path: Path) -> None:
    store = ChatStore.open(tmp_path)
    mode = sqlite3.connect(tmp_path / "chats.sqlite3").execute("PRAGMA journal_mode").fetchone()
    assert mode[0] == "wal"
    h = chat_with(0)
    store.add_chat(h.chat_id, h.genesis.to_cbor(), STATUS_MEMBER, 5)
    store.add_chat(h.chat_id, b"ignored", STATUS_DECLINED, 6)
    [row] = store.chats()
    assert row.genesis == h.genesis.to_cbor() and row.status == STATUS_DECLINED
    store.set_status(h.chat_id, STATUS_MEMBER)
    assert store.chat(h.chat_id).status == STATUS_MEMBER  # type: ignore[union-attr]
    assert store.chat(bytes(32)) is None
    store.close()


def test_messages_dedup_and_keep_causal_order(tmp_path: Path) -> None:
    store = ChatStore.open(tmp_path)
    h = chat_with(10)
    store.add_chat(h.chat_id, h.genesis.to_cbor(), STATUS_MEMBER, 1)
    rows = [row_of(e) for e in h.entries()]
    assert store.insert_messages(rows[:4]) == 4
    assert store.insert_message(rows[4]) is True
    assert store.insert_message(rows[4]) is False  # replay: ignored
    assert store.insert_messages(rows) == 5
    assert store.count(h.chat_id) == 10
    assert [r.hash for r in store.messages(h.chat_id)] == [r.hash for r in rows]
    assert store.message_raw(rows[3].hash) == rows[3].raw
    store.close()
    reopened = ChatStore.open(tmp_path)
    loaded = ChatHistory(h.genesis)
    for row in reopened.messages(h.chat_id):
        assert loaded.add(Envelope.from_cbor(row.raw, verify=False), row.hash).stored
    assert loaded.heads() == h.heads()


def test_message_needs_its_chat(tmp_path: Path) -> None:
    store = ChatStore.open(tmp_path)
    row = row_of(chat_with(1).entries()[0])
    with pytest.raises(StoreError, match="cannot"):
        store.insert_message(row)


def test_outbox(tmp_path: Path) -> None:
    store = ChatStore.open(tmp_path)
    h = chat_with(3)
    store.add_chat(h.chat_id, h.genesis.to_cbor(), STATUS_MEMBER, 1)
    rows = [row_of(e) for e in h.entries()]
    for row in rows:
        store.insert_own(row, [B.peer_id, A.peer_id], now_ms=2)
    assert store.outbox_size() == 6
    assert store.outbox_peers() == sorted([A.peer_id, B.peer_id])
    assert store.outbox(B.peer_id) == [(h.chat_id, r.hash) for r in rows]
    store.acked([rows[0].hash, rows[1].hash], B.peer_id)
    assert store.outbox(B.peer_id) == [(h.chat_id, rows[2].hash)]
    store.drop_outbox(h.chat_id, A.peer_id)
    assert store.outbox_peers() == [B.peer_id]
    store.add_outbox(h.chat_id, [rows[0].hash], A.peer_id, now_ms=3)
    assert store.outbox(A.peer_id, limit=5) == [(h.chat_id, rows[0].hash)]


def test_transaction_rolls_back_on_error(tmp_path: Path) -> None:
    store = ChatStore.open(tmp_path)
    h = chat_with(2)
    store.add_chat(h.chat_id, h.genesis.to_cbor(), STATUS_MEMBER, 1)
    good = row_of(h.entries()[0])
    orphan = row_of(chat_with(1).entries()[0])
    orphan = replace(orphan, hash=b"\x09" * 32, chat_id=b"\x08" * 32)
    with pytest.raises(StoreError):
        store.insert_messages([good, orphan])
    assert store.count(h.chat_id) == 0


def test_evidence(tmp_path: Path) -> None:
    store = ChatStore.open(tmp_path)
    store.add_evidence(b"c" * 32, b"one", b"two")
    store.add_evidence(b"c" * 32, b"one", b"two")
    assert store.evidence(b"c" * 32) == [(b"one", b"two")]


def test_unusable_files_raise_store_error(tmp_path: Path) -> None:
    (tmp_path / "chats.sqlite3").write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open the chat store"):
        ChatStore.open(tmp_path)
    other = tmp_path / "future"
    ChatStore.open(other).close()
    db = sqlite3.connect(other / "chats.sqlite3")
    db.execute("PRAGMA user_version=99")
    db.close()
    with pytest.raises(StoreError, match="schema 99"):
        ChatStore.open(other)
    ChatStore.open(tmp_path / "sync", fsync=True).close()


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from ioa_p2p.history.bodies import make_genesis
    from ioa_p2p.history import ChatHistory
    from ioa_p2p.identity import Identity
    from ioa_p2p.node.chats.store import ChatStore, MessageRow

    store = ChatStore.open(Path(sys.argv[1]))
    a, b = Identity(b"\\x31" * 32), Identity(b"\\x32" * 32)
    h = ChatHistory(make_genesis(a, [b.peer_id], "store", now_ms=1, nonce=bytes(16)))
    store.add_chat(h.chat_id, h.genesis.to_cbor(), "member", 1)
    i = 0
    while True:
        env = h.compose([a, b][i % 2], "text", {"text": str(i)}, now_ms=10 + i)
        entry = h.add(env).stored[0]
        store.insert_message(MessageRow(entry.hash, h.chat_id, env.author.raw, env.seq,
                                        entry.depth, env.ts, "text", env.to_cbor()))
        print("acked", entry.hash.hex(), flush=True)  # the acknowledgement follows the commit
        i += 1
    """
)


def test_every_acknowledged_message_survives_kill_9(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    acked = []
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while len(acked) < 300 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.startswith("acked "):
            acked.append(bytes.fromhex(line.split()[1]))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    # the last line may be cut by the kill: only complete acknowledgements count
    acked.extend(
        bytes.fromhex(line.split()[1]) for line in proc.stdout if re.fullmatch(r"acked [0-9a-f]{64}\n", line)
    )
    proc.stdout.close()
    assert len(acked) >= 300
    store = ChatStore.open(tmp_path)
    [chat] = store.chats()
    stored = [r.hash for r in store.messages(chat.chat_id)]
    assert stored[: len(acked)] == acked  # nothing acknowledged is lost, order kept
