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

from ioa_p2p.errors import InvalidMessage, PeerClosed
from ioa_p2p.history.frames import ChatAck, SyncBatch, SyncRequest
from ioa_p2p.node import FramedStream
from ioa_p2p.node.chats.delivery import PROTO_DELIVER
from ioa_p2p.node.chats.sync import PROTO_SYNC
from ioa_p2p.wire import canonical
from ioa_p2p.wire.control import decode_control

from .test_chats_net import chats_of, open_nodes, wait_messages

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
