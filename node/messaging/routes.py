"""Control routes of direct messages: ``POST /send`` (answered once the peer acknowledged the message) and
``GET /inbox`` (the last received messages, oldest first). Schemas: :mod:`ioa_p2p.api.peers`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from ioa_p2p.api import routes as r
from ioa_p2p.api.codec import Empty, JsonObject, json_value
from ioa_p2p.api.peers import InboxMessage, SendReply, SendRequest
from ioa_p2p.identity import PeerId
from ioa_p2p.node.control.server import CallInfo
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.text import Text

if TYPE_CHECKING:
    from ioa_p2p.node.ports import NodePort


class MessagingPort(Protocol):
    """What the routes use of :class:`~ioa_p2p.node.messaging.Messaging`."""

    @property
    def inbox(self) -> Iterable[Envelope]: ...
    async def send_text(self, peer: PeerId, text: str, data: JsonObject | None = None) -> bytes: ...


def inbox_message(env: Envelope) -> InboxMessage:
    """A received direct message as the control API shows it."""
    body = env.body
    text = body.text if isinstance(body, Text) else None
    data = json_value(body.data) if isinstance(body, Text) else None
    return InboxMessage(str(env.author), env.hash.hex(), env.seq, env.ts, text, data)


def add_messaging_routes(node: NodePort, messaging: MessagingPort) -> None:
    async def post_send(request: SendRequest, call: CallInfo) -> SendReply:
        digest = await messaging.send_text(PeerId.from_string(request.peer), request.text, request.data)
        return SendReply(digest.hex(), True)

    async def get_inbox(request: Empty, call: CallInfo) -> tuple[InboxMessage, ...]:
        return tuple(inbox_message(env) for env in messaging.inbox)

    node.control.add_route(r.SEND, post_send)
    node.control.add_route(r.INBOX, get_inbox)


__all__ = ["MessagingPort", "add_messaging_routes", "inbox_message"]
