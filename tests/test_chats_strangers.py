"""Chats joined by strangers' invitations: a cap for all strangers together, idle ones expire,
start-up loads nothing, pulls back off from members that never answer, undecodable rows are kept
aside; on the in-memory network under trio's MockClock (virtual time), real SQLite (issue 20)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.budget import TRUST_PARTNER, TRUST_STRANGER
from ioa_p2p.errors import StorageFull
from ioa_p2p.history.audit import audit_history
from ioa_p2p.identity import Identity
from ioa_p2p.node.chats.pacing import FIRST_BACKOFF, MAX_BACKOFF
from ioa_p2p.node.chats.run import open_chats
from ioa_p2p.node.chats.service import Chats
from ioa_p2p.node.chats.store import STORE_FILE_NAME
from ioa_p2p.testing.memnet import MemoryNetwork, MemoryNode

from .test_chats_memnet import wait_count


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


@asynccontextmanager
async def chat_node(
    net: MemoryNetwork, home: Path, chats: dict[str, Any] | None = None, identity: Identity | None = None
) -> AsyncIterator[tuple[MemoryNode, Chats]]:
    node_cm = net.open_node(home, raw={"chats": chats or {}}, identity=identity)
    async with node_cm as node, open_chats(node) as service:
        node.services_ready.set()
        yield node, service


async def test_strangers_together_get_at_most_max_stranger_chats_and_partners_still_get_in(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    with trio.fail_after(600):
        async with AsyncExitStack() as stack:
            victim_node, victim = await stack.enter_async_context(
                chat_node(net, tmp_path / "victim", {"max_stranger_chats": 5})
            )
            friend_node, friend = await stack.enter_async_context(chat_node(net, tmp_path / "friend"))
            # the victim worked with the friend: it created a chat with it
            await victim.create_chat([friend_node.peer_id], "our work")
            assert friend_node.peer_id in victim.partners
            assert victim_node.budgets.trust(friend_node.peer_id) == TRUST_PARTNER
            accepted = 0
            for i in range(3):  # three fresh identities, four chats each: each within its own limits
                _, stranger = await stack.enter_async_context(chat_node(net, tmp_path / f"s{i}"))
                for j in range(4):
                    handle = await stranger.create_chat([victim_node.peer_id], f"spam {i}.{j}")
                    accepted += len(handle.accepted)
            assert accepted == 5  # all strangers together
            assert victim.invites.admission.refused.get("over-budget") == 7
            assert victim.store.count_stranger_chats() == 5
            stranger_peer = next(iter(victim.store.partners()), None)
            assert stranger_peer is not None  # only the friend is a partner
            assert len(victim.partners) == 1
            # a partner's invitation is not counted against the strangers' cap
            handle = await friend.create_chat([victim_node.peer_id], "more work")
            assert handle.accepted == (victim_node.peer_id,)
            assert victim_node.budgets.trust(Identity.generate().peer_id) == TRUST_STRANGER


async def test_invited_chats_that_never_get_a_message_expire_and_come_back_when_used(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    with trio.fail_after(3600):
        async with (
            chat_node(net, tmp_path / "victim", {"invite_idle_expiry": 300}) as (victim_node, victim),
            chat_node(net, tmp_path / "inviter") as (_, inviter),
        ):
            idle = await inviter.create_chat([victim_node.peer_id], "idle")
            used = await inviter.create_chat([victim_node.peer_id], "used")
            await inviter.post(used.chat_id, "text", {"text": "hello"})
            await wait_count(victim, used.chat_id, 1)
            await trio.sleep(300 + 61)  # past the expiry, and past a check of the expiry loop
            assert victim.status(idle.chat_id) == "unknown"  # forgotten
            assert victim.status(used.chat_id) == "member"  # it got a message: kept
            assert victim.expired == 1 and victim.store.chat(idle.chat_id) is None
            # the inviter posts later: the victim says unknown-chat, is invited again and gets it
            await inviter.post(idle.chat_id, "text", {"text": "late"})
            await wait_count(victim, idle.chat_id, 1)
            assert victim.status(idle.chat_id) == "member"


async def test_start_up_loads_no_stored_chat_and_listing_loads_only_those_with_messages(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    home = tmp_path / "victim"
    with trio.fail_after(600):
        async with chat_node(net, tmp_path / "inviter") as (_, inviter):
            async with chat_node(net, home) as (victim_node, victim):
                handles = [await inviter.create_chat([victim_node.peer_id], f"c{i}") for i in range(6)]
                await inviter.post(handles[0].chat_id, "text", {"text": "one message"})
                await wait_count(victim, handles[0].chat_id, 1)
            async with chat_node(net, home) as (_, reopened):  # the same store, started again
                assert len(reopened.member_chats()) == 6
                assert reopened.loaded_member_chats() == []  # nothing rebuilt at start
                listing = {c["chat_id"]: c for c in reopened.list_chats()}
                assert sorted(c["topic"] for c in listing.values()) == [f"c{i}" for i in range(6)]
                assert listing[handles[0].chat_id.hex()]["messages"] == 1
                assert reopened.loaded_member_chats() == [handles[0].chat_id]  # only it had messages
                assert reopened.member_chats_with_topic("c1") == [handles[1].chat_id]


async def test_pulls_back_off_from_members_that_never_answer_for_every_chat(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """A stranger's chats name 10 members that do not exist: the victim tries each once, then
    backs off from it for every chat, doubling, instead of one failed pull per chat per round."""
    net = MemoryNetwork()
    ghosts = [Identity.generate().peer_id for _ in range(10)]
    with trio.fail_after(3600):
        async with (
            chat_node(net, tmp_path / "victim", {"sync_interval": 5}) as (victim_node, victim),
            chat_node(net, tmp_path / "inviter") as (_, inviter),
        ):
            handles = [await inviter.create_chat([victim_node.peer_id, *ghosts], f"g{i}") for i in range(8)]
            for handle in handles:
                await inviter.post(handle.chat_id, "text", {"text": "x"})
                await wait_count(victim, handle.chat_id, 1)
            for _ in range(60):  # ten virtual minutes of sync rounds, and some forced ones
                await trio.sleep(10)
                await victim.sync.sync_now(connected_only=False)
            pacer = victim.sync.pacer
            # per ghost: one failure, then one per back-off period (5, 10, 20 ... 600 s)
            waits, elapsed, per_ghost = FIRST_BACKOFF, 0.0, 1
            while elapsed + waits < 600 + 60:
                elapsed += waits
                per_ghost += 1
                waits = min(waits * 2, MAX_BACKOFF)
            assert pacer.failures <= len(ghosts) * per_ghost, pacer.snapshot()
            assert pacer.failures >= len(ghosts)
            assert pacer.snapshot()["skipped_backoff"] > 0


def corrupt_a_message(home: Path) -> bytes:
    """Overwrite the stored bytes of the first message with garbage; the message's hash."""
    with sqlite3.connect(home / STORE_FILE_NAME) as db:
        digest, raw = db.execute("SELECT hash, raw FROM messages ORDER BY rowid LIMIT 1").fetchone()
        db.execute("UPDATE messages SET raw = ? WHERE hash = ?", (b"\xff" + bytes(raw[1:]), digest))
    return bytes(digest)


async def test_an_undecodable_row_is_quarantined_reported_exported_for_the_audit_and_healed_by_sync(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    home = tmp_path / "victim"
    with trio.fail_after(600):
        async with chat_node(net, tmp_path / "inviter") as (_, inviter):
            async with chat_node(net, home) as (victim_node, victim):
                handle = await inviter.create_chat([victim_node.peer_id], "damaged")
                for i in range(3):
                    await inviter.post(handle.chat_id, "text", {"text": f"m{i}"})
                await wait_count(victim, handle.chat_id, 3)
            bad = corrupt_a_message(home)
            net.heal(victim_node.peer_id)  # the same node starts again
            async with chat_node(net, home, identity=victim_node.identity) as (_, reopened):
                hist = reopened.get(handle.chat_id)  # loads: the bad row goes to the quarantine
                assert bad not in hist and len(hist) == 0 and hist.pending_count == 2
                [row] = reopened.quarantine(handle.chat_id)
                assert row["hash"] == bad.hex() and "do not hash to" in row["reason"]
                report = audit_history(reopened.export(handle.chat_id))
                assert not report.valid and "malformed" in {f.code for f in report.findings}
                # a member sends a good copy: the chat is whole again (the bad bytes stay kept aside)
                await reopened.sync_now(handle.chat_id)
                assert len(reopened.get(handle.chat_id)) == 3
                assert len(reopened.quarantine()) == 1


async def test_a_chat_whose_genesis_is_unreadable_is_quarantined_whole(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    home = tmp_path / "victim"
    with trio.fail_after(600):
        async with chat_node(net, home) as (_, victim):
            handle = await victim.create_chat([], "alone")
            await victim.post(handle.chat_id, "text", {"text": "x"})
        with sqlite3.connect(home / STORE_FILE_NAME) as db:
            db.execute("UPDATE chats SET genesis = ?", (b"not cbor",))
        async with chat_node(net, home) as (_, reopened):
            assert reopened.find(handle.chat_id) is None
            assert reopened.status(handle.chat_id) == "unknown"
            assert {row["what"] for row in reopened.quarantine()} == {"genesis", "message"}
            assert reopened.list_chats() == []


async def test_a_post_on_a_full_store_is_storage_full(tmp_path: Path, autojump_clock: MockClock) -> None:
    net = MemoryNetwork()
    with trio.fail_after(60):
        async with chat_node(net, tmp_path / "n") as (_, chats):
            handle = await chats.create_chat([], "full")
            store = chats.store
            pages = store._db.execute("PRAGMA page_count").fetchone()[0]
            store._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk is full"
            with pytest.raises(StorageFull, match="disk is full"):
                for i in range(200):
                    await chats.post(handle.chat_id, "text", {"text": "x" * 2000 + str(i)})
