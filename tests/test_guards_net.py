"""The node's guards inside py-libp2p (issue 20), on real libp2p hosts (in-process, 127.0.0.1):
negotiation lines and py-libp2p's own messages held in the partial-frame budget, yamux windows
enforced and dead streams' bytes dropped, CPU charged to the peer that causes it and paced, garbage
answered a bounded number of times, a malformed invitation answered, totals that keep a share for
trusted peers."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import cbor2
import pytest
import trio

from ioa_p2p.budget import TRUST_PARTNER
from ioa_p2p.history.frames import ChatInviteReply
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node import Node
from ioa_p2p.node.chats.invites import NO_CHAT, PROTO_INVITE
from ioa_p2p.node.messaging.service import PROTOCOL_ID
from ioa_p2p.node.net.budgets import STRANGER_NEGOTIATIONS
from ioa_p2p.node.net.framing import MAX_REFUSED_FRAMES, FramedStream, encode_varint, frame
from ioa_p2p.node.net.host import to_libp2p_id
from ioa_p2p.node.net.inbound_meter import MAX_NEGOTIATION_LINE
from ioa_p2p.wire.envelope import Envelope

from .test_budgets_net import good_node, raw_hosts, victim_node

pytestmark = pytest.mark.slow


def yamux_of(host: Any, node: Node) -> Any:
    return host.get_network().connections[to_libp2p_id(node.peer_id)][0].muxed_conn


def delimited(text: str) -> bytes:
    data = text.encode() + b"\n"
    return encode_varint(len(data)) + data


async def raw_stream(host: Any, node: Node, payload: bytes) -> Any:
    """A yamux stream opened without protocol negotiation, ``payload`` written at once."""
    muxed = await yamux_of(host, node).open_stream()
    muxed.send_window = 1 << 40  # this sender ignores flow control
    await muxed.write(payload)
    return muxed


async def test_a_negotiation_line_announced_over_1_kib_is_refused_from_its_prefix(tmp_path: Path) -> None:
    """A peer announcing a 50 MB protocol name (16 identities doing it took a node to 733 MB)."""
    with trio.fail_after(60):
        async with victim_node(tmp_path) as node, raw_hosts(node, 1) as (host,):
            stream = await raw_stream(host, node, delimited("/multistream/1.0.0") + encode_varint(50_000_000))
            for _ in range(64):
                try:
                    with trio.move_on_after(0.2):
                        await stream.write(b"x" * 60_000)
                except Exception:  # the node reset the stream
                    break
            await trio.sleep(0.5)
            assert stream.reset_received  # reset at the prefix; nothing of it is held
            assert node.budgets.frames.held_total == 0 and node.budgets.unread.held_total == 0
            faults = node.faults.snapshot()
            assert any(k.endswith(":OverBudget") for k in faults), faults
            # a real negotiation (a line well under the limit) still works
            assert MAX_NEGOTIATION_LINE >= 1024
            async with good_node(tmp_path, node) as good:
                await good.services.messaging.send_text(node.peer_id, "still served")


async def test_libp2p_messages_are_held_in_the_frame_budget_until_complete(tmp_path: Path) -> None:
    """A Kademlia message announced at 3 MiB on a 2 MiB per-peer budget is refused from its prefix;
    one that fits is held until it completes or its stream ends."""
    mib = 1 << 20
    with trio.fail_after(60):
        async with (
            victim_node(tmp_path, partial_frame_bytes_per_peer=2 * mib) as node,
            raw_hosts(node, 1) as (host,),
        ):
            kad = "/ioa/kad/1.0.0"
            big = await host.new_stream(to_libp2p_id(node.peer_id), [kad])
            await big.write(encode_varint(3 * mib) + b"\x00" * 1000)
            fits = await host.new_stream(to_libp2p_id(node.peer_id), [kad])
            await fits.write(encode_varint(mib) + b"\x00" * 1000)
            await trio.sleep(0.5)
            assert node.budgets.frames.held(PeerId.from_bytes(host.get_id().to_bytes())) == mib
            await fits.reset()
            await trio.sleep(0.5)
            assert node.budgets.frames.held_total == 0
            assert node.budgets.frames.refused >= 1  # the 3 MiB one, from its prefix


async def test_every_connection_is_metered_and_a_reset_streams_bytes_are_dropped_at_once(
    tmp_path: Path,
) -> None:
    with trio.fail_after(60):
        async with victim_node(tmp_path) as node, raw_hosts(node, 1) as (host,):
            # negotiated, then pushed 2.4 MB without waiting for window updates: the node refuses the
            # protocol and resets the stream; what the peer still sends on it is dropped
            stream = await raw_stream(host, node, delimited("/multistream/1.0.0") + b"\x07/nope/\n")
            header = struct.pack("!BBHII", 0, 0, 0, stream.stream_id, 60_000)
            for _ in range(40):
                await stream.conn._write_frame(header + b"y" * 60_000)
            await trio.sleep(0.5)
            conn = next(iter(node.net.host.get_network().connections.values()))[0].muxed_conn
            assert conn.ioa_meter is not None  # installed on every connection
            assert stream.stream_id not in conn.stream_buffers  # dropped at once, not after 60-90 s
            assert node.budgets.unread.held_total == 0


async def test_a_peer_writing_invalid_2_byte_frames_and_never_reading_is_cut_off_and_paced(
    tmp_path: Path,
) -> None:
    """Each stream gets at most MAX_REFUSED_FRAMES answers, then is reset; the CPU the peer costs is
    charged to it, and past its budget it is paced (its new streams refused before negotiation)
    while a good stranger is served, the attacker going on meanwhile.

    The attacker's own per-peer budget is the one meant to bind here (on a loaded machine the
    strangers' pool, paid in loop time, may bind first); the pool keeps its default. (A pool set to
    2 % of the loop, which every stranger shares, the good one included, is paid in loop time: on a
    loaded machine a freshly started peer's own identify/DHT/gossip traffic alone then needs longer
    than a send's 10 s. A pool's debt pauses all its members by design: see ``WorkBudget``; what
    the pool gives known peers is tested in test_hostile_load.py.)"""
    limits = {"cpu_per_peer": 0.01}  # 0.05 s of CPU to start with: a few rounds of garbage
    with trio.fail_after(90):
        async with victim_node(tmp_path, **limits) as node, raw_hosts(node, 1) as (host,):
            peer = PeerId.from_bytes(host.get_id().to_bytes())
            budgets = node.budgets
            early = budgets.streams_refused_early
            opened: list[Any] = []
            owes = False

            async def attack() -> None:
                while True:
                    await write_garbage(host, node, 4, opened)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(attack)
                with trio.move_on_after(60):
                    # its own bucket is spent (``admits`` then refuses its new streams before
                    # negotiation), or on a loaded machine, where loop time is dear, its pool's first
                    while not opened or not budgets.owes(peer):  # noqa: ASYNC110 - no event to wait on
                        await trio.sleep(0.02)
                    owes = True
                    # and what it sends next waits (or its next stream is refused)
                    while budgets.cpu.paced == 0 and budgets.streams_refused_early == early:  # noqa: ASYNC110
                        await trio.sleep(0.02)
                nursery.cancel_scope.cancel()
            assert opened
            assert owes
            # the stream is cut after its 16th answer, whenever pacing lets the victim get there
            fault = f"stream {PROTOCOL_ID}:ProtocolViolation"
            with trio.fail_after(30):
                while node.faults.snapshot().get(fault, 0) < 1:  # noqa: ASYNC110 - no event to wait on
                    await trio.sleep(0.1)
            assert budgets.cpu.charged_by_trust[0] > 0  # charged to the stranger that caused it
            assert budgets.cpu.paced > 0 or budgets.streams_refused_early > early
            assert budgets.cpu.delay(peer, budgets.now()) >= 0
            # a good peer is still answered meanwhile, the attacker going on
            async with trio.open_nursery() as nursery:
                nursery.start_soon(keep_writing_garbage, host, node)
                async with good_node(tmp_path, node) as good:
                    await good.services.messaging.send_text(node.peer_id, "served")
                nursery.cancel_scope.cancel()
            assert node.services.messaging.inbox[-1].body.text == "served"


async def write_garbage(host: Any, node: Node, count: int, opened: list[Any]) -> None:
    """Open ``count`` /ioa/msg streams at once, write 2,000 invalid frames on each (then add it to
    ``opened``), read what comes back (at most MAX_REFUSED_FRAMES answers each, then a reset)."""

    async def one() -> None:
        try:
            stream = await host.new_stream(to_libp2p_id(node.peer_id), [PROTOCOL_ID])
        except Exception:  # refused before negotiation
            return
        try:
            await stream.write(frame(b"\xff") * 2000)  # 2,000 invalid frames, never read by the peer
        except Exception:  # already reset by the node
            return
        opened.append(stream)
        answers = await read_all(stream, 2.0)
        assert answers.count(b"invalid") <= MAX_REFUSED_FRAMES  # then the stream is reset

    async with trio.open_nursery() as nursery:
        for _ in range(count):
            nursery.start_soon(one)


async def keep_writing_garbage(host: Any, node: Node) -> None:
    while True:
        await write_garbage(host, node, 2, [])
        await trio.sleep(0.05)


async def read_all(stream: Any, seconds: float) -> bytes:
    data = b""
    with trio.move_on_after(seconds):
        try:
            while chunk := await stream.read(65536):
                data += chunk
        except Exception:  # reset
            pass
    return data


async def test_a_malformed_invitation_gets_a_typed_answer(tmp_path: Path) -> None:
    with trio.fail_after(60):
        async with victim_node(tmp_path) as node, raw_hosts(node, 1) as (host,):
            raw = await host.new_stream(to_libp2p_id(node.peer_id), [PROTO_INVITE])
            attacker = PeerId.from_bytes(host.get_id().to_bytes())
            async with FramedStream(raw, node.peer_id) as stream:
                await stream.send(cbor2.dumps({1: "mixed", "keys": 2}, canonical=True))
                reply = Envelope.from_cbor(await stream.receive())
            body = reply.body
            assert isinstance(body, ChatInviteReply) and reply.author == node.peer_id
            assert (body.accept, body.chat_id) == (False, NO_CHAT) and body.reason.startswith("invalid:")
            assert attacker != node.peer_id


async def test_inbound_streams_of_strangers_leave_the_trusted_share_free(tmp_path: Path) -> None:
    limits = {"inbound_streams_total": 8, "streams_per_peer": 8, "trusted_share": 0.5}
    with trio.fail_after(60):
        async with victim_node(tmp_path, **limits) as node, raw_hosts(node, 2) as (one, two):
            opened = []
            for host in (one, two):
                for _ in range(4):
                    try:
                        opened.append(await host.new_stream(to_libp2p_id(node.peer_id), [PROTOCOL_ID]))
                    except Exception:
                        break
            assert node.budgets.inbound.held_by_strangers <= 4  # strangers together: half of 8
            partner = Identity.generate()
            node.budgets.trust_peers([partner.peer_id], TRUST_PARTNER)
            assert node.budgets.inbound.could_claim(str(partner.peer_id), 1, TRUST_PARTNER)
            assert len(opened) <= 4


async def test_strangers_streams_stuck_in_negotiation_take_few_slots_and_a_known_peer_still_gets_in(
    tmp_path: Path,
) -> None:
    """Three strangers open streams that never finish protocol negotiation (the header only): at
    most STRANGER_NEGOTIATIONS of them are negotiating at once, the rest are reset before
    negotiation; a trusted peer's stream takes no slot and is served."""
    with trio.fail_after(120):
        async with victim_node(tmp_path) as node, raw_hosts(node, 3) as hosts:
            budgets = node.budgets
            early = budgets.streams_refused_early
            for host in hosts:
                for _ in range(STRANGER_NEGOTIATIONS // 2):
                    await raw_stream(host, node, delimited("/multistream/1.0.0"))
            while budgets.streams_refused_early - early < STRANGER_NEGOTIATIONS // 2:  # noqa: ASYNC110
                await trio.sleep(0.05)  # the victim takes the streams in its own time: no event
            assert budgets.negotiating <= STRANGER_NEGOTIATIONS
            identity = Identity.generate()
            budgets.trust_peers([identity.peer_id], TRUST_PARTNER)
            async with good_node(tmp_path, node, identity) as good:
                await good.services.messaging.send_text(node.peer_id, "served")
            assert node.services.messaging.inbox[-1].body.text == "served"
