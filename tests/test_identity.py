"""Peer IDs carry their public key; libp2p agrees with our derivation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from libp2p.crypto.ed25519 import Ed25519PrivateKey
from libp2p.peer.id import ID

from ioa_p2p.errors import InvalidPeerId
from ioa_p2p.identity import Identity, PeerId, b58decode, b58encode


def test_peer_id_matches_libp2p_derivation() -> None:
    for _ in range(5):
        ident = Identity.generate()
        theirs = ID.from_pubkey(Ed25519PrivateKey.new(ident.seed).get_public_key())
        assert theirs.to_base58() == str(ident.peer_id)
        assert theirs.to_bytes() == ident.peer_id.raw


def test_signature_checkable_from_peer_id_alone() -> None:
    ident = Identity.generate()
    text = str(ident.peer_id)
    sig = ident.sign(b"payload")
    assert PeerId.from_string(text).verify(sig, b"payload")
    assert not PeerId.from_string(text).verify(sig, b"payload!")
    assert not Identity.generate().peer_id.verify(sig, b"payload")


@pytest.mark.parametrize("text", ["", "0OIl", "12D3KooW", "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG"])
def test_bad_peer_ids(text) -> None:
    with pytest.raises(InvalidPeerId):
        PeerId.from_string(text)


@given(st.binary(max_size=64))
def test_base58_roundtrip(data) -> None:
    assert b58decode(b58encode(data)) == data


def test_a_peer_ids_text_and_verifying_key_are_made_once_and_the_caches_are_bounded() -> None:
    """``str(peer)`` (in every stream timeout's message) and ``verify`` (every message) reuse the base58
    text and the Ed25519 key object of a peer seen before; both caches keep at most ``PEER_CACHE`` peers."""
    from ioa_p2p.identity import PEER_CACHE, _peer_text, _verifying_key

    signer = Identity.generate()
    peer = signer.peer_id
    text = str(peer)
    assert str(PeerId.from_bytes(peer.raw)) is text and PeerId.from_string(text) == peer
    signature = signer.sign(b"data")
    assert peer.verify(signature, b"data") and not peer.verify(signature, b"other")
    assert _verifying_key.cache_info().hits >= 1
    for _ in range(PEER_CACHE + 10):
        str(Identity.generate().peer_id)
    info = _peer_text.cache_info()
    assert info.maxsize == PEER_CACHE and info.currsize == PEER_CACHE
    assert _verifying_key.cache_info().maxsize == PEER_CACHE
    assert str(peer) == text  # dropped from the cache: made again, the same
