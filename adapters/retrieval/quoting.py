"""Quoted text (pure): an e-mail thread's ``>`` levels, a forum post's quote of an earlier one.

A reply quotes what it answers: ``> On Tue, Hanna wrote: ...`` one level down, the message before that
``>>``, and so on; a forum post quotes an earlier post (rendered as ``>`` lines by :mod:`.bbcode`). Read as
plain text, the markers run into the sentences ("Femi's side also asks whether >>> a vegan main ...") and
a paragraph runs on across levels, mixing one message's figures with another's. Here each line loses its
markers and keeps its **depth** (0 for the text written last), so that :mod:`.facts` ends a paragraph where
the depth changes and weighs a quoted fact down by its depth: the deeper the quote, the older the message,
and a value the thread restates later ("£7.80 per guest (not £6.90 as in my first email)") is the one in
force. A quote is still read: it may be the only place a value is stated.

Only a thread is read so: at least :data:`MIN_QUOTED` lines open with ``>`` and a space, another ``>`` or
nothing (a lone "> 10 kg" in a table is no quote), and a quote names who wrote it ("On ..., X wrote:") or
quotes a quote (``>>``): a markdown note set off with ``>`` in a document is no earlier message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: the quoted lines a text needs before its ``>`` markers are read as quote levels
MIN_QUOTED = 2
#: a fact's weight per level of quoting (a question about an earlier message's value names it: "first")
LEVEL_WEIGHT = 0.85
#: the deepest level weighed down further (older messages all weigh as this one)
MAX_LEVEL = 3
_MARKERS = re.compile(r"^[ \t]*((?:>[ \t]?)+)(?=[^>]|$)")


def unquoted(lines: Sequence[str]) -> tuple[list[str], list[int]]:
    """``lines`` without their quote markers, and each line's depth (the number of ``>``); the lines as they
    are, all at depth 0, when too few are quoted to be a thread."""
    marked = [_MARKERS.match(line) for line in lines]
    quoted = [line[m.end() :] for line, m in zip(lines, marked, strict=True) if m is not None]
    deep = any(m is not None and m.group(1).count(">") > 1 for m in marked)
    if len(quoted) < MIN_QUOTED or not (deep or any(_WROTE.search(q) for q in quoted)):
        return list(lines), [0] * len(lines)  # (a markdown note quoted in a document is no thread)
    out: list[str] = []
    depths: list[int] = []
    for line, m in zip(lines, marked, strict=True):
        if m is None:
            out.append(line)
            depths.append(0)
            continue
        rest = line[m.end() :]
        out.append(rest if rest.strip() else "")
        depths.append(m.group(1).count(">"))
    return out, depths


#: who wrote a quoted message, and a message's sign-off: the thread's parties, not what it is about
_ATTRIBUTION = re.compile(r"(?:\bOn .{5,90}?|^\s*[\w.'-]+(?: [\w.'-]+){0,3}) wrote:", re.IGNORECASE)
_SIGN_OFF = re.compile(
    r"^\W*(?:best|best wishes|kind regards|regards|many thanks|thanks|cheers|yours(?: sincerely| truly)?)\b"
    r"[^.?!]{0,120}$",
    re.IGNORECASE,
)


def without_parties(text: str) -> str:
    """A fact's text without who wrote it ("On Tue, 9 Mar, Hanna Ruiz wrote:"); "" for a sign-off ("Best,
    Tom / Pellwick Kitchen Events - Unit 4"): a name there is the thread's party, not the fact's subject."""
    if _SIGN_OFF.match(text):
        return ""
    return _ATTRIBUTION.sub(" ", text)


_WROTE = re.compile(r"\bwrote:", re.IGNORECASE)
_HEADER = re.compile(r"^(From|To|Cc|Subject|Date|Sent)\s*:\s*(.*)$", re.IGNORECASE)
_ADDRESS = re.compile(r"<[^>]*>|\S+@\S+")


def message_title(text: str) -> str | None:
    """A saved message's title: its subject and parties ("Re: Quote PK-2291 - Ruiz/Achebe wedding; Tom
    Pellwick, Hanna Ruiz, Femi Achebe"), when ``text`` opens with mail headers; None otherwise. What the
    headers name is what the whole message is about, every line of it."""
    head: dict[str, str] = {}
    for line in text.lstrip().splitlines()[:12]:
        m = _HEADER.match(line.strip())
        if m is None:
            break
        head[m.group(1).lower()] = m.group(2).strip()
    if "subject" not in head or len(head) < 2:
        return None
    parties = [_ADDRESS.sub("", head.get(k, "")).strip(" ,;") for k in ("from", "to", "cc")]
    return "; ".join([head["subject"], ", ".join(p for p in parties if p)])


def quote_weight(depth: int) -> float:
    """The weight of a fact quoted ``depth`` levels down (1 for the text written last)."""
    return float(LEVEL_WEIGHT ** min(max(depth, 0), MAX_LEVEL))


__all__ = [
    "LEVEL_WEIGHT",
    "MAX_LEVEL",
    "MIN_QUOTED",
    "quote_weight",
    "message_title",
    "unquoted",
    "without_parties",
]
