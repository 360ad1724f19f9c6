"""Shared helpers for tests that run in-process nodes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import Node, open_node


@asynccontextmanager
async def checked_node(
    config: NodeConfig, identity: Identity | None = None, *, write_info: bool = False
) -> AsyncIterator[Node]:
    """``open_node`` that never loses the block's exception (a fresh identity when none is given).

    Workaround: leaving ``open_node`` can swallow an exception raised inside the block (py-libp2p's DHT
    service exit), which would let a failing assertion pass unnoticed."""
    failure: BaseException | None = None
    async with open_node(config, identity=identity or Identity.generate(), write_info=write_info) as node:
        try:
            yield node
        except BaseException as exc:
            failure = exc
            raise
    if failure is not None:
        raise failure


class NodeGroup:
    """In-process nodes that each run in their own task of one nursery, so a test can stop one (a crash
    or a restart) while the others run on: ``node = await group.start("a", config)``, ``await
    group.stop("a")``. Leaving :func:`node_group` stops the rest."""

    def __init__(self, nursery: Any) -> None:
        self.nursery = nursery
        self.nodes: dict[str, Node] = {}
        self._scopes: dict[str, Any] = {}

    async def start(self, name: str, config: NodeConfig, identity: Identity | None = None) -> Node:
        import trio

        identity = identity or Identity.generate()
        scope, done = trio.CancelScope(), trio.Event()
        self._scopes[name] = (scope, done)

        async def run(task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
            try:
                with scope:
                    async with open_node(
                        config, identity=identity, write_info=False, control_api=False
                    ) as node:
                        self.nodes[name] = node
                        task_status.started(node)
                        await trio.sleep_forever()
            finally:
                done.set()

        node: Node = await self.nursery.start(run)
        return node

    async def stop(self, name: str) -> None:
        """Stop the node ``name`` (its connections close, as when its process ends)."""
        self.nodes.pop(name, None)
        scope, done = self._scopes.pop(name)
        scope.cancel()
        await done.wait()


@asynccontextmanager
async def node_group() -> AsyncIterator[NodeGroup]:
    import trio

    async with trio.open_nursery() as nursery:
        group = NodeGroup(nursery)
        try:
            yield group
        finally:
            nursery.cancel_scope.cancel()
