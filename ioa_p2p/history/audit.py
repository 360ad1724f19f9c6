"""Verify a chat history with nothing but its bytes (pure, CPU only).

:func:`audit_history` checks, for every record of a history file (:mod:`ioa_p2p.history.file`):
strict canonical decoding, every Ed25519 signature (author = key: the key is inside the author's
peer ID), the genesis, hash links (every parent present and earlier in the file), per-author
sequence numbers, membership at the time of each message, and equivocation. Each problem becomes a
:class:`Finding` with a stable ``code``:

=====================  ================================================================
``modified-header``    the file header differs from the format's magic bytes
``bad-frame``          a record length cannot be read; the rest of the file is lost
``truncated-record``   a record is longer than what remains of the file
``malformed``          a record is not a canonical, well-formed envelope
``bad-genesis``        record 0 is not a valid signed chat genesis (nothing can be checked)
``bad-signature``      a signature does not verify (a modified byte, or a forged message)
``forged-author``      the signature verifies under another member's key than the author's
``wrong-type``         a record after the genesis is not a ``chat.msg``
``wrong-chat``         a message of another chat (replayed from elsewhere)
``replayed``           the same signed message appears twice
``reordered``          a message appears before one of its parents
``missing-parent``     a message names a parent that is not in the file (a removed message)
``orphaned``           a message depends on a message that was rejected
``bad-seq``            an author's sequence numbers skip or go backwards
``non-member``         the author is not a member at the message's parents
``unauthorized``       a membership change the rules do not allow
``equivocation``       one author signed two messages with one seq (proof: both envelopes)
=====================  ================================================================

Truncation at the end of a history is **not** detectable from one copy (a prefix of a valid
history is a valid history). :func:`~ioa_p2p.history.compare.compare_histories` detects it with a
second copy.

Speed: records are decoded first, then all signatures are verified in one tight loop (optionally
split over threads: Ed25519 verification releases the GIL), then the DAG is checked.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519

from ioa_p2p.errors import Equivocation, HistoryViolation, InvalidMessage, InvalidPeerId
from ioa_p2p.history.bodies import MEMBERSHIP_KINDS, ChatGenesis, ChatMessage, check_genesis
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.history.file import Record, parse_history
from ioa_p2p.identity import PeerId
from ioa_p2p.wire import canonical
from ioa_p2p.wire.envelope import MAX_MESSAGE_SIZE, SIGNING_CONTEXT, Envelope

_SIG_SUFFIX = b"csig\x58\x40"  # CBOR text "sig" then a 64-byte byte-string header
_SIG_ITEM_LEN = 4 + 2 + 64


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    message: str
    index: int | None = None
    offset: int | None = None
    hash: bytes | None = None
    author: PeerId | None = None
    seq: int | None = None
    proof: tuple[bytes, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "index": self.index,
            "offset": self.offset,
            "hash": self.hash.hex() if self.hash else None,
            "author": str(self.author) if self.author else None,
            "seq": self.seq,
            "proof": [p.hex() for p in self.proof],
        }

    def line(self) -> str:
        where = f"record {self.index}" if self.index is not None else "file"
        if self.offset is not None:
            where += f" @ byte {self.offset}"
        return f"[{self.code}] {where}: {self.message}"


@dataclass
class AuditReport:
    source: str
    findings: list[Finding] = field(default_factory=list)
    records: int = 0
    chat_id: bytes | None = None
    history: ChatHistory | None = None
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return not self.findings

    def summary(self) -> dict[str, Any]:
        hist = self.history
        if hist is None:
            return {"messages": 0, "authors": {}, "heads": [], "members": []}
        entries = hist.entries()
        stamps = [hist.genesis.ts] + [e.env.ts for e in entries]
        return {
            "topic": hist.topic,
            "creator": str(hist.creator),
            "parent": hist.genesis_body.parent.hex() if hist.genesis_body.parent else None,
            "messages": len(entries),
            "authors": {str(a): n for a, n in sorted(hist.version().items(), key=_by_str)},
            "first_ts": min(stamps),
            "last_ts": max(stamps),
            "heads": [h.hex() for h in hist.heads()],
            "members": sorted(str(m) for m in hist.members()),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "valid": self.valid,
            "chat_id": self.chat_id.hex() if self.chat_id else None,
            "records": self.records,
            **self.summary(),
            "findings": [f.to_json() for f in self.findings],
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
        }


def _by_str(item: tuple[PeerId, int]) -> str:
    return str(item[0])


# --------------------------------------------------------------------------- signature checking


def signing_bytes_of(raw: bytes, env: Envelope) -> bytes:
    """What the signature covers, cut straight from a canonical encoding: the map without its last
    entry ("sig" sorts last among the envelope keys). Falls back to re-encoding."""
    if raw[:1] == b"\xa8" and raw[-_SIG_ITEM_LEN:-64] == _SIG_SUFFIX:
        return SIGNING_CONTEXT + b"\xa7" + raw[1:-_SIG_ITEM_LEN]
    return env.signing_bytes()  # pragma: no cover - canonical decoding guarantees the fast form


VerifyItem = tuple[bytes, bytes, bytes]  # (public key, signature, signed bytes)


def verify_batch(items: Sequence[VerifyItem], *, workers: int = 1) -> list[bool]:
    """Ed25519-verify every item (tight loop; ``workers`` threads share the list)."""
    if workers <= 1 or len(items) < 256:
        return _verify_chunk(items)
    size = -(-len(items) // workers)
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(_verify_chunk, chunks))
    return [ok for chunk in results for ok in chunk]


def _verify_chunk(items: Sequence[VerifyItem]) -> list[bool]:
    keys: dict[bytes, ed25519.Ed25519PublicKey] = {}
    out = []
    for public, sig, data in items:
        key = keys.get(public)
        if key is None:
            key = keys[public] = ed25519.Ed25519PublicKey.from_public_bytes(public)
        try:
            key.verify(sig, data)
            out.append(True)
        except InvalidSignature:
            out.append(False)
    return out


# --------------------------------------------------------------------------- audit


@dataclass(slots=True)
class _Decoded:
    index: int
    offset: int
    raw: bytes
    env: Envelope
    hash: bytes


def audit_history(data: bytes, *, source: str = "", workers: int = 1) -> AuditReport:
    """Audit history file bytes. Raises UnreadableHistory only when the bytes are not a history
    file at all; every other problem is a finding in the report.

    ``workers`` threads verify signatures while the calling thread decodes the next records
    (0: everything inline, sequentially)."""
    report = AuditReport(source=source)
    started = time.perf_counter()
    parsed = parse_history(data)
    report.records = len(parsed.records)
    for problem in parsed.problems:
        report.findings.append(Finding(problem.code, problem.message, offset=problem.offset))
    decoded, results = _decode_and_verify(parsed.records, report, workers)
    report.timings["decode_verify_s"] = time.perf_counter() - started
    if not decoded or decoded[0].index != 0:
        report.findings.append(Finding("bad-genesis", "record 0 (the chat genesis) is unreadable", 0))
        return report
    ok = _signature_findings(decoded, results, report)
    genesis = decoded[0]
    if not ok.get(0):
        report.findings.append(
            Finding("bad-genesis", "the genesis signature does not verify", 0, genesis.offset)
        )
        return report
    try:
        check_genesis(genesis.env)
    except InvalidMessage as exc:
        report.findings.append(Finding("bad-genesis", str(exc), 0, genesis.offset))
        return report
    report.chat_id = genesis.hash
    dag_started = time.perf_counter()
    _check_dag(genesis, [d for d in decoded[1:] if ok.get(d.index)], report)
    report.timings["dag_s"] = time.perf_counter() - dag_started
    report.timings["total_s"] = time.perf_counter() - started
    return report


_CHUNK = 512


def _decode_and_verify(
    records: Sequence[Record], report: AuditReport, workers: int
) -> tuple[list[_Decoded], list[bool]]:
    """Decode chunk by chunk; each decoded chunk's signatures are verified by a worker thread
    while the next chunk decodes (Ed25519 verification releases the GIL)."""
    decoded: list[_Decoded] = []
    if workers <= 0:
        decoded = _decode_records(records, report)
        return decoded, _verify_chunk([_verify_item(d) for d in decoded])
    futures = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for start in range(0, len(records), _CHUNK):
            chunk = _decode_records(records[start : start + _CHUNK], report)
            decoded.extend(chunk)
            futures.append(pool.submit(_verify_chunk, [_verify_item(d) for d in chunk]))
        results = [ok for future in futures for ok in future.result()]
    return decoded, results


def _verify_item(d: _Decoded) -> VerifyItem:
    return (d.env.author.public_key, d.env.sig, signing_bytes_of(d.raw, d.env))


def _decode_records(records: Sequence[Any], report: AuditReport) -> list[_Decoded]:
    out = []
    for record in records:
        try:
            value = canonical.decode(record.raw, max_size=MAX_MESSAGE_SIZE)
            env = Envelope.from_value(value)
        except InvalidMessage as exc:
            report.findings.append(
                Finding("malformed", f"not a valid envelope: {exc}", record.index, record.offset)
            )
            continue
        digest = hashlib.sha256(record.raw).digest()
        out.append(_Decoded(record.index, record.offset, record.raw, env, digest))
    return out


def _signature_findings(decoded: list[_Decoded], results: list[bool], report: AuditReport) -> dict[int, bool]:
    ok = {d.index: good for d, good in zip(decoded, results, strict=True)}
    bad = [d for d, good in zip(decoded, results, strict=True) if not good]
    if bad:
        candidates = _candidate_signers(decoded)
        for item in bad:
            report.findings.append(_signature_finding(item, candidates))
    return ok


def _candidate_signers(decoded: list[_Decoded]) -> set[PeerId]:
    """Every peer the file names: authors, genesis members, added members."""
    peers: set[PeerId] = set()
    for d in decoded:
        peers.add(d.env.author)
        body = d.env.body
        if isinstance(body, ChatGenesis):
            peers.update(body.members)
        elif isinstance(body, ChatMessage) and body.kind in MEMBERSHIP_KINDS:
            with contextlib.suppress(InvalidPeerId):
                peers.add(PeerId.from_bytes(body.content.get("member", b"")))
    return peers


def _signature_finding(item: _Decoded, candidates: set[PeerId]) -> Finding:
    for peer in sorted(candidates - {item.env.author}):
        if peer.verify(item.env.sig, dataclasses.replace(item.env, author=peer).signing_bytes()):
            return Finding(
                "forged-author",
                f"names {item.env.author} as author but was signed by {peer}",
                item.index,
                item.offset,
                item.hash,
                item.env.author,
                item.env.seq,
            )
    return Finding(
        "bad-signature",
        f"the signature of {item.env.author} (seq {item.env.seq}) does not verify: "
        "the record was modified after signing",
        item.index,
        item.offset,
        item.hash,
        item.env.author,
        item.env.seq,
    )


def _check_dag(genesis: _Decoded, messages: list[_Decoded], report: AuditReport) -> None:
    hist = ChatHistory(genesis.env, genesis_hash=genesis.hash, max_pending=len(messages) + 1)
    report.history = hist
    first_at: dict[bytes, int] = {genesis.hash: genesis.index}
    for d in messages:
        if d.hash in first_at:
            report.findings.append(
                _finding(d, "replayed", f"the same signed message as record {first_at[d.hash]}")
            )
        else:
            first_at[d.hash] = d.index
    by_hash = {d.hash: d for d in messages}
    rejected: set[bytes] = set()
    seen: set[bytes] = {genesis.hash}
    for d in messages:
        if d.hash in seen:
            continue
        seen.add(d.hash)
        body = d.env.body
        if not isinstance(body, ChatMessage):
            report.findings.append(_finding(d, "wrong-type", f"a {d.env.type!r} record"))
            rejected.add(d.hash)
            continue
        later = [p for p in body.parents if first_at.get(p, -1) > d.index]
        if later:
            report.findings.append(
                _finding(d, "reordered", f"appears before its parent, record {first_at[later[0]]}")
            )
        try:
            result = hist.add(d.env, d.hash)
        except HistoryViolation as exc:
            report.findings.append(_violation(d, exc))
            rejected.add(d.hash)
            continue
        for env, problem in result.rejected:
            other = by_hash[env.hash]
            report.findings.append(_violation(other, problem))
            rejected.add(other.hash)
    _report_pending(hist, by_hash, rejected, report)


def _report_pending(
    hist: ChatHistory, by_hash: dict[bytes, _Decoded], rejected: set[bytes], report: AuditReport
) -> None:
    pending = {env.hash for env in hist.pending_envelopes()}
    for env in sorted(hist.pending_envelopes(), key=lambda e: by_hash[e.hash].index):
        d = by_hash[env.hash]
        assert isinstance(env.body, ChatMessage)
        parents = [p for p in env.body.parents if p not in hist]
        absent = [p for p in parents if p not in pending and p not in rejected]
        if absent:
            report.findings.append(
                _finding(
                    d,
                    "missing-parent",
                    f"names parent {absent[0].hex()[:16]}..., which is not in the file "
                    "(a message was removed)",
                )
            )
        else:
            report.findings.append(
                _finding(d, "orphaned", "depends on a message that was rejected or is missing")
            )


def _finding(d: _Decoded, code: str, text: str, proof: tuple[bytes, ...] = ()) -> Finding:
    return Finding(code, text, d.index, d.offset, d.hash, d.env.author, d.env.seq, proof)


def _violation(d: _Decoded, exc: HistoryViolation) -> Finding:
    if isinstance(exc, Equivocation):
        first, second = exc.first, exc.second
        assert isinstance(first, Envelope) and isinstance(second, Envelope)
        return _finding(d, "equivocation", str(exc), (first.to_cbor(), second.to_cbor()))
    return _finding(d, exc.code, str(exc))


__all__ = [
    "AuditReport",
    "Finding",
    "audit_history",
    "signing_bytes_of",
    "verify_batch",
]
