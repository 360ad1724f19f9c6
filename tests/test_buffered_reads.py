"""Patch 31 (``node/net/buffered_reads.py``): a TCP read takes what the socket holds and serves the next
reads from it without a schedule point. Real sockets and hosts on 127.0.0.1, and the sentinel on
upstream's read (one schedule point per read)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
from libp2p.io.trio import TrioTCPStream

from ioa_p2p.node.net.buffered_reads import YIELD_EVERY, buffered, read_socket_in_chunks, upstream_tcp_read
from ioa_p2p.node.net.libp2p_patches import apply_patches

from .raw_hosts import watched_pair
from .test_quick_locks import _other_steps

MESSAGES = 200
BODY = 28  # a header-only yamux frame in a Noise message is 12 + 16 bytes


@asynccontextmanager
async def tcp_pair() -> AsyncIterator[tuple[trio.SocketStream, TrioTCPStream]]:
    """A server socket stream and a client ``TrioTCPStream`` connected over 127.0.0.1."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    client = await trio.open_tcp_stream("127.0.0.1", port)
    server = await listeners[0].accept()
    try:
        yield server, TrioTCPStream(client)
    finally:
        await server.aclose()
        await client.aclose()
        for listener in listeners:
            await listener.aclose()


def _messages() -> bytes:
    return b"".join(BODY.to_bytes(2, "big") + bytes([i % 256]) * BODY for i in range(MESSAGES))


async def _read_messages(read: Any, stream: TrioTCPStream) -> list[bytes]:
    out = []
    for _ in range(MESSAGES):
        length = int.from_bytes(await _exactly(read, stream, 2), "big")
        out.append(await _exactly(read, stream, length))
    return out


async def _exactly(read: Any, stream: TrioTCPStream, n: int) -> bytes:
    got = b""
    while len(got) < n:
        chunk = await read(stream, n - len(got))
        assert chunk, "the stream ended early"
        got += chunk
    return got


async def _queued(server: trio.SocketStream, stream: TrioTCPStream) -> None:
    await server.send_all(_messages())
    await trio.sleep(0.05)  # loopback: the kernel holds them all at the reader's end by then


async def test_queued_messages_are_read_in_few_schedule_points() -> None:
    apply_patches()
    async with tcp_pair() as (server, stream):
        await _queued(server, stream)
        got: list[bytes] = []

        async def work() -> None:
            got.extend(await _read_messages(TrioTCPStream.read, stream))

        steps = await _other_steps(work)
    assert got == [bytes([i % 256]) * BODY for i in range(MESSAGES)]
    assert steps <= 2 * MESSAGES // YIELD_EVERY + 3


async def test_upstream_read_takes_a_schedule_point_per_read() -> None:
    """The sentinel: upstream's read is one ``receive_some`` per call, a schedule point each."""
    read_socket_in_chunks()
    upstream = upstream_tcp_read()
    assert upstream is not None
    async with tcp_pair() as (server, stream):
        await _queued(server, stream)
        steps = await _other_steps(lambda: _read_messages(upstream, stream))
    assert steps >= 2 * MESSAGES - 5


async def test_bytes_arrive_whole_and_in_order_with_concurrent_readers() -> None:
    """1 MiB sent in odd pieces, read by two tasks taking turns under a lock of their own: the bytes
    come out in order whatever read sizes they ask for; nothing is left buffered at the end."""
    apply_patches()
    payload = bytes(i * 7 % 251 for i in range(1 << 20))
    order = trio.Lock()
    got = bytearray()

    async with tcp_pair() as (server, stream):

        async def send() -> None:
            for start in range(0, len(payload), 3001):
                await server.send_all(payload[start : start + 3001])

        async def reader(size: int) -> None:
            while len(got) < len(payload):
                async with order:
                    if len(got) >= len(payload):
                        return
                    got.extend(await stream.read(min(size, len(payload) - len(got))))

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(send)
                nursery.start_soon(reader, 5)
                nursery.start_soon(reader, 70_000)
        assert bytes(got) == payload
        assert buffered(stream) == 0


async def test_a_closed_peer_reads_as_the_end_after_the_buffer() -> None:
    apply_patches()
    async with tcp_pair() as (server, stream):
        await server.send_all(b"abcdef")
        await server.aclose()
        assert await stream.read(2) == b"ab"
        assert await stream.read(100) == b"cdef"
        assert await stream.read(100) == b""


async def test_hosts_negotiate_many_streams_under_a_busy_loop() -> None:
    """Two real hosts; 40 streams opened at once while 200 tasks keep the loop busy: all answered."""
    apply_patches()

    async def echo(s: Any) -> None:
        await s.write(await s.read(64))
        await s.close()

    async def busy() -> None:
        while True:
            await trio.lowlevel.checkpoint()

    with trio.fail_after(60):
        async with watched_pair("/test/buffered/1", echo) as (a, b, _, _), trio.open_nursery() as spinners:
            for _ in range(200):
                spinners.start_soon(busy)

            async def one(i: int) -> None:
                s = await a.new_stream(b.get_id(), ["/test/buffered/1"])
                await s.write(bytes([i]) * 16)
                assert await s.read(64) == bytes([i]) * 16

            async with trio.open_nursery() as nursery:
                for i in range(40):
                    nursery.start_soon(one, i)
            spinners.cancel_scope.cancel()
