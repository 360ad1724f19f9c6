"""The ``stored`` ack a member sends for most messages, and what it costs the two ends of a fan-out: it is
assembled from constant bytes (never encoded per message) and compared byte for byte by the sender (never
decoded), while every other answer is still encoded and decoded in full. Fan-outs on the in-memory
network under trio's ``MockClock`` (tests/test_chats_memnet.py's helpers)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.errors import SchemaError
from ioa_p2p.history.frames import (
    ACK_DUPLICATE,
    ACK_MISSING,
    ACK_REJECTED,
    ACK_STORED,
    ChatAck,
    encode_ack,
    stored_ack_frame,
)
from ioa_p2p.node.chats import delivery
from ioa_p2p.node.chats.streams import make_ack
from ioa_p2p.testing.memnet import MemoryNetwork
from ioa_p2p.wire.control import decode_control, encode_control
from tests.test_chats_memnet import open_chat_nodes, wait_count


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


def digest(i: int) -> bytes:
    return hashlib.sha256(str(i).encode()).digest()


def test_the_stored_ack_frame_is_the_canonical_encoding_of_that_ack() -> None:
    for i in range(200):
        frame = stored_ack_frame(digest(i))
        assert frame == encode_control(make_ack(digest(i), ACK_STORED))
        assert decode_control(frame, ChatAck) == make_ack(digest(i), ACK_STORED)
    with pytest.raises(SchemaError):
        stored_ack_frame(b"short")


def test_every_other_answer_is_encoded_in_full() -> None:
    others = [
        make_ack(digest(1), ACK_DUPLICATE),
        make_ack(digest(2), ACK_MISSING, missing=(digest(3),)),
        make_ack(digest(4), ACK_REJECTED, reason="no"),
        make_ack(b"", ACK_REJECTED, reason="undecodable"),
        make_ack(digest(5), ACK_STORED, reason="odd but valid"),
    ]
    for ack in others:
        assert encode_ack(ack) == encode_control(ack)
        assert decode_control(encode_ack(ack), ChatAck) == ack
    assert encode_ack(make_ack(digest(6), ACK_STORED)) == stored_ack_frame(digest(6))


async def test_a_fan_out_neither_encodes_nor_decodes_a_stored_ack(
    tmp_path: Path, autojump_clock: MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seven members store five messages: 35 ``stored`` acks, none decoded by the author nor encoded by a
    member (a member that got a message by sync first answers ``duplicate``: that one is)."""
    decoded: list[Any] = []
    encoded: list[Any] = []
    real_decode, real_encode = delivery.decode_control, delivery.encode_control

    def counting_decode(data: bytes, expected: type) -> Any:
        value = real_decode(data, expected)
        decoded.append(value)
        return value

    def counting_encode(body: Any) -> bytes:
        encoded.append(body)
        return real_encode(body)

    def stored(values: list[Any]) -> list[Any]:
        return [v for v in values if isinstance(v, ChatAck) and v.status == ACK_STORED]

    net = MemoryNetwork()
    with trio.fail_after(600):  # virtual seconds
        async with open_chat_nodes(net, tmp_path, 8) as nodes:
            (_, author), members = nodes[0], nodes[1:]
            handle = await author.create_chat([node.peer_id for node, _ in members], "fan-out")
            monkeypatch.setattr(delivery, "decode_control", counting_decode)
            monkeypatch.setattr(delivery, "encode_control", counting_encode)
            monkeypatch.setattr("ioa_p2p.history.frames.encode_control", counting_encode)
            for i in range(5):
                await author.post(handle.chat_id, "text", {"text": f"to all {i}"})
                await author.wait_until(lambda: author.store.outbox_size() == 0)
            for _, chats in members:
                await wait_count(chats, handle.chat_id, 5)
    assert stored(decoded) == [] and stored(encoded) == []
    assert len(decoded) <= 2  # the odd duplicate, not one decode per ack


async def test_an_ack_for_another_message_is_still_refused(
    tmp_path: Path, autojump_clock: MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A member answering ``stored`` for the wrong hash does not pass the byte comparison: the sender
    decodes it, refuses the session (a protocol violation) and delivers again until the answer is right."""
    net = MemoryNetwork()
    lies = [1]
    with trio.fail_after(600):  # virtual seconds
        async with open_chat_nodes(net, tmp_path, 2) as nodes:
            (_, author), (b_node, b) = nodes
            handle = await author.create_chat([b_node.peer_id], "wrong hash")
            real = delivery.encode_ack

            def lying(ack: ChatAck) -> bytes:
                if lies and ack.status == ACK_STORED:
                    lies.pop()
                    return stored_ack_frame(digest(99))
                return real(ack)

            monkeypatch.setattr(delivery, "encode_ack", lying)
            await author.post(handle.chat_id, "text", {"text": "once"})
            await author.wait_until(lambda: author.store.outbox_size() == 0)
            await wait_count(b, handle.chat_id, 1)
    assert lies == []
    assert author.node.faults.counts["chat delivery:ProtocolViolation"] == 1  # the wrong answer, recorded
