"""Which key and which column (pure): values :mod:`.extract` reads by what the question names.

- :func:`listing_key`: "Which zone is Serbia in?" over "Zone 2: Switzerland, Serbia, Albania.": the key of
  a line that lists what the question names, when the key holds the noun asked for;
- :func:`header_time`: a clock time a column's header states ("Night (21:00-06:00)") for a question that
  names that column;
- :func:`extreme_column`: "the minimum temperature" is the column "Tmin", never "Tmax";
- :func:`ratio_cell`: "15/9" in a "Ratio to Band D" column is a ratio, not the number 15;
- :func:`range_end_of`: "the top of the grant range" over "EUR 10,001 - 40,000" is 40,000.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ioa_p2p.adapters.retrieval.facts import Fact, Scorer, stem, terms
from ioa_p2p.adapters.retrieval.picks import range_end
from ioa_p2p.planning.values import Found, Value

_CLOCK = re.compile(r"(?<![\d.:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
_FRACTION = re.compile(r"\d+(?:\.\d+)?\s*[/:]\s*\d+(?:\.\d+)?")
_RATIO_WORD = re.compile(r"\b(?:ratios?|fractions?|proportions?)\b", re.I)


_RANGE_CELL = re.compile(r"\d\s*(?:-|–|to)\s*(?:[A-Z€£$]{1,3}\s?)?\d")
#: the end of a range a question asks for: its top or its bottom
_TOP = re.compile(r"\b(?:top|upper|highest|maximum|max|most|largest|ceiling)\b", re.I)
_BOTTOM = re.compile(r"\b(?:bottom|lower end|lowest|minimum|least|smallest|floor)\b", re.I)


def range_end_of(question: str, cell: str, nums: Sequence[Found]) -> Found | None:
    """A cell stating a range of two figures ("EUR 10,001 - 40,000") where the question asks for its top
    ("the top of the grant range", "the most") or its bottom: that figure (in the first one's unit when it
    states none); None otherwise."""
    top, bottom = bool(_TOP.search(question)), bool(_BOTTOM.search(question))
    if len(nums) != 2 or top == bottom or not _RANGE_CELL.search(cell):
        return None
    pick = nums[1] if top else nums[0]
    return pick if pick.unit else replace(pick, unit=nums[0].unit or nums[1].unit)


def ratio_cell(question: str, header: str, cell: str) -> Value | None:
    """A cell that is a ratio ("15/9", "3:2") in a column or for a question about a ratio: as written."""
    if _FRACTION.fullmatch(cell.strip()) and _RATIO_WORD.search(f"{header} {question}"):
        return Value.of_text(re.sub(r"\s+", "", cell))
    return None


#: "Which zone is Serbia in?", "which category does X fall under": the noun asked for
_WHICH_NOUN = re.compile(
    r"\b(?:which|what)\s+(?:[a-z-]+\s+){0,2}?([a-z]{3,})\s+(?:is|are|was|does|do|did)\b", re.I
)
#: a line that names a class and lists its members ("Zone 2: Switzerland, Serbia, ...")
_KEYED_LIST = re.compile(r"^[\W_]*([A-Z][\w' .+/-]{0,38}?)[*_\s]*:\s*(.+)$")


def listing_key(question: str, text: str, scorer: Scorer) -> str | None:
    """ "Which zone is Serbia in?" over "Zone 2: Switzerland, United Kingdom, Serbia.": the line's key
    ("Zone 2") when the key holds the noun asked for and its list names what the question names; None
    otherwise."""
    asked = _WHICH_NOUN.search(question)
    keyed = _KEYED_LIST.match(text)
    if asked is None or keyed is None:
        return None
    key, listed = keyed.group(1).strip(" *_"), keyed.group(2)
    noun = stem(asked.group(1).lower())
    if noun not in terms(key) or "," not in listed:
        return None
    members = terms(listed) & scorer.named - terms(key)
    return key if members else None


def header_time(question: str, fact: Fact, scorer: Scorer, asked: set[str]) -> Value | None:
    """A clock time a column's header states ("Night (21:00-06:00)" over a row of tolls) for a question
    that names that column ("from what time do night tolls apply"): the start of its span, or its end when
    the question asks when it ends; None when no header the question names states a time."""
    for header, _ in fact.cells:
        named = {t for t in terms(header) & scorer.q_terms if not t.startswith("u_")}
        clocks = [m for m in _CLOCK.finditer(header) if f"{int(m.group(1)):02d}:{m.group(2)}" not in asked]
        if named and clocks:
            span = range_end(question, header)
            if span is not None:
                return Value.of_text(hh_mm(header[span[0] : span[1]]))
            return Value.of_text(hh_mm(clocks[0].group(0)))
    return None


def hh_mm(text: str) -> str:
    """ "9:30" or "09.30" as "09:30"."""
    hours, minutes = re.split(r"[:.]", text.strip())[:2]
    return f"{int(hours):02d}:{minutes}"


_LOW = re.compile(r"\b(?:minimum|lowest|least|smallest|fewest|coldest)\b", re.I)
_HIGH = re.compile(r"\b(?:maximum|max|highest|most|largest|greatest|warmest|hottest)\b", re.I)
#: "min" / "max" as a header's word, perhaps after one letter ("Tmin", "min_temp", "Max.", "TEMP MAX")
_HEADER_LOW = re.compile(r"^[a-z]?min(?:imum)?$", re.I)
_HEADER_HIGH = re.compile(r"^[a-z]?max(?:imum)?$", re.I)


def asked_extreme(question: str) -> str:
    """ "low" when the question asks for a minimum ("the lowest temperature"), "high" for a maximum, ""
    for neither or both."""
    low, high = bool(_LOW.search(question)), bool(_HIGH.search(question))
    return "low" if low and not high else "high" if high and not low else ""


def extreme_column(header: str, extreme: str) -> float:
    """+1.5 for a column of the extreme asked ("Tmin" for the minimum), -1.5 for the other one ("Tmax")."""
    if not extreme:
        return 0.0
    words = [w for w in re.split(r"[\s/().,_-]+", header.strip()) if w]
    low = any(_HEADER_LOW.search(w) for w in words)
    high = any(_HEADER_HIGH.search(w) for w in words)
    if low == high:
        return 0.0
    return 1.5 if (low and extreme == "low") or (high and extreme == "high") else -1.5


__all__ = [
    "asked_extreme",
    "extreme_column",
    "header_time",
    "hh_mm",
    "listing_key",
    "range_end_of",
    "ratio_cell",
]
