"""What one chat message costs the event loop: loop iterations, task steps and CPU per message
(issue 26, docs/performance.md "Direct vs star with one process per member", tenth round).

Run: python bench/bench_chat_steps.py [--messages 300]

Two in-process member nodes (real Noise + yamux over TCP on 127.0.0.1, real SQLite stores, the
``bench_chat`` members) share one trio loop; the author posts one message at a time and waits until the
other member acknowledged it (the direct path's latency definition). A trio instrument counts the loop's
iterations (``before_io_wait``) and task steps while the messages are timed; the process CPU per message
is ``time.process_time``. Both nodes are in the figures: the author's send and ack handling and the
member's receive, checks, store and ack. Every schedule point the path has (a lock that yields, an extra
await) is a task step, and most are a loop iteration: the counts are exact where the CPU figure follows
the machine's load.

``--free-locks-no-yield`` (an experiment, not the product): every free ``trio.Lock`` and ``trio.Semaphore``
of the process (py-libp2p's yamux, Noise and TCP stream locks, ours) is taken without the schedule point
trio's ``acquire`` makes, to show what the uncontended lock yields of the path cost.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import trio
from bench_chat import TEXT, open_members

WARMUP = 20


class _Counts(trio.abc.Instrument):
    def __init__(self) -> None:
        self.iterations = 0
        self.steps = 0

    def before_io_wait(self, timeout: float) -> None:
        self.iterations += 1

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        self.steps += 1


async def per_message(messages: int) -> tuple[float, float, float]:
    """Loop iterations, task steps and CPU microseconds per message."""
    with tempfile.TemporaryDirectory(prefix="ioa-chat-steps-") as root:
        async with open_members(Path(root), 2) as nodes:
            author, member = nodes[0].services.chats, nodes[1]
            chat_id = (await author.create_chat([member.peer_id], "steps")).chat_id
            for i in range(WARMUP + messages):
                if i == WARMUP:
                    counts = _Counts()
                    trio.lowlevel.add_instrument(counts)
                    started = time.process_time()
                await author.post(chat_id, "text", {"text": f"{TEXT} {i}"})
                await author.wait_until(lambda: author.store.outbox_size() == 0)
            spent = time.process_time() - started
            trio.lowlevel.remove_instrument(counts)
    return counts.iterations / messages, counts.steps / messages, spent / messages * 1e6


def free_locks_no_yield() -> None:
    """Patch trio (in this process only): a free Lock or Semaphore is acquired without yielding."""
    from trio._sync import Semaphore, _LockImpl

    async def acquire(self: Any) -> None:
        await trio.lowlevel.checkpoint_if_cancelled()
        try:
            self.acquire_nowait()
        except trio.WouldBlock:
            await self._lot.park()

    _LockImpl.acquire = acquire  # type: ignore[method-assign]
    Semaphore.acquire = acquire  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--free-locks-no-yield", action="store_true", help="the experiment (see above)")
    args = parser.parse_args()
    if args.free_locks_no_yield:
        free_locks_no_yield()
    with open("/proc/loadavg") as f:
        print("load", " ".join(f.read().split()[:3]))
    iterations, steps, cpu = trio.run(per_message, args.messages)
    print(
        f"per message (author and member in one loop): {iterations:.1f} loop iterations, "
        f"{steps:.1f} task steps, {cpu:.0f} us CPU"
    )


if __name__ == "__main__":
    main()
