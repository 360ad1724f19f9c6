"""The pure frame decoder: any split of the byte stream gives the same frames; limits hold."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ioa_p2p.errors import MessageTooLarge, ProtocolViolation
from ioa_p2p.node.framing import FrameDecoder, encode_varint, frame


@given(
    st.lists(st.binary(max_size=300), max_size=10),
    st.lists(st.integers(1, 50), min_size=1, max_size=40),
)
def test_frames_survive_any_chunking(frames, cuts) -> None:
    stream = b"".join(frame(f) for f in frames)
    decoder = FrameDecoder(max_size=1000)
    out, pos, i = [], 0, 0
    while pos < len(stream):
        step = cuts[i % len(cuts)]
        decoder.feed(stream[pos : pos + step])
        pos += step
        i += 1
        while (item := decoder.next_frame()) is not None:
            out.append(item)
    assert out == frames


def test_oversize_prefix_is_refused_before_the_body_arrives() -> None:
    decoder = FrameDecoder(max_size=100)
    decoder.feed(encode_varint(101))
    with pytest.raises(MessageTooLarge):
        decoder.next_frame()


def test_overlong_varint_is_refused() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"\xff\xff\xff\xff\xff")
    with pytest.raises(MessageTooLarge):
        decoder.next_frame()


def test_non_minimal_varint_is_refused() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"\x81\x00" + b"x")
    with pytest.raises(ProtocolViolation):
        decoder.next_frame()


def test_varint_encoding() -> None:
    assert encode_varint(0) == b"\x00"
    assert encode_varint(127) == b"\x7f"
    assert encode_varint(128) == b"\x80\x01"
    assert encode_varint(300) == b"\xac\x02"
