"""The routing table's stale contacts on py-libp2p: connections the remote ended, requests that failed.

The rule is :mod:`ioa_p2p.dht.contacts` (pure; the simulator applies the same one); this module feeds it
from the node's connections and lookups and acts on py-libp2p's ``RoutingTable``:

- :func:`watch_stale_contacts` (once per node, when its DHT exists): a connection whose end
  :mod:`~ioa_p2p.node.net.conn_events` gives to the **remote** (:func:`ended_by_remote`: ``remote
  closed``, ``remote closed mid-frame``, ``remote GO_AWAY ...``, ``read error ...``: its end of stream, a
  reset, its GO_AWAY) and after which no live connection to that peer is left is a failure of the
  contact. The node's **own** closes (``local: ...``: shutting down, its connection limits, a write it
  gave up) are none, nor are the ends that say the peer was there (``short reads``, ``frame body
  timeout``, a protocol error). A connection that opens is a sign of life. The table's
  ``find_local_closest_peers`` (what py-libp2p's handler answers ``FIND_NODE``, ``GET_VALUE`` and
  ``GET_PROVIDERS`` with, and what peer discovery dials from) leaves stale contacts out;
- :func:`note_failure` / :func:`note_heard`: the lookup driver (:mod:`~ioa_p2p.node.net.kad_io`) reports a
  request that failed without a connection (the dial failed) and every answer;
- a stale contact moves to the least recently seen end of its bucket (the one py-libp2p's full-bucket
  rule pings and replaces first); at its second failure it leaves the table;
- :func:`sweep_stale_contacts` (in the network's nursery): every :data:`SWEEP` s, without I/O, evicts the
  stale contacts whose grace ran out and that still have no connection.

A stale contact is also suspected by the node's lookups (asked without being waited for):
``kad_io.run_lookup`` asks :func:`contacts_of`.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import trio
from libp2p.peer.id import ID

from ioa_p2p.dht.contacts import EVICT, StaleContacts
from ioa_p2p.node.net.libp2p_patches import live_connections

log = logging.getLogger("ioa_p2p.node.net.stale_contacts")

#: Seconds between two sweeps of the stale contacts whose grace ran out.
SWEEP = 5.0
#: Reasons of :mod:`~ioa_p2p.node.net.conn_events` that put a connection's end on the remote.
REMOTE_ENDS = ("remote closed", "remote GO_AWAY", "read error")


def ended_by_remote(reason: str) -> bool:
    """Whether a connection that ended for ``reason`` (a :mod:`.conn_events` reason) was ended by the
    remote: its end of stream, a reset, its GO_AWAY; never one of ours (``local: ...``)."""
    return reason.startswith(REMOTE_ENDS)


def contacts_of(dht: Any) -> StaleContacts[bytes]:
    """The stale contacts of ``dht``'s routing table (kept on the DHT object: one per node)."""
    contacts = getattr(dht, "_ioa_stale_contacts", None)
    if not isinstance(contacts, StaleContacts):
        contacts = StaleContacts[bytes]()
        with contextlib.suppress(AttributeError):
            dht._ioa_stale_contacts = contacts
    return contacts


def note_failure(dht: Any, peer: ID, now: float) -> bool:
    """A failure of the contact ``peer``: evicted at its second (True), else stale and demoted."""
    table = dht.routing_table
    if contacts_of(dht).failed(peer.to_bytes(), now) == EVICT:
        with contextlib.suppress(Exception):  # a table without the peer (or a test's) has nothing to drop
            return bool(table.remove_peer(peer))
        return False
    _demote(table, peer)
    return False


def note_heard(dht: Any, peer: ID) -> None:
    """A sign of life from ``peer``: no longer stale."""
    contacts_of(dht).heard(peer.to_bytes())


def _demote(table: Any, peer: ID) -> None:
    """Make ``peer`` the least recently seen of its bucket (py-libp2p keeps a bucket's peers in an
    ``OrderedDict``, least recently seen first)."""
    with contextlib.suppress(Exception):  # not in the table, or a table without buckets
        peers = table.find_bucket(peer).peers
        if peer in peers:
            peers.move_to_end(peer, last=False)


def watch_stale_contacts(dht: Any, events: Any) -> None:
    """Feed ``dht``'s stale contacts from ``events`` (the node's
    :class:`~ioa_p2p.node.net.conn_events.ConnectionEvents`) and leave them out of the table's closest
    peers (see the module docstring)."""
    host = dht.host

    def closed(session: Any, reason: str) -> None:
        peer = getattr(session, "peer_id", None)
        if peer is None or not ended_by_remote(reason):
            return
        if any(getattr(c, "muxed_conn", None) is not session for c in live_connections(host, peer)):
            return  # another connection to it is left: the peer is there
        note_failure(dht, peer, trio.current_time())

    def opened(peer: Any) -> None:
        note_heard(dht, peer)

    events.close_listeners.append(closed)
    events.open_listeners.append(opened)
    _leave_out_stale(dht.routing_table, contacts_of(dht))


def _leave_out_stale(table: Any, contacts: StaleContacts[bytes]) -> None:
    upstream = table.find_local_closest_peers
    if getattr(upstream, "ioa_stale", False):
        return

    def closest(key: bytes, count: int = 20) -> list[ID]:
        stale = contacts.peers
        if not stale:
            return list(upstream(key, count))
        found = upstream(key, count + len(stale))
        return [p for p in found if p.to_bytes() not in stale][:count]

    closest.ioa_stale = True  # type: ignore[attr-defined]
    table.find_local_closest_peers = closest


async def sweep_stale_contacts(dht: Any, *, every: float = SWEEP) -> None:
    """Every ``every`` s, evict the stale contacts whose grace ran out and that have no connection."""
    contacts = contacts_of(dht)
    while True:
        await trio.sleep(every)
        for raw in contacts.due(trio.current_time()):
            peer = ID(raw)
            if not live_connections(dht.host, peer):
                with contextlib.suppress(Exception):
                    dht.routing_table.remove_peer(peer)
                    log.debug("stale contact %s left the routing table", peer)


__all__ = [
    "REMOTE_ENDS",
    "SWEEP",
    "contacts_of",
    "ended_by_remote",
    "note_failure",
    "note_heard",
    "sweep_stale_contacts",
    "watch_stale_contacts",
]
