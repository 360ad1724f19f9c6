"""Patch 10 of :mod:`ioa_p2p.node.net.libp2p_patches`: inbound streams capped before negotiation.

py-libp2p's resource manager admits every inbound stream a peer opens; :func:`cap_inbound_streams` wraps its
``acquire_stream``/``release_stream`` so a peer past its share, a peer ``admit`` refuses, or a stream past the
node-wide inbound ledger (charged by the peer's trust) is refused before multistream negotiation
costs anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ioa_p2p.node.net.budgets import NodeBudgets


def cap_inbound_streams(
    host: Any,
    per_peer: int,
    on_refused: Callable[[str], None] | None = None,
    admit: Callable[[str], bool] | None = None,
    budgets: NodeBudgets | None = None,
) -> None:
    """Refuse a peer's inbound streams past ``per_peer`` open at once, or when ``admit(peer)`` says
    no, or past the node-wide ``budgets.inbound`` ledger (by the peer's trust), before negotiation
    (patch 10); ``on_refused(peer)`` hears of each refusal."""
    from libp2p.rcmgr import Direction

    manager = getattr(host.get_network(), "_resource_manager", None)
    if manager is None or not hasattr(manager, "acquire_stream") or not hasattr(manager, "release_stream"):
        raise RuntimeError(
            "py-libp2p's swarm has no resource manager with acquire_stream/release_stream any more: "
            "revisit ioa_p2p.node.net.libp2p_patches"
        )
    acquire, release = manager.acquire_stream, manager.release_stream
    open_inbound: dict[str, int] = {}
    claims: dict[str, list[Any]] = {}

    def refuse(key: str) -> bool:
        if on_refused is not None:
            on_refused(key)
        return False

    def acquire_stream(peer_id: Any, direction: Any) -> bool:
        key = str(peer_id)
        if direction == Direction.INBOUND and (
            open_inbound.get(key, 0) >= per_peer or (admit is not None and not admit(key))
        ):
            return refuse(key)
        ledger = budgets.inbound if budgets is not None and direction == Direction.INBOUND else None
        claim = ledger.try_claim(key, 1, trust=budgets.trust_of(key)) if ledger and budgets else None
        if ledger is not None and claim is None:
            return refuse(key)
        if not acquire(peer_id, direction):
            if ledger is not None:
                ledger.release(claim)
            return False
        if direction == Direction.INBOUND:
            open_inbound[key] = open_inbound.get(key, 0) + 1
            if claim is not None:
                claims.setdefault(key, []).append(claim)
        return True

    def release_stream(peer_id: Any, direction: Any) -> None:
        release(peer_id, direction)
        key = str(peer_id)
        if direction == Direction.INBOUND and key in open_inbound:
            open_inbound[key] -= 1
            if not open_inbound[key]:
                del open_inbound[key]
            held = claims.get(key)
            if held and budgets is not None:
                budgets.inbound.release(held.pop())
                if not held:
                    del claims[key]

    manager.acquire_stream = acquire_stream
    manager.release_stream = release_stream
    manager.ioa_open_inbound = open_inbound
