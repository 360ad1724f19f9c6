"""The pure frame decoder: any split of the byte stream gives the same frames; limits hold."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from hypothesis import given
from hypothesis import strategies as st
from libp2p.network.stream.exceptions import StreamEOF

from ioa_p2p.budget import Ledger
from ioa_p2p.errors import IoATimeout, MessageTooLarge, OverBudget, ProtocolViolation
from ioa_p2p.identity import Identity
from ioa_p2p.node.net.framing import FrameDecoder, FramedStream, encode_varint, frame


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


# ---------------------------------------------------------------- FramedStream deadlines and budget


class FakeStream:
    """A libp2p stream's read side fed by the test (chunks arrive as written): the deadlines are
    checked on trio's mock clock, which real sockets would not follow."""

    def __init__(self) -> None:
        self.feed, self._chunks = trio.open_memory_channel[bytes](1000)
        self.was_reset = False

    async def read(self, n: int) -> bytes:
        try:
            return await self._chunks.receive()
        except trio.EndOfChannel:
            raise StreamEOF("end") from None

    async def write(self, data: bytes) -> None:
        pass

    def get_protocol(self) -> str:
        return "/test/1.0.0"

    async def close(self) -> None:
        pass

    async def reset(self) -> None:
        self.was_reset = True


PEER = Identity(bytes(32)).peer_id
OTHER = Identity(bytes([1]) * 32).peer_id


def framed(budget: Ledger | None = None, peer=PEER) -> tuple[FakeStream, FramedStream]:
    raw = FakeStream()
    return raw, FramedStream(raw, peer, read_timeout=30.0, frame_timeout=20.0, budget=budget)


async def test_a_trickled_frame_hits_the_whole_frame_deadline(autojump_clock) -> None:
    raw, stream = framed()

    async def trickle() -> None:
        await raw.feed.send(encode_varint(1000) + b"x")
        for _ in range(100):
            await trio.sleep(1.0)  # far below the 30 s idle timeout
            await raw.feed.send(b"x")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trickle)
        start = trio.current_time()
        with pytest.raises(IoATimeout, match="did not complete a frame within 20.0 s"):
            await stream.receive()
        assert trio.current_time() - start == pytest.approx(20.0)
        nursery.cancel_scope.cancel()


async def test_silence_between_frames_is_the_idle_timeout(autojump_clock) -> None:
    raw, stream = framed()
    await raw.feed.send(frame(b"one") + frame(b"two"))
    assert await stream.receive() == b"one"
    assert await stream.receive() == b"two"
    start = trio.current_time()
    with pytest.raises(IoATimeout, match="sent nothing for 30.0 s"):
        await stream.receive()
    assert trio.current_time() - start == pytest.approx(30.0)


async def test_the_frame_deadline_counts_from_the_first_byte_of_each_frame(autojump_clock) -> None:
    raw, stream = framed()
    # one frame complete and the start of the next arrive together; the rest of the next one
    # arrives 15 s later: 15 s after its first byte, within the deadline
    await raw.feed.send(frame(b"a" * 10) + encode_varint(10) + b"b")
    assert await stream.receive() == b"a" * 10
    await trio.sleep(15.0)
    await raw.feed.send(b"b" * 9)
    assert await stream.receive() == b"b" * 10
    # a third frame whose first byte arrived 15 s before the receive() call still has only 5 s left
    await raw.feed.send(frame(b"d") + encode_varint(10) + b"c")
    assert await stream.receive() == b"d"
    await trio.sleep(15.0)
    start = trio.current_time()
    with pytest.raises(IoATimeout, match="did not complete a frame"):
        await stream.receive()
    assert trio.current_time() - start == pytest.approx(5.0)


async def test_a_frame_larger_than_the_budget_left_is_refused_from_its_prefix() -> None:
    budget = Ledger("frames", total=10_000, per_key=5_000)
    raw, stream = framed(budget)
    await raw.feed.send(encode_varint(6_000) + b"x" * 10)
    with pytest.raises(OverBudget, match="announced a frame of 6000 bytes"):
        await stream.receive()
    assert budget.held_total == 0


async def test_a_partial_frame_holds_its_announced_length_until_complete(autojump_clock) -> None:
    budget = Ledger("frames", total=10_000, per_key=5_000)
    raw, stream = framed(budget)
    await raw.feed.send(encode_varint(4_000) + b"x" * 1_000)
    with trio.move_on_after(0.2):
        await stream.receive()
    assert budget.held(PEER) == 4_000
    await raw.feed.send(b"x" * 3_000)
    assert await stream.receive() == b"x" * 4_000
    assert budget.held_total == 0
    # a partial frame left behind is given back by reset (and by close)
    await raw.feed.send(encode_varint(4_000) + b"y")
    with trio.move_on_after(0.2):
        await stream.receive()
    assert budget.held(PEER) == 4_000
    await stream.reset()
    assert budget.held_total == 0 and raw.was_reset


async def test_a_heavier_peers_partial_frame_is_evicted_for_a_lighter_one(autojump_clock) -> None:
    budget = Ledger("frames", total=5_000, per_key=5_000)
    raw, heavy = framed(budget)
    raw_light, light = framed(budget, OTHER)
    await raw.feed.send(encode_varint(4_500) + b"x")
    async with trio.open_nursery() as nursery:
        failures: list[BaseException] = []

        async def heavy_reader() -> None:
            try:
                await heavy.receive()
            except OverBudget as exc:
                failures.append(exc)

        nursery.start_soon(heavy_reader)
        await trio.sleep(0.1)
        assert budget.held(PEER) == 4_500
        await raw_light.feed.send(frame(b"z" * 1000)[:50])  # 4,500 + 1,000 > 5,000
        await trio.sleep(0.1)
        await raw_light.feed.send(frame(b"z" * 1000)[50:])
        assert await light.receive() == b"z" * 1000
    assert failures and "evicted" in str(failures[0])
    assert budget.held_total == 0 and budget.evicted == 1


# ---------------------------------------------------------------- FramedStream sends


class SlowWriteStream(FakeStream):
    """Each write yields in the middle (as a socket write may), recording what was written in order."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []

    async def write(self, data: bytes) -> None:
        half = len(data) // 2
        self.written.append(data[:half])
        await trio.lowlevel.checkpoint()
        self.written.append(data[half:])


class _Steps(trio.abc.Instrument):
    """Counts the steps of one task (each a return from a schedule point)."""

    def __init__(self, task: trio.lowlevel.Task) -> None:
        self.task, self.steps = task, 0

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        if task is self.task:
            self.steps += 1


async def test_a_send_on_a_free_stream_writes_before_yielding() -> None:
    """An uncontended send takes the send lock without a schedule point (the write is the checkpoint):
    the sending task reaches the write in the step it started the send in."""
    raw, stream = framed()
    steps = _Steps(trio.lowlevel.current_task())
    at_write: list[int] = []

    async def write(data: bytes) -> None:
        at_write.append(steps.steps)
        await trio.lowlevel.checkpoint()

    raw.write = write  # type: ignore[method-assign]
    trio.lowlevel.add_instrument(steps)
    try:
        for _ in range(3):
            before = steps.steps
            await stream.send(b"hello")
            assert at_write[-1] == before
    finally:
        trio.lowlevel.remove_instrument(steps)


async def test_concurrent_sends_never_interleave_their_frames() -> None:
    """Senders that meet a write under way wait for it: each payload is written whole, in turn."""
    raw = SlowWriteStream()
    stream = FramedStream(raw, PEER)
    payloads = [bytes([i]) * (10 + i) for i in range(5)]
    async with trio.open_nursery() as nursery:
        for p in payloads:
            nursery.start_soon(stream.send, p)
    joined = [raw.written[i] + raw.written[i + 1] for i in range(0, len(raw.written), 2)]
    assert sorted(joined) == sorted(frame(p) for p in payloads)


async def test_a_cancelled_send_writes_nothing_and_leaves_the_lock_usable() -> None:
    """A send whose scope is already cancelled writes nothing, on a free lock too; a sender cancelled
    while another's write holds the lock gives up without it; the next sends go."""
    raw = SlowWriteStream()
    stream = FramedStream(raw, PEER)
    with trio.CancelScope() as scope:
        scope.cancel()
        await stream.send(b"never")
    gate = trio.Event()

    async def blocked_write(data: bytes) -> None:
        raw.written.append(data)
        await gate.wait()

    raw.write = blocked_write  # type: ignore[method-assign]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(stream.send, b"first")
        await trio.testing.wait_all_tasks_blocked()  # 'first' is in its write, holding the lock
        with trio.move_on_after(0.05):
            await stream.send(b"second")
        gate.set()
    await stream.send(b"third")
    assert raw.written == [frame(b"first"), frame(b"third")]
