"""Which of a fact's numbers is not the value a question asks for, or is the end it asks for (pure).

Used by :mod:`~ioa_p2p.adapters.retrieval.extract`: the day of a date written without its year ("1
November") is part of the date; a bare number followed by the thing it counts or measures ("170 gsm",
"12 cards") is no price; a change "from 512 to 64" answers "... reset to?" with its end and "... changed
from?" with its start; a span of times "between 07:00 and 20:00" answers "when does it end?" with its end
and "when does it open?" with its start; a date question that names the year of what it asks about ("the
marathon in 2027", "the Kittering Marathon 2027") is answered by a date of that year only.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from ioa_p2p.planning.values import Found


def change_end(question: str, text: str, pool: Sequence[Found]) -> Found | None:
    """A change "from 512 to 64" where the question asks what it went to ("... reset it to?") or from
    ("... changed from?"): that end; None when the fact states no change or the question asks neither."""
    q = question.lower().rstrip(" ?.")
    end = "to" if re.search(r"\bto$|\b(?:to|into) (?:what|which|how)\b", q) else ""
    end = end or ("from" if re.search(r"\bfrom$|\bfrom (?:what|which|how)\b", q) else "")
    if not end:
        return _old_or_new(q, text, pool)
    for m in re.finditer(r"\bfrom\s+(\S+(?:\s\S+)?)\s+to\s", text):
        start, stop = m.start(1), m.end()
        ends = [f for f in pool if start <= f.start < stop + 16]
        if len(ends) >= 2:
            return ends[0] if end == "from" else ends[1]
    return None


_OLD = re.compile(r"\b(?:(?<![-\w])(?<!years )(?<!year )old|previous|former|original|earlier|prior)\b")
_NEW = re.compile(r"\b(?:new|now|current|currently|latest|updated|revised|raised)\b")
#: "now 20 GiB (was 5 GiB)", "EUR 78, up from EUR 70", "64 (previously 512)": the old value after the cue
_WAS = re.compile(r"\(\s*(?:was|previously|formerly|before|old)\b|\b(?:up|down|raised|cut|lowered) from\b")


def _old_or_new(q: str, text: str, pool: Sequence[Found]) -> Found | None:
    """A fact that states a change ("from 70 to 78", "now 20 (was 5)") and a question that asks for the old
    value or the new one (but not both): that value; None otherwise."""
    old, new = bool(_OLD.search(q)), bool(_NEW.search(q))
    if old == new:
        return None
    for m in re.finditer(r"\bfrom\s+(\S+(?:\s\S+)?)\s+to\s", text):
        ends = [f for f in pool if m.start(1) <= f.start < m.end() + 16]
        if len(ends) >= 2:
            return ends[0] if old else ends[1]
    cue = _WAS.search(text)
    if cue is None:
        return None
    before = [f for f in pool if f.end <= cue.start()]
    after = [f for f in pool if f.start >= cue.end()]
    if not before or not after:
        return None
    return after[0] if old else before[-1]


_RANGE = re.compile(
    r"(?:\bbetween\s+|\bfrom\s+)?(?P<a>\d{1,2}[:.]\d{2})\s*(?:-|–|to|until|till|and)\s*(?P<b>\d{1,2}[:.]\d{2})"
)
_ASKS_END = re.compile(
    r"\b(?:end|ends|ending|close|closes|closing|finish\w*|until|till|latest|stop\w*|shuts?|shutting)\b"
)
_ASKS_START = re.compile(r"\b(?:start\w*|open|opens|opening|begin\w*|earliest|first|from what time)\b")


def asks_end(question: str) -> bool | None:
    """True when a question asks when a span ends ("when does the exhibition end"), False when it asks when
    it starts, None when it asks neither or both."""
    q = question.lower()
    wants_end, wants_start = bool(_ASKS_END.search(q)), bool(_ASKS_START.search(q))
    return None if wants_end == wants_start else wants_end


def range_end(question: str, text: str) -> tuple[int, int] | None:
    """A span of two times ("between 07:00 and 20:00", "09:00-17:30") where the question asks when it ends
    ("what time does access end", "until when") or starts ("when do the doors open"): the (start, end)
    offsets of that end in ``text``; None when the fact states no span or the question asks neither."""
    q = question.lower()
    wants_end, wants_start = bool(_ASKS_END.search(q)), bool(_ASKS_START.search(q))
    if wants_end == wants_start:
        return None
    m = _RANGE.search(text)
    if m is None:
        return None
    return m.span("b") if wants_end else m.span("a")


_SECTION_VERBS = {
    "add": "added",
    "introduc": "added",
    "new": "added",
    "remov": "removed",
    "drop": "removed",
    "fix": "fixed",
    "deprecat": "deprecated",
    "chang": "changed",
    "secur": "security",
}
_ASKED_VERB = re.compile(r"\b(" + "|".join(_SECTION_VERBS) + r")[a-z]*\b", re.I)
_TRAIL_VERSION = re.compile(r"\[?\bv?(\d+\.\d+(?:\.\d+)?)\b\]?")


def section_version(question: str, trail: str) -> str | None:
    """Release notes: a line under a section named by what the question asks happened ("in which version
    was X removed?" and "## [3.3.0] > ### Removed") belongs to that release: its version, from the heading
    trail, whatever other version the line mentions ("deprecated since 3.1.0"); None when the question asks
    no such change or the trail has no such section or no version."""
    verbs = {_SECTION_VERBS[m.group(1).lower()] for m in _ASKED_VERB.finditer(question)}
    parts = [p.strip() for p in trail.split(">")]
    leads = [p.lower().strip("# ").split()[:1] for p in parts]  # a section's first word: "Removed"
    if not verbs or not any(lead and lead[0] in verbs for lead in leads):
        return None
    versions = [m.group(1) for p in parts for m in _TRAIL_VERSION.finditer(p)]
    return versions[-1] if versions else None


_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"


def day_of_month(text: str, f: Found) -> bool:
    """A bare number that is the day of a date written without its year ("1 November", "January 15"):
    part of a date, never a value of its own."""
    if f.unit or f.number != int(f.number) or not 1 <= f.number <= 31:
        return False
    after, before = text[f.end : f.end + 12], text[max(0, f.start - 12) : f.start]
    month_after = re.match(rf"\s+{_MONTH}(?![a-z])", after, re.I)
    return bool(month_after or re.search(rf"\b{_MONTH}\s+$", before, re.I))


_AFTER_A_PRICE = frozenset(
    "per each a an for net excl excluding incl including plus and or to in on vat flat".split()  # noqa: SIM905
)


def counts_a_thing(text: str, f: Found) -> bool:
    """A bare number followed by a word that is not a unit it is priced in ("170 gsm", "12 cards"):
    a measure or a count of something, not a price."""
    word = re.match(r" ?([a-z]{2,})\b", text[f.end : f.end + 20])
    return word is not None and word.group(1) not in _AFTER_A_PRICE


_NAMED_YEAR = re.compile(r"(?:\b(?:in|for|during|of)|\b[A-Z][A-Za-z]+) ((?:19|20)\d\d)\b(?![-/.]\d)")

DateFound = tuple[int, int, dt.date]


def of_named_year(question: str, found: Sequence[DateFound]) -> list[DateFound]:
    """The dates of ``found`` in a year the question names as the one of what it asks about ("in 2027",
    "Marathon 2027"); all of them when it names none (a year before a noun, "the 2025 list", is a name)."""
    years = {int(y) for y in _NAMED_YEAR.findall(question)}
    return [d for d in found if d[2].year in years] if years else list(found)


__all__ = ["change_end", "counts_a_thing", "day_of_month", "of_named_year", "range_end", "section_version"]
