"""Charging the CPU time a peer makes the node spend to that peer, and pacing a peer that owes.

Every task that serves a peer carries the peer in a context variable (:data:`OWNER`): the tasks of
its connection (the muxer reading and decrypting its bytes) and of its inbound streams (protocol
negotiation, our handlers, py-libp2p's Kademlia, identify and GossipSub handlers, and whatever
they start) inherit it from ``add_conn`` (``libp2p_patches.meter_connections``, patch 12), because
trio copies the spawning task's context. A trio instrument (:class:`StepTimer`, one per trio run)
times each step of such a task and charges it to the peer's CPU budget (``NodeBudgets.cpu``:
:class:`~ioa_p2p.budget.WorkBudget`, per peer and per pool of strangers / known peers).

A peer that owes CPU time waits: its connection is not read (:func:`pace_reads`: its bytes stay in
the kernel and TCP slows it down; for :data:`READ_PACE_MAX` at most, then it is read for a while, so
that its writes still make progress), its frames are not taken from our buffers
(``FramedStream``), py-libp2p's handlers do not get its next message (``inbound_meter``), its new
streams are refused before negotiation (``NodeBudgets.admits``) and its gossip is dropped
(``libp2p_patches.contain_pubsub_messages``).
"""

from __future__ import annotations

import contextvars
import math
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import trio

from ioa_p2p.identity import PeerId

if TYPE_CHECKING:
    from ioa_p2p.node.net.budgets import NodeBudgets

#: The node (its budgets) and the peer whose work the current task does; None for the node's own.
OWNER: contextvars.ContextVar[tuple[NodeBudgets, PeerId] | None] = contextvars.ContextVar(
    "ioa_cpu_owner", default=None
)
#: The window over which :attr:`StepTimer.busy` is measured (seconds).
BUSY_WINDOW = 0.25
#: The step timer reads the thread's CPU clock (a system call) over a batch of steps that begins at least
#: this many seconds after the last batch it read it over began; a batch in between is charged the share
#: of a CPU that last batch measured (issue 26: a chat message is 17-21 loop iterations in a member).
CPU_SAMPLE_EVERY = 0.01
_TIMER: trio.lowlevel.RunVar[StepTimer | None] = trio.lowlevel.RunVar("ioa_step_timer", default=None)


class StepTimer(trio.abc.Instrument):
    """Times each step of a task with an :data:`OWNER` and charges it to that peer.

    Two times per step: the trio thread's **CPU** time, charged to the
    peer's own bucket (a peer is not blamed for the machine's load, nor for a worker thread
    holding the GIL), and the **loop** time, the wall clock the step held the event loop
    (``time.perf_counter``), charged to its pool. While a step runs no other task of the node
    does, whoever takes the CPU from the process meanwhile (the CPU time of a step is its loop time
    times the share of a batch's wall time the thread had a CPU, ``time.thread_time`` read over a batch
    of steps every :data:`CPU_SAMPLE_EVERY` at most: :meth:`_charge_batch`): on a machine whose other
    processes leave the node a fraction of a core, a step of 1 ms of CPU holds the loop for several ms, and
    a good peer's work waits that long. Measured (issue 20): charged in CPU time alone, 64
    stranger identities stayed inside a pool of 0.4 CPU seconds per second while they held the
    loop 60-95 % of the time, the node getting 10-25 % of a core. Steps of the node's own tasks
    are not charged.

    Several nodes of one process (``[[agents]]``) share the one event loop and this one timer; whether
    the loop is congested *for a node* (:meth:`gauge`) is the loop's busy share times the node's share
    of the loop time charged to peers in the window: the work of the other agents' peers is not
    congestion this node's strangers could relieve by waiting (measured: with 25 agents in a process the
    loop was always busy, every agent kept its strangers, the other agents, waiting for its trusted
    bootstrap peer, and no pubsub stream between them ever finished negotiating)."""

    def __init__(self) -> None:
        self._owner: tuple[NodeBudgets, PeerId] | None = None
        self._wall = 0.0
        #: steps charged, and their CPU and loop seconds (for tests and ``GET /budgets``)
        self.steps = 0
        self.seconds = 0.0
        self.loop_seconds = 0.0
        #: share of wall time the event loop was running tasks (not waiting for I/O) over the last
        #: completed window of :data:`BUSY_WINDOW` seconds
        self.busy = 0.0
        self._batch: float | None = None
        #: the wall clock at the first owned step of the current batch (None: none yet), and the thread's
        #: CPU clock then when the batch is a sampled one (None: not sampled)
        self._batch_wall: float | None = None
        self._batch_cpu: float | None = None
        #: the share of its wall time the thread had a CPU in the last sampled batch, and when it began
        self.cpu_share = 1.0
        self._sampled_at = -math.inf
        #: batches whose CPU share was measured (the CPU clock read twice), for tests and benchmarks
        self.samples = 0
        #: loop seconds of each owner's steps in the current batch, charged when the batch ends
        self._owed: dict[tuple[NodeBudgets, PeerId], float] = {}
        self._window = time.perf_counter()
        self._busy_in_window = 0.0
        #: loop seconds charged to each node's peers in the current window, and each node's share of
        #: them in the last completed one (nodes are keyed by their budgets)
        self._charged_in_window: dict[NodeBudgets, float] = {}
        self._shares: dict[NodeBudgets, float] = {}

    def after_io_wait(self, timeout: float) -> None:
        self._batch = time.perf_counter()

    def before_io_wait(self, timeout: float) -> None:
        now = time.perf_counter()
        self._charge_batch(now)
        if self._batch is not None:
            self._busy_in_window += now - self._batch
            self._batch = None
        elapsed = now - self._window
        if elapsed >= BUSY_WINDOW:
            self.busy = min(1.0, self._busy_in_window / elapsed)
            self._window, self._busy_in_window = now, 0.0
            charged, self._charged_in_window = self._charged_in_window, {}
            total = sum(charged.values())
            self._shares = {node: seconds / total for node, seconds in charged.items()} if total > 0 else {}

    def _charge_batch(self, now: float) -> None:
        """Charge the owned steps of the batch that ends: each its loop time, and as CPU time its loop
        time times the share of the wall time the thread had a CPU (:attr:`cpu_share`: this batch's, from
        its first owned step, when it is sampled; else the last sampled batch's).
        The thread's CPU clock is a system call (2-16 us on the test machine, against ~0.1-0.7 us for
        the wall clock): read per step, twice, it was ~20 % of a 25-agent process's samples; read per
        batch, twice per loop iteration; read over a batch every :data:`CPU_SAMPLE_EVERY` at most, it is
        paid once for the many short iterations of a busy stretch, and still for every long one."""
        owed, self._owed = self._owed, {}
        began, self._batch_wall = self._batch_wall, None
        started, self._batch_cpu = self._batch_cpu, None
        if not owed or began is None:
            return
        if started is not None:
            span = now - began
            self.cpu_share = min(1.0, max(0.0, time.thread_time() - started) / span) if span > 0 else 1.0
            self.samples += 1
        ratio = self.cpu_share
        for (node, peer), wall in owed.items():
            cpu = wall * ratio
            self.seconds += cpu
            self.loop_seconds += wall
            self._charged_in_window[node] = self._charged_in_window.get(node, 0.0) + wall
            node.charge_cpu(peer, cpu, wall)

    def busy_for(self, budgets: NodeBudgets) -> float:
        """How busy the loop was for the node of ``budgets``: :attr:`busy` times its share of the loop
        time charged to peers in the last window (the whole of it when no peer's work was charged, or
        when it is the only node whose peers were)."""
        if not self._shares:
            return self.busy
        return self.busy * self._shares.get(budgets, 0.0)

    def gauge(self, budgets: NodeBudgets) -> NodeLoopGauge:
        """The loop's business as seen by the node of ``budgets`` (for :meth:`NodeBudgets.watch_loop`)."""
        return NodeLoopGauge(self, budgets)

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        owner = task.context.get(OWNER)
        self._owner = owner
        if owner is not None:
            self._wall = now = time.perf_counter()
            if self._batch_wall is None:
                self._batch_wall = now
                if now - self._sampled_at >= CPU_SAMPLE_EVERY:
                    self._sampled_at, self._batch_cpu = now, time.thread_time()

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        owner, self._owner = self._owner, None
        if owner is not None:
            self.steps += 1
            self._owed[owner] = self._owed.get(owner, 0.0) + time.perf_counter() - self._wall


class NodeLoopGauge:
    """:meth:`StepTimer.busy_for` of one node, as a ``busy`` property (``budgets.LoopGauge``)."""

    __slots__ = ("budgets", "timer")

    def __init__(self, timer: StepTimer, budgets: NodeBudgets) -> None:
        self.timer, self.budgets = timer, budgets

    @property
    def busy(self) -> float:
        return self.timer.busy_for(self.budgets)


def ensure_step_timer() -> StepTimer:
    """The trio run's step timer, installed on first use (nodes of one run share it)."""
    timer = _TIMER.get()
    if timer is None:
        timer = StepTimer()
        trio.lowlevel.add_instrument(timer)
        _TIMER.set(timer)
    return timer


@contextmanager
def working_for(budgets: NodeBudgets, peer: PeerId) -> Iterator[None]:
    """Tasks started inside this block (and the current task, until it ends) work for ``peer``."""
    token = OWNER.set((budgets, peer))
    try:
        yield
    finally:
        OWNER.reset(token)


@contextmanager
def own_work() -> Iterator[None]:
    """Tasks started inside this block (and the current task, until it ends) do the process's own work,
    charged to no peer (the connections between the agents of one process: :mod:`.cohosted`)."""
    token = OWNER.set(None)
    try:
        yield
    finally:
        OWNER.reset(token)


#: The longest a connection's reads wait for its peer's CPU debt in one stretch of consecutive paced reads
#: (seconds, the waits of the stretch summed: yamux reads a frame in two reads, each paced, so many
#: short waits leave a connection as unread as one long one; measured at N = 50: 466,089 pacings, not
#: one single wait reached 2 s, and 87 writes still outlasted their bound). Well below
#: the other end's bound on one write (``atomic_writes.WRITE_BOUND``, 10 s): a connection left unread for
#: longer fills the socket buffers, the peer's write outlasts its bound and the peer gives the whole
#: connection up (``local: stuck write`` there, ``remote closed mid-frame`` here: 93 of 93 such closes at
#: N = 50 were paced reads, docs/performance.md).
READ_PACE_MAX = 2.0
#: After a stretch cut short by :data:`READ_PACE_MAX`, how long the connection is read without pacing
#: (seconds): long enough to drain the socket buffers, so the peer's blocked write goes through.
READ_GRANT = 0.5


def pace_reads(reader: Any, budgets: NodeBudgets, peer: PeerId) -> None:
    """Make ``reader.read`` (a connection's secured reader) wait while ``peer`` owes CPU time, but
    never more than :data:`READ_PACE_MAX` in all over consecutive paced reads (a read that did not
    wait ends the stretch): then the connection is read freely for :data:`READ_GRANT` seconds (its
    debt stays: the next read after the grant is paced again).
    Reading a paced peer's bytes costs little (decrypting, demultiplexing into its streams' buffers,
    both bounded: yamux's windows and ``[limits] unread_bytes_*``); its streams' frames and messages
    are still paced one by one (``FramedStream``, ``inbound_meter``) and its new streams refused
    while it owes (``NodeBudgets.admits``). What the grant buys is that the other end's writes make
    progress: only a peer that stopped reading for good has its connection given up."""
    upstream: Callable[..., Awaitable[bytes]] = reader.read
    unpaced_until = -math.inf
    waited = 0.0  # seconds the current stretch of paced reads has waited so far

    async def read(*args: Any, **kwargs: Any) -> bytes:
        nonlocal unpaced_until, waited
        start = trio.current_time()
        if start >= unpaced_until:
            paid = await budgets.pace_at_most(peer, READ_PACE_MAX - waited)
            now = trio.current_time()
            waited = waited + (now - start) if now > start else 0.0
            if not paid:
                unpaced_until, waited = now + READ_GRANT, 0.0
                budgets.read_grants += 1
        return await upstream(*args, **kwargs)

    reader.read = read


__all__ = [
    "CPU_SAMPLE_EVERY",
    "OWNER",
    "READ_GRANT",
    "READ_PACE_MAX",
    "NodeLoopGauge",
    "StepTimer",
    "ensure_step_timer",
    "own_work",
    "pace_reads",
    "working_for",
]
