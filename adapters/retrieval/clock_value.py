"""The clock time a fact states for a question (pure): a timetable row's cell in the column the question
names, the labelled field of a line of several the question names ("**Staging:** 8:00-10:30 am ·
**Judging:** 11:00"), its day when that field states no clock ("**Entries close:** Friday 28 August
2026" for "when do entries close"), "2:00 pm" as 14:00; never the time the question itself states."""

from __future__ import annotations

import re

from ioa_p2p.adapters.retrieval.enumeration import own_item
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
        raw = dict(fact.cells).get(best[0], "")
        span = range_end(question, raw)  # "Saturday | 09:00 - 13:00" for "when does it close": 13:00
        end = _CLOCK.match(raw, span[0]) if span is not None else None
        return Value.of_text(_hhmm(raw, end) if end else best[1])
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
    if not clocks:
        return None
    item = own_item(clocks, text, scorer)  # "Check-in from 15:00, check-out by 11:00" for check-out
    return Value.of_text(item if item is not None else closest(clocks, text, scorer)[2])


#: "what are the opening hours", "the controlled hours of Zone C": the span of two clock times asked for
HOURS_ASKED = re.compile(
    r"\b(?:opening|controlled|office|support|visiting|business|service|control) hours\b|"
    r"\bhours (?:of|of the) (?:control|opening|business)\b|^\W*when is\b[^?]*\bopen\b",
    re.I,
)
_SPAN = re.compile(r"(?<![\d.:])(\d{1,2}[:.]\d{2})\s*(?:-|–|to|until)\s*(\d{1,2}[:.]\d{2})(?![\d:])")


def hours_value(question: str, fact: Fact, scorer: Scorer) -> Value | None:
    """The hours a question asks for ("what are Northgate's opening hours on weekdays"): a span of two clock
    times as ``09:30-18:00``, in a table row the one of the column the question names (or the row's only
    span), in a sentence the span nearest the question's words; None when the fact states no span."""
    if fact.cells:
        spans = [(h, m) for h, c in fact.cells if (m := _SPAN.search(c))]
        if not spans:
            return None
        scored = [(sum(scorer.idf.get(t, 0.0) for t in terms(h) & scorer.q_terms), -i, m)
                  for i, (h, m) in enumerate(spans)]  # fmt: skip
        best = max(scored, key=lambda x: (x[0], x[1]))
        if best[0] <= 0 and len(spans) > 1:
            return None  # several spans, none of a column the question names
        m = best[2]
    else:
        text = fact.text.split("\0")[0]
        found = [(x.start(), x.end(), x) for x in _SPAN.finditer(text)]
        if not found:
            return None
        m = closest(found, text, scorer)[2]
    a, b = (x.replace(".", ":").zfill(5) for x in m.groups())
    return Value.of_text(f"{a}-{b}")


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


__all__ = ["HOURS_ASKED", "hours_value", "time_value"]
