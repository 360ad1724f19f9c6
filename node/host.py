"""Building the py-libp2p host: TCP, Noise only, yamux; identify and ping run automatically.

This is the only module that knows how py-libp2p wants keys, security and muxer options, and the place that
translates multiaddr / peer-info errors into ours.
"""

from __future__ import annotations

from typing import Any

import multiaddr
from libp2p import create_yamux_muxer_option, new_host
from libp2p.crypto.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from libp2p.crypto.keys import KeyPair
from libp2p.crypto.x25519 import create_new_key_pair as new_x25519_key_pair
from libp2p.peer.id import ID
from libp2p.peer.peerinfo import PeerInfo, info_from_p2p_addr
from libp2p.security.noise.transport import PROTOCOL_ID as NOISE_PROTOCOL_ID
from libp2p.security.noise.transport import Transport as NoiseTransport

from ioa_p2p.errors import InvalidAddress
from ioa_p2p.identity import Identity, PeerId

from .libp2p_patches import apply_patches, disable_auto_connector

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


def new_noise_host(identity: Identity) -> Any:
    """A host whose only security transport is Noise (never plaintext or secio) and muxer is yamux."""
    apply_patches()
    key_pair = libp2p_key_pair(identity)
    security = {NOISE_PROTOCOL_ID: NoiseTransport(key_pair, noise_privkey=new_x25519_key_pair().private_key)}
    muxers = {k: v for k, v in create_yamux_muxer_option().items() if "yamux" in str(k)}
    host = new_host(key_pair=key_pair, sec_opt=security, muxer_opt=muxers)
    disable_auto_connector(host)
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
