"""ioa_p2p.node.net: the node's libp2p layer, the only place that imports ``libp2p`` (and ``multiaddr``).

- ``network.py``         :class:`Libp2pNetwork` / ``open_network``: the host, what it advertises, the dial
  path, streams, connections and their kind (direct / relayed / punched); ``NodePort`` sees only this
- ``host.py``            the py-libp2p host: TCP, Noise only (Ed25519 peers), yamux; key and peer-ID
  conversion, multiaddr parsing (their errors translated into ours)
- ``deferred_imports.py`` py-libp2p's dependencies a node never uses (requests, httpx, dnspython's DNS over
  HTTPS) run only if something uses them; installed here, before anything imports ``libp2p``
- ``libp2p_patches.py``  every workaround for a py-libp2p 0.8.1 problem, each with a test that notices
  upstream
- ``peer_records.py``    patch 24: Kademlia's signed peer records verified once per peer and record
- ``idle_traffic.py``    patch 22: yamux window credit in halves of the window, not on every read
- ``atomic_writes.py``   patch 25: a secure (Noise) write is sent whole or not at all, whatever cancels its
  caller (a cancelled write used to desynchronise the session and drop the connection)
- ``whole_reads.py``     patch 26: a Noise message read in many pieces no longer ends its connection
  (upstream's ``read_exactly`` gave up after 100 short reads with the socket open)
- ``buffered_reads.py``  patch 31: a TCP read takes what the socket holds (one schedule point a chunk, not
  two per Noise message): under load a connection no longer falls behind its peer
- ``identify_retry.py``  patch 27: identify tried again (bounded, backing off) on a connection whose first
  identify failed (upstream tried once; the peer's protocols stayed unknown, GossipSub never registered it)
- ``frame_writes.py``    patch 28: a yamux frame goes out at once when the connection's write lock is free;
  the muxer's reader never waits behind the lock (its ACK / RST / PING answers are queued)
- ``stream_events.py``   patch 29: a stream's open and close tell the swarm's notifees in the caller's task
  (upstream ran a task per notifee for every stream event)
- ``inbound_slots.py``   patch 32: an inbound connection gives back its slot of the swarm's inbound cap (250)
  when it closes (upstream held it for the host's life: a node refused every inbound connection after
  250 in all)
- ``quick_locks.py``     patch 30: py-libp2p's per-connection and per-stream locks taken without a schedule
  point when free (every 64th free acquire still yields)
- ``arrivals.py``        connections as they open, numbered, for work a (re)connection starts (the chats'
  pulls and retries) without polling ``connected_peers``
- ``conn_events.py``     why connections open and close: counters per node by direction and reason, and
  the last closes with their details (``GET /net``'s ``connections``)
- ``stale_contacts.py``  routing-table contacts whose connection the remote ended or whose dial failed:
  demoted, left out of answers, suspected, evicted (the rule: ``dht/contacts.py``)
- ``addrs.py``           address scopes, wildcard expansion, what a node advertises and dials (pure)
- ``interfaces.py``      this machine's interface addresses (``ifaddr``), cached and refreshed
- ``dialer.py``          the one dial path: direct addresses first, then relays, one deadline, ``DialFailed``
- ``observed.py``        identify's observed addresses, confirmed by distinct observers (pure)
- ``reachability.py``    AutoNAT verdicts aggregated into public / private / unknown (pure)
- ``autonat.py``         AutoNAT v1: dial-back server on fresh connections, with limits; the client request
- ``nat.py``             :class:`NatState`: observations, AutoNAT rounds, the reachability and its effects
- ``relay.py``           circuit relay v2: STOP (accepting), reservations, dialing through a relay
- ``relay_limits.py``    the relay's ledger: reservations and circuits per peer, per IP, in total (pure)
- ``relay_hop.py``       our HOP server (relaying for others) enforcing those limits
- ``relay_net.py``       :class:`Libp2pRelayNet`: the relay service's ``RelayNetPort``
- ``punch.py``           hole punching (DCUtR): one initiator per pair, punched connections remembered,
  listen ports read from the listen addresses, LAN addresses offered peer to peer
- ``punch_budget.py``    when a peer may be hole punched again: bursts of 3, growing cooldowns (pure)
- ``stream_caps.py``     inbound streams capped per peer and by the node's budgets before negotiation
  (patch 10)
- ``source_dial.py``     TCP dials from the listen port (hole punching) that close their socket when cancelled
- ``mdns.py``            peers on the local network by multicast DNS (``[node] mdns``)
- ``framing.py``         length-prefixed frames over streams: buffered reader, size limit, whole-frame
  deadline, idle timeout, partial-frame budget; every stream exception translated once; a refusal sent
  just before an error's reset is delivered first (``linger``)
- ``budgets.py``         the node's resource budgets (``[limits]``) shared by the services, and how much
  the node trusts each peer (vouched for by the services)
- ``guard.py``           :func:`guard_host`: puts the budgets into the py-libp2p host (metered reads,
  metered connections, the CPU step timer)
- ``inbound_meter.py``   what py-libp2p reads on inbound streams (negotiation lines, its own protocols'
  messages) held in the partial-frame budget, with a whole-message deadline
- ``muxer_meter.py``     yamux stream buffers metered: receive window enforced, unread bytes budgeted,
  a reset stream's bytes dropped at once
- ``cohosted.py``        the agents of one process (``[[agents]]``): their connections to each other are the
  process's own work, not budgeted as a remote peer's; one view of the network's cards, one census, and
  their streams to each other in memory
- ``local_streams.py``   in-memory streams between the agents of one process (``Node.open_stream`` to a
  co-hosted agent): the same handlers and signed frames, no connection, no negotiation
- ``cpu_meter.py``       CPU time of the tasks serving a peer charged to it; pacing a peer that owes
- ``cpu_wait.py``        the time this process waited for a CPU (run queue), and deadlines that do not count
  it (invitations, stream opens: a busy machine is no reason to give up on a live peer)
- ``routing.py``         the node's Kademlia DHT instance, peer discovery (a joining node's first contact
  outside the lookup slots)
- ``bootstrap_keeper.py`` bootstrap dialing with jittered backoff, re-dialled when dropped, and what it
  says when none answers (after a patience for a busy bootstrap node)
- ``lazy_select.py``     outbound streams whose multistream-select negotiation rides with the first
  request (one round trip instead of three)
- ``sources.py``         the source network (/24, /48 or relay) of the DHT request being served: per-source
  rate limits
- ``kad_slots.py``       which inbound DHT streams are served: idle ones end, and make room for newcomers
  (patch 23)
- ``lookup_slots.py``    how many peer lookups the agents of a process run at once; a joining node's go
  first
- ``kad.py``             batched fresh Kademlia lookups over py-libp2p's KadDHT; serving the DHT on
  ``/ioa/kad/1.0.0`` with our record validators (re-exports the next two)
- ``kad_write.py``       puts, bucket-page puts and provider records at the closest peers of their keys
- ``store_round.py``     one round of those stores: its caller answered at the quorum (``nursery.start``),
  the round ended after the grace, or at every target for a tombstone
- ``kad_store.py``       what the DHT's stores accept: provider records within rate limits, pages merged
- ``gossip.py``          GossipSub card announcements (tuned heartbeat and limits, topic validator, drain
  task, registration and subscription upkeep)
- ``gossip_pacing.py``   when that upkeep acts: heartbeat pace, subscription re-sends, registration
  back-off (pure)
- ``gossip_carry.py``    a co-hosted agent's signed announcement forwarded through its process-mates' mesh
- ``gossip_mesh.py``     opportunistic grafting as GossipSub v1.1 specifies it (py-libp2p's grafted and
  pruned on every heartbeat)
- ``traffic.py``         the card topic's RPCs and the Kademlia requests counted by kind (``GET /card``)
- ``card_net.py``        :class:`Libp2pCardNet`: discovery's ``CardNetPort`` over ``kad.py`` and ``gossip.py``
"""

from ioa_p2p.node.net.deferred_imports import defer_unused_dependencies

defer_unused_dependencies()
