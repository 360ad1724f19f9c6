"""Building the py-libp2p host: TCP, Noise only, yamux; identify and ping run automatically.

This is the only module that knows how py-libp2p wants keys, security and muxer options, and the place that
translates multiaddr / peer-info errors into ours. Only Ed25519 peers are let in: the Noise handshake with a
peer whose identity key is of another type (secp256k1, ECDSA, RSA) fails, because every ioa-p2p peer ID
(:class:`~ioa_p2p.identity.PeerId`) is an Ed25519 key. Inbound streams are served inside a fault boundary
(:func:`~ioa_p2p.node.net.libp2p_patches.contain_inbound_streams`); an inbound connection holds its slot of
the swarm's inbound cap only while it is open (:func:`~ioa_p2p.node.net.inbound_slots.free_inbound_slots`).
"""

from __future__ import annotations

import contextlib
from typing import Any

import multiaddr
from libp2p import create_yamux_muxer_option, new_host
from libp2p.crypto.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from libp2p.crypto.keys import KeyPair
from libp2p.crypto.x25519 import create_new_key_pair as new_x25519_key_pair
from libp2p.peer.id import ID
from libp2p.peer.peerinfo import PeerInfo, info_from_p2p_addr
from libp2p.security.exceptions import HandshakeFailure
from libp2p.security.noise.transport import PROTOCOL_ID as NOISE_PROTOCOL_ID
from libp2p.security.noise.transport import Transport as NoiseTransport

from ioa_p2p.errors import InvalidAddress, InvalidPeerId
from ioa_p2p.faults import Faults
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.net.inbound_slots import free_inbound_slots
from ioa_p2p.node.net.libp2p_patches import (
    FaultSink,
    apply_patches,
    contain_inbound_streams,
    disable_auto_connector,
)

#: Faults of hosts made without an ``on_fault`` sink (tools and tests; a node passes its own).
HOSTS_WITHOUT_NODE = Faults()
#: The only security protocol our hosts offer or accept.
SECURITY_PROTOCOLS = (str(NOISE_PROTOCOL_ID),)


def libp2p_key_pair(identity: Identity) -> KeyPair:
    private = Ed25519PrivateKey.new(identity.seed)
    public = private.get_public_key()
    assert isinstance(public, Ed25519PublicKey)
    return KeyPair(private, public)


def to_libp2p_id(peer: PeerId) -> ID:
    return ID(peer.raw)


def from_libp2p_id(peer: ID) -> PeerId:
    return PeerId.from_bytes(peer.to_bytes())


class Ed25519NoiseTransport(NoiseTransport):
    """Noise that completes only with peers whose identity key is Ed25519 (both directions)."""

    async def secure_inbound(self, conn: Any) -> Any:
        return await _ed25519_only(await super().secure_inbound(conn))

    async def secure_outbound(self, conn: Any, peer_id: ID) -> Any:
        return await _ed25519_only(await super().secure_outbound(conn, peer_id))


async def _ed25519_only(secure_conn: Any) -> Any:
    peer = secure_conn.get_remote_peer()
    try:
        from_libp2p_id(peer)
    except InvalidPeerId:
        with contextlib.suppress(Exception):
            await secure_conn.close()
        raise HandshakeFailure(f"peer {peer} does not use an Ed25519 key; ioa-p2p peers must") from None
    return secure_conn


def new_noise_host(identity: Identity, *, on_fault: FaultSink | None = None) -> Any:
    """A host whose only security transport is Noise (never plaintext or secio) with Ed25519 peers, and
    muxer is yamux. ``on_fault(where, peer, exception)`` counts exceptions contained while serving inbound
    streams (default: logged and dropped)."""
    apply_patches()
    key_pair = libp2p_key_pair(identity)
    noise = Ed25519NoiseTransport(key_pair, noise_privkey=new_x25519_key_pair().private_key)
    muxers = {k: v for k, v in create_yamux_muxer_option().items() if "yamux" in str(k)}
    host = new_host(key_pair=key_pair, sec_opt={NOISE_PROTOCOL_ID: noise}, muxer_opt=muxers)
    disable_auto_connector(host)
    free_inbound_slots(host)  # patch 32: a closed inbound connection gives its slot back
    contain_inbound_streams(host, on_fault or HOSTS_WITHOUT_NODE.record)
    if from_libp2p_id(host.get_id()) != identity.peer_id:  # pragma: no cover - invariant
        raise RuntimeError("libp2p derived a different peer ID from our key")
    return host


def parse_multiaddr(text: str) -> multiaddr.Multiaddr:
    try:
        return multiaddr.Multiaddr(text)
    except Exception as exc:  # multiaddr raises a zoo of exception types
        raise InvalidAddress(f"{text!r} is not a valid multiaddr: {exc}") from None


def peer_info_from_addr(text: str) -> PeerInfo:
    """PeerInfo of a full multiaddr ending in ``/p2p/<peer id>``."""
    addr = parse_multiaddr(text)
    try:
        info = info_from_p2p_addr(addr)
    except Exception as exc:
        raise InvalidAddress(
            f"{text!r} must end with /p2p/<peer id> (e.g. /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW...): {exc}"
        ) from None
    try:
        from_libp2p_id(info.peer_id)
    except Exception as exc:
        raise InvalidAddress(f"{text!r} names a peer ID that is not Ed25519: {exc}") from None
    return info


def peer_of_addr(text: str) -> PeerId:
    """The peer a full multiaddr (``.../p2p/<peer id>``) names."""
    return from_libp2p_id(peer_info_from_addr(text).peer_id)


def remote_peer_of(stream: Any) -> PeerId | None:
    """The Noise-authenticated peer of an inbound stream (None when it is not an Ed25519 peer)."""
    try:
        return from_libp2p_id(stream.muxed_conn.peer_id)
    except Exception:  # no connection / not an Ed25519 key
        return None
