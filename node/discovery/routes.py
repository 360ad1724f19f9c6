"""Control routes of discovery: ``POST /find {"text", "k"?, "dht"?}``, ``GET /cards``, ``GET /card``,
``POST /card``, ``POST /card/withdraw {"reason"?}`` (docs/protocol.md §9)."""

from __future__ import annotations

import time
from typing import Any

import trio

from ioa_p2p.dht.settings import LIST_FIELDS
from ioa_p2p.errors import ConfigError, IoATimeout, UsageError
from ioa_p2p.identity import PeerId
from ioa_p2p.node.control.server import ControlAPI, ControlRequest
from ioa_p2p.node.discovery.service import Discovery

#: Seconds ``GET /card`` waits for the first card (issued in the background while the models load).
CARD_WAIT = 30.0


def add_discovery_routes(control: ControlAPI, me: PeerId, service: Discovery) -> None:
    async def post_find(request: ControlRequest) -> Any:
        text = request.arg("text", str)
        k = request.arg("k", int, 5)
        use_dht = request.arg("dht", bool, None) if "dht" in (request.body or {}) else None
        started = time.monotonic()
        matches = await service.find(text, k, use_dht=use_dht)
        return {
            "query": text,
            "k": k,
            "model": service.embedder.model_id,
            "took_ms": round((time.monotonic() - started) * 1000, 1),
            "results": [service.match_json(m) for m in matches],
        }

    async def get_cards(request: ControlRequest) -> Any:
        return service.cards_view()

    async def get_card(request: ControlRequest) -> Any:
        with trio.move_on_after(CARD_WAIT):  # the first card is issued in the background at start
            await service.card_ready.wait()
            await service.wait_card_current()
        if service.card is None:
            raise IoATimeout(f"this node has issued no card yet (waited {CARD_WAIT:.0f} s); try again")
        withdrawn = None if service.withdrawal is None else service.withdrawal.summary()
        return {**service.card.summary(), "withdrawn": withdrawn, "status": service.status()}

    async def post_card(request: ControlRequest) -> Any:
        body = request.body if isinstance(request.body, dict) else {}
        allowed = {"name", "description", "adapter", *LIST_FIELDS}
        unknown = sorted(set(body) - allowed)
        if unknown:
            raise UsageError(f"unknown card fields {unknown}; allowed: {sorted(allowed)}")
        try:
            agent = service.agent.with_changes(body, me)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
        card = await service.set_agent(agent)
        return card.summary()

    async def post_withdraw(request: ControlRequest) -> Any:
        reason = request.arg("reason", str, "")
        with trio.move_on_after(CARD_WAIT):
            await service.card_ready.wait()
        withdrawal = await service.withdraw(reason)
        return withdrawal.summary()

    control.add_route("POST", "/find", post_find)
    control.add_route("GET", "/cards", get_cards)
    control.add_route("GET", "/card", get_card)
    control.add_route("POST", "/card", post_card)
    control.add_route("POST", "/card/withdraw", post_withdraw)


__all__ = ["add_discovery_routes"]
