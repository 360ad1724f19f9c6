"""The direct-message inbox: on disk before the acknowledgement, bounded, kept across a restart."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ioa_p2p.errors import StoreError
from ioa_p2p.identity import Identity
from ioa_p2p.node.messaging.inbox import INBOX_FILE_NAME, Inbox
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.text import Text


def message(author: Identity, seq: int) -> Envelope:
    return Envelope.create(author, Text(text=f"m{seq}"), seq=seq)


def test_messages_survive_a_reopen_and_only_the_newest_are_kept(tmp_path: Path) -> None:
    author = Identity.generate()
    inbox = Inbox.open(tmp_path, size=3)
    for seq in range(1, 6):
        env = message(author, seq)
        inbox.append(env, env.to_cbor())
        if seq == 2:
            assert [e.seq for e in inbox] == [1, 2] and inbox[-1].seq == 2
    assert [e.seq for e in inbox] == [3, 4, 5]
    inbox.close()  # as a crash would: nothing more is written on close
    again = Inbox.open(tmp_path, size=3)
    assert [e.seq for e in again] == [3, 4, 5] and len(again) == 3
    assert [e.body.text for e in again] == ["m3", "m4", "m5"]  # type: ignore[attr-defined]
    with sqlite3.connect(tmp_path / INBOX_FILE_NAME) as db:
        assert db.execute("SELECT COUNT(*) FROM inbox").fetchone()[0] == 3  # bounded on disk too
    again.close()


def test_an_undecodable_stored_row_is_skipped_and_a_broken_file_is_a_store_error(tmp_path: Path) -> None:
    author = Identity.generate()
    inbox = Inbox.open(tmp_path)
    good = message(author, 1)
    inbox.append(good, good.to_cbor())
    inbox.close()
    with sqlite3.connect(tmp_path / INBOX_FILE_NAME) as db:
        db.execute("INSERT INTO inbox (envelope) VALUES (?)", (b"\xa1not cbor",))
    again = Inbox.open(tmp_path)
    assert [e.hash for e in again] == [good.hash]
    again.close()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / INBOX_FILE_NAME).write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="inbox store"):
        Inbox.open(broken)
