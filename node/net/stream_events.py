"""Patch 29 of :mod:`ioa_p2p.node.net.libp2p_patches`: a stream's open and close tell the swarm's notifees
in the caller's task, not in a task per notifee.

**The problem** (issue 26). py-libp2p 0.8.1's ``Swarm._notify`` runs every notifee callback in a task of a
nursery of its own and waits for them all, for every event, and a swarm notifies ``opened_stream`` for
every stream it opens or accepts and ``closed_stream`` for every stream that ends. The notifees a node
has (the tag store's, identify's, pubsub's) do nothing with stream events: two return at once and
pubsub's only checkpoints. Each stream still paid a nursery, three task spawns and two to three passes of
the scheduler before it could be used (or its close returned); in a process of 50 co-hosted agents at
start-up 300-400 of the ~1,900 runnable tasks were these callbacks (``bench/cross_locks.py`` at 2 x 25,
2026-11-28 22:36 UTC), every task of the process waiting behind them at each pass.

**What we do.** :func:`notify_stream_events_inline` wraps ``Swarm._notify``: for ``opened_stream`` and
``closed_stream`` it awaits each notifee's callback in turn in the caller's task (an exception is logged
and the next notifee still called, as upstream isolates them; cancellation passes); every other event
(``connected``, ``disconnected``, ``listen``...) keeps upstream's nursery. Pubsub's stream callbacks,
a bare checkpoint each, become plain returns, so a stream event with the node's notifees takes no
schedule point at all. A notifee that blocks still blocks the event, as it did upstream (which waited
for all of them). ``tests/test_stream_events.py`` checks upstream's shape (a task per notifee, pubsub's
bare checkpoint), that a stream's open and close run no other task, that a raising notifee neither
breaks the stream nor stops the others, and that connection events still reach every notifee.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("ioa_p2p.net")

#: The swarm events patch 29 delivers inline.
STREAM_EVENTS = frozenset({"opened_stream", "closed_stream"})

#: Upstream's ``Swarm._notify`` (None before the patch).
_UPSTREAM: Any = None
#: Upstream's ``PubsubNotifee.opened_stream`` / ``closed_stream`` (empty before the patch).
_UPSTREAM_PUBSUB: dict[str, Any] = {}


async def _no_op(self: Any, network: Any, stream: Any) -> None:
    return None


def notify_stream_events_inline() -> None:
    """Install patch 29 (idempotent, process-wide)."""
    global _UPSTREAM
    from libp2p.network.swarm import Swarm
    from libp2p.pubsub.pubsub_notifee import PubsubNotifee

    upstream = getattr(Swarm, "_notify", None)
    if upstream is None:
        raise RuntimeError("py-libp2p's Swarm has no _notify any more: revisit patch 29 (stream_events)")
    if getattr(upstream, "ioa_inline", False):
        return
    for name in STREAM_EVENTS:
        if not callable(getattr(PubsubNotifee, name, None)):
            raise RuntimeError(f"PubsubNotifee has no {name} any more: revisit patch 29 (stream_events)")
    _UPSTREAM = upstream
    _UPSTREAM_PUBSUB.update({name: getattr(PubsubNotifee, name) for name in STREAM_EVENTS})

    async def _notify(self: Any, method: str, *args: Any) -> None:
        if method not in STREAM_EVENTS:
            await upstream(self, method, *args)
            return
        for notifee in list(self.notifees):
            try:
                await getattr(notifee, method)(self, *args)
            except Exception:  # as upstream: one notifee's failure is logged, the others still run
                log.exception("notifee %s.%s raised", type(notifee).__name__, method)

    _notify.ioa_inline = True  # type: ignore[attr-defined]
    Swarm._notify = _notify  # type: ignore[method-assign]
    PubsubNotifee.opened_stream = _no_op  # type: ignore[method-assign]
    PubsubNotifee.closed_stream = _no_op  # type: ignore[method-assign]


def upstream_notify() -> Any:
    """Upstream's ``Swarm._notify`` (after :func:`notify_stream_events_inline`; None before)."""
    return _UPSTREAM


def upstream_pubsub_callbacks() -> dict[str, Any]:
    """Upstream's pubsub stream callbacks by event name (after the patch; empty before)."""
    return dict(_UPSTREAM_PUBSUB)


__all__ = ["STREAM_EVENTS", "notify_stream_events_inline", "upstream_notify", "upstream_pubsub_callbacks"]
