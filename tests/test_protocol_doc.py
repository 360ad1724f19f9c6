"""The worked examples of docs/protocol.md are recomputed from the code, so the document cannot drift.

Each example in the document is a fenced block right after a ``<!-- example: NAME -->`` line; its
content (whitespace ignored) must equal what the code produces for :data:`EXAMPLES` ``[NAME]``, and every
example the code knows must be in the document.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ioa_p2p.card import encode_vector, issue_withdrawal
from ioa_p2p.card.sketch import SKETCH_STAMP_CONTEXT, issue_sketch, sketch_digest, sketch_stamp_bits
from ioa_p2p.card.stamp import STAMP_CONTEXT, content_digest, stamp_bits
from ioa_p2p.dht.forest import forest_for, seed_bytes
from ioa_p2p.dht.pages import page_key
from ioa_p2p.dht.validators import card_key
from ioa_p2p.history.frames import SYNC_INVALID, SyncBatch, SyncRequest
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.wire.control import encode_control
from ioa_p2p.wire.schema import build

from .vectors import PEER_ID, PEER_ID_BYTES_HEX, SEED_HEX

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
BLOCK = re.compile(r"<!-- example: ([a-z0-9-]+) -->\s*```[a-z]*\n(.*?)```", re.DOTALL)
PEER = PeerId.from_string(PEER_ID)
CHAT_ID = bytes([0x11]) * 32


def _card_key_text() -> str:
    return str(card_key(PEER))


def _card_key_bytes() -> str:
    return _card_key_text().encode("utf-8").hex()


def _card_key_kademlia_id() -> str:
    return hashlib.sha256(_card_key_text().encode("utf-8")).hexdigest()


def _sync_req() -> str:
    request = build(SyncRequest, chat_id=CHAT_ID, authors=(PEER,), seqs=(3,), limit=500)
    return encode_control(request).hex()


def _sync_batch_invalid() -> str:
    refusal = build(SyncBatch, chat_id=b"", status=SYNC_INVALID, count=0, more=False)
    return encode_control(refusal).hex()


LSH_VECTOR = [1.0, -2.0, 3.0, -4.0]
STAMP_NONCE = bytes.fromhex("00000000000000c1")


def _lsh2_seed() -> str:
    return seed_bytes("example/4", 4).hex()


def _lsh2_codes() -> str:
    return ",".join(str(c) for c in forest_for("example/4", 4).codes(LSH_VECTOR))


def _lsh2_cell() -> tuple[str, str]:
    cell = next(c for c in forest_for("example/4", 4).cells(LSH_VECTOR) if c.table == 0 and c.level == 4)
    return cell.name, cell.key.hex()


def _stamp_digest() -> bytes:
    fields = {
        "name": "plotter",
        "description": "draws charts",
        "skills": ("matplotlib",),
        "adapter": "python",
        "model": "example/4",
        "dim": 4,
        "vector": encode_vector(LSH_VECTOR),
    }
    return content_digest(PEER.raw, fields)


def _stamp_hash() -> str:
    return hashlib.sha256(STAMP_CONTEXT + _stamp_digest() + STAMP_NONCE).hexdigest()


def _withdrawal() -> str:
    identity = Identity(bytes.fromhex(SEED_HEX))
    return issue_withdrawal(
        identity, version=1_800_000_000_000, now_ms=1_800_000_000_000, reason="retired"
    ).encoded.hex()


def _sketch() -> Any:
    identity = Identity(bytes.fromhex(SEED_HEX))
    now = 1_800_000_000_000
    return issue_sketch(
        identity, version=now, model="example/4", vector=LSH_VECTOR, now_ms=now, expires_at=now + 1_800_000
    )


def _sketch_v2() -> Any:
    identity = Identity(bytes.fromhex(SEED_HEX))
    now = 1_800_000_000_000
    return issue_sketch(
        identity,
        version=now,
        model="example/4",
        vector=LSH_VECTOR,
        now_ms=now,
        expires_at=now + 1_800_000,
        scheme="example/6",
        rest=[0.5, -0.25],
        terms=["plot", "chart"],
    )


def _sketch_v3() -> Any:
    """The version 2 example stamped: the first counter reaching 8 bits."""
    identity = Identity(bytes.fromhex(SEED_HEX))
    now = 1_800_000_000_000
    return issue_sketch(
        identity,
        version=now,
        model="example/4",
        vector=LSH_VECTOR,
        now_ms=now,
        expires_at=now + 1_800_000,
        scheme="example/6",
        rest=[0.5, -0.25],
        terms=["plot", "chart"],
        stamp_bits=8,
    )


def _sketch_v3_hash() -> str:
    body = _sketch_v3().body
    return hashlib.sha256(SKETCH_STAMP_CONTEXT + sketch_digest(body) + body.stamp).hexdigest()


def _sketch_page_key() -> str:
    sketch = _sketch()
    cell = next(c for c in forest_for("example/4", 4).cells(sketch.vector(), (8,)) if c.table == 0)
    return page_key(cell, "example/4", 4)


EXAMPLES: dict[str, Callable[[], str]] = {
    "card-key-text": _card_key_text,
    "card-key-bytes": _card_key_bytes,
    "card-key-kademlia-id": _card_key_kademlia_id,
    "sync-req": _sync_req,
    "sync-batch-invalid": _sync_batch_invalid,
    "lsh2-seed": _lsh2_seed,
    "lsh2-codes": _lsh2_codes,
    "lsh2-cell-name": lambda: _lsh2_cell()[0],
    "lsh2-cell-key": lambda: _lsh2_cell()[1],
    "card-stamp-digest": lambda: _stamp_digest().hex(),
    "card-stamp-hash": _stamp_hash,
    "card-stamp-bits": lambda: str(stamp_bits(_stamp_digest(), STAMP_NONCE)),
    "card-withdrawal": _withdrawal,
    "card-sketch": lambda: str(_sketch().encoded.hex()),
    "card-sketch-page-key": _sketch_page_key,
    "card-sketch-v2": lambda: str(_sketch_v2().encoded.hex()),
    "card-sketch-v2-terms": lambda: _sketch_v2().body.terms.hex(),
    "card-sketch-v3": lambda: str(_sketch_v3().encoded.hex()),
    "card-sketch-v3-digest": lambda: sketch_digest(_sketch_v3().body).hex(),
    "card-sketch-v3-stamp": lambda: _sketch_v3().body.stamp.hex(),
    "card-sketch-v3-hash": _sketch_v3_hash,
    "card-sketch-v3-bits": lambda: str(sketch_stamp_bits(_sketch_v3())),
}


def documented() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    return {name: "".join(body.split()) for name, body in BLOCK.findall(text)}


def test_the_examples_use_the_known_answer_peer() -> None:
    assert PEER.raw.hex() == PEER_ID_BYTES_HEX
    assert PEER_ID_BYTES_HEX in _sync_req()  # sync_req authors are the 38 raw peer ID bytes


def test_every_worked_example_of_protocol_md_matches_the_code() -> None:
    doc = documented()
    assert sorted(doc) == sorted(EXAMPLES), "docs/protocol.md examples and tests disagree on names"
    wrong = {name: make() for name, make in EXAMPLES.items() if doc[name] != make()}
    assert not wrong, f"docs/protocol.md examples that drifted from the code (name: correct value): {wrong}"
