"""ioa_p2p.node: the running peer (installed from the top-level ``node/`` folder).

- ``node.py``           :func:`open_node` and :class:`Node`: host, DHT, bootstrap, services, control API
- ``host.py``           the py-libp2p host: TCP, Noise only, yamux; key and peer-ID conversion
- ``libp2p_patches.py`` every workaround for a py-libp2p 0.8.1 problem, each with a test that notices upstream
- ``framing.py``        length-prefixed frames over streams: buffered reader, size limit, whole-frame
  deadline, idle timeout, partial-frame budget
- ``budgets.py``        the node's resource budgets (``[limits]``) shared by the services; ``/budgets``
- ``routing.py``        Kademlia DHT instance, bootstrap dialing with backoff, peer discovery
- ``control.py``        local HTTP/JSON control API (127.0.0.1, bearer token) served by hypercorn on trio
- ``peers_api.py``      control routes ``/id``, ``/peers``, ``/connect``
- ``goals.py``          the goals service (IoA conversations driven over chats); ``goal_driver.py`` one chat's
  driver; ``goal_routes.py`` control routes; ``goal_types.py`` results; ``goal_events.py`` live events
- ``team_formation.py`` discovery + team choice + invitations; ``agent_runtime.py`` runs tasks on the adapter
- ``messaging.py``      direct signed messages, protocol ``/ioa/msg/1.0.0``, control ``/send`` and ``/inbox``
- ``chat_invites.py``   chat invitations, protocol ``/ioa/chat/invite/1.0.0``, and the invitation policy
- ``chat_delivery.py``  chat delivery ``/ioa/chat/deliver/1.0.0``: outbox workers, retries with backoff, acks
- ``chat_sync.py``      chat sync ``/ioa/chat/sync/1.0.0``: pulls, answers, periodic and on-connect triggers
- ``chat_routes.py``    control routes ``/chats...`` and the JSON view of a chat message
- ``chat_streams.py``   bounded sends, opens and waits shared by the chat protocols; ``chat.ack`` frames
- ``chats.py``          the group-chat service; ``store.py`` its SQLite store (WAL, persist before ack)
"""

from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.node.node import Node, open_node

__all__ = ["FramedStream", "Node", "open_node"]
