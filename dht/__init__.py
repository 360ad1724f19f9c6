"""ioa_p2p.dht: capability discovery (agent cards, LSH buckets, a local index).

- ``lsh.py``         random-hyperplane LSH of card embeddings into DHT bucket keys (pure, spec'd)
- ``index.py``       vector indexes: exact numpy, annoy snapshot + exact delta with background rebuilds (pure)
- ``directory.py``   local directory of verified cards: newest version wins, expiry, similarity search (pure)
- ``validators.py``  validators of ``/ioa/card/<peer id>`` DHT records (duck-typed for py-libp2p) and of
  gossip announcements
- ``settings.py``    the ``[agent]`` and ``[discovery]`` config tables

The pure half of discovery: no network I/O and no libp2p import here. The running service (DHT I/O,
gossip, control routes) is :mod:`ioa_p2p.node.discovery`.

The card record itself is :mod:`ioa_p2p.card`; embeddings are :mod:`ioa_p2p.embedding`.
Wire formats: ``docs/protocol.md §9``.
"""
