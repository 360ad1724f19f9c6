"""Yamux frames queued on one connection go out together (node/net/frame_batches.py, patch 27): order kept,
one secure write for the frames that queued behind a write under way, a failed write fails every frame
waiting behind it, a queued frame is sent even when its writer is cancelled; and the patch is what
py-libp2p's yamux runs over real hosts."""

from __future__ import annotations

import pytest
import trio

from ioa_p2p.node.net.frame_batches import FrameBatches


class _Socket:
    """A secure connection's write: records what each call sent; the first call waits for ``release``."""

    def __init__(self, fail_on: int | None = None) -> None:
        self.sent: list[bytes] = []
        self.release = trio.Event()
        self.fail_on = fail_on

    async def write(self, data: bytes) -> None:
        if not self.sent and not self.release.is_set():
            self.sent.append(b"")  # the first write is under way
            await self.release.wait()
            self.sent[0] = data
        else:
            await trio.lowlevel.checkpoint()
            self.sent.append(data)
        if self.fail_on is not None and len(self.sent) - 1 == self.fail_on:
            raise ConnectionError("broken")


async def test_frames_queued_behind_a_write_go_out_in_one_write_in_order() -> None:
    batches, socket = FrameBatches(), _Socket()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(batches.write, socket.write, b"a")
        await trio.testing.wait_all_tasks_blocked()
        for frame in (b"b", b"c", b"d"):
            nursery.start_soon(batches.write, socket.write, frame)
            await trio.testing.wait_all_tasks_blocked()
        socket.release.set()
    assert socket.sent == [b"a", b"bcd"]
    assert (batches.batches, batches.frames) == (2, 4)


async def test_an_uncontended_frame_is_written_at_once() -> None:
    batches, socket = FrameBatches(), _Socket()
    socket.release.set()
    await batches.write(socket.write, b"x")
    await batches.write(socket.write, b"y")
    assert socket.sent == [b"x", b"y"]


async def test_a_failed_write_fails_its_frames_and_those_queued_behind() -> None:
    batches, socket = FrameBatches(), _Socket(fail_on=0)
    errors: list[str] = []

    async def write(frame: bytes) -> None:
        try:
            await batches.write(socket.write, frame)
        except ConnectionError as exc:
            errors.append(f"{frame.decode()}: {exc}")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(write, b"a")
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(write, b"b")
        await trio.testing.wait_all_tasks_blocked()
        socket.release.set()
    assert sorted(errors) == ["a: broken", "b: broken"]
    assert socket.sent == [b"a"]  # b could not go out in order after a broken write
    socket.fail_on = None
    await batches.write(socket.write, b"c")  # the queue is usable again (the caller decides about the conn)
    assert socket.sent[-1] == b"c"


async def test_a_waiting_frame_is_withdrawn_when_its_writer_is_cancelled() -> None:
    batches, socket = FrameBatches(), _Socket()
    waiter = trio.CancelScope()

    async def write_b() -> None:
        with waiter:
            await batches.write(socket.write, b"b")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(batches.write, socket.write, b"a")
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(write_b)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(batches.write, socket.write, b"c")
        await trio.testing.wait_all_tasks_blocked()
        waiter.cancel()
        await trio.testing.wait_all_tasks_blocked()
        socket.release.set()
    assert socket.sent == [b"a", b"c"]  # b never left: its writer gave up before its batch was written


async def test_a_frame_being_written_goes_out_whole_though_its_writer_is_cancelled() -> None:
    batches, socket = FrameBatches(), _Socket()
    writer = trio.CancelScope()

    async def write_a() -> None:
        with writer:
            await batches.write(socket.write, b"a")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(write_a)
        await trio.testing.wait_all_tasks_blocked()
        writer.cancel()
        await trio.testing.wait_all_tasks_blocked()
        assert socket.sent == [b""]  # still under way: the cancellation waits for it
        socket.release.set()
    assert socket.sent == [b"a"]


async def test_a_writer_cancelled_before_queueing_sends_nothing() -> None:
    batches, socket = FrameBatches(), _Socket()
    socket.release.set()
    with trio.CancelScope() as scope:
        scope.cancel()
        await batches.write(socket.write, b"a")
    assert socket.sent == []


def test_the_patch_is_what_yamux_runs() -> None:
    from libp2p.stream_muxer.yamux.yamux import Yamux

    from ioa_p2p.node.net.libp2p_patches import apply_patches

    apply_patches()
    assert getattr(Yamux._write_frame, "ioa_batched", False)


@pytest.mark.slow
async def test_many_streams_at_once_between_real_hosts_all_answer() -> None:
    """Two real hosts on 127.0.0.1: 64 streams opened at once, each a request and its echo (the frames of
    the SYNs, the negotiations, the ACKs and the data of many streams share one connection's queue)."""
    from libp2p.peer.peerinfo import PeerInfo

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host
    from tests.raw_hosts import run_raw_host

    protocol = "/ioa/test-echo/1.0.0"
    a, b = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())

    async def echo(stream: object) -> None:
        data = await stream.read(64)  # type: ignore[attr-defined]
        await stream.write(data)  # type: ignore[attr-defined]
        await stream.close()  # type: ignore[attr-defined]

    b.set_stream_handler(protocol, echo)
    answers: list[bytes] = []
    with trio.fail_after(60):
        async with run_raw_host(a), run_raw_host(b):
            await a.connect(PeerInfo(b.get_id(), b.get_addrs()))

            async def ask(i: int) -> None:
                stream = await a.new_stream(b.get_id(), [protocol])
                await stream.write(b"%d" % i)
                answers.append(await stream.read(64))
                await stream.close()

            async with trio.open_nursery() as nursery:
                for i in range(64):
                    nursery.start_soon(ask, i)
    assert sorted(answers) == sorted(b"%d" % i for i in range(64))
