"""The value of the ordinal a question asks for, where a fact labels its values by ordinals (pure).

"Open: 1st £400  2nd £200  3rd £100" for "the second prize", "first child £40, second child £30, each
further child £20" for "the third child": a fact that states several values, each after (or before "for
the ...") an ordinal, answers a question that names one ordinal with the value labelled by it. An ordinal
the fact does not label is read from a label of the rest ("each further", "subsequent", "additional",
"every other") when the fact labels the first one. The question's ordinal is none of a fixed phrase
("first class", "first aid", "first-time", "at first") nor one counting a quantity ("the first 880 yards",
"the first 2 hours": a band, read elsewhere).

:func:`ordinal_item` returns the value, or None when the question names no ordinal (or two), or the fact
labels fewer than two of its values by distinct ordinals, or none by the one asked: the caller then reads
the fact as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7}
_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|([1-9])(?:st|nd|rd|th))\b", re.I)
#: an ordinal in a fixed phrase, or counting a quantity ("the first 2 hours"): no label of a value
_NOT_LABEL = re.compile(
    r"(?:[\s-]+(?:class|aid|time|floor|name|half|glance|hand|thing|come|light|degree)\b|\s+(?:of\s+all)\b"
    r"|\s+\d)",
    re.I,
)
_AT_FIRST = re.compile(r"\b(?:at|from\s+the)\s+$", re.I)
#: a label of every value after the ones numbered ("each further child", "subsequent nights")
_REST = re.compile(
    r"\b(?:each\s+|every\s+|any\s+)?(?:further|subsequent|additional|extra|other|later)\b", re.I
)
#: how far before a value its label may stand ("1st £400", "second child: £30"), and after it ("£40 for the
#: first child")
BEFORE_CHARS = 24
AFTER_CHARS = 24
REST = 0


def _value(m: re.Match[str]) -> int:
    return int(m.group(2)) if m.group(2) else _WORDS[m.group(1).lower()]


def _labels(text: str) -> list[tuple[int, int, int]]:
    """(start, end, ordinal) of the ordinals of ``text`` that can label a value; ``REST``: "each further"."""
    out = []
    for m in _ORDINAL.finditer(text):
        if _NOT_LABEL.match(text, m.end()) or _AT_FIRST.search(text[: m.start()]):
            continue
        out.append((m.start(), m.end(), _value(m)))
    out += [(m.start(), m.end(), REST) for m in _REST.finditer(text)]
    return sorted(out)


def asked_ordinal(question: str) -> int | None:
    """The one ordinal ``question`` asks about ("the second prize", "our 3rd child"); None for none or two."""
    found = {n for _, _, n in _labels(question) if n != REST}
    return found.pop() if len(found) == 1 else None


def ordinal_item(spans: Sequence[tuple[int, int, T]], text: str, question: str) -> T | None:
    """Of ``spans`` (start, end, value) in ``text``, the value labelled by the question's ordinal (module
    doc); None when there is no such labelling."""
    asked = asked_ordinal(question)
    if asked is None or len(spans) < 2:
        return None
    labels = _labels(text)
    if not labels:
        return None
    starts = sorted(s[0] for s in spans)
    ordered = sorted(spans, key=lambda s: s[0])
    first = ordered[0]  # labels after their values ("£40 for the first child") when the first value's is
    after = (
        _label_before(first[0], labels, starts) is None
        and _label_after(first[1], text, labels, starts) is not None
    )
    labelled: dict[int, list[T]] = {}
    for start, end, value in ordered:
        n = _label_after(end, text, labels, starts) if after else _label_before(start, labels, starts)
        if n is not None:
            labelled.setdefault(n, []).append(value)
    numbered = {n for n in labelled if n != REST}
    if len(numbered) + (REST in labelled) < 2:
        return None
    if asked in labelled:
        chosen = labelled[asked]
    elif asked > 1 and REST in labelled and numbered and max(numbered) < asked:
        chosen = labelled[REST]
    else:
        return None
    return chosen[0] if len(chosen) == 1 else None


def _label_before(start: int, labels: Sequence[tuple[int, int, int]], starts: Sequence[int]) -> int | None:
    """The ordinal right before a value ("1st £400"), no other value between them."""
    before = [
        (a, n)
        for a, b, n in labels
        if b <= start and start - b <= BEFORE_CHARS and not any(b <= s < start for s in starts)
    ]
    return max(before)[1] if before else None


def _label_after(
    end: int, text: str, labels: Sequence[tuple[int, int, int]], starts: Sequence[int]
) -> int | None:
    """The ordinal right after a value after "for" ("£30 for the second child"), no value between."""
    for a, _, n in labels:
        gap = text[end:a]
        near = a >= end and len(gap) <= AFTER_CHARS and re.search(r"\bfor\b", gap, re.I) is not None
        if near and not any(end <= s < a for s in starts):
            return n
    return None


__all__ = ["asked_ordinal", "ordinal_item"]
