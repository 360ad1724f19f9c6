"""Task boundaries for work fed from the network: nothing a remote peer sends may end the node.

Every per-peer and per-stream task (an inbound stream handler, an outbox worker, a sync pull, an
invitation in the background) runs inside :meth:`Faults.boundary`. Any exception other than
cancellation is stopped there: logged once per (place, exception type) at warning level, later ones
at debug level, and counted, so ``faults.counts`` shows what peers provoked. Cancellation
(``trio.Cancelled``, and exception groups that contain it) always passes through.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from ioa_p2p.errors import IoAError, IoATimeout, PeerClosed
from ioa_p2p.identity import PeerId

log = logging.getLogger("ioa_p2p.faults")

#: Exception types whose first occurrence per place is not worth a warning (ordinary network life).
_QUIET = (PeerClosed, IoATimeout)


class Faults:
    """Counts of exceptions stopped at task boundaries, by place and exception type."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._seen: set[tuple[str, str]] = set()

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def record(self, where: str, peer: PeerId | str | None, exc: BaseException) -> None:
        kind = type(exc).__name__
        self.counts[f"{where}:{kind}"] += 1
        first = (where, kind) not in self._seen
        self._seen.add((where, kind))
        who = f" from {peer}" if peer is not None else ""
        if isinstance(exc, _QUIET) or not first:
            log.debug("%s%s ended: %s: %s", where, who, kind, exc)
        elif isinstance(exc, IoAError):
            log.info("%s%s failed: %s: %s", where, who, kind, exc)
        else:
            # Not one of our typed errors: a bug, or input our decoders did not foresee. Keep serving.
            log.warning(
                "%s%s raised %s (first of its kind here; stopped at the task boundary)",
                where,
                who,
                kind,
                exc_info=exc,
            )

    @contextmanager
    def boundary(self, where: str, peer: PeerId | str | None = None) -> Iterator[None]:
        """Stop any exception except cancellation; record it."""
        try:
            yield
        except Exception as exc:  # the point of a boundary; BaseException (Cancelled) passes
            self.record(where, peer, exc)

    def snapshot(self) -> dict[str, int]:
        return dict(sorted(self.counts.items()))


@contextmanager
def single_error() -> Iterator[None]:
    """Re-raise a lone error out of trio's exception group (a nursery around an adapter's long-lived part),
    so callers catch our typed errors or their block's own exception directly; several stay grouped.
    (Used by ``open_node``, ``open_agents`` and adapters with a long-lived part.)"""
    try:
        yield
    except BaseExceptionGroup as group:
        real = [exc for exc in exception_leaves(group) if _is_real(exc)]
        if len(real) == 1:
            raise real[0] from None
        raise


def _is_real(exc: BaseException) -> bool:
    """Not a cancellation: an error, or Ctrl-C / exit. (trio's ``Cancelled`` and asyncio's ``CancelledError``
    are the other ``BaseException`` leaves a nursery collects; the core names neither library.)"""
    return isinstance(exc, (Exception, KeyboardInterrupt, SystemExit))


def exception_leaves(group: BaseExceptionGroup[BaseException]) -> Iterator[BaseException]:
    """Every non-group exception in ``group``, depth first."""
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            yield from exception_leaves(exc)
        else:
            yield exc


__all__ = ["Faults", "exception_leaves", "single_error"]
