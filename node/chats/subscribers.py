"""Who hears of what the chat service accepts: each chat's message subscribers, the subscribers to chats
joined, and the waiters for any change (:meth:`Subscribers.wait_until`).

A message subscriber gets every message of its chat after its parents (causal order), a join subscriber
the ID of each chat this node joins, as soon as the chat exists locally. Their channels are unbounded
(what they carry is already bounded by the chat's own limits): subscribers drain them.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager

import trio

from ioa_p2p.history.dag import Entry
from ioa_p2p.wire.envelope import Envelope


class Subscribers:
    """The subscribers and change waiters of one chat service."""

    def __init__(self) -> None:
        self._messages: dict[bytes, list[trio.MemorySendChannel[Envelope]]] = {}
        self._joins: list[trio.MemorySendChannel[bytes]] = []
        self._changed = trio.Event()

    @asynccontextmanager
    async def messages(
        self, chat_id: bytes, backlog: Iterable[Envelope] = ()
    ) -> AsyncIterator[trio.MemoryReceiveChannel[Envelope]]:
        """A channel of the chat's ``backlog``, then of each message published from now on."""
        send, receive = trio.open_memory_channel[Envelope](math.inf)
        for env in backlog:
            send.send_nowait(env)
        self._messages.setdefault(chat_id, []).append(send)
        try:
            yield receive
        finally:
            self._messages[chat_id].remove(send)
            send.close()

    @asynccontextmanager
    async def joins(self) -> AsyncIterator[trio.MemoryReceiveChannel[bytes]]:
        """A channel of the IDs of the chats this node joins from now on."""
        send, receive = trio.open_memory_channel[bytes](math.inf)
        self._joins.append(send)
        try:
            yield receive
        finally:
            self._joins.remove(send)
            send.close()

    def watched(self, chat_id: bytes) -> bool:
        """Somebody subscribes to the chat's messages."""
        return bool(self._messages.get(chat_id))

    def publish(self, entries: Iterable[Entry]) -> None:
        """Send each accepted message to its chat's subscribers; wake the change waiters."""
        for entry in entries:
            for send in self._messages.get(entry.msg.chat_id, ()):
                send.send_nowait(entry.env)
        self.notify()

    def joined(self, chat_id: bytes) -> None:
        """Tell the join subscribers this node joined ``chat_id``."""
        for send in self._joins:
            send.send_nowait(chat_id)

    async def wait_until(self, predicate: Callable[[], bool]) -> None:
        """Wait until ``predicate()`` holds, re-checked after every change (callers bound the wait)."""
        while not predicate():
            await self._changed.wait()

    def notify(self) -> None:
        """Something changed: wake every waiter."""
        self._changed.set()
        self._changed = trio.Event()


__all__ = ["Subscribers"]
