"""ioa_p2p.dht: capability discovery (agent cards, LSH buckets, a local index).

- ``lsh.py``         random-hyperplane LSH of card embeddings into DHT bucket keys, version 1 (pure, spec'd)
- ``forest.py``      LSH version 2: bucket keys at several resolutions (prefix levels 4, 8, 12; spec'd)
- ``probing.py``     which buckets a find asks for at a given network size, which providers it fetches first
- ``pages.py``       bucket pages: DHT records listing the signed sketches of a bucket's cards (keys, merge)
- ``expand.py``      the search over pages: seed with the query's buckets, expand the best candidates' own
  buckets, fetch only the best cards
- ``fetchchoice.py`` which candidates a page search fetches: the sketch-level spam defences (copies share a
  slot, supersets and cards that match everything rank lower, reputation)
- ``fetchevidence.py`` fetch slots for proven candidates (evidence that costs no fetch)
- ``arrival.py``     when identities first reached this node (by gossip), and which came in a flood of new
  ones: score a page search takes off their sketches before it fetches
- ``sketchscore.py`` how a page search scores sketches: the matcher's first stage on what a sketch carries
- ``rtt.py``         smoothed round trips and the wait they call for (owner-first card fetches; a lookup's
  hedges with the dial's reach wait; peers recently not reached)
- ``timing.py``      where a find's network time goes: its requests' timings per step, and their split
- ``keyspace.py``    Kademlia positions, XOR distance, the network size estimate
- ``netsize.py``     the node's stable size estimate: the routing table's draw pooled with its finished
  lookups' draws, damped so that a find's table count does not flip
- ``kbuckets.py``    py-libp2p's Kademlia routing table as a pure data structure (for the simulator)
- ``lookup.py``      batched iterative Kademlia lookup, a state machine (node.net or a simulator drives it)
- ``provide.py``     pacing of ADD_PROVIDER per target peer (py-libp2p's 10 per 10 s limit)
- ``quorum.py``      when a round of DHT stores is done: a quorum of each key's targets, then a grace
- ``early.py``       stores sent while the lookup runs, to the candidates surely among a key's closest
- ``pacing.py``      when discovery re-announces its card by gossip and re-publishes it in the DHT
- ``refresh.py``     when a node looks up peers, and which peers it stays connected to
- ``contacts.py``    routing-table contacts that failed (the remote ended their connection, a dial failed):
  hidden, then evicted at a second failure or after a grace (pure)
- ``rejoin.py``      how a joining node retries its bootstrap peers: jittered back-off, patience before a
  warning, longer waits once it knows other peers
- ``index.py``       vector indexes: exact numpy, annoy snapshot + exact delta with background rebuilds (pure)
- ``relaycap.py``    past ``[discovery] relay_all`` the card topic carries only new and changed cards and
  withdrawals: which announcements a relay forwards, which versions an owner announces, which held cards
  revalidation still fetches
- ``directory.py``   local directory of verified cards: newest version wins, expiry, similarity search (pure)
- ``catchup.py``    when the discovery catch-up asks again for a card it could not get (doubling retries)
- ``census.py``      when a small network's publishers are asked of the DHT, and whether the directory then
  provably lists every card (a find may skip the DHT)
- ``validators.py``  validators of ``/ioa/card/<peer id>`` DHT records (duck-typed for py-libp2p) and of
  gossip announcements
- ``settings.py``    the ``[agent]`` and ``[discovery]`` config tables
- ``sim/``           a discrete-event simulator of discovery at 1,000-10,000 nodes driving the modules above

The pure half of discovery: no network I/O and no libp2p import here. The running service (DHT I/O,
gossip, control routes) is :mod:`ioa_p2p.node.discovery`.

The card record itself is :mod:`ioa_p2p.card`; embeddings are :mod:`ioa_p2p.embedding`.
Wire formats: ``docs/protocol.md §9``.
"""
