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
