"""Patch 32: an inbound connection gives back its slot of the swarm's inbound cap when it closes.

py-libp2p 0.8.1 caps inbound connections with a ``trio.CapacityLimiter`` (``Swarm._inbound_limiter``,
``max_connections - min_connections`` = 250 tokens): ``_handle_inbound_connection`` takes a token, runs
``_do_handle_inbound_connection`` and gives the token back when that returns. But that handler, once the
connection is upgraded, waits for the *swarm* to end (``await self.manager.wait_finished()``, "keep handler
alive": trio's listener closes the socket when its handler returns), not for the connection to close. So
every inbound connection ever accepted keeps its token, and its handler task and socket object, for the
host's life: after 250 inbound connections in all, open or long closed, the node closes every new inbound
connection at once (the dialer sees "broken pipe" or "connection closed during read"). A bootstrap node
meets that first: 100 agents starting beside it dial it, are disconnected and dial again (a 4 x 25 start
reached it past ~90 agents; 100 light joiners dialling once each did not; issue 26, l-idle8).

:func:`free_inbound_slots` wraps the swarm's ``_do_handle_inbound_connection`` so that the handler ends when
*its* connection has closed (the muxed connection's ``event_closed``, set by yamux on every way a
connection ends): the wait for the swarm is cancelled, the handler returns, the token goes back and trio
closes the (already closed) socket. The cap then bounds the inbound connections open at once, as upstream
meant. The connection is found through :data:`_UPGRADED` (a context variable the wrapped
``upgrade_inbound_raw_conn`` fills in the handler's task; other callers of the upgrade, relayed and
punched connections, set nothing and are unchanged). A muxer without ``event_closed`` keeps upstream's
behaviour. ``tests/test_inbound_slots.py`` checks that upstream still holds the token after a close and
that a patched host frees it.
"""

from __future__ import annotations

import contextvars
from typing import Any

import trio


class _Upgraded:
    """The muxed connection an inbound handler upgraded, once it did."""

    __slots__ = ("conn", "ready")

    def __init__(self) -> None:
        self.conn: Any = None
        self.ready = trio.Event()


#: Where the wrapped upgrade puts the muxed connection of the inbound handler running in this task.
_UPGRADED: contextvars.ContextVar[_Upgraded | None] = contextvars.ContextVar(
    "ioa_inbound_upgraded", default=None
)


def free_inbound_slots(host: Any) -> None:
    """Patch 32 on ``host``'s swarm (see the module docstring); idempotent."""
    swarm = host.get_network()
    handle = getattr(swarm, "_do_handle_inbound_connection", None)
    upgrade = getattr(swarm, "upgrade_inbound_raw_conn", None)
    if handle is None or upgrade is None or not hasattr(swarm, "_inbound_limiter"):
        raise RuntimeError(
            "py-libp2p's swarm has no _do_handle_inbound_connection / upgrade_inbound_raw_conn / "
            "_inbound_limiter any more: revisit ioa_p2p.node.net.inbound_slots"
        )
    if getattr(handle, "frees_slot", False):
        return

    async def upgrade_inbound(raw_conn: Any, maddr: Any) -> Any:
        muxed = await upgrade(raw_conn, maddr)
        box = _UPGRADED.get()
        if box is not None and box.conn is None:
            box.conn = muxed
            box.ready.set()
        return muxed

    async def handle_inbound(read_write_closer: Any, maddr: Any, failure_event: Any) -> None:
        box = _Upgraded()
        token = _UPGRADED.set(box)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_end_when_closed, box, nursery.cancel_scope)
                await handle(read_write_closer, maddr, failure_event)
                nursery.cancel_scope.cancel()  # it ended by itself (a failed upgrade): stop the watch
        finally:
            _UPGRADED.reset(token)

    handle_inbound.frees_slot = True  # type: ignore[attr-defined]
    swarm._do_handle_inbound_connection = handle_inbound
    swarm.upgrade_inbound_raw_conn = upgrade_inbound


async def _end_when_closed(box: _Upgraded, scope: trio.CancelScope) -> None:
    """Cancel ``scope`` (the handler's wait for the swarm) once the connection upgraded in ``box`` closed
    (while it upgrades this waits; the handler ends by itself when the upgrade fails)."""
    await box.ready.wait()
    closed = getattr(box.conn, "event_closed", None)
    if not isinstance(closed, trio.Event):
        return  # a muxer we do not know: upstream's behaviour (the slot is held for the host's life)
    await closed.wait()
    scope.cancel()


__all__ = ["free_inbound_slots"]
