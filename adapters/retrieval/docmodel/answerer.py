"""A question answered against typed records (pure): :func:`ask` returns the best :class:`TypedAnswer`.

Every record of the documents is scored once for the question: the IDF-weighted share of the question's
terms it holds (its section trail, its document's title and path count 0.6), times its document's weight
(the passage search's score, when the caller gives one). Each record then offers **candidate values**, one
per slot: a table row one per cell (the cell's header must be what the question names; the row's key cells
are the entity), a ``key: value`` line its value, a defined term its definition, a sentence each quantity,
clock time, name or cause it states (the clause around the value must hold the question's words). A
candidate scores by how well its type fits the question's answer type (:mod:`.question`), whether its rate
is per what the question asks, whether it is an extreme the question asks for, and never when it is a
quantity the question itself states. The best candidate is the answer, typed (:class:`Value` with unit).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ioa_p2p.adapters.retrieval.brackets import favoured_bracket
from ioa_p2p.adapters.retrieval.docmodel.bands import band_of
from ioa_p2p.adapters.retrieval.docmodel.quantity import UNIT_ALIASES, Quantity, convert, quantities_in
from ioa_p2p.adapters.retrieval.docmodel.question import MONEY_WORDS, Query, read_question
from ioa_p2p.adapters.retrieval.docmodel.records import FIELD, ROW, TERM, Document, Record, TypedAnswer
from ioa_p2p.adapters.retrieval.docmodel.spans import cause, clause_of, clocks, names, situation_branch
from ioa_p2p.adapters.retrieval.facts import stem, terms
from ioa_p2p.adapters.retrieval.validity import out_of_validity
from ioa_p2p.planning.values import Value, dates_in

CONTEXT_WEIGHT = 0.6
_WORD = re.compile(r"[^\W\d_]{2,}")
MAX_CANDIDATES = 40_000


@dataclass(frozen=True, slots=True)
class _Candidate:
    value: Value
    fit: float  # how well the type fits the question (0..1)
    near: float  # how much of the question the slot itself holds (0..1)
    slot: str = ""
    quantity: Quantity | None = None


class _Weights:
    """IDF of the question's terms over the records considered."""

    def __init__(self, query: Query, records: Sequence[Record]) -> None:
        df: dict[str, int] = {}
        for r in records:
            for t in _own(r) & query.terms:
                df[t] = df.get(t, 0) + 1
        n = max(1, len(records))
        self.idf = {t: math.log(1 + n / (1 + df.get(t, 0))) for t in sorted(query.terms)}
        self.total = sum(self.idf.values()) or 1.0

    def share(self, words: set[str]) -> float:
        return sum(w for t, w in self.idf.items() if t in words) / self.total


def _own(r: Record) -> set[str]:
    return set(r.words)


def _named(doc: Document, query: Query) -> frozenset[str]:
    """The question's words that name the document itself ("at Oakridge" for "Oakridge fee table export"):
    they choose the document, not a record in it: a record that repeats them ("Oakridge Care Cat") holds
    them as every record of the document does, as its context."""
    return frozenset(query.terms) & terms(f"{doc.title} {re.sub(r'[_./-]+', ' ', doc.path)}")


def _context(r: Record, doc: Document) -> set[str]:
    """The words around a record: its section trail, a row's headers, its document's title and path."""
    return set(r.context)


def ask(
    question: str, documents: Sequence[Document], weights: Mapping[str, float] | None = None
) -> TypedAnswer | None:
    """The best typed answer to ``question`` from ``documents`` (``weights``: path -> a factor, e.g. the
    passage search's score; documents not in it count 0 when it is given); None when nothing fits."""
    found = ranked(question, documents, weights, 1)
    return found[0] if found else None


def ranked(
    question: str, documents: Sequence[Document], weights: Mapping[str, float] | None = None, k: int = 5
) -> list[TypedAnswer]:
    """The ``k`` best typed answers, best first."""
    query = read_question(question)
    docs = [d for d in documents if weights is None or weights.get(d.path, 0.0) > 0]
    records = [(d, r) for d in docs for r in d.records]
    if not records or not query.terms:
        return []
    w = _Weights(query, [r for _, r in records])
    scored: list[tuple[float, TypedAnswer]] = []
    named = {d.path: _named(d, query) for d in docs}
    for doc, r in records:
        own, ctx = _own(r) - named[doc.path], _context(r, doc)
        base = sum(v * (1.0 if t in own else CONTEXT_WEIGHT if t in ctx else 0.0) for t, v in w.idf.items())
        base /= w.total
        if weights is not None:
            base *= weights.get(doc.path, 0.0)
        if base <= 0.05:
            continue
        for c in _candidates(query, r, w, doc.currency, named[doc.path])[:50]:
            score = base * c.fit * (0.35 + 0.65 * c.near) * _adjust(query, r, c)
            if score > 0:
                per = c.quantity.per if c.quantity else ""
                amount = c.quantity.per_amount if c.quantity else 1.0
                answer = TypedAnswer(c.value, query.kind, r.span, min(1.0, score), r.kind, c.slot, per,
                                     amount,
                                     r.conditions)  # fmt: skip
                scored.append((score, answer))
        if len(scored) > MAX_CANDIDATES:
            break
    scored.sort(key=lambda x: -x[0])
    return [a for _, a in scored[:k]]


def _adjust(query: Query, r: Record, c: _Candidate) -> float:
    q = c.quantity
    factor = 0.25 if out_of_validity(query.text, r.text) else 1.0  # "until 30 April 2026" for "May 2026"
    own = r.value if r.kind == FIELD else r.text  # the text a record's quantities are placed in
    side = favoured_bracket(own, query.text) if q is not None else None
    if side is not None and q is not None:  # "EUR 18 per hour (the Boardroom: EUR 32 per hour)"
        factor *= 1.25 if side[0] <= q.start < side[1] else 0.8
    if q is not None:
        if any(_same_amount(s, q) for s in query.stated):
            return 0.15  # the question states it ("after half an hour": not "30 minutes"): not the answer
        if query.per:
            if q.per and _same_per(q.per, query.per):
                factor *= 1.35
            elif q.per:
                factor *= 0.55
        elif q.per and query.kind in ("amount", "quantity"):
            factor *= 0.9
    band = band_of(r.key) if r.kind in (ROW, FIELD) else None
    points = [s for s in query.stated if not _COMPARED.search(query.text[max(0, s.start - 16) : s.start])]
    if band is not None and points:  # "5 to 9 years", "first 6 m³": the band the stated amount is in
        inside = [band.holds(s.number, s.unit) for s in points]
        if any(x is True for x in inside):
            factor *= 1.6
        elif any(x is False for x in inside):
            factor *= 0.4
    if query.extreme:
        kinds = {c_.kind for c_ in r.conditions}
        wanted = "maximum" if query.extreme == "max" else "minimum"
        if wanted in kinds or wanted[:3] in c.slot.lower():
            factor *= 1.3
    return factor


#: A stated amount after these words names a band ("vehicles longer than 5 m"), not an amount in one.
_COMPARED = re.compile(r"\b(?:than|over|above|under|below|up to|at least|at most|from|exceeding)\s*$", re.I)


def _same_amount(a: Quantity, b: Quantity) -> bool:
    if not a.unit or not b.unit:
        return a.unit == b.unit and abs(a.number - b.number) < 1e-9
    converted = convert(a.number, a.unit, b.unit)
    return converted is not None and abs(converted - b.number) < 1e-9 * max(1.0, abs(b.number))


def _same_per(a: str, b: str) -> bool:
    a, b = a.split("/")[0], b.split("/")[0]
    return a == b or UNIT_ALIASES.get(a, a) == UNIT_ALIASES.get(b, b) or a.startswith(b) or b.startswith(a)


# --------------------------------------------------------------------------- candidates per record


def _candidates(
    query: Query, r: Record, w: _Weights, currency: str, named: frozenset[str] | set[str] = frozenset()
) -> list[_Candidate]:
    if r.kind == ROW:
        return _row_candidates(query, r, w, currency, named)
    if r.kind == TERM and query.kind == "definition":
        near = w.share(terms(r.key))
        return [_Candidate(Value.of_text(r.value), 1.0, near, r.key)]
    if r.kind == FIELD:
        key_share = w.share(terms(r.key))
        found = _text_candidates(query, r.value, w, r.value, quantities=list(r.quantities))
        return [_Candidate(c.value, c.fit, max(c.near, key_share), r.key, c.quantity) for c in found]
    return _text_candidates(query, r.text, w, r.text, quantities=list(r.quantities))


def _row_candidates(
    query: Query, r: Record, w: _Weights, currency: str, named: frozenset[str] | set[str] = frozenset()
) -> list[_Candidate]:
    out = []
    key_terms = (terms(r.cells[0][1]) - named) if r.cells else set()  # "Oakridge Care Cat": not by "Oakridge"
    for n, (header, cell) in enumerate(r.cells):
        if not cell:
            continue
        h_terms = terms(header) | _header_words(header)
        near = w.share(h_terms | key_terms)  # a cell is addressed by its row's key and its column's header
        per = _header_per(header) or _header_per(r.cells[0][1])  # "Vehicle (per metre or part)"
        if n == 0 and query.kind != "name":
            continue
        qs = quantities_in(cell)
        if qs:
            q = qs[0]
            # "All fares in EUR": its price cells, never a count in a text ("booster, 2 consultations")
            priced = _header_words(header) or (query.kind == "amount" and len(_WORD.findall(cell)) <= 2)
            unit = q.unit or _header_unit(header) or (currency if priced else "")
            if (per and not q.per) or unit != q.unit:
                q = Quantity(q.number, unit, q.text, q.start, q.end, q.per or per, q.per_amount, q.high)
            fit = _fit(query, q)
            if query.kind == "name" and near > 0:
                out.append(_Candidate(Value.of_text(cell), 0.8, near, header))
            if fit > 0:
                out.append(_Candidate(_value_of(q), fit, near, header, q))
        elif query.kind in ("name", "value", "definition") or (query.kind == "time" and clocks(cell)):
            value = Value.of_text(clocks(cell)[0][1]) if query.kind == "time" else Value.of_text(cell)
            out.append(_Candidate(value, 1.0 if n > 0 else 0.6, near if n > 0 else 0.3, header))
    return out


def _header_words(header: str) -> set[str]:
    """What a header measures, as question terms would say it ("Per day" -> price, day)."""
    low = header.lower()
    out = set()
    if re.search(r"\b(?:rate|price|fee|cost|charge|eur|usd|gbp|€|\$|£)\b|\bper\b", low):
        out |= {"price", "cost", "rate", "charge", "pay"}
    if re.search(r"\bmax", low):
        out |= {"maximum", "max"}
    if re.search(r"\bmin(?:imum)?\b", low):
        out |= {"minimum", "min"}
    return out


def _header_unit(header: str) -> str:
    """The unit a header gives its cells: "Weight (kg)", "Price in GBP", "EUR", "(hours)"; "" for none."""
    for m in re.finditer(r"\(([^)]{1,20})\)|\bin ([A-Za-z€$£³²]+)\b|^([A-Za-z€$£]{1,4})$", header.strip()):
        word = (m.group(1) or m.group(2) or m.group(3)).strip().lower()
        if word in UNIT_ALIASES:
            return UNIT_ALIASES[word]
    for word in re.findall(r"[a-z]{4,}", header.lower()):  # "Days of annual leave", "Weight in grams"
        if word in UNIT_ALIASES and word not in ("per", "each"):
            return UNIT_ALIASES[word]
    last = header.strip().lower().rsplit(None, 1)[-1] if header.strip() else ""
    if last in _HEADER_UNITS:  # a report's "USE M3", "ENERGY KWH", "WEIGHT KG"
        return UNIT_ALIASES[last]
    return ""


#: unit abbreviations a header may end with (no word of English: "in", "at", "day", "p" are not here)
_HEADER_UNITS = frozenset((
    "kg", "kgs", "ml", "m3", "m2", "m³", "m²", "sqm", "lb", "lbs", "kwh", "mwh", "wh", "kw", "km",
    "cm", "mm", "eur", "usd", "gbp", "chf", "sek", "nok", "dkk", "jpy", "gb", "mb", "tb", "hrs",
))  # fmt: skip


def _header_per(header: str) -> str:
    """What a header's cells are per: "Per day", "RATE/h", "Hourly rate", "EUR/kWh"; "" for none ("Annual
    leave" is not a rate: an adjective counts only before a price word or alone)."""
    low = header.lower()
    m = re.search(r"\bper\s+([a-z³²]+)|/\s*([a-z³²]+)\b", low)
    if m:
        word = m.group(1) or m.group(2)
        return UNIT_ALIASES.get(word, word)
    adjectives = "hourly|daily|weekly|monthly|yearly|annual|nightly"
    prices = "rate|fee|price|charge|cost|rent|fare|pass|ticket"
    m = re.search(rf"^\s*({adjectives})\s*$|\b({adjectives})\s+(?:{prices})", low)
    if not m:
        return ""
    word = {"hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month", "yearly": "year",
            "annual": "year", "nightly": "night"}[m.group(1) or m.group(2)]  # fmt: skip
    return UNIT_ALIASES.get(word, word)


def _text_candidates(
    query: Query, text: str, w: _Weights, whole: str, quantities: list[Quantity]
) -> list[_Candidate]:
    out: list[_Candidate] = []
    kind = query.kind
    branch = situation_branch(text, query.text)
    if branch is not None:  # a fallback sentence: only the branch the question's situation meets
        at = text.find(branch)
        quantities = [q for q in quantities if at <= q.start < at + len(branch)] if at >= 0 else quantities
        text_clocks = [(at + o, c) for o, c in clocks(branch)] if at >= 0 else clocks(text)
    else:
        text_clocks = clocks(text)
    if query.numeric or kind in ("value", "when"):
        for q in quantities:
            fit = _fit(query, q) * _counted(query, text, q)
            if fit > 0:
                out.append(_Candidate(_value_of(q), fit, w.share(terms(clause_of(text, q.start))), "", q))
    if kind in ("time", "when") and text_clocks:
        picked = _range_end(text, text_clocks, query.last)
        for at, clock in picked:
            out.append(_Candidate(Value.of_text(clock), 1.0, w.share(terms(clause_of(text, at)))))
    if kind in ("date", "when"):
        for at, _end, day in dates_in(text):
            out.append(_Candidate(Value.of_date(day), 1.0, w.share(terms(clause_of(text, at)))))
    if kind == "name":
        asked = set(re.findall(r"[a-z'’-]+", query.text.lower()))
        for at, name in names(text, asked):
            out.append(_Candidate(Value.of_text(name), 0.9, w.share(terms(clause_of(text, at)))))
    if kind == "reason":
        why = cause(text)
        if why:
            out.append(_Candidate(Value.of_text(why), 1.0, 1.0))
    if kind in ("value", "definition", "name") and not out and whole.strip() and len(whole) <= 120:
        out.append(_Candidate(Value.of_text(whole.strip().rstrip(".")), 0.5, 0.5))
    return out


def fits(question: str, value: Value) -> bool:
    """Whether ``value`` has the type ``question`` asks for (a duration a time, an amount money...)."""
    query = read_question(question)
    if value.kind == "list":  # several values (one per warehouse, per charge): each must fit
        return bool(value.items) and all(fits(question, item) for item in value.items)
    if value.kind == "number" and value.number is not None:
        q = Quantity(value.number, value.unit, value.text, 0, 0)
        return _fit(query, q) >= 0.8 if query.numeric or query.kind == "when" else query.kind == "value"
    if query.kind == "time":
        return bool(clocks(value.text))
    if query.kind == "date":
        return value.kind == "date"
    if query.kind == "when":
        return value.kind == "date" or bool(clocks(value.text))
    return not query.numeric and value.kind in ("text", "list")


def _range_end(text: str, found: list[tuple[int, str]], last: bool) -> list[tuple[int, str]]:
    """Of clock times in "from A to B" ranges, the end when the question asks when something ends
    (closes, finishes), else the start; times outside ranges stay."""
    out, skip = [], set()
    for n, (at, clock) in enumerate(found[:-1]):
        between = text[at + len(clock) : found[n + 1][0]].lower()
        if re.fullmatch(r"\s*(?:-|–|to|until|till)\s*", between):
            out.append(found[n + 1] if last else (at, clock))
            skip |= {n, n + 1}
    out += [f for n, f in enumerate(found) if n not in skip]
    return sorted(out)


def _counted(query: Query, text: str, q: Quantity) -> float:
    """For "how many <things>": a number followed by those things counts whole, one followed by other
    things ("3.2 million requests" when customers are asked) counts less."""
    if query.kind != "count" or not query.counted or q.unit:
        return 1.0
    after = re.match(r"\s*(?:[a-z-]+\s+)?([a-z]+)", text[q.end :].lower())
    if not after:
        return 1.0
    words = re.findall(r"[a-z]+", text[q.end : q.end + 30].lower())[:2]
    if any(stem(w) == query.counted for w in words):
        return 1.2
    return 0.5 if stem(after.group(1)) not in _FUNCTION_WORDS else 1.0


_FUNCTION = "and or of in at on to for per a the by with from is are was were"
_FUNCTION_WORDS = frozenset(_FUNCTION.split())


def _fit(query: Query, q: Quantity) -> float:
    dim = q.dimension
    kind = query.kind
    if kind == "duration":
        if query.unit and q.unit != query.unit:  # "how many days": days first, other times less
            return 0.5 if dim == "time" and not q.per else 0.0
        return 1.0 if dim == "time" and not q.per else 0.0
    if kind == "amount":
        return 1.0 if dim == "money" else 0.0
    if kind == "quantity":
        if query.unit:
            return 1.0 if q.unit == query.unit else 0.5 if dim in query.dimensions else 0.0
        if query.dimensions and query.dimensions[0]:
            return 1.0 if dim in query.dimensions else 0.0
        return 0.9 if q.unit and dim != "money" else 0.4 if q.unit else 0.3
    if kind == "count":
        return 1.0 if not q.unit or q.times else 0.15
    if kind == "when":
        return 0.7 if dim == "time" else 0.0
    if kind == "value":
        return 0.9 if q.unit else 0.8
    return 0.0


def _value_of(q: Quantity) -> Value:
    value = Value.of_number(q.number, q.unit, q.text)
    if q.per:
        per = q.per if q.per_amount == 1 else f"{q.per_amount:g} {q.per}"
        value = value.with_terms((("per", per),))
    return value


__all__ = ["MONEY_WORDS", "ask", "fits", "ranked"]
