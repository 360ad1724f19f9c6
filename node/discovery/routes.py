"""Control routes of discovery: ``POST /find``, ``GET /cards``, ``GET /card``, ``POST /card``,
``POST /card/withdraw`` (docs/protocol.md §7, §9). Schemas: :mod:`ioa_p2p.api.discovery`."""

from __future__ import annotations

import time

import trio

from ioa_p2p.api import routes as r
from ioa_p2p.api.codec import Empty
from ioa_p2p.api.discovery import (
    CardMatch,
    CardsReply,
    CardUpdate,
    FindReply,
    FindRequest,
    OwnCard,
    PublishedCard,
    Withdrawal,
    WithdrawRequest,
)
from ioa_p2p.errors import ConfigError, IoATimeout, UsageError
from ioa_p2p.identity import PeerId
from ioa_p2p.node.control.server import CallInfo, ControlAPI
from ioa_p2p.node.discovery.service import Discovery
from ioa_p2p.node.discovery.views import cards_view, match_json
from ioa_p2p.node.discovery.views import status as discovery_status

#: Seconds ``GET /card`` waits for the first card (issued in the background while the models load).
CARD_WAIT = 30.0


def add_discovery_routes(control: ControlAPI, me: PeerId, service: Discovery) -> None:
    async def post_find(request: FindRequest, call: CallInfo) -> FindReply:
        started = time.monotonic()
        matches = await service.find(request.text, request.k, use_dht=request.dht)
        return FindReply(
            query=request.text,
            k=request.k,
            model=service.embedder.model_id,
            took_ms=round((time.monotonic() - started) * 1000, 1),
            results=tuple(CardMatch.from_json(match_json(service, m)) for m in matches),
        )

    async def get_cards(request: Empty, call: CallInfo) -> CardsReply:
        return CardsReply.from_json(cards_view(service))

    async def get_card(request: Empty, call: CallInfo) -> OwnCard:
        with trio.move_on_after(CARD_WAIT):  # the first card is issued in the background at start
            await service.card_ready.wait()
            await service.wait_card_current()
        if service.card is None:
            raise IoATimeout(f"this node has issued no card yet (waited {CARD_WAIT:.0f} s); try again")
        withdrawn = None if service.withdrawal is None else service.withdrawal.summary()
        return OwnCard.from_json(
            {**service.card.summary(), "withdrawn": withdrawn, "status": discovery_status(service)}
        )

    async def post_card(request: CardUpdate, call: CallInfo) -> PublishedCard:
        try:
            agent = service.agent.with_changes(request.changes(), me)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
        card = await service.set_agent(agent)
        return PublishedCard.from_json(card.summary())

    async def post_withdraw(request: WithdrawRequest, call: CallInfo) -> Withdrawal:
        with trio.move_on_after(CARD_WAIT):
            await service.card_ready.wait()
        withdrawal = await service.withdraw(request.reason)
        return Withdrawal.from_json(withdrawal.summary())

    control.add_route(r.FIND, post_find)
    control.add_route(r.CARDS, get_cards)
    control.add_route(r.CARD, get_card)
    control.add_route(r.UPDATE_CARD, post_card)
    control.add_route(r.WITHDRAW_CARD, post_withdraw)


__all__ = ["add_discovery_routes"]
