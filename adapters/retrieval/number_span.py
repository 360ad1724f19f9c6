"""The number a sentence states for a question (pure): among a fact's numbers, by the answer type.

- its unit fits the answer type (a duration for "how long", a currency for "how much", a bare number for
  "how many customers"); a unit of several words ("125 square metres") is read too;
- numbers that are not values are left out: the question's own quantities, clause labels ("7.3 When"),
  the day of a date, numbers glued to a name ("the 10K", "Flat 4B");
- a rate question's denominator ("per square metre") stands right after it;
- a name or code the question uses (AL-500X) stands right before it ("35 °C (AL-500X: 50 °C)");
- in an enumeration ("Sprint 900 places, Relay 1,200, 5K 2,500"), the item the question names by the words
  before its number;
- after the colon of a ``key: value`` line whose key holds the question's words;
- otherwise, nearest the question's words (each weighted by its IDF, :func:`closest`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ioa_p2p.adapters.retrieval.brackets import favoured_bracket
from ioa_p2p.adapters.retrieval.enumeration import own_item
from ioa_p2p.adapters.retrieval.facts import Scorer, stem, terms
from ioa_p2p.adapters.retrieval.fit import counts_other
from ioa_p2p.adapters.retrieval.labelled import labelled_item
from ioa_p2p.adapters.retrieval.ordinals import ordinal_item
from ioa_p2p.adapters.retrieval.picks import change_end, counts_a_thing, day_of_month
from ioa_p2p.adapters.retrieval.terms import WORD
from ioa_p2p.planning.answer_types import MONEY_UNITS, AnswerType
from ioa_p2p.planning.expr import WORD_NUMBERS
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.units import factor
from ioa_p2p.planning.values import ALIASES, Found, Value, numbers_in


def number_value(question: str, text: str, scorer: Scorer, wanted: AnswerType) -> Value | None:
    if wanted.kind == "duration":
        spelled = periods_in(text)  # "within ten working days": the period as the document qualifies it
        if spelled and not any(n.unit in wanted.units for n in numbers_in(text)):
            f = closest([(x.start, x.end, x) for x in spelled], text, scorer)[2]
            return Value.of_number(f.number, f.unit, f.text)
    found = [
        _spelled_unit(text, f)
        for f in numbers_in(text)
        if not (f.unit == "" and 1900 <= f.number <= 2100 and "year" not in question.lower())
    ]
    hyphened = [p for p in periods_in(text) if re.match(r"\d+-", p.text)]  # "a 3-year warranty"
    found = sorted([*found, *hyphened], key=lambda f: f.start)
    found = _compound_periods(text, found) if wanted.kind == "duration" else found
    asked = {(n.number, n.unit) for n in numbers_in(question)}
    found = [f for f in found if (f.number, f.unit) not in asked and (f.number, "") not in asked] or found
    found = [f for f in found if not _stated(f, question)] or found
    found = [f for f in found if not _clause_number(text, f)]  # "7.3 When a meal is provided ...": a label
    found = [f for f in found if not _glued_code(text, f)] or found  # "the 10K", "Flat 4B": names
    found = [f for f in found if not day_of_month(text, f)] or found  # "(1 November to ...)": a date
    if not found:
        return None
    units = wanted.units
    fits = [f for f in found if f.unit in units] if units else []
    if units == MONEY_UNITS and not fits and wanted.kind != "amount":  # a price asked: not "170 gsm"
        found = [f for f in found if f.unit or not counts_a_thing(text, f)]
        if not found:
            return None
    if wanted.kind == "amount" and not fits:
        # "what will she pay?": an amount of money, never the "two hours" of a rule; a price list's bare
        # figures count when they read as prices ("+ 0.02 per card", "6.50")
        fits = [f for f in found if not f.unit and _reads_as_price(text, f)]
        if not fits:
            return None
    if wanted.kind == "duration" and units and not fits:
        return None  # "how soon ...?": a period, never the house number of an address
    pool = fits or found
    if wanted.kind == "count":  # "how many requests": never "1,840 customers" of the same sentence
        pool = [f for f in pool if not counts_other(question, text, f.end)] or pool
    low = text.lower()
    if wanted.per:  # "18.00 per square metre" for "the rate per square metre"
        per = [f for f in pool if _per_follows(low, f.end, wanted.per)]
        if per and not _trailing_per(pool, per, low):
            pool = per
    pool = range_ends(question, text, pool)  # "4 to 10 players" for "the most players": 10
    moved = change_end(question, text, pool)  # "reset from 512 to 64": the end the question asks for
    if moved is not None:
        return _of(moved)
    labelled = labelled_item([(f.start, f.end, f) for f in pool], text, question, scorer)
    if labelled is not None:  # "£265 (members) or £320 (non-members)": the asker's label
        return _of(labelled)
    bracketed = _by_bracket(pool, text, question)  # "EUR 18 per hour (the Boardroom: EUR 32 per hour)"
    if bracketed is not None:
        return _of(bracketed)
    ranked = ordinal_item([(f.start, f.end, f) for f in pool], text, question)  # "1st £150 2nd £80"
    if ranked is not None:
        return _of(ranked)
    anchored = _after_names(pool, text, scorer) or own_item([(f.start, f.end, f) for f in pool], text, scorer)
    anchored = anchored or _in_own_segment(pool, text, scorer)
    if anchored is not None:
        return _of(anchored)
    colon = text.find(":")
    if colon != -1 and terms(text[:colon]) & scorer.q_terms:
        after = [f for f in pool if f.start > colon]
        if after:
            return _of(after[0])
    spans = [(f.start, f.end, f) for f in pool]
    return _of(closest(spans, text, scorer)[2])


_UPPER_ASKED = re.compile(r"\b(?:max|maximum|most|at most|upper|largest|biggest|highest|longest)\b", re.I)
_LOWER_ASKED = re.compile(r"\b(?:min|minimum|least|fewest|smallest|lowest|shortest)\b", re.I)
_BETWEEN = re.compile(r"\s*(?:to|-|–|—)\s*$")


def range_ends(question: str, text: str, pool: list[Found]) -> list[Found]:
    """The upper ends of the ranges ``text`` states ("4 to 10 players", "2-6 hours") when the question asks
    for a maximum, their lower ends for a minimum; ``pool`` itself otherwise (or when it holds no range)."""
    upper, lower = bool(_UPPER_ASKED.search(question)), bool(_LOWER_ASKED.search(question))
    if upper == lower:
        return pool
    ends = []
    for a, b in zip(pool, pool[1:], strict=False):
        if (a.unit in ("", b.unit)) and _BETWEEN.match(text[a.end : b.start]) and a.number < b.number:
            ends.append(b if upper else Found(a.start, a.end, a.number, b.unit, a.text))
    return ends or pool


_PERIOD = re.compile(
    r"\b(\d+|" + "|".join(w for w in WORD_NUMBERS if " " not in w) + r")(?:-| )"
    r"((?:working|business|calendar|clear|school|banking|full) )?(days?|weeks?|months?|hours?|years?)\b",
    re.I,
)


def periods_in(text: str) -> list[Found]:
    """Periods a text states in words or with a qualifier ("ten working days", "14 calendar days"), each in
    its unit with the qualifier kept ("working days"): a working day is not a day."""
    out = []
    for m in _PERIOD.finditer(text):
        word = m.group(1).lower()
        number = float(word) if word.isdigit() else float(WORD_NUMBERS[word])
        unit = ALIASES.get(m.group(3).lower(), m.group(3).lower())
        if m.group(2):
            unit = f"{m.group(2).strip().lower()} {m.group(3).lower().rstrip('s')}s"
        elif word.isdigit() and not m.group(0)[len(word) :].startswith("-"):
            continue  # a plain "10 days": numbers_in reads it (never "a 3-year warranty": the period too)
        out.append(Found(m.start(), m.end(), number, unit, m.group(0)))
    return out


def _clause_number(text: str, f: Found) -> bool:
    """A number that opens the fact and is followed by a capitalised word numbers a clause or a section
    ("7.3 When a meal ...", "2. Cleaning is charged ..."): a label, never a value."""
    return not f.unit and not text[: f.start].strip(" *#-") and bool(re.match(r"\.?\s+[A-Z]", text[f.end :]))


_MULTI_WORD_UNIT = re.compile(
    r"\s?(" + "|".join(sorted((a for a in ALIASES if " " in a), key=len, reverse=True)) + r")\b", re.I
)


def _spelled_unit(text: str, f: Found) -> Found:
    """A bare number followed by a unit of several words ("125 square metres", "20 degrees celsius"): the
    number in that unit."""
    m = _MULTI_WORD_UNIT.match(text, f.end) if not f.unit else None
    if m is None:
        return f
    return Found(f.start, m.end(), f.number, ALIASES[m.group(1).lower()], text[f.start : m.end()])


_LARGER = {"min": "h", "s": "min", "h": "days"}
_SCALE = {"min": 60, "s": 60, "h": 24}


def _compound_periods(text: str, found: list[Found]) -> list[Found]:
    """ "3 hours 15 minutes", "1 h and 30 min": one period, in the smaller unit (195 min)."""
    out: list[Found] = []
    for f in found:
        last = out[-1] if out else None
        joined = last is not None and _LARGER.get(f.unit) == last.unit
        if joined and last is not None and re.fullmatch(r",?\s*(?:and\s+)?", text[last.end : f.start]):
            number = last.number * _SCALE[f.unit] + f.number
            out[-1] = Found(last.start, f.end, number, f.unit, text[last.start : f.end])
            continue
        out.append(f)
    return out


def _glued_code(text: str, f: Found) -> bool:
    """A bare number with letters glued to it ("10K", "4B", "3D"): part of a name, never a value."""
    return not f.unit and bool(re.match(r"[A-Za-z]", text[f.end : f.end + 1]))


_RANGE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:to|-|–)\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)?\.?")


def holds_stated(cell: str, question: str) -> bool:
    """A table cell that is a band holding a quantity the question states ("22 to 29.9 kg" for "a 25 kg
    child"): the row's key, chosen by that quantity, never its answer (issue 23, p-rule)."""
    m = _RANGE.fullmatch(cell.strip())
    if m is None:
        return False
    low, high = float(m.group(1)), float(m.group(2))
    unit = ALIASES.get((m.group(3) or "").lower(), "")
    return any(low <= q.number <= high and q.unit == unit for q in stated_quantities(question) if unit)


def _stated(f: Found, question: str) -> bool:
    """The question itself states this measure, in any unit ("after half an hour of pumping": 30 minutes
    of the document is the situation, not the answer)."""
    if not f.unit:
        return False
    for q in stated_quantities(question):
        scale = factor(q.unit, f.unit) if q.unit else None
        if scale is not None and abs(q.number * scale - f.number) < 1e-9 * max(1.0, abs(f.number)):
            return True
    return False


def _reads_as_price(text: str, f: Found) -> bool:
    after = text[f.end : f.end + 12].lower()
    return bool(re.search(r"\.\d\d$", f.text) or re.match(r"\s*(?:per|/|each|a |an )", after))


def _of(f: Found) -> Value:
    return Value.of_number(f.number, f.unit, f.text)


def _per_follows(low: str, end: int, per: str) -> bool:
    after = low[end : end + 40]
    head = per.split()[-1][:5]
    if re.match(rf"\s*(?:/|per|a|an|each)\s*(?:\w+\s)?{re.escape(head)}", after):
        return True
    return bool(re.match(r"\s*/\s*m[²2³3]", after)) and ("metre" in per or "meter" in per)


def _trailing_per(pool: Sequence[Found], per: Sequence[Found], low: str) -> bool:
    """ "dogs EUR 14.50, cats EUR 11.00, rabbits EUR 8.00 per month": a rate's "per" after the last item
    of a list of amounts in one unit is every item's, not the last one's alone."""
    last = pool[-1]
    if len(pool) < 2 or list(per) != [last] or any(f.unit != last.unit for f in pool):
        return False
    return not re.search(r"\bper\b|/", low[pool[0].start : last.start])


def _by_bracket(pool: Sequence[Found], text: str, question: str) -> Found | None:
    """The one pool number inside the bracket the question is about while others stand outside it
    (brackets.py): "EUR 18 per hour (the Boardroom: EUR 32 per hour)" for the Boardroom's rate."""
    span = favoured_bracket(text, question)
    if span is None:
        return None
    inside = [f for f in pool if span[0] <= f.start < span[1]]
    outside = {f.unit for f in pool if not span[0] <= f.start < span[1] and f.unit}
    if len(inside) > 1:  # "(the Boardroom, up to 12 people: EUR 32 per hour)": the one in the outside's unit
        inside = [f for f in inside if f.unit in outside]
    return inside[0] if len(inside) == 1 and len(pool) > 1 else None


def _in_own_segment(pool: Sequence[Found], text: str, scorer: Scorer) -> Found | None:
    """In an enumeration ("standard resin 8 minutes per side, tough resin 15 minutes per side, ..."), the
    number of the one item whose own words the question uses (words every item shares do not count)."""
    if len(pool) < 2:
        return None
    cuts = [0, *(m.end() for m in re.finditer(r"[,;:]\s+|\s+(?:and|or)\s+", text))]
    # "EUR 25.00 (EUR 15.00 when done during neutering)": an alternative value in brackets is an item too
    cuts += [m.end() for m in re.finditer(r"\s\(", text) if any(0 <= f.start - m.end() <= 6 for f in pool)]
    cuts = sorted(set(cuts)) + [len(text) + 1]
    segments = [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]
    owned: list[tuple[set[str], set[str], Found]] = []
    for a, b in segments:
        inside = [f for f in pool if a <= f.start < b]
        if len(inside) == 1:  # the item's label stands before its number; words after it may be shared
            before, after = terms(text[a : inside[0].start]), terms(text[inside[0].end : b])
            owned.append((before, after - before, inside[0]))
    if len(owned) < 2:
        return None
    shared = set.intersection(*(b | a for b, a, _ in owned))

    def weight(words: set[str]) -> float:
        return sum(scorer.idf.get(t, 0.0) for t in sorted((words - shared) & scorer.q_terms))

    # "£65, or £40 for students": words after "for" name the item its number is for, as a label before does
    scored = [
        (weight(before) + (1.0 if _FOR.match(text, f.end) else 0.5) * weight(after), f)
        for before, after, f in owned
    ]
    scored.sort(key=lambda x: -x[0])
    if scored[0][0] > 0 and scored[0][0] > scored[1][0]:
        return scored[0][1]
    return None


_FOR = re.compile(r"\s*(?:each\s+|a\s+head\s+)?for\s+(?!the\s+first\b|up\s+to\b|\d)", re.I)


def _after_names(pool: Sequence[Found], text: str, scorer: Scorer) -> Found | None:
    """The number right after a mention of a code the question names ("(AL-500X: 50 °C)"), when the fact
    mentions it in the middle (a fact about that code alone has no competing numbers)."""
    low = text.lower()
    best: Found | None = None
    for code in scorer.codes:
        for m in re.finditer(rf"(?<![\w-]){re.escape(code)}(?![\w-])", low):
            if m.start() < 3:
                continue
            following = [f for f in pool if 0 <= f.start - m.end() <= 12]
            if following and (best is None or following[0].start < best.start):
                best = following[0]
    return best


def closest(spans: Sequence[tuple[int, int, Any]], text: str, scorer: Scorer) -> tuple[int, int, Any]:
    """The span most tied to the question's words: each word weighs its IDF over its distance."""
    anchors = [
        (m.start(), scorer.idf.get(stem(m.group()), scorer.idf.get(m.group(), 0.0)))
        for m in WORD.finditer(text.lower())
    ]
    anchors = [(pos, w) for pos, w in anchors if w > 0]
    if not anchors:
        return spans[0]

    def pull(span: tuple[int, int, object]) -> float:
        total = 0.0
        for pos, weight in anchors:
            gap = (span[0] - pos) / 6 if span[0] >= pos else (pos - span[1]) / 4 + 2
            total += weight / (1 + max(0.0, gap))
        return total

    return max(spans, key=pull)


__all__ = ["closest", "number_value", "periods_in"]
