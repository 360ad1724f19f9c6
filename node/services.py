"""The node's services, composed explicitly: :class:`NodeServices` and :func:`open_services`.

Every service is an async context manager ``open_<name>(node, ...)`` that registers its stream handlers and
control routes, runs its tasks in a nursery it owns, and yields the service object. :func:`open_services`
opens them in dependency order and hands each one exactly the other services it uses (typed, no string
lookup): chats get a late-bound view of discovery (discovery starts after chats, so the invitation policy
``known`` asks it only when it runs), goals get chats and discovery. They exit in reverse order; each
field is reset to ``None`` just before its service closes.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from ioa_p2p.config.sections import parse_section
from ioa_p2p.node.chats import Chats, open_chats
from ioa_p2p.node.control.routes import open_budgets_api, open_peers_api
from ioa_p2p.node.discovery import open_discovery
from ioa_p2p.node.messaging import Messaging, open_messaging
from ioa_p2p.node.ports import CardNetPort, DiscoveryPort, NodePort, RelayNetPort
from ioa_p2p.node.relay import RelayService, open_relay

if TYPE_CHECKING:
    from ioa_p2p.node.discovery import Discovery
    from ioa_p2p.node.goals import Goals


@dataclass(frozen=True, slots=True)
class GoalsSwitch:
    """``[goals] enabled`` (the rest of the table is :class:`~ioa_p2p.node.goals.GoalsConfig`'s): false
    runs no goals service, so the node never imports the planner, the brains or the adapters (a bootstrap
    node: :func:`ioa_p2p.bootstrap.bootnode.bootstrap_config` sets it; docs/performance.md, "Light nodes")."""

    enabled: bool = True

    @classmethod
    def from_section(cls, table: object) -> GoalsSwitch:
        return parse_section(cls, table, "[goals]", ignore_unknown=True)


@dataclass(slots=True)
class NodeServices:
    """The services a node runs; a field is ``None`` while (or when) that service is not running."""

    messaging: Messaging | None = None
    relay: RelayService | None = None
    chats: Chats | None = None
    discovery: Discovery | None = None
    goals: Goals | None = None

    def names(self) -> list[str]:
        """The running services, by name (``node.json`` and ``GET /id`` list them)."""
        return sorted(f.name for f in fields(self) if getattr(self, f.name) is not None)


async def open_services(
    node: NodePort,
    stack: AsyncExitStack,
    services: NodeServices,
    *,
    card_net: CardNetPort,
    relay_net: RelayNetPort | None = None,
) -> None:
    """Open every service on ``stack`` (closed by the caller, in reverse order), filling ``services``.
    ``card_net`` is discovery's network (the node's DHT and card topic), ``relay_net`` the relay
    service's (None without libp2p: the in-memory network)."""
    await stack.enter_async_context(open_peers_api(node))
    await stack.enter_async_context(open_budgets_api(node))
    services.messaging = await stack.enter_async_context(open_messaging(node))
    stack.callback(_clear, services, "messaging")
    services.relay = await stack.enter_async_context(open_relay(node, relay_net))
    stack.callback(_clear, services, "relay")

    def current_discovery() -> DiscoveryPort | None:
        return services.discovery

    chats = services.chats = await stack.enter_async_context(open_chats(node, current_discovery))
    stack.callback(_clear, services, "chats")
    discovery = services.discovery = await stack.enter_async_context(open_discovery(node, card_net))
    stack.callback(_clear, services, "discovery")
    if not GoalsSwitch.from_section(node.config.section("goals")).enabled:
        return
    from ioa_p2p.node.goals import open_goals  # the planner, brains and adapters: only a node that runs goals

    services.goals = await stack.enter_async_context(open_goals(node, chats, discovery))
    stack.callback(_clear, services, "goals")


def _clear(services: NodeServices, name: str) -> None:
    setattr(services, name, None)


__all__ = ["GoalsSwitch", "NodeServices", "open_services"]
