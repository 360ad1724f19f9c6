"""``async with open_chats(node, discovery) as chats:``: the chat service with its store, stream handlers,
control routes, deliveries and sync loops, until the block exits."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import trio

from ioa_p2p.node.chats.admission import POLICY_KNOWN, POLICY_OPEN
from ioa_p2p.node.chats.config import ChatsConfig
from ioa_p2p.node.chats.delivery import PROTO_DELIVER
from ioa_p2p.node.chats.invites import PROTO_INVITE
from ioa_p2p.node.chats.routes import add_routes
from ioa_p2p.node.chats.service import Chats
from ioa_p2p.node.chats.store import ChatStore
from ioa_p2p.node.chats.sync import PROTO_SYNC
from ioa_p2p.node.ports import DiscoveryPort, NodePort, open_local_state


@asynccontextmanager
async def open_chats(
    node: NodePort, discovery: Callable[[], DiscoveryPort | None] = lambda: None
) -> AsyncIterator[Chats]:
    """The chat service: store, handlers, routes, deliveries, sync loops (until the node stops)."""
    config = ChatsConfig.from_section(node.config.section("chats"))
    runs_code = _adapter_executes_code(node.config.section("agent").get("adapter"))
    # co-hosted agents open it in a worker thread: the others of the process keep using the loop
    store = await open_local_state(node, lambda: ChatStore.open(node.home, fsync=config.fsync))
    try:
        async with trio.open_nursery() as nursery:
            policy = POLICY_KNOWN if runs_code else POLICY_OPEN
            chats = Chats(
                node,
                store,
                config,
                nursery,
                default_invite_policy=policy,
                discovery=discovery,
                clock=node.now,
            )
            chats.load()
            node.set_stream_handler(PROTO_INVITE, chats.invites.handle_invite)
            node.set_stream_handler(PROTO_DELIVER, chats.delivery.handle_deliver)
            node.set_stream_handler(PROTO_SYNC, chats.sync.handle_sync)
            add_routes(node, chats)
            nursery.start_soon(chats.resume)
            nursery.start_soon(chats.sync.run_periodic_sync)
            nursery.start_soon(chats.sync.run_connection_watch)
            nursery.start_soon(_expire_idle_invitations, chats)
            try:
                yield chats
            finally:
                nursery.cancel_scope.cancel()
    finally:
        store.close()


#: Seconds between checks for invited chats that never got a message (``invite_idle_expiry``).
EXPIRY_CHECK = 60.0


async def _expire_idle_invitations(chats: Chats) -> None:
    while True:
        await trio.sleep(EXPIRY_CHECK)
        chats.expire_idle_invitations()


def _adapter_executes_code(kind: object) -> bool:
    """Whether the node's adapter executes code it is given; a node without an adapter (a bootstrap node)
    does not import the adapters' registry at all (docs/performance.md, "Light nodes")."""
    if kind is None:
        return False
    from ioa_p2p.adapters.registry import adapter_executes_code

    return adapter_executes_code(kind)


__all__ = ["open_chats"]
