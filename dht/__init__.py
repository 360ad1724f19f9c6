"""ioa_p2p.dht: capability discovery (agent cards in the Kademlia DHT, by gossip, and a local index).

- ``lsh.py``         random-hyperplane LSH of card embeddings into DHT bucket keys (pure, spec'd)
- ``index.py``       vector indexes: exact numpy, annoy snapshot + exact delta with background rebuilds (pure)
- ``directory.py``   local directory of verified cards: newest version wins, expiry, similarity search (pure)
- ``validators.py``  DHT namespace validator for ``/ioa/card/<peer id>`` and gossip announcement checks
- ``settings.py``    the ``[agent]`` and ``[discovery]`` config tables
- ``kad.py``         thin layer over py-libp2p's KadDHT: /ioa/kad protocol, batched fresh lookups, put/provide
- ``gossip.py``      GossipSub card announcements (tuned heartbeat and limits, topic validator, drain task)
- ``service.py``     ``open_discovery(node)``: publishing, republishing, ``find``, control API routes

The card record itself is :mod:`ioa_p2p.card`; embeddings are :mod:`ioa_p2p.embedding`.
Wire formats: ``docs/protocol.md §9``.
"""
