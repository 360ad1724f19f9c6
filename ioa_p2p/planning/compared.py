"""Two values of one document compared, and durations read from a timetable's clock times (pure).

A question that compares two things the documents price ("How much more does express delivery to
Riverside cost than standard delivery?", "By what percentage is the off-peak fee lower than the full
fee?", "How much does an adult save by buying a return instead of two singles?") names both sides:
the words before "than" / "instead of" and after it. Each side's value is the document's rate whose
words fit that side best (the words both sides share count for both, a side's own words for it, the
other side's against it), times a count the side states ("two singles"); the answer is their
difference (A - B for "more", B - A for "cheaper", "save", "less") or the difference as a percentage
of the value compared against.

"How long does it take from Midway to the Summit?" over a timetable is the difference between the two
columns' clock times the question names, in minutes, on the first row that has both.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.records import RATE, DocRecords, DocRule
from ioa_p2p.planning.rule_fit import GENERIC, MONEY, words_of
from ioa_p2p.planning.values import format_number

_THAN = re.compile(r"\b(?:than|instead of|rather than|compared (?:with|to))\b", re.I)
_MORE = re.compile(r"\bhow much (more|extra|dearer|higher|less|cheaper|lower)\b|\bsave\b", re.I)
_PERCENT = re.compile(r"\b(?:by )?what percentage\b|\bhow many per ?cent\b|\bby how much per ?cent\b", re.I)
_LOWER = re.compile(r"\b(?:less|cheaper|lower|smaller|save|saves|saving)\b", re.I)
_CLOCK = re.compile(r"\b([01]?\d|2[0-3])[:.]([0-5]\d)\b")


def compared_expression(question: str, records: DocRecords | None) -> tuple[str, str] | None:
    """(expression, unit) for a question comparing two priced things of the document; None otherwise."""
    if records is None:
        return None
    split = _THAN.search(question)
    percent = bool(_PERCENT.search(question))
    if split is None or not (_MORE.search(question) or percent):
        return None
    left, right = question[: split.start()], question[split.end() :]
    a_words, b_words = words_of(left), words_of(right)
    shared = a_words & b_words
    rates = [r for r in records.rules if r.kind == RATE and r.unit in MONEY]
    own_a, own_b = a_words - shared - GENERIC, b_words - shared - GENERIC
    a = _side(rates, own_a, own_b, shared, left, None)
    b = _side(rates, own_b, own_a, shared, right, a[1] if a else None)
    if a is None or b is None or a[1] is b[1] or a[1].unit != b[1].unit:
        return None
    lower = bool(_LOWER.search(question))
    first, second = (b[0], a[0]) if lower else (a[0], b[0])
    if percent:  # the difference as a share of the value compared against
        return f"abs({first} - {second}) / {b[0]} * 100", "%"
    return f"{first} - {second}", a[1].unit


def _side(
    rates: list[DocRule],
    own: frozenset[str],
    other: frozenset[str],
    shared: frozenset[str],
    text: str,
    like: DocRule | None,
) -> tuple[str, DocRule] | None:
    """The amount one side names: its best-fitting rate, times a count it states ("two singles"). The
    second side is the rate most like the first one's but for the side's own words (the same row in
    another column, the same column in another row)."""
    near = words_of(like.when) if like is not None else frozenset()
    best: tuple[float, DocRule] | None = None
    for r in rates:
        words = words_of(r.when)
        if r is like or not words & own:
            continue
        score = 2.0 * len(words & own) + 0.5 * len(words & shared)
        score += len(words & near) if like is not None else -2.0 * len(words & other)
        if best is None or score > best[0]:
            best = (score, r)
    if best is None or best[0] <= 0:
        return None
    rate = best[1]
    count = next(
        (q.number for q in stated_quantities(text) if not q.unit and q.what and singular(q.what) in own), None
    )
    amount = format_number(rate.number)
    return (amount if count is None else f"{format_number(count)} * {amount}"), rate


def timetable_duration(question: str, records: DocRecords | None) -> tuple[str, str] | None:
    """(minutes, "min") between the two columns of a timetable the question names ("from Midway to
    the Summit"), on the first row that has clock times in both."""
    if records is None or not re.match(r"\s*how long\b", question, re.I):
        return None
    m = re.search(r"\bfrom (?:the )?(.+?) to (?:the )?(.+?)(?:[?.,]|$)", question, re.I)
    if not m:
        return None
    start, end = words_of(m.group(1)), words_of(m.group(2))
    for r in records.records:
        if r.kind != "row" or len(r.cells) < 2:
            continue
        a = _column(r.cells, start)
        b = _column(r.cells, end)
        if a is None or b is None or a == b:
            continue
        ta, tb = _minutes(a), _minutes(b)
        if ta is not None and tb is not None:
            return format_number((tb - ta) % (24 * 60)), "min"
    return None


def _column(cells: tuple[tuple[str, str], ...], words: frozenset[str]) -> str | None:
    for header, cell in cells:
        if words and words & words_of(header) and _CLOCK.search(cell):
            return cell
    return None


def _minutes(cell: str) -> int | None:
    m = _CLOCK.search(cell)
    return int(m.group(1)) * 60 + int(m.group(2)) if m else None


__all__ = ["compared_expression", "timetable_duration"]
