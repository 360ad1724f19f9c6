"""Agreement between a question and the fact that answers it, beyond names (pure).

qualifiers.py refuses an answer read from a document that never names one of the question's years,
versions, codes or names. Some qualifiers select *where in* a document the answer is, and a fact that
disagrees with them is a near miss even though the document names them somewhere. This module finds those
disagreements; each is a :class:`~ioa_p2p.adapters.retrieval.qualifiers.Qualifier` the retrieval abstains
on (the task fails as ``absent``, the planner names the value missing, exit 3):

- a **month** the question asks about ("in July", "for June 2026") when the answering fact is limited to
  other months ("open from November to February", "Mar-Apr, Nov"), or the document's header (its first
  lines or its path) states the period it covers and that period does not hold the month ("daily log, 1 to
  14 May 2026");
- a **day** of a day-keyed log ("20 May" over a log whose rows are keyed 01 to 14 under a header that
  names May): the day is no row's key;
- a **band**: a quantity the question states ("a 45 kg child") when the answering fact gives ranges of that
  unit ("5 to 7.9 kg") and none of them holds it;
- a **designator** ("Section F", "Zone 3", "Class B": a capitalised noun and a letter or a small number)
  that the document names in no form: "Section F", "Sections A and F", "Sec. F" / "R2" (the noun
  abbreviated), or a line keyed by "F" in a document that uses the noun;
- a **specification** ("the 250 mg/5 mL suspension"): a ratio of two units the question states when the
  document states that ratio of the same units only with other numbers ("160 mg/5 mL");
- a **row key** of a table priced by length or size ("1 day", "6 days" as rows): a quantity the question
  states in that unit ("a 3-day pass") that no row's key states (rowkeys.py);
- a **season** the question names ("summer 2027") when the document's title names another ("WINTER
  2026/27") and never the one asked (rowkeys.py);
- a **model** the question names ("the CX 42") when the document names only others of its family ("CX 28
  / CX 35") (rowkeys.py);
- a **size** the question names a thing by ("a 16 A hook-up", "a 150 sq ft unit") that no line of the
  document states while the answering fact, or the document's lines about that thing, state other sizes
  of the unit ("Electric hook-up (10 A)") (measures.py).

None of these reads wording of one suite: each compares a class of value (a month, a day, a quantity, an
identifier, a ratio) between the question and the evidence. Names are not checked in a question about the
asker's own situation ("my Flat 4B"), as in qualifiers.py.
"""

from __future__ import annotations

import re

from ioa_p2p.adapters.retrieval.measures import unlisted_measures
from ioa_p2p.adapters.retrieval.qualifiers import Qualifier, unnamed_qualifiers
from ioa_p2p.adapters.retrieval.rowkeys import other_model, other_season, unlisted_row_key
from ioa_p2p.planning.values import ALIASES, MONTHS, numbers_in

_MONTH_NAMES = (
    "January February March April May June July August September October November December".split()  # noqa: SIM905
)
#: a month as documents write it: capitalised or in capitals, full or abbreviated ("Mar", "Sept", "MAY")
_MONTH_TOKEN = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?"
    r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_MONTH_ANY = re.compile(rf"\b({_MONTH_TOKEN}|{_MONTH_TOKEN.upper()})\b")
_RANGE = re.compile(
    rf"\b({_MONTH_TOKEN}|{_MONTH_TOKEN.upper()})\.?(?:\s+(?:19|20)\d{{2}})?\s*(?:-|–|to|TO|until|till|through)\s*"
    rf"(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?({_MONTH_TOKEN}|{_MONTH_TOKEN.upper()})\b"
)
#: a range of days in one month ("1 to 14 May 2026", "1-14 MAY"): a period of that month
_DAY_RANGE = re.compile(
    rf"\b\d{{1,2}}\s*(?:-|–|to|TO)\s*\d{{1,2}}\s+({_MONTH_TOKEN}|{_MONTH_TOKEN.upper()})\b"
)
#: a month and its year ("May 2026"), the period a document's title names
_MONTH_YEAR = re.compile(rf"\b({_MONTH_TOKEN}|{_MONTH_TOKEN.upper()})\s+(?:19|20)\d{{2}}\b")
#: a month the question asks about: after a preposition, or before a year; never the day of a date
_ASKED_MONTH = re.compile(
    r"(?<!\d\s)\b(?:in|for|during|throughout|over|of|across)\s+(?:the\s+month\s+of\s+)?"
    r"(January|February|March|April|May|June|July|August|September|October|November|December)"
    r"(?!\s+\d{1,2}\b(?!\d))"
    r"|(?<!\d\s)\b(January|February|March|April|May|June|July|August|September|October|November|December)"
    r"\s+(?:19|20)\d{2}\b"
)
_EXCLUDING = re.compile(r"\b(?:outside|except|excluding|other than|apart from|not in|closed)\b", re.I)
#: a bound on one side only ("from 1 October", "until 31 Dec 2026"): the months after or before it all hold
_OPEN_BOUND = re.compile(
    rf"\b(?:from|since|after|until|till|before|by|up to)\s+(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?"
    rf"(?:{_MONTH_TOKEN}|{_MONTH_TOKEN.upper()})\b",
    re.IGNORECASE,
)


def open_bound(text: str) -> bool:
    """Whether ``text`` bounds a period on one side only (a range "from X to Y" is closed)."""
    return _OPEN_BOUND.search(_RANGE.sub(" ", text)) is not None


def disagreements(question: str, document: str, path: str = "", fact: str = "") -> list[Qualifier]:
    """The qualifiers of ``question`` that the answering ``fact`` (read from ``document`` at ``path``)
    disagrees with (see the module docstring)."""
    found = (
        _other_months(question, document, path, fact)
        + _unkeyed_days(question, document, path)
        + _outside_bands(question, fact)
        + _unnamed_designators(question, document, path)
        + _other_specs(question, document)
        + unlisted_row_key(question, document, fact)
        + other_season(question, document, path)
        + other_model(question, document)
    )
    seen = {q.shown for q in found}  # a size no line states (measures.py), unless a band check named it
    return found + [q for q in unlisted_measures(question, document, fact) if q.shown not in seen]


def near_misses(question: str, document: str, path: str = "", fact: str = "") -> list[Qualifier]:
    """What makes the answering ``fact`` a near miss: a qualifier its document never names
    (qualifiers.py) or one the fact disagrees with (:func:`disagreements`)."""
    return unnamed_qualifiers(question, document, path, fact) + disagreements(question, document, path, fact)


# --------------------------------------------------------------------------- months


def _month_number(token: str) -> int:
    return MONTHS.get(token.lower().rstrip(".")[:3], 0)


def months_covered(text: str) -> set[int]:
    """The months ``text`` names (1-12), ranges filled in ("November to February" is 11, 12, 1, 2)."""
    out: set[int] = set()
    for m in _RANGE.finditer(text):
        a, b = _month_number(m.group(1)), _month_number(m.group(2))
        if a and b:
            out |= {(a - 1 + i) % 12 + 1 for i in range((b - a) % 12 + 1)}
    out |= {n for m in _MONTH_ANY.finditer(text) if (n := _month_number(m.group(1)))}
    return out


def asked_months(question: str) -> list[int]:
    """The months ``question`` asks about ("in July", "June 2026"), not the month of a day-month date."""
    out = []
    for m in _ASKED_MONTH.finditer(question):
        n = _month_number(m.group(1) or m.group(2))
        if n and n not in out:
            out.append(n)
    return out


def _header(document: str, path: str) -> str:
    lines = [ln for ln in document.splitlines() if ln.strip()][:2]
    return "\n".join([*lines, path.replace("-", " ").replace("_", " ")])


def period_months(document: str, path: str = "") -> set[int]:
    """The months a document says it covers: the month ranges and day ranges of its first two lines
    ("Season: 1 April 2026 to 31 March 2027", "daily log, 1 to 14 May 2026") and a month with its year in
    its title line ("Tariff, May 2026"); empty when it states no period (a date it was written on in a
    later line is not one)."""
    header = _header(document, path)
    if open_bound(header):
        return set()
    title = header.splitlines()[0] if header else ""
    out: set[int] = set()
    for m in _RANGE.finditer(header):
        out |= months_covered(m.group(0))
    out |= {_month_number(m.group(1)) for m in _DAY_RANGE.finditer(header)}
    out |= {_month_number(m.group(1)) for m in _MONTH_YEAR.finditer(title)}
    return out - {0}


def _other_months(question: str, document: str, path: str, fact: str) -> list[Qualifier]:
    asked = asked_months(question)
    if not asked:
        return []
    out = []
    closed = fact and not _EXCLUDING.search(fact) and not open_bound(fact)
    said = months_covered(fact) if closed else set()
    period = period_months(document, path)
    for month in asked:
        if (said and month not in said) or (period and month not in period):
            out.append(Qualifier(_MONTH_NAMES[month - 1], "month", ()))
    return out


# --------------------------------------------------------------------------- days of a log

#: a log's row: a day number opening the line, then a column (a bar, a tab or two spaces)
_DAY_ROW = re.compile(r"^\s*\|?\s*(\d{1,2})(?:\s*\||\t|\s{2,})")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_TOKEN})\b")
_MONTH_DAY = re.compile(rf"\b({_MONTH_TOKEN})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?![\d:])")


def _asked_days(question: str) -> set[tuple[int, int]]:
    out = {(_month_number(m.group(2)), int(m.group(1))) for m in _DAY_MONTH.finditer(question)}
    out |= {(_month_number(m.group(1)), int(m.group(2))) for m in _MONTH_DAY.finditer(question)}
    return {(mo, d) for mo, d in out if mo and 1 <= d <= 31}


def _unkeyed_days(question: str, document: str, path: str) -> list[Qualifier]:
    """ "20 May" over a log whose rows are keyed by day (five or more) under a header naming May only."""
    asked = _asked_days(question)
    if not asked:
        return []
    keys = [int(m.group(1)) for ln in document.splitlines() if (m := _DAY_ROW.match(ln))]
    keys = [k for k in keys if 1 <= k <= 31]
    period = period_months(document, path)
    if len(keys) < 5 or len(period) != 1:
        return []
    (month,) = period
    return [
        Qualifier(f"{day} {_MONTH_NAMES[mo - 1]}", "date", ())
        for mo, day in sorted(asked)
        if mo != month or day not in keys
    ]


# --------------------------------------------------------------------------- bands

_BAND = re.compile(
    r"(?<![\d.])(\d+(?:\.\d+)?)\s*([A-Za-z]+)?\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)\s*([A-Za-zµ]+)(?![\w/])"
)


def _outside_bands(question: str, fact: str) -> list[Qualifier]:
    """ "a 45 kg child" answered by the row "5 to 7.9 kg": the fact's ranges of that unit all miss it."""
    if not fact:
        return []
    bands: dict[str, list[tuple[float, float]]] = {}
    for m in _BAND.finditer(fact.split("\0")[0]):
        unit = ALIASES.get(m.group(4).lower(), "")
        first = ALIASES.get((m.group(2) or "").lower(), unit)
        if unit and first == unit:
            lo, hi = float(m.group(1)), float(m.group(3))
            bands.setdefault(unit, []).append((min(lo, hi), max(lo, hi)))
    out = []
    for q in numbers_in(question):
        ranges = bands.get(q.unit) if q.unit else None
        if ranges and not any(lo <= q.number <= hi for lo, hi in ranges):
            out.append(Qualifier(q.text, "band", ()))
    return out


# --------------------------------------------------------------------------- designators

_DESIGNATOR = re.compile(r"(?<![\w-])([A-Z][a-z]{2,})\s+([A-HJ-Z]|\d{1,3})(?![\w.,:/-])")
#: "zone E", "band C": a lower-case noun and a capital letter (a lower-case noun's number is a quantity)
_LOWER_DESIGNATOR = re.compile(r"(?<![\w-])([a-z]{3,})\s+([A-HJ-Z])(?![\w.,:/'’-])")
_AFTER = re.compile(r"\s*(%|[A-Za-zµ]+)")
_NOT_DESIGNATOR_WORDS = """
    The This That What Which Who How When Where Why Find Take Get Look Add Multiply Divide Subtract Compute
    Calculate Convert Run Print Then And Each Every Step Item Mon Tue Wed Thu Fri Sat Sun
    """
_NOT_DESIGNATOR = frozenset(_NOT_DESIGNATOR_WORDS.split())
#: units that number things when written before the number and capitalised ("Year 6", "Week 3", "Day 2")
_ORDINAL_UNITS = frozenset({"years", "weeks", "days", "months", "h"})
_SITUATION = re.compile(r"\b(?:i|i'm|i've|i'd|my|we|we're|we'd|we've|our|us)\b", re.IGNORECASE)


def designators(question: str) -> list[tuple[str, str]]:
    """The (noun, identifier) designators of ``question`` ("Section F", "Zone 3"), none at a sentence's
    start, none that is a month, a currency, a unit or a frame word."""
    if _SITUATION.search(question):
        return []
    out = []
    for m in [*_DESIGNATOR.finditer(question), *_LOWER_DESIGNATOR.finditer(question)]:
        noun, ident = m.group(1), m.group(2)
        before = question[: m.start()].rstrip()
        if not before or before[-1] in ".!?:;\n`\"'(":
            continue
        low = noun.lower()
        unit_named = low in ALIASES and not (noun[:1].isupper() and ALIASES[low] in _ORDINAL_UNITS)
        if noun in _NOT_DESIGNATOR or low[:3] in MONTHS or unit_named or noun.upper() in ("EUR", "USD"):
            continue  # "Year 6", "Week 3", "Day 2" (a capitalised unit before its number) stay: designators
        after = _AFTER.match(question, m.end())
        if ident.isdigit() and after and (after.group(1) == "%" or after.group(1).lower() in ALIASES):
            continue  # "Add 3 kg": a quantity, not a designator
        out.append((noun, ident))
    return out


def _designator_named(noun: str, ident: str, document: str) -> bool:
    low = noun.lower()
    stem = re.escape(low[:-1] if low.endswith("s") and not low.endswith("ss") else low)  # "Class": class
    i = re.escape(ident)
    joint = r"(?:\s*,\s*|\s+and\s+|\s+or\s+|\s*&\s*|\s*(?:-|–|to)\s*)"
    listed = rf"\b(?i:{stem}(?:es|s)?)\.?\s+(?:[A-Z0-9]{{1,3}}{joint})*{i}\b"
    if re.search(listed, document, re.IGNORECASE if ident.isdigit() else 0):
        return True
    short = "|".join(re.escape(noun[:k]) for k in (1, 2, 3))  # "R2", "Sec. F": the noun abbreviated
    if re.search(rf"(?<![\w-])(?i:{short})\.?[-\s]?{i}(?![\w])", document):
        return True
    if re.search(rf"\b{stem}s?\b", document, re.I) is None:
        return False
    keyed = rf"^\s*(?:[|*-]\s*)?{i}(?:\s*[|.:)]|\s{{2,}}|\t)"
    if re.search(keyed, document, re.M):
        return True
    if ident.isdigit():  # a numbered designator in a range or a column of numbers: looked for leniently,
        return _in_numbered_range(stem, int(ident), document) or (  # unless the document numbers the noun
            re.search(rf"\b{stem}(?:es|s)?\.?\s+\d", document, re.I)
            is None  # itself ("Studio 1", "Studio 2")
            and re.search(rf"(?<![\w.]){i}(?![\w.])", document) is not None
        )
    return False


def _in_numbered_range(stem: str, number: int, document: str) -> bool:
    """ "Rooms 1-4", "studios 2 to 5": the noun's numbers as a range that holds ``number``."""
    for m in re.finditer(rf"\b{stem}(?:es|s)?\.?\s+(\d{{1,3}})\s*(?:-|–|to)\s*(\d{{1,3}})\b", document, re.I):
        if int(m.group(1)) <= number <= int(m.group(2)):
            return True
    return False


def _unnamed_designators(question: str, document: str, path: str) -> list[Qualifier]:
    text = f"{document}\n{path}"
    return [
        Qualifier(f"{noun} {ident}", "designator", ())
        for noun, ident in [*designators(question), *_lettered_i(question, document)]
        if not _designator_named(noun, ident, text)
    ]


#: "Band I": the letter I after a noun (left out of designators, where "Can I ..." is a pronoun)
_DESIGNATOR_I = re.compile(r"(?<![\w-])([A-Z][a-z]{2,})\s+I(?![\w.,:/'’-])")


def _lettered_i(question: str, document: str) -> list[tuple[str, str]]:
    """ "Band I" where the document letters that noun's designators ("Band A", "Band D"): a designator,
    whoever asks (the pronoun "I" follows no noun the document letters)."""
    out = []
    for m in _DESIGNATOR_I.finditer(question):
        noun = m.group(1)
        if noun in _NOT_DESIGNATOR:
            continue
        letters = set(re.findall(rf"\b{re.escape(noun)}\s+([A-HJ-Z])\b", document))
        if len(letters) >= 2:
            out.append((noun, "I"))
    return out


# --------------------------------------------------------------------------- specifications

_SPEC = re.compile(
    r"(?<![\d.])(\d+(?:\.\d+)?)\s*([A-Za-zµ]+)\s*(?:/|\bper\b)\s*(\d+(?:\.\d+)?)\s*([A-Za-zµ]+)\b"
)


def _unit(word: str) -> str:
    """A unit's canonical spelling; a short word we do not know ("mg") as itself, else ""."""
    low = word.lower()
    return ALIASES.get(low) or (low if len(low) <= 3 and low.isalpha() else "")


def _specs(text: str) -> list[tuple[float, str, float, str]]:
    out = []
    for m in _SPEC.finditer(text):
        top, bottom = _unit(m.group(2)), _unit(m.group(4))
        if top and bottom:
            out.append((float(m.group(1)), top, float(m.group(3)), bottom))
    return out


def _other_specs(question: str, document: str) -> list[Qualifier]:
    """ "the 250 mg/5 mL suspension" over a document that states only "160 mg/5 mL"."""
    out = []
    stated = _specs(document)
    for a, top, b, bottom in _specs(question):
        same_units = [(x / y if y else 0.0) for x, t, y, u in stated if (t, u) == (top, bottom)]
        ratio = a / b if b else 0.0
        if same_units and not any(abs(r - ratio) <= 1e-9 * max(1.0, ratio) for r in same_units):
            out.append(Qualifier(f"{a:g} {top}/{b:g} {bottom}", "specification", ()))
    return out


__all__ = [
    "asked_months",
    "designators",
    "disagreements",
    "months_covered",
    "near_misses",
    "open_bound",
    "period_months",
]
