"""ioa_p2p.node.chats: group chats over direct Noise streams (docs/protocol.md §10).

- ``service.py``    :class:`Chats`: every chat's history and status, the rules applied to a received
  message, the application API (``create_chat``, ``post``, ``subscribe``...)
- ``run.py``        :func:`open_chats`: store, stream handlers, routes, background loops
- ``ports.py``      what the protocols below see of the service and of each other (``typing.Protocol``)
- ``config.py``     the ``[chats]`` table
- ``store.py``      :class:`ChatStore`: SQLite (WAL), persist before ack, durable outbox, partners,
  quarantine
- ``schema.py``     the store's tables, their migrations, the rows read from them; sqlite3 errors as ours
- ``loading.py``    stored chats loaded when first used; undecodable rows quarantined; listing views;
  idle invitations expired
- ``partners.py``   :class:`Partners`: the peers this node worked with (trusted by its budgets)
- ``subscribers.py`` who hears of accepted messages and joined chats; waiting for a change
- ``streams.py``    bounded sends, opens and waits shared by the chat protocols; ``chat.ack`` frames
- ``invites.py``    invitations, ``/ioa/chat/invite/1.0.0`` (a new chat's invitees answer in its
  :class:`ChatHandle`), and the application's invitation policy
- ``admission.py``  who may invite this node: policy, rate limits, budgets
- ``verify.py``     checking an invitation's ``added_by`` against the inviter's history
- ``delivery.py``   delivery, ``/ioa/chat/deliver/1.0.0``: outbox workers, retries with backoff, acks
- ``sync.py``       sync, ``/ioa/chat/sync/1.0.0``: pulls, answers, periodic and on-connect triggers
- ``pacing.py``     :class:`PullPacer`: back-off per unreachable member, a pace for all pulls
- ``routes.py``     control routes ``/chats...`` and the JSON view of a chat message
"""

from ioa_p2p.node.chats.config import ChatsConfig
from ioa_p2p.node.chats.delivery import PROTO_DELIVER
from ioa_p2p.node.chats.invites import PROTO_INVITE, InvitePolicy, accept_all
from ioa_p2p.node.chats.routes import message_view
from ioa_p2p.node.chats.run import open_chats
from ioa_p2p.node.chats.service import ChatHandle, Chats
from ioa_p2p.node.chats.sync import PROTO_SYNC

__all__ = [
    "PROTO_DELIVER",
    "PROTO_INVITE",
    "PROTO_SYNC",
    "ChatHandle",
    "Chats",
    "ChatsConfig",
    "InvitePolicy",
    "accept_all",
    "message_view",
    "open_chats",
]
