"""ioa_p2p.node.messaging: direct signed messages between two peers, protocol ``/ioa/msg/1.0.0``.

- ``service.py``  :class:`Messaging`: send (acknowledged), receive, inbox
- ``inbox.py``    :class:`Inbox`: the last 1000 accepted messages, on disk before the acknowledgement
- ``routes.py``   control routes ``POST /send`` and ``GET /inbox``
- ``replay.py``   :class:`ReplayGuard`: per-author sequence numbers, persisted before the acknowledgement
"""

from ioa_p2p.node.messaging.inbox import Inbox
from ioa_p2p.node.messaging.replay import ReplayGuard
from ioa_p2p.node.messaging.service import PROTOCOL_ID, Messaging, open_messaging

__all__ = ["PROTOCOL_ID", "Inbox", "Messaging", "ReplayGuard", "open_messaging"]
