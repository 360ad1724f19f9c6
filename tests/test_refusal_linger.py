"""A refusal a handler sends just before its stream ends in an error reaches the peer
(``FramedStream.linger``, ``node.set_stream_handler``): the reset used to follow the refusal at once,
arrive in the same TCP read, and the peer's yamux dropped the reset stream's unread bytes.
Real nodes on 127.0.0.1."""

from __future__ import annotations

import trio

from ioa_p2p.node.messaging.service import PROTOCOL_ID
from ioa_p2p.node.net.framing import LINGER_SECONDS, encode_varint

from .conftest import open_test_nodes
from .test_node import wait_connected


async def test_a_refusal_read_late_is_not_lost_to_the_reset(tmp_path) -> None:
    """The peer reads a second after the refusal was sent: with a reset right behind the refusal the
    bytes were dropped (the peer saw the stream closed); now the refusal is read, then the end."""
    async with open_test_nodes(tmp_path, 2) as (a, b):
        await wait_connected(b, a)
        with trio.fail_after(15):
            stream = await b.open_stream(a.peer_id, PROTOCOL_ID)
            await stream._stream.write(encode_varint((1 << 20) + 10) + b"x" * 100)
            await trio.sleep(1.0)  # a's refusal (and, before the fix, its reset) arrive meanwhile
            reply = await stream.receive_value()
        assert reply["ok"] is False and reply["code"] == "too-large"


async def test_a_lingering_stream_ends_when_the_peer_resets_it(tmp_path) -> None:
    """The linger lasts until the peer ends its side, not its whole bound: a peer that resets at once
    after the refusal frees the stream at once (the next message over a new stream goes through)."""
    async with open_test_nodes(tmp_path, 2) as (a, b):
        await wait_connected(b, a)
        for _ in range(3):
            with trio.fail_after(LINGER_SECONDS):
                stream = await b.open_stream(a.peer_id, PROTOCOL_ID)
                await stream._stream.write(encode_varint((1 << 20) + 10))
                reply = await stream.receive_value()
                assert reply["code"] == "too-large"
                await stream.reset()
        with trio.fail_after(10):
            await b.services.messaging.send_text(a.peer_id, "after")


async def test_a_peer_that_keeps_the_stream_open_is_reset_after_the_linger(tmp_path) -> None:
    """A peer that reads the refusal but never ends its side nor stops sending: a's side is reset once
    the linger's bound is reached (the peer's read ends in a reset or the end, never hangs)."""
    async with open_test_nodes(tmp_path, 2) as (a, b):
        await wait_connected(b, a)
        stream = await b.open_stream(a.peer_id, PROTOCOL_ID)
        await stream._stream.write(encode_varint((1 << 20) + 10))
        with trio.fail_after(10):
            assert (await stream.receive_value())["code"] == "too-large"
        sent = 0
        with trio.fail_after(LINGER_SECONDS + 10):  # bounded: the linger does not wait for ever
            while True:
                try:
                    await stream._stream.write(b"y" * 1000)
                    sent += 1000
                    await trio.sleep(0.05)
                except Exception:  # reset by a: the write fails
                    break
        assert sent > 0
