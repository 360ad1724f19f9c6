"""A table row's key and a document's season against the question (pure; part of agreement.py's checks).

- :func:`unlisted_row_key`: the answering fact is a row of a table whose rows are keyed by a quantity of
  one unit ("1 day", "6 days"; "up to 5 kg" is a band, agreement.py's) and the question states a quantity
  of that unit ("a 3-day pass") that no row's key states: the row (whichever, the "Season" row too)
  answers another question (its price is for another length), so the answer is refused, naming the
  quantity. A table with a single such row (a
  rate: "1 hour | EUR 12") is not checked: scaling a rate is the planner's.
- :func:`other_model`: the question names a model ("the CX 42") and the document names only other models
  of its family ("CX 28 / CX 35").
- :func:`other_season`: the question names a season ("summer 2027", "in winter") and the document's head
  (its first lines, its path) names another season and the document never names the one asked.
"""

from __future__ import annotations

import re

from ioa_p2p.adapters.retrieval.qualifiers import Qualifier
from ioa_p2p.planning.answer_types import MONEY_UNITS
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.values import ALIASES, numbers_in

#: a key that bounds a range of quantities rather than stating one
_BOUNDED = re.compile(
    r"-|–|\+|<|>|\b(?:to|up|over|under|above|below|beyond|more|less|least|most|from|within|max\w*|min\w*|"
    r"each|every|per|extra|additional|first|next|after|before)\b",
    re.I,
)
#: a row's first cell: up to a pipe or a gap of two spaces
_FIRST_CELL = re.compile(r"^\s*\|?\s*(.+?)(?:\s*\||\s{2,}|\t|$)")
MAX_TABLE_LINES = 80


def unlisted_row_key(question: str, document: str, fact: str) -> list[Qualifier]:
    """The question's quantity no row key of the answering row's table states (see the module doc)."""
    row = fact.split("\0")[0]
    if " | " not in row:
        return []
    key = row.split(" | ")[0].strip()
    if len([n for n in numbers_in(key) if n.unit]) > 1 or _BOUNDED.search(key):
        return []  # "more than 3 years", "up to 5 kg": a band (agreement.py)
    lines = _table_lines(document, key)
    if any(_BOUNDED.search(_first_cell(line)) for line in lines):
        return []  # a table of bands ("1-2 days", "7+ days"): agreement.py's
    out = []
    for q in stated_quantities(question):
        lengths = {n for line in lines for n in _key_quantities(line, q.unit)} if q.unit else set()
        if len(lengths) >= 2 and q.number not in lengths:  # (the "Season" row of a table of 1 and 6 days too)
            out.append(Qualifier(q.text, "quantity", ()))
    return out


def _first_cell(line: str) -> str:
    m = _FIRST_CELL.match(line)
    return m.group(1) if m else ""


def _key_quantities(line: str, unit: str) -> list[float]:
    cell = _first_cell(line)
    return [n.number for n in numbers_in(cell) if n.unit == unit]


def _table_lines(document: str, key: str) -> list[str]:
    """The lines of the block (no blank line between) that holds a line opening with ``key`` (its words
    joined by any space, as a row whose key spans two cells reads)."""
    lines = document.splitlines()
    words = [re.escape(w) for w in key.split()]
    opening = re.compile(r"^\s*\|?\s*" + r"\s+".join(words) + r"(?!\w)")
    for i, line in enumerate(lines):
        if opening.match(line):
            start = i
            while start > 0 and lines[start - 1].strip() and i - start < MAX_TABLE_LINES:
                start -= 1
            end = i
            while end + 1 < len(lines) and lines[end + 1].strip() and end - i < MAX_TABLE_LINES:
                end += 1
            return lines[start : end + 1]
    return []


_SEASONS = {"spring": "spring", "summer": "summer", "autumn": "autumn", "fall": "autumn", "winter": "winter"}
_SEASON = re.compile(r"\b(spring|summer|autumn|fall|winter)\b", re.I)
#: a season the question asks about: with a year ("summer 2027") or after a preposition ("in winter")
_ASKED_SEASON = re.compile(
    r"\b(?:(?:in|for|during|over|this|next|last)\s+(?:the\s+)?(spring|summer|autumn|fall|winter)\b"
    r"|(spring|summer|autumn|fall|winter)\s+(?:of\s+)?(?:19|20)\d\d)",
    re.I,
)


def other_season(question: str, document: str, path: str = "") -> list[Qualifier]:
    """The season the question asks about, when the document's head names only another (module doc)."""
    asked = {_SEASONS[(m.group(1) or m.group(2)).lower()] for m in _ASKED_SEASON.finditer(question)}
    if not asked:
        return []
    head = "\n".join([ln for ln in document.splitlines() if ln.strip()][:2] + [path])
    named_head = {_SEASONS[m.group(1).lower()] for m in _SEASON.finditer(head)}
    named_doc = {_SEASONS[m.group(1).lower()] for m in _SEASON.finditer(document)}
    if not named_head:
        return []
    return [Qualifier(season, "season", ()) for season in sorted(asked) if season not in named_doc]


#: a model code as products are named: two to four capitals and a number ("CX 42", "HP-12", "TX400")
_MODEL = re.compile(r"(?<![\w-])([A-Z]{2,4})[ -]?(\d{1,4})(?![\w.,/-])\s*(%|[A-Za-z]+)?")


def other_model(question: str, document: str) -> list[Qualifier]:
    """A model the question names ("the CX 42") in a document that names other models of its family
    ("CX 28 / CX 35") and never this one, in any spacing: the answer is another model's."""
    out = []
    for m in _MODEL.finditer(question):
        prefix, number = m.group(1), m.group(2)
        after = (m.group(3) or "").lower()
        if prefix in MONEY_UNITS or prefix.lower() in ALIASES or after == "%" or after in ALIASES:
            continue  # "EUR 40", "KW 5", "CO 40 ppm": an amount, no model
        family = re.compile(rf"(?<![\w-]){prefix}[ -]?(\d{{1,4}})(?![\d])")
        numbers = {f.group(1) for f in family.finditer(document)}
        if numbers and number not in numbers:
            out.append(Qualifier(f"{prefix} {number}", "model", ()))
    return out


__all__ = ["other_model", "other_season", "unlisted_row_key"]
