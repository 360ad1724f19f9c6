"""Chats over real libp2p hosts on 127.0.0.1: concurrency, partitions, rejections, invitations.

The tests' bounds are :func:`within_running_time`: the nodes of a test share one event loop, whose thread
waits in the run queue most of the time on a loaded machine (the 7 s four-member test took 30-55 s beside
three busy loops on its core, and failed its 60 s wall-clock bound once in 20 runs at load 22). The nodes'
timers keep real time (on the ``runnable_clock`` every sleep and retry stretched with the load: the file
took 124 s at load 13)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import PeerClosed, PeerUnreachable, ProtocolViolation
from ioa_p2p.history.audit import audit_history
from ioa_p2p.history.bodies import MAX_CHAT_MESSAGE_SIZE, ChatMessage, make_message
from ioa_p2p.history.frames import ACK_DUPLICATE, ACK_REJECTED, ACK_STORED, ChatAck
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node import FramedStream, Node
from ioa_p2p.node.chats.delivery import PROTO_DELIVER
from ioa_p2p.node.chats.invites import PROTO_INVITE
from ioa_p2p.node.chats.service import Chats
from ioa_p2p.node.chats.sync import PROTO_SYNC
from ioa_p2p.node.net.cpu_wait import open_cpu_deadline
from ioa_p2p.node.net.host import to_libp2p_id
from ioa_p2p.wire import canonical
from ioa_p2p.wire.control import decode_control
from ioa_p2p.wire.envelope import Envelope
from tests.nodes import checked_node

pytestmark = pytest.mark.slow

FAST = {"sync_interval": 1.0, "retry_initial": 0.1, "retry_max": 0.5, "invite_timeout": 20.0}


@asynccontextmanager
async def open_nodes(
    tmp_path: Path, count: int, *, identities: list[Identity] | None = None, **chats: Any
) -> AsyncIterator[list[Node]]:
    """``count`` in-process nodes with fast chat timers, all connected to each other."""
    async with AsyncExitStack() as stack:
        nodes = []
        for i in range(count):
            config = NodeConfig(home=tmp_path / f"n{i}", raw={"chats": {**FAST, **chats}})
            identity = identities[i] if identities else Identity.generate()
            nodes.append(await stack.enter_async_context(checked_node(config, identity)))
        await connect_all(nodes)
        yield nodes


async def connect_all(nodes: list[Node]) -> None:
    for i, a in enumerate(nodes):
        for b in nodes[i + 1 :]:
            for attempt in range(20):  # libp2p may still back off from dials that failed earlier
                if a.is_connected(b.peer_id):
                    break
                try:
                    await a.connect(b.listen_addrs()[0])
                except PeerUnreachable:
                    if attempt == 19:
                        raise
                    await trio.sleep(0.25)


@asynccontextmanager
async def within_running_time(seconds: float) -> AsyncIterator[None]:
    """Fail unless the block ends within ``seconds`` the loop could run (its wait for a CPU not counted,
    node/net/cpu_wait.py), and at most four times that in real time. The nodes' own timers keep real time."""
    async with open_cpu_deadline(seconds, most=4 * seconds) as scope:
        yield
    if scope.cancelled_caught:
        pytest.fail(f"not done within {seconds:.0f} s of running time")


def chats_of(node: Node) -> Chats:
    chats = node.services.chats
    assert isinstance(chats, Chats)
    return chats


async def wait_messages(nodes: list[Node], chat_id: bytes, count: int) -> None:
    for node in nodes:
        chats = chats_of(node)
        await chats.wait_until(lambda c=chats: chat_id in c._histories and len(c.get(chat_id)) >= count)


def stored_hashes(node: Node, chat_id: bytes) -> set[bytes]:
    return {row.hash for row in chats_of(node).store.messages(chat_id)}


async def test_four_members_talk_concurrently_and_end_identical(tmp_path: Path) -> None:
    async with within_running_time(60), open_nodes(tmp_path, 4) as nodes:
        creator = chats_of(nodes[0])
        handle = await creator.create_chat([n.peer_id for n in nodes[1:]], "plan a trip")
        assert sorted(handle.accepted) == sorted(n.peer_id for n in nodes[1:])
        assert not handle.declined and not handle.unanswered
        chat_id = handle.chat_id
        per_member = 12
        rng = random.Random(7)

        async def talk(node: Node) -> None:
            chats = chats_of(node)
            for i in range(per_member):
                await chats.post(chat_id, "text", {"text": f"{node.peer_id.short()} says {i}"})
                await trio.sleep(rng.random() * 0.02)

        async with trio.open_nursery() as nursery:
            for node in nodes:
                nursery.start_soon(talk, node)
        total = 4 * per_member
        await wait_messages(nodes, chat_id, total)
        exports = [chats_of(n).export(chat_id) for n in nodes]
        assert len(set(exports)) == 1  # byte-identical histories
        assert len({frozenset(stored_hashes(n, chat_id)) for n in nodes}) == 1
        for data in exports:  # every member's export audits clean
            report = audit_history(data)
            assert report.valid, [f.line() for f in report.findings]
            assert report.summary()["messages"] == total
        heads = {tuple(chats_of(n).get(chat_id).heads()) for n in nodes}
        assert len(heads) == 1
        # every delivery was acknowledged: the outboxes drain
        for node in nodes:
            chats = chats_of(node)
            async with within_running_time(15):
                await chats.wait_until(lambda c=chats: not c.store.outbox_size())


async def test_subscribe_gets_messages_in_causal_order(tmp_path: Path) -> None:
    async with within_running_time(40), open_nodes(tmp_path, 2) as (a, b):
        async with chats_of(b).subscribe_joins() as joins:
            handle = await chats_of(a).create_chat([b.peer_id], "subscribe")
            assert await joins.receive() == handle.chat_id
        async with chats_of(b).subscribe(handle.chat_id, replay=True) as incoming:
            for i in range(5):
                await chats_of(a).post(handle.chat_id, "conv.note", {"i": i, "blob": b"\x00"})
            seen: set[bytes] = {handle.chat_id}
            got = []
            for _ in range(5):
                env = await incoming.receive()
                body = env.body
                assert isinstance(body, ChatMessage)
                assert set(body.parents) <= seen
                seen.add(env.hash)
                got.append(body.content["i"])
            assert got == list(range(5))
        assert chats_of(b).history(handle.chat_id)[-1].body.content == {"i": 4, "blob": b"\x00"}  # type: ignore[attr-defined]


class Partition:
    """Cut every chat stream between two groups of nodes (connections closed, streams refused).

    Only chat streams are cut: libp2p itself (peer discovery, the DHT) may still re-dial a cut pair,
    so the cut is enforced per stream, on both sides: ``open_stream`` refuses a cut peer *and*
    drops a stream whose opening was under way when the cut came (``Node.open_stream`` retries
    and re-dials internally, which a real partition would not let through), and the chat
    handlers refuse inbound streams from a cut peer."""

    def __init__(self, nodes: list[Node]) -> None:
        self.nodes = nodes
        self.cut: set[frozenset[PeerId]] = set()
        for node in nodes:
            original = node.open_stream

            async def guarded(peer: PeerId, protocol: str, _n: Node = node, _o: Any = original) -> Any:
                self._check(_n, peer)
                stream = await _o(peer, protocol)
                try:
                    self._check(_n, peer)  # cut while the stream was being opened
                except PeerUnreachable:
                    await stream.reset()
                    raise
                return stream

            node.open_stream = guarded  # type: ignore[method-assign]
            chats = chats_of(node)
            for protocol, handler in (
                (PROTO_INVITE, chats.invites.handle_invite),
                (PROTO_DELIVER, chats.delivery.handle_deliver),
                (PROTO_SYNC, chats.sync.handle_sync),
            ):
                node.set_stream_handler(protocol, self._inbound_guard(node, handler))

    def _check(self, node: Node, peer: PeerId) -> None:
        if frozenset({node.peer_id, peer}) in self.cut:
            raise PeerUnreachable(f"partitioned from {peer}")

    def _inbound_guard(self, node: Node, handler: Any) -> Any:
        async def guarded(stream: FramedStream) -> None:
            self._check(node, stream.remote)  # the node resets the stream
            await handler(stream)

        return guarded

    async def split(self, alone: Node) -> None:
        for node in self.nodes:
            if node is not alone:
                await self.cut_pair(node, alone)

    async def cut_pair(self, x: Node, y: Node) -> None:
        self.cut.add(frozenset({x.peer_id, y.peer_id}))
        await x.net.host.get_network().close_peer(to_libp2p_id(y.peer_id))
        await y.net.host.get_network().close_peer(to_libp2p_id(x.peer_id))

    async def heal(self) -> None:
        self.cut.clear()
        await connect_all(self.nodes)


async def test_a_partitioned_member_converges_after_reconnect(tmp_path: Path) -> None:
    async with within_running_time(60), open_nodes(tmp_path, 3) as nodes:
        a, b, c = nodes
        partition = Partition(nodes)
        handle = await chats_of(a).create_chat([b.peer_id, c.peer_id], "partition")
        chat_id = handle.chat_id
        await chats_of(a).post(chat_id, "text", {"text": "before"})
        await wait_messages(nodes, chat_id, 1)
        await partition.split(c)
        for i in range(5):
            await chats_of(a).post(chat_id, "text", {"text": f"a {i}"})
            await chats_of(b).post(chat_id, "text", {"text": f"b {i}"})
        await chats_of(c).post(chat_id, "text", {"text": "c alone"})
        await wait_messages([a, b], chat_id, 11)
        await trio.sleep(0.5)
        assert len(chats_of(c).get(chat_id)) == 2  # cut off: nothing arrived
        await partition.heal()
        await wait_messages(nodes, chat_id, 12)
        exports = {chats_of(n).export(chat_id) for n in nodes}
        assert len(exports) == 1
        assert audit_history(exports.pop()).valid


async def send_raw(stream: Any, frame: bytes) -> ChatAck:
    await stream.send(frame)
    return decode_control(await stream.receive(), ChatAck)


async def test_bad_frames_are_rejected_without_disturbing_the_chat(tmp_path: Path) -> None:
    async with within_running_time(60), open_nodes(tmp_path, 4) as nodes:
        a, b, c, outsider = nodes
        handle = await chats_of(a).create_chat([b.peer_id, c.peer_id], "robust")
        chat_id = handle.chat_id
        first = await chats_of(a).post(chat_id, "text", {"text": "hello"})
        await wait_messages([a, b, c], chat_id, 1)
        hist_b = chats_of(b).get(chat_id)

        # a member's stream: forged, non-member, garbage, wrong chat, then oversize
        stream = await c.open_stream(b.peer_id, PROTO_DELIVER)
        intruder = make_message(
            outsider.identity,
            chat_id,
            hist_b.heads(),
            "text",
            {"text": "let me in"},
            seq=1,
            now_ms=1,
        )
        ack = await send_raw(stream, intruder.to_cbor())
        assert ack.status == ACK_REJECTED and "non-member" in ack.reason
        tampered = bytearray(first.to_cbor())
        tampered[-10] ^= 1
        ack = await send_raw(stream, bytes(tampered))
        assert ack.status == ACK_REJECTED and "SignatureError" in ack.reason
        for garbage in (b"\xff\xfe\xfd", b"", canonical.encode({"hello": 1})):
            ack = await send_raw(stream, garbage)
            assert ack.status == ACK_REJECTED
        fork = make_message(c.identity, chat_id, hist_b.heads(), "text", {"text": "seq 5?"}, seq=5, now_ms=1)
        ack = await send_raw(stream, fork.to_cbor())
        assert ack.status == ACK_REJECTED and "bad-seq" in ack.reason
        good = await chats_of(a).post(chat_id, "text", {"text": "ok"})
        ack = await send_raw(stream, good.to_cbor())  # the stream still works
        assert ack.status in (ACK_STORED, ACK_DUPLICATE)
        before = chats_of(b).rejected
        try:  # the receiver refuses on the length prefix; its reset may cut our write
            await stream.send(b"\x00" * (MAX_CHAT_MESSAGE_SIZE + 10))
            ack = decode_control(await stream.receive(), ChatAck)
            assert ack.status == ACK_REJECTED and "over the limit" in ack.reason
        except PeerClosed:
            pass
        assert chats_of(b).rejected == before + 1
        with pytest.raises((PeerClosed, ProtocolViolation)):
            await stream.send(good.to_cbor())
            await stream.receive()

        # a non-member's own stream is refused outright
        alien = await outsider.open_stream(b.peer_id, PROTO_DELIVER)
        ack = await send_raw(alien, good.to_cbor())
        assert ack.status == ACK_REJECTED and "not a member" in ack.reason
        await alien.close()

        # the chat carries on, and nothing bad was stored anywhere
        await chats_of(b).post(chat_id, "text", {"text": "still fine"})
        await chats_of(c).post(chat_id, "text", {"text": "me too"})
        await wait_messages([a, b, c], chat_id, 4)
        for node in (a, b, c):
            hist = chats_of(node).get(chat_id)
            authors = {e.author for e in hist.envelopes()}
            assert outsider.peer_id not in authors
            assert audit_history(chats_of(node).export(chat_id)).valid
        assert chats_of(b).rejected >= 7
        assert chat_id not in chats_of(outsider)._histories


async def test_declines_adds_and_leaves(tmp_path: Path) -> None:
    async with within_running_time(60), open_nodes(tmp_path, 4) as nodes:
        a, b, c, d = nodes

        async def busy(genesis: Envelope) -> bool:
            return False

        chats_of(c).set_invite_policy(busy)
        handle = await chats_of(a).create_chat([b.peer_id, c.peer_id], "team")
        chat_id = handle.chat_id
        assert handle.accepted == (b.peer_id,) and handle.declined == (c.peer_id,)
        assert chats_of(c).status(chat_id) == "unknown"  # a declined invitation is not stored
        assert chats_of(c).store.chat(chat_id) is None
        await wait_messages([a, b], chat_id, 1)  # the removal of the decliner
        assert c.peer_id not in chats_of(a).get(chat_id).members()
        await chats_of(a).post(chat_id, "text", {"text": "welcome b"})
        await chats_of(b).add_member(chat_id, d.peer_id)
        await wait_messages([a, b, d], chat_id, 3)
        assert len(chats_of(d).get(chat_id)) == 3  # the newcomer got the history before it
        await chats_of(d).post(chat_id, "text", {"text": "hi, I am d"})
        await wait_messages([a, b, d], chat_id, 4)
        await chats_of(b).leave(chat_id)
        await wait_messages([a, d], chat_id, 5)
        assert chats_of(a).get(chat_id).members() == {a.peer_id, d.peer_id}
        with pytest.raises(Exception, match="left"):
            await chats_of(b).post(chat_id, "text", {"text": "one more"})
        exports = {chats_of(n).export(chat_id) for n in (a, d)}
        assert len(exports) == 1 and audit_history(exports.pop()).valid
        assert chats_of(c).find(chat_id) is None


async def test_restart_resumes_from_the_store(tmp_path: Path) -> None:
    ids = [Identity.generate() for _ in range(3)]
    async with within_running_time(60), open_nodes(tmp_path, 2, identities=ids[:2]) as (a, b):
        config = NodeConfig(home=tmp_path / "c", raw={"chats": FAST})
        async with checked_node(config, ids[2]) as c:
            await connect_all([a, b, c])
            handle = await chats_of(a).create_chat([b.peer_id, c.peer_id], "restart")
            chat_id = handle.chat_id
            await chats_of(c).post(chat_id, "text", {"text": "c before the restart"})
            await wait_messages([a, b, c], chat_id, 1)
        # c is down: the others keep talking
        for i in range(4):
            await chats_of(a).post(chat_id, "text", {"text": f"while c is away {i}"})
        async with checked_node(config, ids[2]) as c:
            assert len(chats_of(c).get(chat_id)) >= 1  # reloaded from SQLite
            # the restarted node dials out (the others' libp2p refuses to re-dial a peer whose
            # addresses all failed in the last 60 s: its "negative cache")
            await connect_all([c, a, b])
            await wait_messages([c], chat_id, 5)
            await chats_of(c).post(chat_id, "text", {"text": "back"})
            await wait_messages([a, b, c], chat_id, 6)
            assert len({chats_of(n).export(chat_id) for n in (a, b, c)}) == 1


async def test_a_member_offline_at_creation_is_invited_again_and_catches_up(tmp_path: Path) -> None:
    ids = [Identity.generate() for _ in range(3)]
    async with within_running_time(60), open_nodes(tmp_path, 2, identities=ids[:2]) as (a, b):
        handle = await chats_of(a).create_chat([b.peer_id, ids[2].peer_id], "late joiner", invite_timeout=1.0)
        assert handle.accepted == (b.peer_id,) and handle.unanswered == (ids[2].peer_id,)
        for i in range(3):
            await chats_of(a).post(handle.chat_id, "text", {"text": f"early {i}"})
        config = NodeConfig(home=tmp_path / "late", raw={"chats": FAST})
        async with checked_node(config, ids[2]) as c:
            assert handle.chat_id not in chats_of(c)._histories
            await connect_all([c, a, b])
            # a's retrying delivery meets "unknown-chat", re-invites c, then delivers
            await wait_messages([c], handle.chat_id, 3)
            assert chats_of(c).status(handle.chat_id) == "member"
            await chats_of(c).post(handle.chat_id, "text", {"text": "sorry, I was away"})
            await wait_messages([a, b, c], handle.chat_id, 4)


async def test_a_message_with_missing_parents_waits_and_they_are_fetched(tmp_path: Path) -> None:
    async with within_running_time(60), open_nodes(tmp_path, 3, sync_interval=600.0) as nodes:
        a, b, c = nodes
        partition = Partition(nodes)
        handle = await chats_of(a).create_chat([b.peer_id, c.peer_id], "gaps")
        chat_id = handle.chat_id
        await partition.cut_pair(a, b)  # b hears nothing from a directly
        first = await chats_of(a).post(chat_id, "text", {"text": "one"})
        second = await chats_of(a).post(chat_id, "text", {"text": "two"})
        await wait_messages([c], chat_id, 2)
        assert len(chats_of(b).get(chat_id)) == 0
        stream = await c.open_stream(b.peer_id, PROTO_DELIVER)
        ack = await send_raw(stream, second.to_cbor())  # c relays only the second one
        assert ack.status == "missing" and ack.missing == (first.hash,)
        assert chats_of(b).get(chat_id).pending_count == 1
        await stream.close()
        # b pulls the missing parent from the peer that delivered the orphan
        await wait_messages([b], chat_id, 2)
        assert [e.hash for e in chats_of(b).history(chat_id)] == [first.hash, second.hash]
        assert chats_of(b).get(chat_id).pending_count == 0
