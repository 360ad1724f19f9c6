"""The self-contained chat history file: export, parse, read and write.

Layout (all a history needs to be verified with nothing but the file)::

    magic    18 bytes  b"IOA-CHAT-HISTORY" 0x00 0x01   (name, NUL, format version 1)
    record*            unsigned LEB128 varint length, then that many bytes

Record 0 is the signed ``chat.genesis`` envelope (its hash is the chat ID; it carries every initial
member's peer ID, hence their public keys). Every following record is one signed ``chat.msg``
envelope: the accepted history in causal order (see :mod:`ioa_p2p.history`), then the
**equivocation evidence** the exporter holds: every signed message that was refused because its
author had already signed another message with the same seq (sorted by hash; its parents are in the
history before it). Evidence is signed by its author like any message, so one exported copy proves
the equivocation: its audit reports ``equivocation`` naming the author and seq. Each record is the
envelope's canonical CBOR, exactly as signed and hashed. Nothing else is in the file: no index, no
unsigned metadata. (Evidence records need no new layout: the format stays version 1, and auditors
that predate them report the same finding.)

:func:`parse_history` never raises for damage inside a recognisable file: it returns the records
it could delimit and a list of structural problems (with byte offsets), so an audit can report a
modified byte anywhere. A file that is not a history at all raises :class:`UnreadableHistory`.
File I/O is limited to :func:`read_history_file` and :func:`write_history_file`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ioa_p2p.errors import InvalidMessage, UnreadableHistory, UsageError
from ioa_p2p.history.bodies import ChatMessage
from ioa_p2p.history.dag import ChatHistory
from ioa_p2p.wire.canonical import encode_uvarint
from ioa_p2p.wire.envelope import MAX_MESSAGE_SIZE, Envelope

MAGIC = b"IOA-CHAT-HISTORY\x00\x01"
#: A file this large is refused rather than read into memory.
MAX_FILE_SIZE = 4 << 30
_MAX_VARINT_BYTES = 4


@dataclass(frozen=True, slots=True)
class Record:
    index: int
    offset: int
    raw: bytes


@dataclass(frozen=True, slots=True)
class StructureProblem:
    code: str
    message: str
    offset: int


@dataclass
class ParsedHistory:
    records: list[Record] = field(default_factory=list)
    problems: list[StructureProblem] = field(default_factory=list)
    size: int = 0


def encode_history(genesis: bytes, messages: Iterable[bytes]) -> bytes:
    """The file bytes for a genesis and messages (each an envelope's canonical CBOR)."""
    parts = [MAGIC, encode_uvarint(len(genesis)), genesis]
    for raw in messages:
        parts.append(encode_uvarint(len(raw)))
        parts.append(raw)
    return b"".join(parts)


def export_history(
    history: ChatHistory, evidence: Iterable[bytes] = (), quarantined: Iterable[bytes] = ()
) -> bytes:
    """A history's file bytes: its genesis, every accepted message in causal order, then the
    equivocation evidence (``history.equivocations`` and ``evidence``: envelope bytes, e.g. from the
    node's store) that is not part of the history and whose parents are, then the ``quarantined``
    records: bytes the node's store held for this chat but could not decode (the audit flags them,
    so a copy damaged on disk is never exported as a clean one)."""
    messages = [e.env.to_cbor() for e in history.entries()]
    records = messages + evidence_records(history, evidence) + list(quarantined)
    return encode_history(history.genesis.to_cbor(), records)


def evidence_records(history: ChatHistory, evidence: Iterable[bytes] = ()) -> list[bytes]:
    """The equivocating envelopes to append to an export, each once, sorted by hash."""
    candidates = [env.to_cbor() for pair in history.equivocations for env in pair]
    candidates.extend(evidence)
    found: dict[bytes, bytes] = {}
    for raw in candidates:
        try:
            env = Envelope.from_cbor(raw)  # verified: an export never carries an unsigned claim
        except InvalidMessage:
            continue
        body = env.body
        if env.hash in history or not isinstance(body, ChatMessage) or body.chat_id != history.chat_id:
            continue
        if all(p in history for p in body.parents):
            found[env.hash] = raw
    return [found[digest] for digest in sorted(found)]


def parse_history(data: bytes) -> ParsedHistory:
    """Split a history file into records; damage is reported in ``problems``, not raised."""
    parsed = ParsedHistory(size=len(data))
    if len(data) < len(MAGIC):
        raise UnreadableHistory(
            f"not an ioa-p2p chat history: {len(data)} bytes is shorter than the file header"
        )
    header = data[: len(MAGIC)]
    if header != MAGIC:
        differing = sum(1 for a, b in zip(header, MAGIC, strict=True) if a != b)
        if differing > 2:
            raise UnreadableHistory(
                "not an ioa-p2p chat history (the file does not start with IOA-CHAT-HISTORY v1)"
            )
        parsed.problems.append(
            StructureProblem("modified-header", f"{differing} byte(s) of the file header differ", 0)
        )
    offset = len(MAGIC)
    while offset < len(data):
        start = offset
        length, offset, error = _readencode_uvarint(data, offset)
        if error:
            parsed.problems.append(StructureProblem("bad-frame", error, start))
            return parsed
        if length > MAX_MESSAGE_SIZE:
            parsed.problems.append(
                StructureProblem(
                    "bad-frame",
                    f"record length {length} is over the {MAX_MESSAGE_SIZE}-byte limit; "
                    "the rest of the file cannot be delimited",
                    start,
                )
            )
            return parsed
        if offset + length > len(data):
            parsed.problems.append(
                StructureProblem(
                    "truncated-record",
                    f"record needs {length} bytes but only {len(data) - offset} remain "
                    "(the file was cut or a length byte was modified)",
                    start,
                )
            )
            return parsed
        parsed.records.append(Record(len(parsed.records), start, data[offset : offset + length]))
        offset += length
    return parsed


def _readencode_uvarint(data: bytes, offset: int) -> tuple[int, int, str]:
    value = 0
    for i in range(_MAX_VARINT_BYTES):
        if offset + i >= len(data):
            return 0, offset, "the file ends inside a record length"
        byte = data[offset + i]
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            if i > 0 and byte == 0:
                return 0, offset, "record length is not minimally encoded"
            return value, offset + i + 1, ""
    return 0, offset, f"record length longer than {_MAX_VARINT_BYTES} bytes"


def read_history_file(path: Path) -> bytes:
    """The file's bytes; raises UnreadableHistory (exit code 2) when it cannot be read."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_SIZE:
            raise UnreadableHistory(f"{path} is {size} bytes, over the {MAX_FILE_SIZE}-byte limit")
        return path.read_bytes()
    except FileNotFoundError:
        raise UnreadableHistory(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UnreadableHistory(f"{path} is a directory, not a history file") from None
    except OSError as exc:
        raise UnreadableHistory(f"cannot read {path}: {exc.strerror or exc}") from None


def write_history_file(path: Path, data: bytes) -> None:
    """Write atomically (temporary file, fsync, rename)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


__all__ = [
    "MAGIC",
    "ParsedHistory",
    "Record",
    "StructureProblem",
    "encode_history",
    "evidence_records",
    "export_history",
    "parse_history",
    "read_history_file",
    "write_history_file",
]
