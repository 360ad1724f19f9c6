"""A chat's messages as a live, resumable stream (``GET /chats/events``; docs/protocol.md §7.3).

The stream gives every message of the chat in the order this node accepted them (a causal order: a
message is accepted only after its parents; the store keeps that order, so it survives a restart), then
each new one as it is accepted, each as a ``chat_message`` event with its ``index`` (1, 2, ...) and the
verdict of its signature, checked again when served. A logged message's cursor is ``<epoch>.<index>``:
``epoch`` is drawn when the node starts, so a cursor of an earlier run of the node gets a ``reset`` event
and the chat from its start (the client drops what it showed) instead of messages that may be another
order. A heartbeat follows every :data:`HEARTBEAT` seconds of silence; the stream ends when the client
goes away (the control server notices) or the node stops. At most :data:`MAX_STREAMS` chat streams are
served at once (the oldest is ended for a new one), so open browser tabs cannot pile up.
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import TYPE_CHECKING, Literal

import trio

from ioa_p2p.api.chats import ChatMessageEvent, ChatMessageView
from ioa_p2p.api.events import Event, HeartbeatEvent, ResetEvent
from ioa_p2p.api.stream import SSE_HEARTBEAT, Cursor, ndjson_line, sse_frame
from ioa_p2p.errors import SignatureError, UsageError
from ioa_p2p.history.dag import Entry
from ioa_p2p.wire.envelope import Envelope

if TYPE_CHECKING:
    from ioa_p2p.node.chats.service import Chats
    from ioa_p2p.node.ports import NodePort

HEARTBEAT = 10.0
MAX_STREAMS = 32
#: Messages verified inline; a larger batch goes to a worker thread.
INLINE_VERIFY = 64
#: Messages sent per batch (a client that joins a long chat gets it in pieces, the newest not held up).
BATCH = 256


def signature_of(env: Envelope) -> Literal["valid", "invalid"]:
    try:
        env.verify()
    except SignatureError:
        return "invalid"
    return "valid"


def _grown(chats: Chats, chat_id: bytes, held: int, token: _Token) -> bool:
    return token.ended or len(chats.get(chat_id)) > held


class _Token:
    """One open stream; ``ended`` once a newer stream took its place."""

    __slots__ = ("ended",)

    def __init__(self) -> None:
        self.ended = False


class ChatStreams:
    """The chat streams of one node (bounded: :data:`MAX_STREAMS`)."""

    def __init__(self, node: NodePort, chats: Chats, view: Callable[[Envelope], ChatMessageView]) -> None:
        self.node = node
        self.chats = chats
        self.view = view
        self.epoch = secrets.token_hex(8)
        self.live: deque[_Token] = deque()

    def open(self, chat_id: bytes, after: str | None, *, sse: bool) -> AsyncIterator[bytes]:
        """The stream of ``chat_id`` after cursor ``after`` (None: from the start). A cursor of this
        epoch past the chat's last message is a UsageError (before the stream starts)."""
        start, first = 0, None
        if after is not None:
            cursor = Cursor.parse(after)
            if cursor.epoch and cursor.epoch != self.epoch:
                first = ResetEvent(self.epoch)
            else:
                start = cursor.seq
                held = len(self.chats.get(chat_id))
                if start > held:
                    raise UsageError(f"cursor {after} is past the chat's last message ({held} held)")
        return self._stream(chat_id, start, first, sse)

    async def _stream(
        self, chat_id: bytes, start: int, first: Event | None, sse: bool
    ) -> AsyncIterator[bytes]:
        token = _Token()
        self.live.append(token)
        while len(self.live) > MAX_STREAMS:
            self.live.popleft().ended = True
            self.chats.notify()  # wake the evicted stream: it ends
        try:
            if first is not None:
                yield self._frame(first, None, sse)
            index = start
            hex_id = chat_id.hex()
            while not token.ended:
                entries = self.chats.get(chat_id).arrived(index)[:BATCH]
                if entries:
                    verdicts = await self._verify(entries)
                    for entry, verdict in zip(entries, verdicts, strict=True):
                        index += 1
                        view = self.view(entry.env)
                        yield self._frame(ChatMessageEvent(hex_id, index, verdict, view), index, sse)
                    continue
                with trio.move_on_after(HEARTBEAT) as quiet:
                    await self.chats.wait_until(partial(_grown, self.chats, chat_id, index, token))
                if quiet.cancelled_caught:
                    yield SSE_HEARTBEAT if sse else ndjson_line(HeartbeatEvent())
        finally:
            if token in self.live:
                self.live.remove(token)

    async def _verify(self, entries: list[Entry]) -> list[Literal["valid", "invalid"]]:
        envs = [e.env for e in entries]
        if len(envs) <= INLINE_VERIFY:
            return [signature_of(env) for env in envs]
        return await self.node.run_sync(lambda: [signature_of(env) for env in envs])

    def _frame(self, event: Event, index: int | None, sse: bool) -> bytes:
        if not sse:
            return ndjson_line(event)
        return sse_frame(event, Cursor(self.epoch, index) if index is not None else None)


__all__ = ["HEARTBEAT", "MAX_STREAMS", "ChatStreams", "signature_of"]
