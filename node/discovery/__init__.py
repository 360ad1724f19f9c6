"""ioa_p2p.node.discovery: the discovery service (cards in the DHT and by gossip; docs/protocol.md §9).

- ``service.py``  :class:`Discovery`: ``find``, gossip callbacks, DHT fetches
- ``own_card.py`` :class:`CardOwner` (Discovery's base): the node's own card, issued, withdrawn, announced
  and what it publishes in the DHT
- ``intake.py``   :class:`GossipIntake`: card announcements (topic validator, flood guard, rate limits)
- ``arrival_store.py`` the arrival record (when identities first arrived) kept across restarts in
  ``$IOA_HOME/arrivals.sqlite3``
- ``loops.py``    the background loops (republish, expiry, index rebuilds, announcements, catch-up, DHT
  publishing)
- ``search.py``   :class:`CardSearch`: DHT lookups of provider records and card fetches (owner first)
- ``pages.py``    bucket pages: our sketch published in them, and the find that searches them
- ``fetching.py`` the card fetch of that find: owners first with an adaptive wait, an early end a grace
  after the best answered
- ``prefetch.py`` card fetches started while the pages arrive, held unapplied until the find's choice
  (off by default: ``pages.PREFETCH``)
- ``census.py``   the census of a small network: its publishers asked of the DHT (on join, as the
  network grows, every 5 min), the cards the directory lacks fetched; ``Discovery.directory_complete``
- ``warm.py``     :func:`keep_matcher`: the matcher's models loaded when needed (``[discovery] warm``),
  arriving cards embedded in the background, the models unloaded when idle
- ``routes.py``   control routes ``/find``, ``/cards``, ``/card``
- ``views.py``    what the service shows: held cards, its status, a match as JSON
- ``run.py``      :func:`open_discovery`: builds the directory, gossip and loops, registers the routes

The pure parts (LSH, index, directory, record validators, settings, when to announce and re-publish:
:mod:`~ioa_p2p.dht.pacing`) are :mod:`ioa_p2p.dht`.
"""

from typing import TYPE_CHECKING, Any

from ioa_p2p.node.discovery.run import open_discovery

if TYPE_CHECKING:
    from ioa_p2p.node.discovery.service import Discovery


def __getattr__(name: str) -> Any:
    """``Discovery``, imported on first use: the service's module loads the matcher's modules, which a node
    without discovery (a bootstrap node) never needs (docs/performance.md, "Light nodes")."""
    if name == "Discovery":
        from ioa_p2p.node.discovery.service import Discovery

        return Discovery
    raise AttributeError(f"module 'ioa_p2p.node.discovery' has no attribute {name!r}")


__all__ = ["Discovery", "open_discovery"]
