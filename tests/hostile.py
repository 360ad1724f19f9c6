"""A node under attack, watched: it runs in its own task, so a test can tell that it ended.

A node that dies of an exception inside py-libp2p does not always raise: the host's service cancels the
scopes around it and ``open_node`` may exit quietly, cancelling whatever block ran inside it. So the victim
runs in a task of its own and records how it ended, and :func:`watch_victim` fails the test when the
victim ended or when the test's own block never reached its end (:meth:`Watch.done`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
import varint

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import Node, open_node
from ioa_p2p.node.net.host import to_libp2p_id


@dataclass
class Watch:
    node: Node
    ended: trio.Event = field(default_factory=trio.Event)
    error: BaseException | None = None
    reached_end: bool = False

    def alive(self) -> bool:
        return not self.ended.is_set() and not self.node.nursery.cancel_scope.cancel_called

    def done(self) -> None:
        """Call as the last line of the test's block: proves the block was not cancelled."""
        assert self.alive(), f"the victim node ended: {repr(self.error)[:400]}"
        self.reached_end = True


@asynccontextmanager
async def watch_victim(
    home: Path, *, raw: dict[str, Any] | None = None, bootstrap: tuple[str, ...] = ()
) -> AsyncIterator[Watch]:
    """Run a full node (every service) in its own task; fail unless it outlives the block."""
    box: dict[str, Watch] = {}

    async def run(task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        config = NodeConfig(home=home, raw=raw or {}, bootstrap=bootstrap, bootstrap_backoff=0.2)
        ended = trio.Event()
        try:
            async with open_node(config, identity=Identity.generate(), write_info=False) as node:
                box["watch"] = Watch(node, ended)
                task_status.started(box["watch"])
                await trio.sleep_forever()
        except BaseException as exc:
            if "watch" in box:
                box["watch"].error = exc
            raise
        finally:
            ended.set()

    watch: Watch | None = None
    failure: BaseException | None = None
    try:
        async with trio.open_nursery() as nursery:
            watch = await nursery.start(run)
            yield watch
            nursery.cancel_scope.cancel()
    except BaseException as exc:
        failure = exc
        raise
    finally:
        # A failing assertion of the test speaks for itself; a block that just stopped (cancelled, or
        # leaving quietly) means the victim took it down.
        if watch is not None and not watch.reached_end and _only_cancelled(failure):
            ended = repr(watch.error)[:400]
            raise AssertionError(f"the test block did not finish: the victim node ended ({ended})")


def _only_cancelled(exc: BaseException | None) -> bool:
    if exc is None or isinstance(exc, trio.Cancelled):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return all(_only_cancelled(e) for e in exc.exceptions)
    return False


async def send_raw(attacker: Node, victim: Node, protocol: str, payload: bytes) -> bytes:
    """Open ``protocol`` from ``attacker`` to ``victim``, write ``payload``, read what comes within 1 s."""
    stream = await attacker.net.host.new_stream(to_libp2p_id(victim.peer_id), [protocol])
    try:
        await stream.write(payload)
        with trio.move_on_after(1.0):
            try:
                return bytes(await stream.read(65536) or b"")
            except Exception:
                return b""
        return b""
    finally:
        with suppress(Exception):
            await stream.reset()


def uvarint_frame(payload: bytes) -> bytes:
    return bytes(varint.encode(len(payload))) + payload


__all__ = ["Watch", "send_raw", "uvarint_frame", "watch_victim"]
