"""A party of several kinds of people, each priced by its own row (pure).

"What will it cost a senior and a student to see the museum and the exhibition?" names two kinds of
visitor; a ticket table prices each kind in its own row ("Senior (65+) | 12.00", "Student (with card) |
10.00"), and a supplement may price them by lists ("EUR 6.00 for adults, seniors and students, EUR 3.00 for
children"). :func:`party_expression` adds, for each kind the question names (times how many), its row's
price and the supplements the question asks for (their sentence's words are the question's). None unless
the question names at least two kinds and every kind has a row.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.records import DocRecords
from ioa_p2p.planning.rule_fit import GENERIC, words_of
from ioa_p2p.planning.values import format_number, numbers_in

_KINDS = ("adult", "senior", "student", "child", "infant", "pupil", "youth", "teenager", "concession")
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_PARTY = re.compile(
    r"\b(a|an|one|two|three|four|five|six|\d+)\s+(?:[a-z-]+\s+)?(" + "|".join(_KINDS) + r")(?:s|ren)?\b", re.I
)
_MONEY = r"(?:EUR|GBP|USD|CHF)\s*(\d+(?:\.\d+)?)"
_NOT_TOPIC = frozenset({"supplement", "ticket", "top", "adult", "senior", "student", "child", "children"})
_WITHOUT = re.compile(r"\b(?:without|excluding|except|not including|no)\b", re.I)
_FOR_LIST = re.compile(_MONEY + r"\s+for\s+([a-z ,-]+?)(?=,?\s*(?:EUR|GBP|USD|CHF)|[.;]|$)", re.I)


def party_of(question: str) -> list[tuple[int, str]]:
    """(how many, kind) of each kind of person the question names, in order."""
    out: dict[str, int] = {}
    for m in _PARTY.finditer(question):
        word = m.group(1).lower()
        n = int(word) if word.isdigit() else _COUNTS[word]
        kind = m.group(2).lower()
        out[kind] = out.get(kind, 0) + n
    return [(n, k) for k, n in out.items()]


def party_expression(question: str, records: DocRecords | None) -> str | None:
    """The party's price: each kind's row price (times its count) plus the supplements asked for."""
    party = party_of(question)
    if records is None or len(party) < 2:
        return None
    words = words_of(question)
    supplements = _supplements(records, words, question)
    parts = []
    for n, kind in party:
        price = _row_price(records, kind)
        if price is None:
            return None
        added = "".join(f" + {format_number(s[kind])}" for s in supplements if kind in s)
        each = format_number(price) + added
        parts.append(f"{n} * ({each})" if n != 1 else each)
    return " + ".join(parts)


def _row_price(records: DocRecords, kind: str) -> float | None:
    """The price of the first table row whose label starts with ``kind`` ("Senior (65+) | 12.00")."""
    for rec in records.records:
        if rec.kind != "row" or not rec.cells or not re.match(rf"\s*{kind}", rec.cells[0][1], re.I):
            continue
        for _, cell in rec.cells[1:]:
            found = numbers_in(cell)
            if len(found) == 1 and re.fullmatch(r"(?:EUR\s*)?\d[\d,]*(?:\.\d+)?", cell.strip()):
                return found[0].number
    return None


def _supplements(records: DocRecords, words: frozenset[str], question: str) -> list[dict[str, float]]:
    """Per kind of person, the supplements ("on top of", "supplement") whose words the question names."""
    out = []
    for rec in records.records:
        if not re.search(r"\bsupplement\b|\bon top of\b", rec.text, re.I):
            continue
        title = words_of(rec.section[0]) if len(rec.section) > 1 else frozenset()  # the document's own name
        about = words_of(f"{rec.text} {' '.join(rec.section[-1:])}") - GENERIC - title - _NOT_TOPIC
        named = [m.start() for w in about & words if (m := re.search(rf"\b{re.escape(w)}", question, re.I))]
        if not named or _WITHOUT.search(question[max(0, min(named) - 30) : min(named)]):
            continue  # not asked for ("without the summer show")
        prices: dict[str, float] = {}
        for m in _FOR_LIST.finditer(rec.text):
            for w in re.findall(r"[a-z]+", m.group(2).lower()):
                kind = singular(w) if singular(w) in _KINDS else ("child" if w == "children" else "")
                if kind and kind not in prices:
                    prices[kind] = float(m.group(1))
        if prices:
            out.append(prices)
    return out


__all__ = ["party_expression", "party_of"]
