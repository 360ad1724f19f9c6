"""Terms a document states once for many charges, read against a question's situation (pure; issue 23).

- :func:`caption_minimums`: a minimum quantity a table's caption states for every row under it ("Table 2.
  Room rates (minimum booking 3 hours; 4 hours on Sundays)"): each row's rate is charged for at least the
  minimum whose own clause's condition the question meets ("on a Sunday": 4 hours), the one with no
  condition otherwise (3 hours); a condition the question does not meet leaves its minimum out. The rules
  come back with that minimum in each row's own record, where planning/rule_apply.py reads a rate's
  minimum quantity.
- :func:`frees`: a charge whose own sentence names what it is not charged on ("the Blue Studio is lit at
  no extra charge", "except the foyer", "does not apply to members") when the question names that thing:
  the charge is left out of the sum (planning/ruled.py adds other charges only when the situation meets
  each one's condition).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ioa_p2p.planning.doc_facts import convert
from ioa_p2p.planning.records import MINIMUM, RATE, DocRecord, DocRecords, DocRule
from ioa_p2p.planning.rule_fit import GENERIC, MONEY, words_of

_ROW = "row"


def caption_minimums(records: DocRecords, words: frozenset[str]) -> list[DocRule]:
    """The document's rules with each table row's rate given the minimum quantity its caption states (the
    one whose condition ``words`` meet): added in the row's record unless the row states its own."""
    rules = list(records.rules)
    for k, record in enumerate(records.records):
        if record.kind == _ROW:
            continue
        least = [r for r in record.rules if r.kind == MINIMUM and r.unit and r.unit not in MONEY]
        if not least or len(least) != len(record.rules):
            continue  # a caption states its minimums and nothing else
        chosen = _met(least, words)
        if chosen is None:
            continue
        for row in _rows_after(records, k):
            own = any(r.kind == MINIMUM for r in row.rules)
            measured = any(
                r.kind == RATE and any(convert(chosen.unit, p) is not None for p in r.per) for r in row.rules
            )
            if not own and measured:
                index = next(r.record for r in row.rules)
                rules.append(replace(chosen, record=index, line=row.line))
    return rules


def _measured(rate: DocRule, unit: str) -> bool:
    return any(convert(unit, p) is not None for p in rate.per)


def _rows_after(records: DocRecords, k: int) -> list[DocRecord]:
    """The table rows that follow record ``k`` with nothing between (the records a caption heads)."""
    rows = []
    for record in records.records[k + 1 :]:
        if record.kind != _ROW:
            break
        if record.rules:
            rows.append(record)
    return rows


def _met(least: list[DocRule], words: frozenset[str]) -> DocRule | None:
    """The minimum whose own clause's condition ``words`` meet; else the one with no condition."""
    plain: DocRule | None = None
    for r in least:
        condition = _condition(r)
        if condition and condition & words:
            return r
        if not condition and plain is None:
            plain = r
    return plain


_NUMBER_UNIT = r"(?<![\d.]){n}(?:\.0+)?\s*(?P<u>[A-Za-z]+)"


def _condition(r: DocRule) -> frozenset[str]:
    """The words after a minimum's quantity in its own clause ("4 hours on Sundays": sunday), without
    the words every bound has and the unit."""
    shown = f"{r.number:g}"
    m = re.search(_NUMBER_UNIT.format(n=re.escape(shown)), r.when)
    if m is None:
        return frozenset()
    tail = re.split(r"[;,()]|\.\s", r.when[m.end() :], maxsplit=1)[0]
    return words_of(tail) - GENERIC - _BOUND_WORDS - {m.group("u").lower()}


_BOUND_WORDS = frozenset({"minimum", "min", "least", "hire", "booking", "charge", "charged", "only"})

_FREED = re.compile(
    r"(?:^|[(;:.,]\s*|\band\s+)(?:but\s+)?(?P<a>[A-Za-z][\w\s'-]{0,60}?)\s+(?:is|are)\s+(?:[a-z]+\s+){0,2}?"
    r"(?:at\s+no\s+(?:extra\s+|additional\s+)?(?:charge|cost)|free\s+of\s+charge|not\s+charged)\b"
    r"|\b(?:except|excluding|apart\s+from|not\s+(?:charged\s+)?(?:on|for))\s+(?:for\s+|on\s+)?(?P<b>[\w\s'-]{1,60}?)"
    r"(?:[.;,)]|$)"
    r"|\b(?:does\s+not|doesn't|do\s+not)\s+apply\s+to\s+(?P<c>[\w\s'-]{1,60}?)(?:[.;,)]|$)",
    re.I,
)


def frees(when: str, words: frozenset[str]) -> bool:
    """Whether a charge's own sentence exempts something the question names (every word of one of the
    things it lists: "the Small Hall and Committee Room are heated at no extra charge" for the Small
    Hall)."""
    for m in _FREED.finditer(when):
        listed = m.group("a") or m.group("b") or m.group("c") or ""
        for thing in re.split(r",|\band\b|\bor\b", listed):
            named = words_of(thing) - GENERIC
            if named and named <= words:
                return True
    return False


__all__ = ["caption_minimums", "frees"]
