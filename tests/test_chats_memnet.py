"""Chat delivery and sync on the in-memory transport fake (:mod:`ioa_p2p.testing.memnet`) under trio's
``MockClock(autojump_threshold=0)``: the same chat service as on libp2p hosts, with virtual time, so
retries, periodic sync and timeouts run in milliseconds and in the same order every run. The real
libp2p tests (tests/test_chats_net.py) stay as they are."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.history.audit import audit_history
from ioa_p2p.node.chats.pacing import QUIET_MAX_ROUNDS
from ioa_p2p.node.chats.run import open_chats
from ioa_p2p.node.chats.service import Chats
from ioa_p2p.testing.memnet import MemoryNetwork, MemoryNode


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


@asynccontextmanager
async def open_chat_nodes(
    net: MemoryNetwork, tmp_path: Path, count: int
) -> AsyncIterator[list[tuple[MemoryNode, Chats]]]:
    async with AsyncExitStack() as stack:
        pairs = []
        for i in range(count):
            node = await stack.enter_async_context(net.open_node(tmp_path / f"n{i}"))
            pairs.append((node, await stack.enter_async_context(open_chats(node))))
        for node, _ in pairs:
            node.services_ready.set()
        yield pairs


async def wait_count(chats: Chats, chat_id: bytes, count: int) -> None:
    await chats.wait_until(lambda: chats.find(chat_id) is not None and len(chats.get(chat_id)) >= count)


async def test_delivery_and_sync_converge_on_virtual_time(tmp_path: Path, autojump_clock: MockClock) -> None:
    net = MemoryNetwork()
    with trio.fail_after(600):  # virtual seconds
        async with open_chat_nodes(net, tmp_path, 3) as nodes:
            (a_node, a), (b_node, b), (c_node, c) = nodes
            handle = await a.create_chat([b_node.peer_id, c_node.peer_id], "memory")
            assert set(handle.accepted) == {b_node.peer_id, c_node.peer_id}
            chat_id = handle.chat_id
            await a.post(chat_id, "text", {"text": "hello"})
            for chats in (a, b, c):
                await wait_count(chats, chat_id, 1)

            # c is cut off: a's deliveries to it fail and back off; b still gets everything.
            net.partition(c_node.peer_id)
            for i in range(3):
                await a.post(chat_id, "text", {"text": f"while c is away {i}"})
            await b.post(chat_id, "text", {"text": "b too"})
            await wait_count(a, chat_id, 5)
            await wait_count(b, chat_id, 5)
            await trio.sleep(30)
            assert len(c.get(chat_id)) == 1

            # Healed: retries and sync bring c up to date; every copy exports the same bytes.
            net.heal(c_node.peer_id)
            await wait_count(c, chat_id, 5)
            exports = {chats.export(chat_id) for chats in (a, b, c)}
            assert len(exports) == 1
            assert audit_history(exports.pop()).valid
            # Nothing failed but the deliveries to the cut-off peer (and the cut-off peer's own
            # pull of the chat it had just joined, when the cut came while it ran).
            cut = {"chat delivery:PeerUnreachable", "chat delivery:PeerClosed"}
            for node in (a_node, b_node, c_node):
                failures = set(node.faults.snapshot())
                allowed = cut | ({"chat sync pull:PeerClosed"} if node is c_node else set())
                assert failures <= allowed, failures


async def test_a_member_that_missed_everything_pulls_the_history(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    with trio.fail_after(600):
        async with open_chat_nodes(net, tmp_path, 2) as nodes:
            (_, a), (b_node, b) = nodes
            handle = await a.create_chat([b_node.peer_id], "pull")
            net.partition(b_node.peer_id)
            for i in range(40):
                await a.post(handle.chat_id, "text", {"text": f"m{i}"})
            net.heal(b_node.peer_id)
            await b.sync_now(handle.chat_id)  # (deliveries retried meanwhile may bring some first)
            assert [e.hash for e in b.history(handle.chat_id)] == [e.hash for e in a.history(handle.chat_id)]
            assert len(b.history(handle.chat_id)) == 40


async def test_a_reconnection_retries_at_once_without_polling(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """A delivery backing off to a peer that was away is retried the moment the peer connects again
    (the connection wakes the chats' watch: no time passes), not at its next backoff or poll."""
    net = MemoryNetwork()
    with trio.fail_after(600):
        async with open_chat_nodes(net, tmp_path, 2) as nodes:
            (a_node, a), (b_node, b) = nodes
            handle = await a.create_chat([b_node.peer_id], "reconnect")
            net.partition(b_node.peer_id)
            await a.post(handle.chat_id, "text", {"text": "while b is away"})
            await trio.sleep(100.25)  # a's worker backs off (retry_max 30 s)
            assert len(b.get(handle.chat_id)) == 0
            net.heal(b_node.peer_id)
            start = trio.current_time()
            await b_node.connect_peer(a_node.peer_id)  # b comes back and connects
            await wait_count(b, handle.chat_id, 1)
            assert trio.current_time() - start < 0.1  # virtual seconds: woken by the connection itself


async def test_a_quiet_chat_is_pulled_less_often_until_a_message_arrives(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """The periodic sync pulls a chat every round while messages arrive; while its pulls bring nothing it
    pulls it every 2, 4, then QUIET_MAX_ROUNDS rounds (each pull is a stream to every member), and a new
    message makes the next round pull it, the back-off starting over."""
    net = MemoryNetwork()
    with trio.fail_after(3600):
        async with open_chat_nodes(net, tmp_path, 3) as nodes:
            (a_node, a), (b_node, b), (c_node, c) = nodes
            handle = await a.create_chat([b_node.peer_id, c_node.peer_id], "quiet")
            chat_id = handle.chat_id
            await a.post(chat_id, "text", {"text": "hello"})
            for chats in (a, b, c):
                await wait_count(chats, chat_id, 1)
            asked_by_b: list[float] = []
            asked = [trio.Event()]  # set at b's next request
            answer = a.sync._answer

            def counting_answer(request, remote, on_evict):  # type: ignore[no-untyped-def]
                if remote == b_node.peer_id:
                    asked_by_b.append(trio.current_time())
                    asked[0].set()
                return answer(request, remote, on_evict)

            a.sync._answer = counting_answer  # type: ignore[method-assign]
            rounds = 40  # of sync_interval (10 s) each, jittered by +-25 %
            await trio.sleep(rounds * b.config.sync_interval)
            assert b.sync.quiet.rounds_between(chat_id) == QUIET_MAX_ROUNDS
            # every round would pull it 40 times; quiet: rounds 1, 3, 7, 15, then every 8th
            assert 4 <= len(asked_by_b) <= 4 + rounds // QUIET_MAX_ROUNDS
            gaps = [later - earlier for earlier, later in zip(asked_by_b, asked_by_b[1:], strict=False)]
            assert max(gaps) <= QUIET_MAX_ROUNDS * b.config.sync_interval * 1.25 + 1

            await c.post(chat_id, "text", {"text": "back to work"})
            await wait_count(b, chat_id, 2)
            assert b.sync.quiet.rounds_between(chat_id) == 1  # active again: pulled every round
            # The very next round pulls it (not the 8th): within one jittered round. That pull brings
            # nothing (b had the message by delivery), so the chat goes quiet again from 2 rounds, not
            # from QUIET_MAX_ROUNDS. (Counting pulls over a fixed span instead depends on the jitter.)
            before, asked[0] = len(asked_by_b), trio.Event()
            with trio.fail_after(b.config.sync_interval * 1.25 + 1):
                await asked[0].wait()
            await trio.sleep(1)  # the round ends (virtual time); the next starts >= 7.5 s later
            assert len(asked_by_b) == before + 1
            assert b.sync.quiet.rounds_between(chat_id) == 2


async def test_a_drained_outbox_is_not_read_again_and_a_post_during_a_batch_still_goes(
    tmp_path: Path, autojump_clock: MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delivery session reads the peer's outbox once per batch it sends: a batch that was the whole
    outbox and all acknowledged leaves it empty, so the session waits without reading it again; a
    message posted while a batch awaits its acks wakes the session, which reads and delivers it."""
    net = MemoryNetwork()
    with trio.fail_after(600):  # virtual seconds
        async with open_chat_nodes(net, tmp_path, 2) as nodes:
            (a_node, a), (b_node, b) = nodes
            handle = await a.create_chat([b_node.peer_id], "reads")
            chat_id = handle.chat_id
            await a.post(chat_id, "text", {"text": "warm"})
            await a.wait_until(lambda: a.store.outbox_size() == 0)
            reads: list[int] = []
            upstream = a.store.outbox

            def outbox(peer, limit=1000):  # type: ignore[no-untyped-def]
                rows = upstream(peer, limit)
                reads.append(len(rows))
                return rows

            monkeypatch.setattr(a.store, "outbox", outbox)
            for i in range(5):
                await a.post(chat_id, "text", {"text": f"one {i}"})
                await a.wait_until(lambda: a.store.outbox_size() == 0)
            assert reads.count(0) <= 1 and len(reads) <= 6  # one read per batch (the session was open)
            # posts while a batch waits for its ack: each wakes the session, nothing is left behind
            for i in range(3):
                await a.post(chat_id, "text", {"text": f"two {i}"})
            await a.wait_until(lambda: a.store.outbox_size() == 0)
            await wait_count(b, chat_id, 1 + 5 + 3)
            assert [e.msg.content["text"] for e in b.get(chat_id).entries()[-3:]] == [
                f"two {i}" for i in range(3)
            ]
