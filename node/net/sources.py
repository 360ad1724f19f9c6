"""Which source network a DHT request came from (per-source rate limits: ``ioa_p2p.dht.admission``).

The Kademlia handler of each inbound stream runs in its own trio task (``node/net/kad_slots.py``), and
the library's handler stores provider records and values from inside it. :func:`serving_from` marks the
task with the stream's source network (:func:`~ioa_p2p.dht.admission.source_of`: the relay of a
relayed connection, else the /24 or /48 of a public remote address, None for a local or private one);
:func:`current_source` reads it where a record is admitted
(:attr:`~ioa_p2p.dht.admission.CardAdmission.source`). For gossip, :func:`peer_source` is the
forwarder's connection: the topic validator checks the share of new identities of that source there (the
first hop, :meth:`~ioa_p2p.dht.admission.CardAdmission.admit_first_hop`), notes it in :class:`ArrivedVia`,
and the delivery sets it again (:func:`~ioa_p2p.dht.admission.observed_from`) for the other limits and the
arrival record.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import Any

from ioa_p2p.dht.admission import source_of

_SOURCE: contextvars.ContextVar[str | None] = contextvars.ContextVar("ioa_dht_source", default=None)


def stream_source(stream: Any) -> str | None:
    """The source network of ``stream``'s connection (None when it cannot be told: no group)."""
    try:
        return conn_source(stream.muxed_conn)
    except Exception:  # a stream closing under us: no group, the other limits still hold
        return None


def peer_source(host: Any, peer: Any, *, local: bool = False) -> str | None:
    """The source network of our (first) connection to ``peer``: a gossip forwarder (None: no
    connection, or one that cannot be told). ``local``: a host with an address that is not public is a
    source of its own (``[discovery] local_sources``)."""
    ip, relay = peer_origin(host, peer)
    return source_of(ip, relay, local=local)


def peer_origin(host: Any, peer: Any) -> tuple[str | None, str | None]:
    """(remote IP, relay peer ID) of our (first) connection to ``peer`` ((None, None): not connected)."""
    try:
        conns = host.get_network().get_connections(peer)
        return conn_origin(conns[0].muxed_conn) if conns else (None, None)
    except Exception:  # a connection closing under us: no group, the other limits still hold
        return None, None


def conn_source(conn: Any) -> str | None:
    """The source network of the muxed connection ``conn``."""
    ip, relay = conn_origin(conn)
    return source_of(ip, relay)


def conn_origin(conn: Any) -> tuple[str | None, str | None]:
    """(remote IP, relay peer ID) of the muxed connection ``conn``: the relay when it is relayed."""
    try:
        addrs = [str(a) for a in conn.get_transport_addresses() or []]
        remote = conn.get_remote_address()
    except Exception:  # a connection closing under us: no group, the other limits still hold
        return None, None
    for addr in addrs:
        parts = addr.split("/")
        if "p2p-circuit" in parts:
            at = parts.index("p2p-circuit")
            return None, (parts[at - 1] if at >= 2 and parts[at - 2] == "p2p" else "?")
    return (str(remote[0]) if remote else None), None


class ArrivedVia:
    """The observed source of the last ``limit`` messages the topic validator saw, by message key, until
    the delivery takes it (bounded: the oldest is forgotten; a forgotten one is delivered unobserved)."""

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        self._via: OrderedDict[Hashable, str | None] = OrderedDict()

    def note(self, key: Hashable, source: str | None) -> None:
        self._via[key] = source
        self._via.move_to_end(key)
        while len(self._via) > self.limit:
            self._via.popitem(last=False)

    def take(self, key: Hashable) -> str | None:
        return self._via.pop(key, None)


@contextlib.contextmanager
def serving_from(stream: Any) -> Iterator[None]:
    """Within the block (one stream's handler task), :func:`current_source` is ``stream``'s source."""
    token = _SOURCE.set(stream_source(stream))
    try:
        yield
    finally:
        _SOURCE.reset(token)


def current_source() -> str | None:
    """The source network of the DHT request being handled in this task (None outside a handler)."""
    return _SOURCE.get()


__all__ = [
    "ArrivedVia",
    "conn_origin",
    "conn_source",
    "peer_origin",
    "current_source",
    "peer_source",
    "serving_from",
    "stream_source",
]
