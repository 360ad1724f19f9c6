"""Spam costs that count in total: stamped page entries (sketch version 3) and rate limits per source network.

A page entry must cost what a card costs (a stranger cannot fill the network's pages with sketches of
identities it never paid for), and a thousand identities behind one /24 or one relay share a quarter of
what a node stores for strangers (``dht/admission.py``, ``node/net/sources.py``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ioa_p2p.card.sketch import (
    SKETCH_STAMP_CONTEXT,
    CardSketchV2,
    CardSketchV3,
    decode_sketch,
    issue_sketch,
    parse_sketch,
    sketch_digest,
    sketch_stamp_bits,
)
from ioa_p2p.card.stamp import stamp_bits
from ioa_p2p.dht.admission import SOURCE_SHARE, CardAdmission, source_of, source_of_addrs
from ioa_p2p.dht.forest import forest_for
from ioa_p2p.dht.pages import encode_page, page_key, store_page, validate_page
from ioa_p2p.dht.validators import IoaNamespaceValidator
from ioa_p2p.errors import InvalidCard, SignatureError
from ioa_p2p.identity import Identity
from ioa_p2p.node.net.sources import current_source, serving_from, stream_source

MODEL, DIM = "example/16", 16
NOW = 1_700_000_000_000
TTL = 30 * 60 * 1000
VECTOR = np.linspace(-1.0, 1.0, DIM) + 0.05


def ident(i: int) -> Identity:
    return Identity(bytes([i % 256, i // 256]) + b"\x09" * 30)


def stamped(i: int, bits: int, *, version: int = 1, stamp: bytes = b"", vector: np.ndarray = VECTOR):
    return issue_sketch(
        ident(i), version=version, model=MODEL, vector=vector, now_ms=NOW, expires_at=NOW + TTL,
        scheme=MODEL, terms=["plot", "chart"], stamp_bits=bits, stamp=stamp,
    )  # fmt: skip


def own_page(sketch) -> tuple[str, bytes]:
    forest = forest_for(MODEL, DIM)
    cell = next(c for c in forest.cells(sketch.vector(), (8,)) if c.table == 0)
    return page_key(cell, MODEL, DIM), encode_page([sketch.encoded])


def test_a_stamped_sketch_is_version_3_and_its_stamp_survives_new_versions_not_new_content() -> None:
    sketch = stamped(1, 10)
    assert isinstance(sketch.body, CardSketchV3) and sketch_stamp_bits(sketch) >= 10
    assert parse_sketch(sketch.encoded, now_ms=NOW + 1).body == sketch.body  # round trip, signature checked
    # the next card version reuses the nonce: the stamp covers the content, not the version or times
    again = stamped(1, 10, version=2, stamp=sketch.body.stamp)
    assert again.body.stamp == sketch.body.stamp and sketch_stamp_bits(again) >= 10
    assert sketch_digest(again.body) == sketch_digest(sketch.body)
    # a new identity or a new content must pay again: the old nonce is worth nothing for it
    other = issue_sketch(
        ident(2), version=1, model=MODEL, vector=VECTOR, now_ms=NOW, expires_at=NOW + TTL, scheme=MODEL,
        terms=["plot", "chart"],
    )  # fmt: skip
    assert sketch_digest(other.body) != sketch_digest(sketch.body)
    moved = stamped(1, 10, stamp=sketch.body.stamp, vector=VECTOR[::-1].copy())
    assert stamp_bits(sketch_digest(moved.body), sketch.body.stamp, SKETCH_STAMP_CONTEXT) < 10
    assert moved.body.stamp != sketch.body.stamp and sketch_stamp_bits(moved) >= 10  # minted anew
    # an unstamped sketch stays version 2 (or 1) and counts 0 bits
    plain = stamped(3, 0)
    assert type(plain.body) is CardSketchV2 and sketch_stamp_bits(plain) == 0


def test_a_forged_or_empty_stamp_is_refused() -> None:
    sketch = stamped(4, 8)
    # someone else's nonce pasted in breaks the owner's signature
    tampered = sketch.encoded.replace(sketch.body.stamp, bytes(len(sketch.body.stamp) - 1) + b"\x01")
    with pytest.raises(SignatureError):
        parse_sketch(tampered, now_ms=NOW + 1)
    with pytest.raises(InvalidCard, match="nonce of 1..32 bytes"):
        dataclasses.replace(sketch.body, stamp=b"").validate()


def test_page_holders_refuse_entries_under_their_minimum_stamp() -> None:
    strong, weak, plain = stamped(5, 10), stamped(6, 4), stamped(7, 0)
    key, page = own_page(strong)
    assert len(validate_page(key, page, NOW + 1, min_bits=8)) == 1
    for sketch in (weak, plain):
        key, page = own_page(sketch)
        with pytest.raises(InvalidCard, match="stamp of"):
            validate_page(key, page, NOW + 1, min_bits=8)
        assert validate_page(key, page, NOW + 1)  # a holder that asks for no stamp still takes it
        with pytest.raises(InvalidCard):
            store_page(None, key, page, NOW + 1, lambda peer: True, min_bits=8)
    # the node's validator: cards and page entries each with their own minimum
    validator = IoaNamespaceValidator(lambda: NOW + 1, min_sketch_bits=8)
    key, page = own_page(plain)
    with pytest.raises(InvalidCard):
        validator.validate(key, page)
    key, page = own_page(strong)
    validator.validate(key, page)
    assert validator.store_page(key, None, page, lambda peer: True).added == (strong.peer_id,)
    assert decode_sketch(strong.encoded).body == strong.body


def test_source_networks_group_public_addresses_and_relays_only() -> None:
    assert source_of("203.0.113.7") is None  # documentation range: not global
    assert source_of("8.8.4.4") == "8.8.4.0/24"
    assert source_of("2a00:1450:4001:82a::200e") == "2a00:1450:4001::/48"
    assert source_of("1.2.3.4", relay="12D3KooWRelay") == "relay:12D3KooWRelay"
    for local in ("127.0.0.1", "10.1.2.3", "192.168.1.9", "fe80::1", "::1", "", None, "not an address"):
        assert source_of(local) is None
    addrs = ["/ip4/127.0.0.1/tcp/4001", "/ip4/8.8.8.9/tcp/4001/p2p/12D3KooWOwner"]
    assert source_of_addrs(addrs) == "8.8.8.0/24"
    relayed = ["/ip4/10.0.0.2/tcp/1", "/ip4/9.9.9.9/tcp/4001/p2p/12D3KooWRelay/p2p-circuit"]
    assert source_of_addrs(relayed) == "relay:12D3KooWRelay"
    assert source_of_addrs(["/ip4/127.0.0.1/tcp/1"]) is None and source_of_addrs([]) is None


def test_one_source_takes_a_quarter_of_each_total_and_refusals_do_not_drain_the_total() -> None:
    admission = CardAdmission(new_cards=120, updates=30)
    share = int(120 * SOURCE_SHARE)
    flood = [
        admission.admit_card(f"sybil-{i}", known=False, now=0.0, source="8.8.4.0/24") for i in range(200)
    ]
    assert sum(flood) == share  # a thousand identities behind one /24: 30 of the 120 per minute
    # the refused ones took nothing from the total: other networks still get the rest
    others = [
        admission.admit_card(f"honest-{i}", known=False, now=0.0, source=f"9.9.{i}.0/24") for i in range(200)
    ]
    assert sum(others) == 120 - share
    # a relay is one source too, and a local address none (the per-identity and total limits hold alone)
    fresh = CardAdmission(new_cards=120)
    assert sum(fresh.admit_card(f"r{i}", known=False, now=0.0, source="relay:R") for i in range(100)) == share
    assert sum(fresh.admit_card(f"l{i}", known=False, now=0.0) for i in range(200)) == 120 - share
    # provider records (and page entries) the same way, refilled over their period
    providers = CardAdmission()
    taken = sum(providers.admit_provider(f"p{i % 100}", 0.0, source="relay:R") for i in range(8000))
    assert taken == int(10 * 1200 * SOURCE_SHARE) == 3000
    assert providers.admit_provider("p0", 600.0, source="relay:R")  # a period later: refilled
    assert providers.snapshot()["per_source_refused"] > 0


class _Conn:
    """What the source needs of a py-libp2p connection: its transport addresses and remote address."""

    def __init__(self, addrs: list[str], remote: tuple[str, int] | None) -> None:
        self.addrs, self.remote = addrs, remote

    def get_transport_addresses(self) -> list[str]:
        return self.addrs

    def get_remote_address(self) -> tuple[str, int] | None:
        return self.remote


class _Stream:
    def __init__(self, conn: object) -> None:
        self.muxed_conn = conn


def test_the_source_of_a_dht_request_is_its_connection_and_is_seen_only_while_serving_it() -> None:
    direct = _Stream(_Conn(["/ip4/8.8.8.9/tcp/4001"], ("8.8.8.9", 4001)))
    relayed = _Stream(_Conn(["/ip4/9.9.9.9/tcp/1/p2p/12D3KooWRelay/p2p-circuit"], ("9.9.9.9", 1)))
    local = _Stream(_Conn(["/ip4/127.0.0.1/tcp/1"], ("127.0.0.1", 1)))
    assert stream_source(direct) == "8.8.8.0/24"
    assert stream_source(relayed) == "relay:12D3KooWRelay"
    assert stream_source(local) is None
    assert stream_source(object()) is None  # a closing connection: no group, never an error
    admission = CardAdmission(new_cards=8)
    admission.source = current_source
    assert current_source() is None
    with serving_from(direct):
        assert current_source() == "8.8.8.0/24"
        assert [admission.admit_card(f"s{i}", known=False, now=0.0) for i in range(4)] == [
            True,
            True,
            False,
            False,
        ]
    assert current_source() is None
    assert admission.admit_card("s9", known=False, now=0.0)  # outside a handler: no source group
