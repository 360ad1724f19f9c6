"""A blocking third-party agent loop (smolagents, Open Interpreter) run in a worker thread under trio.

:func:`run_blocking` runs ``work(report)`` in a worker thread while the calling trio task relays what the
thread reports (``report("text")``) to the task's progress, in order, through a bounded channel (when the
relay falls behind, further reports are dropped and counted, never queued without bound). When the caller
is cancelled (the task deadline, the chat ending, the node stopping) the ``interrupt`` callback asks the
loop to stop at its next step, and the thread is abandoned: the caller returns at once, the thread ends by
itself (its own model/HTTP timeouts bound that) and whatever it reports afterwards is ignored.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import TypeVar

import trio

from ioa_p2p.adapters.base import TaskContext
from ioa_p2p.faults import single_error

log = logging.getLogger(__name__)

T = TypeVar("T")
Report = Callable[[str], None]

MAX_QUEUED_REPORTS = 64


class _Relay:
    """Reports from the worker thread into a bounded trio channel (thread side)."""

    def __init__(self, send: trio.MemorySendChannel[str]) -> None:
        self._send = send
        self.dropped = 0

    def __call__(self, text: str) -> None:
        # RunFinishedError, Cancelled, RuntimeError: the trio side is gone (an abandoned thread, the run
        # ended): nobody to tell.
        with contextlib.suppress(trio.RunFinishedError, trio.Cancelled, RuntimeError):
            trio.from_thread.run_sync(self._put, str(text))

    def _put(self, text: str) -> None:
        try:
            self._send.send_nowait(text)
        except trio.WouldBlock:
            self.dropped += 1
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass


async def run_blocking(
    work: Callable[[Report], T],
    ctx: TaskContext,
    *,
    interrupt: Callable[[], None] | None = None,
) -> T:
    """``work(report)`` in a worker thread; its reports become ``ctx.progress``; see the module docstring.

    Exceptions raised by ``work`` propagate to the caller unchanged (translate them at the adapter)."""
    send, receive = trio.open_memory_channel[str](MAX_QUEUED_REPORTS)
    relay = _Relay(send)

    async def forward() -> None:
        async with receive:
            async for text in receive:
                await ctx.progress(text)

    with single_error():
        async with trio.open_nursery() as nursery:
            nursery.start_soon(forward)
            try:
                with send:
                    # trio's KI-protection decorator hides this keyword from mypy
                    return await trio.to_thread.run_sync(work, relay, abandon_on_cancel=True)  # type: ignore[call-arg]
            except trio.Cancelled:
                _interrupt(interrupt)
                raise
            finally:
                if relay.dropped:
                    log.info("%d progress reports of a worker-thread agent were dropped", relay.dropped)
    raise AssertionError("unreachable")  # pragma: no cover - the nursery block returns or raises


def _interrupt(interrupt: Callable[[], None] | None) -> None:
    if interrupt is None:
        return
    try:
        interrupt()
    except Exception:  # the library's own stop switch failed: the thread still ends by itself
        log.warning("interrupting an abandoned agent thread failed", exc_info=True)


__all__ = ["MAX_QUEUED_REPORTS", "Report", "run_blocking"]
