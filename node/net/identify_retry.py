"""Patch 27: identify is tried again on a connection whose first identify failed.

py-libp2p 0.8.1 identifies a peer once per connection (``BasicHost._schedule_identify`` on the
connected notifee runs ``_identify_peer`` in a system task): when that one exchange fails (the stream
cannot be opened or negotiated in time, the answer is not read within 10 s, the stream is reset) it
logs at debug level and never tries again while the connection lasts. The peer's protocols then stay
unknown: GossipSub never registers the peer (it asks the peerstore whether the peer speaks pubsub),
the card catch-up and the DHT treat it as a stranger. Between node processes under load it is the
common case (issue 26, docs/performance.md "Streams between processes under load": 146-206 of 180-250
identifies failed between two groups of agents, and no card crossed).

:func:`retry_identify` wraps ``BasicHost._identify_peer``: after an attempt that left the peer
unidentified (neither upstream's ``_identified_peers`` nor the peerstore's cached protocols, which an
identify push also fills) while the connection is still open, it waits the next of
:data:`RETRY_DELAYS` and tries again; each attempt is bounded by :data:`ATTEMPT_BOUND`. It runs in
upstream's own identify task (its cancel scope ends it when the host closes), which keeps the peer in
``_identify_inflight`` meanwhile, so a new connection does not start a second one. The sentinel test
(``tests/test_identify_retry.py``) shows that a single attempt (upstream's) leaves a peer whose first
identify failed unidentified and that the patched host identifies it.
"""

from __future__ import annotations

import logging
from typing import Any

import trio

log = logging.getLogger("ioa_p2p.net")

#: Seconds waited before each further identify attempt on one connection (bounded: after the last,
#: the peer stays unidentified until an identify push or a new connection).
RETRY_DELAYS: tuple[float, ...] = (1.0, 3.0, 8.0, 20.0)
#: Seconds one identify attempt may take (upstream bounds its read by 10 s, the negotiation by its own).
ATTEMPT_BOUND = 30.0

#: Upstream's ``BasicHost._identify_peer`` (None before the patch).
_UPSTREAM: Any = None


def retry_identify() -> None:
    """Make ``BasicHost._identify_peer`` try again, bounded, after a failed attempt (idempotent)."""
    global _UPSTREAM
    from libp2p.host.basic_host import BasicHost

    upstream = getattr(BasicHost, "_identify_peer", None)
    for name in ("_has_cached_protocols", "_schedule_identify"):
        if not hasattr(BasicHost, name):
            raise RuntimeError(f"BasicHost has no {name} any more: revisit patch 27 (identify_retry)")
    if upstream is None:
        raise RuntimeError("BasicHost has no _identify_peer any more: revisit patch 27 (identify_retry)")
    if getattr(upstream, "ioa_retry", False):
        return
    _UPSTREAM = upstream

    async def identify_peer(self: Any, peer_id: Any, *, reason: str) -> None:
        delays = iter(RETRY_DELAYS)
        attempt = 0
        while True:
            attempt += 1
            with trio.move_on_after(ATTEMPT_BOUND):
                await upstream(self, peer_id, reason=reason if attempt == 1 else f"{reason}-retry{attempt}")
            if identified(self, peer_id) or not self._network.get_connections(peer_id):
                return
            delay = next(delays, None)
            if delay is None:
                log.debug("identify of %s failed %d times; giving up on this connection", peer_id, attempt)
                return
            await trio.sleep(delay)
            if identified(self, peer_id) or not self._network.get_connections(peer_id):
                return

    identify_peer.ioa_retry = True  # type: ignore[attr-defined]
    BasicHost._identify_peer = identify_peer  # type: ignore[method-assign]


def identified(host: Any, peer_id: Any) -> bool:
    """Whether ``host`` knows ``peer_id``'s protocols: its identify answered, or an identify push did."""
    return bool(host._has_cached_protocols(peer_id))


def upstream_identify_peer() -> Any:
    """Upstream's ``BasicHost._identify_peer`` (after :func:`retry_identify`; None before)."""
    return _UPSTREAM


__all__ = ["ATTEMPT_BOUND", "RETRY_DELAYS", "identified", "retry_identify", "upstream_identify_peer"]
