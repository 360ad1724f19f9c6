"""ioa_p2p.node: the running peer (installed from the top-level ``node/`` folder).

- ``lifecycle.py``  :func:`open_node`: host, DHT, bootstrap, services, control API, opened in order
- ``node.py``       :class:`Node`: what services see of the running peer (clock, threads, streams)
- ``services.py``   :class:`NodeServices`, :func:`open_services`: the services composed explicitly, in order
- ``agents/``       several agents in one process: ``[[agents]]``, :func:`open_agents` over ``open_node``
- ``config_check.py`` the tables of ``config.toml``: the template ``ioa init`` writes, ``ioa config check``
- ``ports.py``      the ``typing.Protocol`` ports services depend on (:class:`NodePort`, ``DiscoveryPort``)
- ``sqlite_files.py`` the services' local SQLite files (chats, inbox, replay guard): opened one way,
  their errors translated once
- ``net/``          everything that touches py-libp2p: host, framing, routing, Kademlia, gossip, relay
  transport, resource budgets, every py-libp2p patch
- ``control/``      the local HTTP/JSON control API and the routes about the node itself
- ``messaging/``    direct signed messages, ``/ioa/msg/1.0.0``
- ``relay/``        circuit relay v2: the ``relay`` service and the ``[relay]`` table
- ``chats/``        group chats: invitations, delivery, sync, the SQLite store
- ``discovery/``    capability discovery: the node's card in the DHT and by gossip, ``find``
- ``goals/``        goals: team formation, the conversation driver, tasks on the adapter
"""

from ioa_p2p.node.lifecycle import open_node
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.node.node import Node

__all__ = ["FramedStream", "Node", "open_node"]
