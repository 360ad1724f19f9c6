"""A peer that answers the chat protocols with malformed control frames cannot end the node.

Regression for the remote crash: a control frame whose ``tv`` is a list made ``decode_control`` raise
``TypeError`` (unhashable registry key) inside the sync and delivery workers, which only caught our
own errors; the exception left the chats nursery and the node exited.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
import varint

from ioa_p2p.errors import InvalidMessage, PeerClosed
from ioa_p2p.history.frames import SYNC_INVALID, SYNC_TOO_LARGE, ChatAck, SyncBatch, SyncRequest
from ioa_p2p.identity import Identity
from ioa_p2p.node import FramedStream
from ioa_p2p.node.chats.delivery import PROTO_DELIVER
from ioa_p2p.node.chats.sync import PROTO_SYNC
from ioa_p2p.node.net.framing import FrameDecoder
from ioa_p2p.node.net.host import to_libp2p_id
from ioa_p2p.wire import canonical
from ioa_p2p.wire.control import MAX_CONTROL_SIZE, decode_control
from ioa_p2p.wire.schema import build

from .hostile import uvarint_frame
from .test_chats_net import chats_of, open_nodes, wait_messages

KEY = Identity.generate()

#: Control frames with every field of the wrong type, and a few other shapes.
BAD_CONTROL_FRAMES: list[Any] = [
    {"t": "chat.sync_batch", "tv": [1], "b": {}},
    {"t": "chat.sync_batch", "tv": {"x": 1}, "b": {}},
    {"t": ["chat.sync_batch"], "tv": 1, "b": {}},
    {"t": "chat.sync_batch", "tv": True, "b": {}},
    {"t": "chat.sync_batch", "tv": 1.5, "b": {}},
    {"t": "chat.sync_batch", "tv": -1, "b": {}},
    {"t": "chat.sync_batch", "tv": 1, "b": []},
    {"t": "chat.sync_batch", "tv": 1, "b": {"chat_id": [], "status": {}, "count": "x", "more": 0}},
    {"t": "chat.ack", "tv": [1], "b": {}},
    {"t": "chat.ack", "tv": 1, "b": {"hash": b"", "status": ["stored"], "missing": {}, "reason": 1}},
    {"t": "no.such", "tv": 7, "b": {}},
    [1, 2, 3],
    "chat.ack",
]


@pytest.mark.parametrize("value", BAD_CONTROL_FRAMES)
@pytest.mark.parametrize("expected", [ChatAck, SyncBatch, SyncRequest])
def test_decode_control_rejects_wrong_types_with_a_typed_error(value: Any, expected: type) -> None:
    with pytest.raises(InvalidMessage):
        decode_control(canonical.encode(value), expected)


@pytest.mark.slow
async def test_bad_sync_and_ack_frames_do_not_end_the_node(tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with open_nodes(tmp_path, 3) as nodes:
            attacker, victim, good = nodes
            served = trio.Event()

            async def evil(stream: FramedStream) -> None:
                frames = [canonical.encode(v) for v in BAD_CONTROL_FRAMES]
                while True:
                    try:
                        await stream.receive()
                    except PeerClosed:
                        return
                    await stream.send(frames[0])
                    frames.append(frames.pop(0))
                    served.set()

            attacker.set_stream_handler(PROTO_SYNC, evil)
            attacker.set_stream_handler(PROTO_DELIVER, evil)
            # The attacker invites the victim (default policy accepts); the victim pulls the
            # history from it and gets a sync batch header whose tv is a list.
            handle = await chats_of(attacker).create_chat([victim.peer_id], "hello")
            assert handle.accepted == (victim.peer_id,)
            await served.wait()
            # The victim posts: its delivery worker gets ack frames of the wrong types.
            for i in range(3):
                await chats_of(victim).post(handle.chat_id, "text", {"text": f"m{i}"})
            await chats_of(victim).sync_now(handle.chat_id)
            await trio.sleep(1.0)
            assert victim.faults.total >= 2, victim.faults.snapshot()

            # The victim still serves a good peer in a new chat, both ways.
            other = await chats_of(victim).create_chat([good.peer_id], "still alive")
            assert other.accepted == (good.peer_id,)
            await chats_of(good).post(other.chat_id, "text", {"text": "ping"})
            await chats_of(victim).post(other.chat_id, "text", {"text": "pong"})
            await wait_messages([victim, good], other.chat_id, 2)


def _sync_req(**body: Any) -> bytes:
    fields = {"chat_id": b"\x11" * 32, "authors": [], "seqs": [], "limit": 10, **body}
    return canonical.encode({"t": "chat.sync_req", "tv": 1, "b": fields})


#: Malformed sync requests, each answered ``invalid`` on a stream that stays usable.
BAD_SYNC_REQUESTS: dict[str, bytes] = {
    "not CBOR": b"\xff\xfe\xfd",
    "not canonical": b"\xb9\x00\x00",
    "not a map": canonical.encode([1, 2, 3]),
    "an ack": canonical.encode({"t": "chat.ack", "tv": 1, "b": {}}),
    "tv 2": canonical.encode({"t": "chat.sync_req", "tv": 2, "b": {}}),
    "wrong types": _sync_req(chat_id="x", authors={}, seqs="a", limit=True),
    "negative seq": _sync_req(authors=[KEY.peer_id.raw], seqs=[-1]),
    "base58 author": _sync_req(authors=[str(KEY.peer_id)], seqs=[1]),
    "short author": _sync_req(authors=[KEY.peer_id.raw[:-1]], seqs=[1]),
    "not Ed25519 author": _sync_req(authors=[b"\x00\x25" + KEY.peer_id.raw[2:] + b"\x00"], seqs=[1]),
    "seqs mismatch": _sync_req(authors=[KEY.peer_id.raw], seqs=[1, 2]),
    "too many authors": _sync_req(authors=[KEY.peer_id.raw] * 1025, seqs=[1] * 1025),
}


async def _read_frames(stream: Any, count: int) -> list[bytes]:
    """Up to ``count`` frames the victim answers within 5 s (fewer when it resets or stays silent)."""
    decoder, frames = FrameDecoder(), []
    with trio.move_on_after(5):
        while len(frames) < count:
            try:
                chunk = bytes(await stream.read(65536) or b"")
            except Exception:
                break
            if not chunk:
                break
            decoder.feed(chunk)
            while (data := decoder.next_frame()) is not None:
                frames.append(data)
    return frames


@pytest.mark.slow
async def test_malformed_sync_requests_get_a_status_frame(tmp_path: Path) -> None:
    """Regression: a malformed ``chat.sync_req`` reset the stream without a reply."""
    with trio.fail_after(60):
        async with open_nodes(tmp_path, 2) as (attacker, victim):
            before = chats_of(victim).rejected
            stream = await attacker.net.host.new_stream(to_libp2p_id(victim.peer_id), [PROTO_SYNC])
            good = _sync_req()  # well formed, for a chat the victim does not know
            await stream.write(b"".join(uvarint_frame(f) for f in [*BAD_SYNC_REQUESTS.values(), good]))
            replies = [decode_control(f, SyncBatch) for f in await _read_frames(stream, 13)]
            statuses = [(r.status, r.count, r.more) for r in replies]
            assert statuses == [(SYNC_INVALID, 0, False)] * 12 + [("unknown-chat", 0, False)]
            assert replies[-1].chat_id == b"\x11" * 32
            assert chats_of(victim).rejected == before + 12
            await stream.reset()

            # Announced over 64 KiB: refused from the length prefix, then the stream is reset.
            stream = await attacker.net.host.new_stream(to_libp2p_id(victim.peer_id), [PROTO_SYNC])
            await stream.write(bytes(varint.encode(MAX_CONTROL_SIZE + 1)) + b"\xa3" + b"\x00" * 100)
            replies = [decode_control(f, SyncBatch) for f in await _read_frames(stream, 2)]
            assert [(r.status, r.count) for r in replies] == [(SYNC_TOO_LARGE, 0)]
            assert chats_of(victim).rejected == before + 13
            await stream.reset()

            # The victim still answers a well-formed request of a member in full.
            handle = await chats_of(victim).create_chat([attacker.peer_id], "still syncing")
            assert handle.accepted == (attacker.peer_id,)
            posted = await chats_of(victim).post(handle.chat_id, "text", {"text": "hi"})
            stream = await attacker.net.host.new_stream(to_libp2p_id(victim.peer_id), [PROTO_SYNC])
            await stream.write(uvarint_frame(_sync_req(chat_id=handle.chat_id)))
            header, *messages = await _read_frames(stream, 2)
            assert decode_control(header, SyncBatch) == build(
                SyncBatch, chat_id=handle.chat_id, status="ok", count=1, more=False
            )
            assert messages == [posted.to_cbor()]
            await stream.reset()
