"""Every workaround for a py-libp2p 0.8.1 problem, in one place.

Each patch names the problem, what we do, and how ``tests/test_libp2p_patches.py`` notices when upstream
changes make it unnecessary or wrong (those tests fail loudly rather than letting a stale patch linger).

1. Dial delay: every successful dial waited ``swarm._HAPPY_EYEBALLS_DELAY`` (250 ms) because the delay is
   not cut short after the primary dial succeeds. We set it to 0 (connect goes from ~250 ms to ~25 ms).
   The test checks the constant still exists with its upstream value before patching.
2. Plaintext by default: ``new_host()`` without ``sec_opt`` also accepts ``/plaintext/2.0.0`` (and secio),
   so a peer could claim any peer ID. We always pass a Noise-only ``sec_opt`` (:mod:`ioa_p2p.node.host`);
   the tests check that a plaintext dial to our node is refused and that upstream's default still offers
   plaintext.
3. Noisy loggers: py-libp2p sets up its own logger on import (no handler, no propagation, so Python's
   last-resort handler prints thousands of warnings on normal stream closes). :func:`apply_patches` re-applies
   our levels (:func:`ioa_p2p.logs.apply_third_party_levels`) after the import.
5. Kademlia protocol ID: ``KadDHT(protocol_prefix=...)`` is ignored; every Kademlia module imports the
   constant ``PROTOCOL_ID`` (``/ipfs/kad/1.0.0``), so an agent DHT would merge with the public IPFS DHT.
   :func:`use_ioa_kad_protocol` replaces that constant in each of those modules with
   :data:`IOA_KAD_PROTOCOL` (``/ioa/kad/1.0.0``, still standard Kademlia messages); :func:`apply_patches`
   runs it before any DHT is built. The test fails when a module's constant holds anything else.
4. Dial back-off: after a failed dial the swarm refuses to dial that peer again for 60 s. A restarted
   bootstrap or teammate would stay unreachable that long; :func:`unblock_peer` lifts the block before
   each deliberate dial (``Node.connect`` / ``connect_peer``).
"""

from __future__ import annotations

import logging
from typing import Any

import libp2p
import libp2p.network.swarm as _swarm

from ioa_p2p.logs import apply_third_party_levels

#: The py-libp2p version these patches were written against.
PATCHED_FOR_VERSION = "0.8.1"
#: Upstream's happy-eyeballs delay before we patch it (seconds).
UPSTREAM_HAPPY_EYEBALLS_DELAY = 0.250

IOA_KAD_PROTOCOL = "/ioa/kad/1.0.0"
UPSTREAM_KAD_PROTOCOL = "/ipfs/kad/1.0.0"
KAD_MODULES = (
    "libp2p.kad_dht.common",
    "libp2p.kad_dht.kad_dht",
    "libp2p.kad_dht.peer_routing",
    "libp2p.kad_dht.provider_store",
    "libp2p.kad_dht.value_store",
)

_NOISY_LOGGERS = ("libp2p", "multiaddr", "hypercorn", "zeroconf", "aioquic")
_applied = False


def upstream_happy_eyeballs_delay() -> float | None:
    """The value upstream ships (None if the constant is gone: the patch must be revisited)."""
    return _ORIGINAL_DELAY


_ORIGINAL_DELAY: float | None = getattr(_swarm, "_HAPPY_EYEBALLS_DELAY", None)


def apply_patches() -> None:
    """Idempotent; called by :func:`ioa_p2p.node.host.new_noise_host` before any host is made."""
    global _applied
    if _applied:
        return
    if hasattr(_swarm, "_HAPPY_EYEBALLS_DELAY"):
        _swarm._HAPPY_EYEBALLS_DELAY = 0  # type: ignore[attr-defined]
    apply_third_party_levels()
    use_ioa_kad_protocol()
    _applied = True


def use_ioa_kad_protocol() -> None:
    """Make every py-libp2p Kademlia module speak ``/ioa/kad/1.0.0`` (idempotent, process-wide)."""
    import importlib

    from libp2p.custom_types import TProtocol

    for name in KAD_MODULES:
        module = importlib.import_module(name)
        current = getattr(module, "PROTOCOL_ID", None)
        if current not in (UPSTREAM_KAD_PROTOCOL, IOA_KAD_PROTOCOL):
            raise RuntimeError(
                f"{name}.PROTOCOL_ID is {current!r}: py-libp2p changed; revisit ioa_p2p.node.libp2p_patches"
            )
        module.PROTOCOL_ID = TProtocol(IOA_KAD_PROTOCOL)


def unblock_peer(host: Any, peer_id: Any) -> None:
    """Forget a failed dial to ``peer_id`` so the next dial is attempted at once."""
    network = host.get_network()
    if hasattr(network, "unblock_peer"):
        network.unblock_peer(peer_id)


def quiet_libp2p_logs(level: int = logging.CRITICAL) -> None:
    for name in _NOISY_LOGGERS:
        logging.getLogger(name).setLevel(level)


def libp2p_version() -> str:
    return str(libp2p.__version__)
