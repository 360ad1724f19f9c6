"""Shared helpers for tests that run in-process nodes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

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
