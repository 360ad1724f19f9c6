"""Patch 24 (ioa_p2p.node.net.peer_records): Kademlia's signed peer records verified once per peer and
record bytes, never trusted for other bytes, another peer or a record the peerstore no longer holds."""

from __future__ import annotations

import importlib

import libp2p.kad_dht.utils as kad_utils
import pytest
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.peer.peerstore import create_signed_peer_record
from multiaddr import Multiaddr

from ioa_p2p.identity import Identity
from ioa_p2p.node.net import libp2p_patches, peer_records
from ioa_p2p.node.net.host import new_noise_host


@pytest.fixture
def verifications(monkeypatch) -> list[int]:
    """Counts upstream's envelope verifications (``consume_envelope``) from now on."""
    libp2p_patches.apply_patches()
    calls: list[int] = []
    real = kad_utils.consume_envelope
    monkeypatch.setattr(kad_utils, "consume_envelope", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def _record(host) -> bytes:
    """``host``'s signed peer record with an address (as a listening host sends it)."""
    addrs = [Multiaddr("/ip4/127.0.0.1/tcp/4001")]
    return bytes(create_signed_peer_record(host.get_id(), addrs, host.get_private_key()).marshal_envelope())


def _sender_message(host) -> Message:
    msg = Message()
    msg.type = Message.MessageType.FIND_NODE
    msg.senderRecord = _record(host)
    return msg


def _peer_entry(host) -> Message.Peer:
    entry = Message.Peer()
    entry.id = host.get_id().to_bytes()
    entry.signedRecord = _record(host)
    return entry


def _consume():
    return importlib.import_module("libp2p.kad_dht.peer_routing").maybe_consume_signed_record


def test_every_kademlia_module_uses_the_cache() -> None:
    libp2p_patches.apply_patches()
    for name in peer_records.KAD_RECORD_MODULES:
        consume = importlib.import_module(name).maybe_consume_signed_record
        assert getattr(consume, "upstream", None) is not None, name


def test_upstream_still_verifies_identical_records_every_time(monkeypatch) -> None:
    """Else the patch is stale: upstream verifies (parses, checks the signature of) the same bytes again."""
    libp2p_patches.apply_patches()
    upstream = _consume().upstream
    calls: list[int] = []
    real = kad_utils.consume_envelope
    monkeypatch.setattr(kad_utils, "consume_envelope", lambda *a, **k: calls.append(1) or real(*a, **k))
    sender, receiver = (new_noise_host(Identity.generate()) for _ in range(2))
    msg = _sender_message(sender)
    assert upstream(msg, receiver, sender.get_id()) and upstream(msg, receiver, sender.get_id())
    assert len(calls) == 2


def test_a_senders_record_is_verified_once_per_host(verifications) -> None:
    sender, receiver, other = (new_noise_host(Identity.generate()) for _ in range(3))
    consume = _consume()
    msg = _sender_message(sender)
    assert consume(msg, receiver, sender.get_id())
    assert consume(msg, receiver, sender.get_id())
    assert len(verifications) == 1
    assert receiver.get_peerstore().get_peer_record(sender.get_id()) is not None
    # another host of the process (agents of one process) verifies it into its own peerstore
    assert consume(msg, other, sender.get_id())
    assert len(verifications) == 2
    assert other.get_peerstore().get_peer_record(sender.get_id()) is not None


def test_named_peers_records_are_verified_once(verifications) -> None:
    named, receiver = (new_noise_host(Identity.generate()) for _ in range(2))
    consume = _consume()
    entry = _peer_entry(named)
    for _ in range(3):
        assert consume(entry, receiver)
    assert len(verifications) == 1
    assert receiver.get_peerstore().addrs(named.get_id())


def test_forgeries_and_other_claims_are_still_refused(verifications) -> None:
    sender, receiver, other = (new_noise_host(Identity.generate()) for _ in range(3))
    consume = _consume()
    msg = _sender_message(sender)
    assert consume(msg, receiver, sender.get_id())
    # the same valid bytes claimed as another peer's: refused, every time
    assert not consume(msg, receiver, other.get_id())
    assert not consume(msg, receiver, other.get_id())
    entry = _peer_entry(sender)
    entry.id = other.get_id().to_bytes()
    assert not consume(entry, receiver)
    assert not consume(entry, receiver)
    # tampered bytes are verified (and refused), not matched against the cache
    tampered = _sender_message(sender)
    raw = bytearray(tampered.senderRecord)
    raw[-1] ^= 0x01
    tampered.senderRecord = bytes(raw)
    assert not consume(tampered, receiver, sender.get_id())
    # a message without a record is upstream's "nothing to consume"
    assert consume(Message(), receiver, sender.get_id())
    assert consume(Message.Peer(), receiver)


def test_verified_again_when_the_peerstore_lost_it_or_the_recheck_is_due(verifications) -> None:
    sender, receiver = (new_noise_host(Identity.generate()) for _ in range(2))
    consume = _consume()
    msg = _sender_message(sender)
    assert consume(msg, receiver, sender.get_id())
    receiver.get_peerstore().peer_record_map.pop(sender.get_id())  # expired or forgotten
    assert consume(msg, receiver, sender.get_id())
    assert len(verifications) == 2
    assert receiver.get_peerstore().get_peer_record(sender.get_id()) is not None
    cache = consume.verified
    recheck, cache.recheck = cache.recheck, 0.0
    try:
        assert consume(msg, receiver, sender.get_id())
    finally:
        cache.recheck = recheck
    assert len(verifications) == 3


def test_the_cache_is_bounded_per_host() -> None:
    cache = peer_records.VerifiedRecords(recheck=600.0, capacity=3)

    class Host:
        pass

    host, stored = Host(), object()
    for i in range(5):
        cache.remember(host, bytes([i]), b"r", stored)
    assert not cache.known(host, bytes([0]), b"r", stored)  # the oldest went first
    assert all(cache.known(host, bytes([i]), b"r", stored) for i in (2, 3, 4))
    assert not cache.known(host, bytes([4]), b"other bytes", stored)
    assert not cache.known(host, bytes([4]), b"r", object())  # the peerstore holds another envelope
