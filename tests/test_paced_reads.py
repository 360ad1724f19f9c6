"""A connection paced by the CPU budgets is still read often enough for the other end's writes to make
progress (``cpu_meter.READ_PACE_MAX`` / ``READ_GRANT``).

The N = 50 churn (docs/performance.md, "Who ends a connection, and why"): a node whose peer owed CPU time
stopped reading the peer's connection until the debt was paid; a peer whose work kept being charged
(its streams' handlers still running) was not read for longer than the writer's bound on one write
(``atomic_writes.WRITE_BOUND``, 10 s), so the writer gave the whole connection up (``local: stuck
write`` at one end, ``remote closed mid-frame`` at the other). Here on a mock clock: the writer is the
real patched ``SecureSession.write`` over a pipe that holds a few messages (the socket buffers), the
reader the real ``pace_reads`` over real :class:`NodeBudgets`, the peer kept in debt throughout."""

from __future__ import annotations

from typing import Any

import trio
from trio.testing import MockClock

from ioa_p2p.config.limits import Limits
from ioa_p2p.identity import Identity
from ioa_p2p.node.net import atomic_writes
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.cpu_meter import READ_GRANT, READ_PACE_MAX, pace_reads
from ioa_p2p.node.net.host import new_noise_host

#: Messages the pipe holds before a write blocks (the two ends' socket buffers).
PIPE_MESSAGES = 4
MESSAGES = 40


class _Pipe:
    """One direction of a connection: a write waits while the pipe is full, a read takes a message."""

    def __init__(self) -> None:
        self.send, self.receive = trio.open_memory_channel[bytes](PIPE_MESSAGES)

    async def write_msg(self, data: bytes) -> None:  # what SecureSession.write writes through
        await self.send.send(data)


class _Writer:
    """What the patched ``SecureSession.write`` needs of its session."""

    def __init__(self, pipe: _Pipe) -> None:
        self.conn = pipe
        self.closed = False

    async def close(self) -> None:
        self.closed = True


class _Reader:
    """The reading end's secured connection: ``read`` takes the next message."""

    def __init__(self, pipe: _Pipe) -> None:
        self.pipe = pipe
        self.read_at: list[float] = []

    async def read(self, n: int | None = None) -> bytes:
        message = await self.pipe.receive.receive()
        self.read_at.append(trio.current_time())
        return message


def _secure_write() -> Any:
    from libp2p.security.secure_session import SecureSession

    new_noise_host(Identity.generate())  # the patches (patch 25: atomic, bounded writes) are in place
    return SecureSession.write


async def _keep_in_debt(budgets: NodeBudgets, peer: Any) -> None:
    """The peer's other work (its streams' handlers) keeps being charged: it owes CPU time throughout."""
    while True:
        budgets.charge_cpu(peer, 0.5, 0.5)
        await trio.sleep(0.5)


async def test_a_paced_connection_is_read_often_enough_for_the_writer(autojump_clock: MockClock) -> None:
    write = _secure_write()
    budgets = NodeBudgets(Limits())
    peer = Identity.generate().peer_id
    pipe = _Pipe()
    writer, reader = _Writer(pipe), _Reader(pipe)
    pace_reads(reader, budgets, peer)
    budgets.charge_cpu(peer, 5.0, 5.0)  # owes its whole allowed debt before the first message
    failed: list[Exception] = []

    async def read_all() -> None:
        for _ in range(MESSAGES):
            await reader.read()

    async def write_all() -> None:
        try:
            for i in range(MESSAGES):
                await write(writer, b"m%d" % i)
                await trio.sleep(0.3)  # a steady stream of messages, more than the pipe holds
        except Exception as exc:  # the writer gave the connection up
            failed.append(exc)

    with trio.fail_after(600):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_keep_in_debt, budgets, peer)
            with trio.move_on_after(300):
                async with trio.open_nursery() as io:
                    io.start_soon(read_all)
                    io.start_soon(write_all)
            nursery.cancel_scope.cancel()
    assert not failed and not writer.closed, failed  # no write outlasted its bound
    assert len(reader.read_at) == MESSAGES
    gaps = [b - a for a, b in zip(reader.read_at, reader.read_at[1:], strict=False)]
    assert max(gaps) <= READ_PACE_MAX + 1e-6, max(gaps)  # never left unread longer than that
    # ... and still paced: it owed throughout, so its reads came in grants after paced stretches
    assert budgets.read_grants >= 2 and budgets.cpu.paced > 0
    assert reader.read_at[-1] - reader.read_at[0] >= READ_PACE_MAX


def test_read_pacing_stays_well_inside_the_writers_bound() -> None:
    """A stretch of pacing plus its grant is far shorter than the bound on one write at the other end."""
    assert READ_GRANT > 0 and READ_PACE_MAX > 0
    assert READ_PACE_MAX + READ_GRANT <= atomic_writes.WRITE_BOUND / 4


class _UnitPipe(_Pipe):
    """A pipe that holds ``PIPE_MESSAGES`` units: a message of n units needs n reads of one unit each
    (as a Noise message of 64 KiB needs many reads when the reader takes a yamux frame at a time)."""

    async def write_msg(self, data: bytes) -> None:
        for _ in data:
            await self.send.send(b"u")


async def test_many_short_paced_reads_count_as_one_stretch(autojump_clock: MockClock) -> None:
    """Each read of the peer's connection costs it enough CPU time to wait ~1.5 s before the next (no
    single wait reaches ``READ_PACE_MAX``: what the N = 50 run showed, 466,089 pacings and no grant). A
    16-unit message through a 4-unit pipe then needs 12 paced reads, ~18 s, past the writer's bound;
    the waits of consecutive paced reads are summed, so the connection gets its grant and the write
    goes through."""
    write = _secure_write()
    budgets = NodeBudgets(Limits())
    peer = Identity.generate().peer_id
    pipe = _UnitPipe()
    writer, reader = _Writer(pipe), _Reader(pipe)
    upstream = reader.read

    async def costly_read(n: int | None = None) -> bytes:
        unit = await upstream(n)
        budgets.charge_cpu(peer, 0.3, 0.3)  # what handling it cost: the peer owes ~1.5 s again
        return unit

    reader.read = costly_read  # type: ignore[method-assign]
    pace_reads(reader, budgets, peer)
    failed: list[Exception] = []

    async def write_all() -> None:
        try:
            for _ in range(4):
                await write(writer, b"x" * 16)
        except Exception as exc:  # the writer gave the connection up
            failed.append(exc)

    async def read_all() -> None:
        for _ in range(64):
            await reader.read()

    with trio.move_on_after(300):  # a failed write leaves the reader waiting: the mock clock ends it
        async with trio.open_nursery() as nursery:
            nursery.start_soon(read_all)
            nursery.start_soon(write_all)
    assert not failed and not writer.closed, failed
    assert budgets.read_grants >= 1 and budgets.cpu.paced > 0
