"""ioa_p2p.dht.sim: a discrete-event simulator of discovery at 1,000 to 10,000 nodes in one process.

It drives the project's own pure discovery code (the routing-table model :mod:`ioa_p2p.dht.kbuckets`, the
lookup state machine :mod:`ioa_p2p.dht.lookup`, LSH bucketing and probing, card validation and rate
limits, publish, refresh and announce pacing) over simulated links with latency, loss and churn, on a virtual
clock. No I/O and no wall clock: a run is reproducible from its seed. ``bench/bench_sim.py`` runs it.

- ``events.py``    the event loop (a heap of timestamped callbacks)
- ``links.py``     link model: latency, jitter, loss as TCP retransmissions, dial and request round trips
- ``peer.py``      one simulated node's state (routing table, stored records, connections, counters)
- ``cards.py``     agents' identities, embeddings and real signed cards
- ``corpus.py``    generated agents and queries; growing a real agent set to any size
- ``records.py``   card records verified once per distinct bytes (same outcome as parsing every time)
- ``fabric.py``    the ``Protocol`` of what the simulated protocols need of the network
- ``kad.py``       lookups driven over the network, and what a DHT server answers
- ``placing.py``   what a round of stores shares: its lookup, early stores, quorum and times
- ``publish.py``   putting a card record and providing its bucket keys
- ``search.py``    DHT-only capability search and card fetches (owner first, then the DHT)
- ``world.py``     the network: joining, peer discovery, churn
- ``measure.py``   lookup and traffic measurements
- ``cardflow.py``  publish, search and card spread measurements
- ``gossip.py``    the card topic: GossipSub's mesh, forwarding and IHAVE/IWANT, with the node's validator,
  rate limits, directory and announce pacing
- ``gossipflow.py`` gossip measurements: propagation time, messages per announcement, announcement rate
- ``revocation.py`` revocation measurements: withdrawals found in the DHT by revalidating holders, and at
  scale with gossip, the DHT and churn together
"""
