"""Patch 28 (``node/net/frame_writes.py``): yamux frames go out at once when the connection's write lock is
free, and the muxer's reader never waits behind the lock.

Real py-libp2p hosts (TCP, Noise, yamux) on 127.0.0.1, in one process. The sentinels run upstream's
``Yamux._write_frame`` on the same connections: its frames let other tasks run under the lock, and its
reader stops reading while the lock is held (the convoy of issue 26)."""

from __future__ import annotations

import socket
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio

from ioa_p2p.node.net.frame_writes import (
    CONTROL_BOUND,
    FrameWriter,
    is_control,
    upstream_write_frame,
    writer_of,
)

from .raw_hosts import watched_pair

pytestmark = pytest.mark.slow

PROTO = "/test/frames/1"
HEADER = "!BBHII"
DATA, WINDOW_UPDATE, PING = 0, 1, 2
SYN, ACK, FIN, RST = 1, 2, 4, 8


def frame(kind: int, flags: int, stream_id: int, length: int, payload: bytes = b"") -> bytes:
    return struct.pack(HEADER, 0, kind, flags, stream_id, length) + payload


class Received:
    """What the listener's handler read, per stream, and an event per byte count reached."""

    def __init__(self) -> None:
        self.data: dict[int, bytearray] = {}
        self.changed = trio.Event()

    async def handler(self, stream: Any) -> None:
        buffer = self.data.setdefault(stream.muxed_stream.stream_id, bytearray())
        try:
            while chunk := await stream.read(65536):
                buffer += chunk
                self.changed.set()
                self.changed = trio.Event()
        except Exception:  # reset or closed: the test looks at what arrived
            return

    async def wait_for(self, stream_id: int, size: int) -> bytes:
        while len(self.data.get(stream_id, b"")) < size:
            await self.changed.wait()
        return bytes(self.data[stream_id])


@asynccontextmanager
async def pair() -> AsyncIterator[tuple[Any, Any, Any, Any, Received]]:
    """(a, b, a's yamux connection to b, b's to a, what b's handler read); one stream open and used."""
    received = Received()
    async with watched_pair(PROTO, received.handler) as (a, b, _, _):
        stream = await a.new_stream(b.get_id(), [PROTO])
        await stream.write(b"warm")
        await received.wait_for(stream.muxed_stream.stream_id, 4)
        conn_a = stream.muxed_stream.conn
        conn_b = b.get_network().get_connections(a.get_id())[0].muxed_conn
        while conn_a.rtt() == 0:  # noqa: ASYNC110 - upstream's RTT has no event; its first answer: the next ping is minutes away
            await trio.sleep(0.05)
        yield a, b, conn_a, conn_b, received


@asynccontextmanager
async def spinning() -> AsyncIterator[list[int]]:
    """A task that counts its own steps (``[steps]``) while the block runs."""
    steps = [0]

    async def spin() -> None:
        while True:
            steps[0] += 1
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(spin)
        await trio.sleep(0.01)
        yield steps
        nursery.cancel_scope.cancel()


@asynccontextmanager
async def lock_held(conn: Any) -> AsyncIterator[None]:
    """``conn``'s write lock held by another task (a writer stuck in the convoy) while the block runs."""
    release = trio.Event()

    async def hold(task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        async with conn._write_lock:
            task_status.started()
            await release.wait()

    async with trio.open_nursery() as nursery:
        await nursery.start(hold)
        try:
            yield
        finally:
            release.set()


def test_control_frames_are_the_header_only_window_updates_and_ping_answers() -> None:
    assert is_control(frame(WINDOW_UPDATE, ACK, 3, 0))
    assert is_control(frame(WINDOW_UPDATE, SYN, 3, 0)) and is_control(frame(WINDOW_UPDATE, RST, 3, 0))
    assert is_control(frame(WINDOW_UPDATE, 0, 3, 65536)) and is_control(frame(PING, ACK, 0, 7))
    assert not is_control(frame(PING, SYN, 0, 7))  # our own RTT ping: its time counts from its write
    assert not is_control(frame(DATA, 0, 3, 1, b"x")) and not is_control(frame(DATA, FIN, 3, 0))
    assert not is_control(frame(3, 0, 0, 0))  # GO_AWAY: the connection closes after it


async def _write_frames(conn: Any, stream_id: int, count: int) -> None:
    for i in range(count):
        await conn._write_frame(frame(DATA, 0, stream_id, 4, b"%04d" % i))


async def test_a_frame_on_a_free_lock_lets_no_other_task_run() -> None:
    with trio.fail_after(60):
        async with pair() as (_, _, conn_a, _, received):
            sid = next(iter(received.data))
            async with spinning() as steps:
                before = steps[0]
                await _write_frames(conn_a, sid, 50)
                assert steps[0] == before  # no schedule point in 50 frames
            assert writer_of(conn_a).at_once >= 50
            expected = b"warm" + b"".join(b"%04d" % i for i in range(50))
            assert await received.wait_for(sid, len(expected)) == expected


async def test_upstream_frames_let_other_tasks_run_under_the_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sentinel: upstream's ``_write_frame`` still yields (lock, TCP lock, send, trailing checkpoint)."""
    from libp2p.stream_muxer.yamux.yamux import Yamux

    with trio.fail_after(60):
        async with pair() as (_, _, conn_a, _, received):
            sid = next(iter(received.data))
            monkeypatch.setattr(Yamux, "_write_frame", upstream_write_frame())
            async with spinning() as steps:
                before = steps[0]
                await _write_frames(conn_a, sid, 50)
                assert steps[0] - before >= 3 * 50


async def _reads_while_held(conn_a: Any, conn_b: Any, received: Received, new_streams: int) -> bool:
    """With b's write lock held: a opens ``new_streams`` streams (b's reader owes each an ACK) and pings
    b, then writes on the open stream; True when b's reader delivered that write while the lock was held."""
    sid = next(iter(received.data))
    async with lock_held(conn_b):
        for _ in range(new_streams):
            await conn_a.open_stream()
        await conn_a._write_frame(frame(PING, SYN, 0, 4242))
        await conn_a._write_frame(frame(DATA, 0, sid, 5, b"after"))
        with trio.move_on_after(10):
            await received.wait_for(sid, len(b"warmafter"))
            return True
    return False


async def test_the_reader_reads_on_while_the_write_lock_is_held_and_answers_after() -> None:
    with trio.fail_after(60):
        async with pair() as (_, _, conn_a, conn_b, received):
            conn_a._ping_event = pong = trio.Event()
            assert await _reads_while_held(conn_a, conn_b, received, new_streams=20)
            assert not pong.is_set()  # b's answer was queued behind the lock...
            assert writer_of(conn_b).queued >= 21
            await pong.wait()  # ... and sent once the lock was free
            assert not writer_of(conn_b).control


async def test_upstream_reader_waits_behind_the_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sentinel: with upstream's ``_write_frame`` b's reader stops at the first ACK it owes."""
    from libp2p.stream_muxer.yamux.yamux import Yamux

    with trio.fail_after(60):
        async with pair() as (_, _, conn_a, conn_b, received):
            monkeypatch.setattr(Yamux, "_write_frame", upstream_write_frame())
            assert not await _reads_while_held(conn_a, conn_b, received, new_streams=1)


async def test_without_a_wire_control_frames_go_with_the_lane() -> None:
    """A connection that is not Noise straight over TCP (relayed, wrapped) writes through the session;
    its reader's frames still never wait for the lock."""
    with trio.fail_after(60):
        async with pair() as (_, _, conn_a, conn_b, received):
            writer = writer_of(conn_b)
            writer.wire = None
            at_once = writer.at_once
            conn_a._ping_event = pong = trio.Event()
            assert await _reads_while_held(conn_a, conn_b, received, new_streams=5)
            assert not pong.is_set()
            await pong.wait()
            assert writer.at_once == at_once and writer.queued >= 6


async def test_the_control_queue_is_bounded_then_its_writers_wait() -> None:
    with trio.fail_after(60):
        async with pair() as (_, _, conn_a, _, received):
            sid = next(iter(received.data))
            writer: FrameWriter = writer_of(conn_a)
            credit = frame(WINDOW_UPDATE, 0, sid, 0)
            done = 0

            async def write_credit() -> None:
                nonlocal done
                await conn_a._write_frame(credit)
                done += 1

            async with trio.open_nursery() as nursery, lock_held(conn_a):  # the lock is let go first
                for _ in range(CONTROL_BOUND + 5):
                    nursery.start_soon(write_credit)
                await trio.sleep(0.2)
                assert len(writer.control) == CONTROL_BOUND and done == CONTROL_BOUND
                assert writer.waited == 5
            assert done == CONTROL_BOUND + 5 and not writer.pending
            await conn_a._write_frame(frame(DATA, 0, sid, 3, b"end"))
            assert (await received.wait_for(sid, 7)).endswith(b"end")  # the connection still works


async def test_what_the_socket_does_not_take_goes_out_whole_and_in_order() -> None:
    """A send buffer of a few KiB: most frames leave a tail; 4 streams x 512 KiB arrive intact."""
    with trio.fail_after(120):
        async with pair() as (a, b, conn_a, _, received):
            writer_of(conn_a).wire.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)  # type: ignore[union-attr]
            size = 512 * 1024
            payloads = {i: bytes((i * 31 + n) % 251 for n in range(size)) for i in range(4)}
            streams = {i: await a.new_stream(b.get_id(), [PROTO]) for i in payloads}

            async def send(i: int) -> None:
                await streams[i].write(payloads[i])

            async with trio.open_nursery() as nursery:
                for i in payloads:
                    nursery.start_soon(send, i)
            for i, stream in streams.items():
                assert await received.wait_for(stream.muxed_stream.stream_id, size) == payloads[i]
            assert writer_of(conn_a).tails > 0


async def test_streams_opened_at_once_under_a_busy_loop_all_complete() -> None:
    """100 streams opened at once on one connection while 50 tasks keep the loop busy: each negotiates,
    writes and is read whole (upstream's convoy made the reader stop at each ACK)."""

    async def busy() -> None:
        while True:
            sum(range(2000))
            await trio.lowlevel.checkpoint()

    with trio.fail_after(120):
        async with pair() as (a, b, conn_a, conn_b, received):
            async with trio.open_nursery() as nursery:
                for _ in range(50):
                    nursery.start_soon(busy)
                ids: list[int] = []

                async def one(i: int) -> None:
                    stream = await a.new_stream(b.get_id(), [PROTO])
                    await stream.write(b"%03d" % i)
                    ids.append(stream.muxed_stream.stream_id)

                async with trio.open_nursery() as openers:
                    for i in range(100):
                        openers.start_soon(one, i)
                for sid in ids:
                    await received.wait_for(sid, 3)
                nursery.cancel_scope.cancel()
            assert sorted(bytes(received.data[sid]) for sid in ids) == [b"%03d" % i for i in range(100)]
            assert writer_of(conn_b).at_once + writer_of(conn_b).queued > 0


def test_upstream_reader_still_acks_through_write_frame() -> None:
    """What the patch assumes of upstream: every frame (the reader's ACKs too) goes through
    ``Yamux._write_frame``, which holds ``_write_lock`` over the secure write."""
    import inspect

    from libp2p.stream_muxer.yamux.yamux import Yamux

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host

    new_noise_host(Identity.generate())  # the patches are in place
    reader = inspect.getsource(Yamux.handle_incoming)
    assert (
        "await self._write_frame(ack_header)" in reader and "await self._write_frame(ping_header)" in reader
    )
    upstream = inspect.getsource(upstream_write_frame())
    assert "async with self._write_lock" in upstream and "self.secured_conn.write(data)" in upstream
