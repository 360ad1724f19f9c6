"""ioa_p2p.node.discovery: the discovery service (cards in the DHT and by gossip; docs/protocol.md §9).

- ``service.py``  :class:`Discovery`: the node's own card, gossip checks, ``find``, DHT fetches
- ``loops.py``    the background loops (republish, expiry, index rebuilds, announcements, catch-up, DHT
  publishing)
- ``search.py``   :class:`CardSearch`: DHT lookups of provider records and card fetches (owner first)
- ``pages.py``    bucket pages: our sketch published in them, and the find that searches them
- ``warm.py``     :func:`warm_matcher`: the matcher's models loaded and arriving cards embedded in the
  background
- ``routes.py``   control routes ``/find``, ``/cards``, ``/card``
- ``views.py``    what the service shows: held cards, its status, a match as JSON
- ``run.py``      :func:`open_discovery`: builds the directory, gossip and loops, registers the routes

The pure parts (LSH, index, directory, record validators, settings, when to announce and re-publish:
:mod:`~ioa_p2p.dht.pacing`) are :mod:`ioa_p2p.dht`.
"""

from ioa_p2p.node.discovery.run import open_discovery
from ioa_p2p.node.discovery.service import Discovery

__all__ = ["Discovery", "open_discovery"]
