"""Whether a file is text the retrieval can read, decided by its content, not its name (blocking: reads the
file's head).

:func:`not_text` reads the first :data:`SNIFF_BYTES` of a file: it is text when they decode as UTF-8 (a
character cut at the end of the sample allowed), hold no NUL byte and few other control bytes (tab, line
feed, carriage return and form feed are text). It returns why a file is not text, or "" for text, so the
index logs every skipped file with its reason and never fails on one.
"""

from __future__ import annotations

import codecs
from pathlib import Path

SNIFF_BYTES = 8_192
#: control bytes (other than tab, LF, CR, FF) a text file may hold, as a share of the sample
MAX_CONTROL_SHARE = 0.01
_TEXT_CONTROLS = frozenset(b"\t\n\r\f")


def not_text(path: Path) -> str:
    """Empty when the file at ``path`` reads as UTF-8 text; else why not (unreadable, binary, not UTF-8)."""
    try:
        with path.open("rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    return why_not_text(head)


def why_not_text(head: bytes) -> str:
    """Empty when ``head`` (a file's first bytes) is UTF-8 text; otherwise the reason."""
    if b"\x00" in head:
        return "binary: holds NUL bytes"
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text: undecodable byte at offset {exc.start}"
    controls = sum(1 for b in head if b < 32 and b not in _TEXT_CONTROLS or b == 127)
    if head and controls / len(head) > MAX_CONTROL_SHARE:
        return f"binary: {controls} control bytes in the first {len(head)}"
    return ""


__all__ = ["MAX_CONTROL_SHARE", "SNIFF_BYTES", "not_text", "why_not_text"]
