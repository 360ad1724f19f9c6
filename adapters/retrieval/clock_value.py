"""The clock time a fact states for a question (pure): a timetable row's cell in the column the question
names, the labelled field of a line of several the question names ("**Staging:** 8:00-10:30 am ·
**Judging:** 11:00"), its day when that field states no clock ("**Entries close:** Friday 28 August
2026" for "when do entries close"), "2:00 pm" as 14:00; never the time the question itself states."""

from __future__ import annotations

import re

from ioa_p2p.adapters.retrieval.facts import Fact, Scorer, terms
from ioa_p2p.adapters.retrieval.keyed import header_time
from ioa_p2p.adapters.retrieval.number_span import closest
from ioa_p2p.adapters.retrieval.picks import range_end
from ioa_p2p.planning.values import Value, dates_in

_CLOCK = re.compile(r"(?<![\d.:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")

_MERIDIEM = re.compile(r"\s?([ap])\.?\s?m\b\.?", re.I)
_RANGE_MERIDIEM = re.compile(r"\s*(?:-|–|to)\s*(\d{1,2})(?::[0-5]\d)?\s?([ap])\.?\s?m\b", re.I)


def _hhmm(text: str, m: re.Match[str]) -> str:
    """A clock time as HH:MM on 24 hours ("2:00 pm" -> "14:00", "12:15 am" -> "00:15")."""
    hour = int(m.group(1))
    half = _MERIDIEM.match(text, m.end())
    letter = half.group(1) if half else ""
    until = None if half else _RANGE_MERIDIEM.match(text, m.end())  # "1:00-3:30 pm": both in the afternoon
    if until and hour <= int(until.group(1)) < 12:
        letter = until.group(2)
    if letter and hour <= 12:
        hour = hour % 12 + (12 if letter.lower() == "p" else 0)
    return f"{hour:02d}:{m.group(2)}"


def time_value(question: str, fact: Fact, scorer: Scorer) -> Value | None:
    """A clock time: in a timetable row, the cell of the column the question names ("reach Carrick Isle"
    -> "Carrick Isle arr."), never the time the question itself states; else the nearest to its words."""
    asked = {_hhmm(question, m) for m in _CLOCK.finditer(question)}

    def clock(cell: str) -> str:
        m = _CLOCK.search(cell)
        return _hhmm(cell, m) if m else ""

    if fact.cells:
        cells = [(h, clock(c)) for h, c in fact.cells if clock(c) and clock(c) not in asked]
        if not cells:
            return header_time(question, fact, scorer, asked)
        q_terms = scorer.q_terms
        low = question.lower()
        to = re.search(r"\b(?:reach(?:es)?|arriv\w* (?:at|in)|get to|to|for|into)\s+((?:[a-z]+ ?){1,3})", low)
        src = re.search(r"\b(?:from|leav\w*|depart\w*(?: from)?)\s+((?:[a-z]+ ?){1,3})", low)

        def col_score(header: str) -> float:
            score = sum(scorer.idf.get(t, 0.0) for t in sorted(terms(header) & q_terms))
            h = terms(header)
            if to and "arr" in h and terms(to.group(1)) & h:
                score += 2.0  # "reach Carrick Isle": the Carrick Isle arrival column
            if src and "dep" in h and terms(src.group(1)) & h and not (to and "arr" in q_terms):
                score += 2.0  # "the first departure from Tobarin": the Tobarin departure column
            return score

        best = max(cells, key=lambda hc: (col_score(hc[0]), -cells.index(hc)))
        return Value.of_text(best[1])
    text = fact.text
    field = _asked_field(fact, scorer)  # "Staging: 8:00 · Judging: 11:00": the field the question names
    if field is not None:
        text = field
        days = dates_in(field)
        if not _CLOCK.search(field) and len(days) == 1:  # "Entries close: Friday 28 August 2026": a day
            return Value.of_date(days[0][2], field[days[0][0] : days[0][1]])
    clocks = [(m.start(), m.end(), _hhmm(text, m)) for m in _CLOCK.finditer(text)]
    clocks = [c for c in clocks if c[2] not in asked]
    if not clocks and len(days := dates_in(text.split("\0")[0])) == 1:  # "Entries close: Fri 28 Aug 2026"
        return Value.of_date(days[0][2], text[days[0][0] : days[0][1]])
    span = range_end(question, text)  # "when does access end": the end of "between 07:00 and 20:00"
    chosen = [c for c in clocks if span is not None and c[0] == span[0]]
    if chosen:
        return Value.of_text(chosen[0][2])
    return Value.of_text(closest(clocks, text, scorer)[2]) if clocks else None


#: where one labelled field of a line ends and the next begins ("**Judging:** 11:00 · **Hall opens:** 2 pm")
_FIELD_BREAK = re.compile(r"\s(?:·|•|\|)\s|(?=\*\*[^*\n]{1,60}:\*\*)|;\s")


def _asked_field(fact: Fact, scorer: Scorer) -> str | None:
    """Of a fact of several labelled fields, the one whose words match the question best (strictly): "when
    does judging start" over "**Staging:** 8:00-10:30 am · **Judging:** 11:00" is the judging field."""
    text = fact.text.split("\0")[0]
    fields = [f for f in _FIELD_BREAK.split(text) if f and f.strip()]
    if len(fields) < 2:
        return None
    scored = sorted(
        ((sum(scorer.idf.get(t, 0.0) for t in terms(f) & scorer.q_terms), f) for f in fields),
        key=lambda sf: -sf[0],
    )
    (best, field), (second, _) = scored[0], scored[1]
    return field if best > 0 and best > second else None


__all__ = ["time_value"]
