"""The central star relay of bench/bench_chat.py, IoA-server style, and the members that talk only to it.

:class:`Relay` (its own process, ``bench_chat.py --relay-server``): one room per chat; it verifies every
message a member submits on :data:`SUBMIT`, checks it against the chat's rules (its author is the submitter
and a member, the seq chain, the parents: what a member checks before it acks, and what a real relay must,
else any joiner posts as anyone), persists it, forwards it to every other member on
:data:`FORWARD` and acks the sender once every one of them acked. :class:`StarMember` persists and acks
what the relay forwards.
"""

from __future__ import annotations

import sys
from collections import deque
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.budget import TRUST_PARTNER, TRUST_STRANGER
from ioa_p2p.errors import HistoryViolation, IoAError
from ioa_p2p.history.dag import ChatHistory, Entry
from ioa_p2p.identity import PeerId
from ioa_p2p.node import Node
from ioa_p2p.node.chats.schema import message_row
from ioa_p2p.node.chats.store import STATUS_MEMBER, ChatStore
from ioa_p2p.wire import canonical
from ioa_p2p.wire.envelope import Envelope

SUBMIT = "/ioa/bench/star-submit/1.0.0"
FORWARD = "/ioa/bench/star-forward/1.0.0"
#: The star's streams carry nothing while the other members start and settle (tens of seconds on a loaded
#: machine): longer than a FramedStream's default 30 s of allowed silence, which ended them mid-run.
STAR_IDLE = 3600.0


class StarMember:
    """A member that only talks to the relay: persists and acks forwarded messages."""

    def __init__(self, node: Node, genesis: Envelope) -> None:
        self.node = node
        self.history = ChatHistory(genesis)
        self.store = ChatStore.open(node.home / "star")
        self.store.add_chat(self.history.chat_id, genesis.to_cbor(), STATUS_MEMBER, 0)
        self.changed = trio.Event()
        node.set_stream_handler(FORWARD, self.handle_forward)

    def persist(self, entry: Entry) -> None:
        self.store.insert_message(message_row(entry))

    async def handle_forward(self, stream: Any) -> None:
        stream.read_timeout = STAR_IDLE
        while True:
            data = await stream.receive()
            env = Envelope.from_cbor(data)
            self.history.add(env, env.hash, persist=self.persist)
            await stream.send(env.hash)
            self.changed.set()
            self.changed = trio.Event()

    async def wait_count(self, count: int) -> None:
        while len(self.history) < count:
            await self.changed.wait()


async def join_relay(node: Node, relay_addr: str, genesis: Envelope) -> Any:
    """Connect to the relay, trust it (the operator named it, as a bootstrap peer: its streams are not
    paced or refused as a stranger's while this node starts), open the submit stream and join the chat;
    the stream, once the relay said ``joined``."""
    relay = await node.connect(relay_addr)
    node.budgets.trust_peers([relay])
    stream = await node.open_stream(relay, SUBMIT)
    stream.read_timeout = STAR_IDLE
    await stream.send(canonical.encode({"genesis": genesis.to_cbor()}))
    answer = await stream.receive()
    if answer != b"joined":
        raise RuntimeError(f"the relay answered {answer!r} to a join")
    return stream


class Relay:
    """The central relay (run in its own process with --relay-server): one room per chat."""

    def __init__(self, node: Node, home: Path) -> None:
        self.node = node
        self.store = ChatStore.open(home)
        self.rooms: dict[bytes, dict[PeerId, Any]] = {}
        #: each room's history: the relay checks what a member submits against the chat's rules (its author
        #: is the submitter and a member, its seq chain and parents) before it stores and forwards it, as
        #: a member does before it acks and as a real relay must (else any joiner could post as anyone)
        self.histories: dict[bytes, ChatHistory] = {}
        self.origins: dict[bytes, Any] = {}
        self.pending: dict[Any, deque[bytes]] = {}
        self.waiting: dict[bytes, tuple[int, Any]] = {}
        self.members: set[PeerId] = set()
        node.budgets.add_voucher(self.vouch)

    def vouch(self, peer: PeerId) -> int:
        """The members of a chat the relay serves are its partners (as members of a direct chat are
        each other's: ``chats.partners``), so their streams are not paced as strangers'."""
        return TRUST_PARTNER if peer in self.members else TRUST_STRANGER

    async def handle_submit(self, stream: Any) -> None:
        stream.read_timeout = STAR_IDLE
        join = canonical.decode(await stream.receive())
        genesis = Envelope.from_cbor(join["genesis"])
        self.members |= ChatHistory(genesis).members()
        self.store.add_chat(genesis.hash, genesis.to_cbor(), STATUS_MEMBER, 0)
        history = self.histories.setdefault(genesis.hash, ChatHistory(genesis))
        room = self.rooms.setdefault(genesis.hash, {})
        peer = stream.remote
        forward = await self.open_forward(peer)
        room[peer] = forward
        self.pending[forward] = deque()
        self.node.nursery.start_soon(self.read_acks, forward)
        await stream.send(b"joined")
        try:
            while True:
                data = await stream.receive()
                env = Envelope.from_cbor(data)  # verify
                if env.author != peer:
                    await stream.send(b"rejected: a member submits its own messages")
                    continue
                try:  # the chat's rules; persist, then forward (with any message it released)
                    result = history.add(env, env.hash, persist=self.persist, source=peer)
                except HistoryViolation as exc:
                    await stream.send(f"rejected: {exc}".encode())
                    continue
                if result.duplicate:  # stored and forwarded before: every member acked it
                    await stream.send(env.hash)
                    continue
                self.origins[env.hash] = stream  # (a message held for its parents is acked once released)
                for entry in result.stored:
                    await self.forward(room, entry)
        except Exception as exc:
            print(f"relay: submit stream of {peer} failed: {exc!r}", file=sys.stderr, flush=True)
            raise
        finally:
            room.pop(peer, None)

    def persist(self, entry: Entry) -> None:
        self.store.insert_message(message_row(entry))

    async def forward(self, room: dict[PeerId, Any], entry: Entry) -> None:
        """Send a stored message to every member but its author; its author is acked once all acked."""
        origin = self.origins.pop(entry.hash)
        others = [room[p] for p in room if p != entry.env.author]
        self.waiting[entry.hash] = (len(others), origin)
        if not others:
            await origin.send(entry.hash)
        raw = entry.env.to_cbor()
        for other in others:
            self.pending[other].append(entry.hash)
            await other.send(raw)

    async def open_forward(self, peer: PeerId) -> Any:
        """The forward stream to a joining member, tried again on failure (on a loaded machine a member
        process may refuse or miss the first open while it is busy starting)."""
        for attempt in range(5):
            try:
                forward = await self.node.open_stream(peer, FORWARD)
                forward.read_timeout = STAR_IDLE
                return forward
            except IoAError as exc:
                print(f"relay: forward stream to {peer} failed: {exc!r}", file=sys.stderr, flush=True)
                if attempt == 4:
                    raise
                await trio.sleep(1.0)
        raise AssertionError("unreachable")

    async def read_acks(self, forward: Any) -> None:
        while True:
            try:
                digest = await forward.receive()
            except IoAError:  # the member went away
                return
            expected = self.pending[forward].popleft()
            assert digest == expected
            left, origin = self.waiting[digest]
            if left == 1:
                del self.waiting[digest]
                await origin.send(digest)
            else:
                self.waiting[digest] = (left - 1, origin)
