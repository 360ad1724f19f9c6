"""Compare two audited copies of one chat history: truncation, divergence, equivocation across copies.

One copy cannot show that messages were cut off its end (a prefix of a valid history is valid);
:func:`compare_histories` can: messages one copy holds that chain after the other's heads are
``truncated`` (or ``diverged`` when each copy holds messages the other lacks), and an author who
signed two messages with one seq across the copies is an ``equivocation`` with both as proof.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ioa_p2p.history.audit import AuditReport, Finding
from ioa_p2p.history.dag import ChatHistory


@dataclass
class Comparison:
    a: AuditReport
    b: AuditReport
    findings: list[Finding] = field(default_factory=list)
    only_a: list[bytes] = field(default_factory=list)
    only_b: list[bytes] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.only_a and not self.only_b and self.a.chat_id == self.b.chat_id

    @property
    def valid(self) -> bool:
        return self.a.valid and self.b.valid and not self.findings

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "identical": self.identical,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "only_a": [h.hex() for h in self.only_a],
            "only_b": [h.hex() for h in self.only_b],
            "findings": [f.to_json() for f in self.findings],
        }


def compare_histories(a: AuditReport, b: AuditReport) -> Comparison:
    """Compare two audited copies of one chat: truncation, divergence, cross-copy equivocation."""
    out = Comparison(a, b)
    if a.history is None or b.history is None:
        out.findings.append(Finding("unreadable", "a copy has no readable genesis to compare"))
        return out
    if a.chat_id != b.chat_id:
        out.findings.append(
            Finding(
                "different-chat",
                f"the copies are of different chats ({_short(a.chat_id)} and {_short(b.chat_id)})",
            )
        )
        return out
    ha, hb = a.history, b.history
    out.only_a = [e.hash for e in ha.entries() if e.hash not in hb]
    out.only_b = [e.hash for e in hb.entries() if e.hash not in ha]
    _cross_equivocations(ha, hb, out)
    if out.only_b and not out.only_a:
        out.findings.append(_truncated("A", a.source, hb, out.only_b, ha))
    elif out.only_a and not out.only_b:
        out.findings.append(_truncated("B", b.source, ha, out.only_a, hb))
    elif out.only_a and out.only_b:
        out.findings.append(
            Finding(
                "diverged",
                f"each copy holds messages the other lacks (A: {len(out.only_a)}, "
                f"B: {len(out.only_b)}); at least one copy is incomplete",
            )
        )
    return out


def _truncated(name: str, source: str, full: ChatHistory, extra: list[bytes], short: ChatHistory) -> Finding:
    entries = [e for e in (full.get(h) for h in extra) if e is not None]
    first = entries[0]
    authors = sorted({str(e.env.author) for e in entries})
    return Finding(
        "truncated",
        f"copy {name} ({source or name}) lacks {len(extra)} signed message(s) that the other copy "
        f"holds after its heads (first: {first.env.author} seq {first.env.seq}; authors: "
        f"{', '.join(a[-6:] for a in authors)}); copy {name} was truncated or is behind "
        f"(it has {len(short)} messages, the other {len(full)})",
        hash=first.hash,
        author=first.env.author,
        seq=first.env.seq,
    )


def _cross_equivocations(ha: ChatHistory, hb: ChatHistory, out: Comparison) -> None:
    index_b = {(e.env.author, e.env.seq): e for e in hb.entries()}
    for entry in ha.entries():
        other = index_b.get((entry.env.author, entry.env.seq))
        if other is not None and other.hash != entry.hash:
            out.findings.append(
                Finding(
                    "equivocation",
                    f"{entry.env.author} signed different messages with seq {entry.env.seq} "
                    "in the two copies",
                    hash=entry.hash,
                    author=entry.env.author,
                    seq=entry.env.seq,
                    proof=(entry.env.to_cbor(), other.env.to_cbor()),
                )
            )


def _short(digest: bytes | None) -> str:
    return digest.hex()[:16] + "..." if digest else "?"


__all__ = ["Comparison", "compare_histories"]
