"""A document's typed rules as the composition solver reads them (pure): one :class:`Rulebook` per document.

The retrieval sends each record's rules (planning/records.py): an amount, what it is per, a band, a kind.
The words around the amount say more, and a charge made of several rules needs it (planning/composer.py):

- the **quantity a rate is stated over**: "EUR 18 per 45 minutes" is EUR 18 per 45 min, not per minute;
  "EUR 24 for the first 30 minutes" covers the first 30 min (a **first period**), and "then EUR 7 for every
  further 15 minutes" is a rate for each 15 min **beyond** it (the first period of its record, or of the
  record before);
- **started periods charged in full**: the rule's own ("per started hour") or the document's ("every
  period you start is charged in full", "or part thereof");
- a percentage's **condition**: a threshold on a quantity ("if you stay 7 nights or longer", "6 boats or
  more", "at least 3 days") and whom it is for by age ("children under 12 eat for half price");
- what a percentage is **not** off ("10% off the accommodation (not off the tourist tax, linen or
  breakfast)") and whether an amount is a **minimum** of a percentage in the same record ("35% of the
  rate, but at least EUR 4.00");
- **exemptions by age** that follow a per-person rate ("Guests under 16 don't pay it", "children under 5
  travel free");
- how telling each word is among the records that state charges (:attr:`Rulebook.weights`).

:func:`rulebook` reads a :class:`~ioa_p2p.planning.records.DocRecords` once (cached: one document feeds
every step of a goal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from ioa_p2p.planning.doc_facts import WORD_NUMBERS, convert, singular, unit_word
from ioa_p2p.planning.records import CAP, MINIMUM, PERCENT, RATE, VAT, DocRecords, DocRule
from ioa_p2p.planning.rule_fit import GENERIC, MONEY, words_of

#: units a rate is stated over that are measured (a count of people or rooms is not a measure)
MEASURES = frozenset({"min", "h", "s", "days", "weeks", "months", "years", "night", "km", "m", "kg", "g", "L",
                      "ml", "m²", "m³", "kWh", "MWh", "miles", "t"})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Threshold:
    """A condition on a quantity: at least ``low`` of ``what`` (a unit, or a thing counted)."""

    low: float
    what: str


@dataclass(frozen=True, slots=True)
class Ages:
    """Whom a rule is for by age: ``low`` <= age < ``high``."""

    low: float = 0.0
    high: float = 200.0

    def holds(self, age: float) -> bool:
        return self.low <= age < self.high


@dataclass(frozen=True, slots=True)
class Term:
    """One typed rule with what its words say (see the module docstring)."""

    rule: DocRule
    lead: frozenset[str]  # the words before the amount (its subject, a row's or a field's name)
    words: frozenset[str]  # all the words of its clause
    measure: str = ""  # the measured unit it is per ("min"), "" when none
    over: float = 1.0  # the quantity of ``measure`` it is stated over
    first: bool = False  # it covers the first ``over`` of the measure
    beyond: float = 0.0  # it is for each ``over`` beyond this much of the measure (a further period)
    started: bool = False  # a started ``over`` is charged in full
    condition: Threshold | None = None
    ages: Ages | None = None
    not_off: frozenset[str] = frozenset()  # a percentage is not off these
    at_least: float = 0.0  # a percentage's amount is at least this (its record's minimum)
    exempt: Ages | None = None  # people of these ages pay no part of this per-person rate
    ages_share: tuple[tuple[Ages, float], ...] = ()  # what people of an age pay of a per-person rate

    @property
    def kind(self) -> str:
        return self.rule.kind

    @property
    def number(self) -> float:
        return self.rule.number


@dataclass(frozen=True, slots=True)
class Rulebook:
    terms: tuple[Term, ...]
    weights: dict[str, float]  # 1 / the number of charge records that use the word
    started: bool  # the document charges every started period in full
    rated: frozenset[int]  # the records that state a rate
    about: frozenset[str]  # the words of the document's path (its owner's name, not a charge)
    period_cap: bool = False  # a longer period's price caps a charge by the shorter one ("never more
    # than the day price")

    def bounds(self, t: Term) -> list[DocRule]:
        """The minimums and caps about ``t``: of its record, or of the records right after it that state
        no rate of their own ("EUR 14.00 per hour. Rooms are let with a minimum booking of 2 hours.")."""
        near = {t.rule.record}
        for j in (t.rule.record + 1, t.rule.record + 2):
            if j in self.rated:
                break
            near.add(j)
        return [x.rule for x in self.terms if x.kind in (MINIMUM, CAP) and x.rule.record in near
                and x.at_least == 0.0 and not _percent_record(self, x.rule.record)]  # fmt: skip

    @property
    def rates(self) -> list[Term]:
        return [t for t in self.terms if t.kind == RATE and t.rule.unit in MONEY]

    @property
    def percents(self) -> list[Term]:
        return [t for t in self.terms if t.kind == PERCENT]

    @property
    def vat(self) -> float | None:
        return next((t.number for t in self.terms if t.kind == VAT and t.number > 0), None)

    def fit(self, words: frozenset[str]) -> float:
        return sum(self.weights.get(w, 1.0) for w in words)


@lru_cache(maxsize=64)
def rulebook(records: DocRecords) -> Rulebook:
    """The typed rules of ``records`` with what their words say (see the module docstring)."""
    texts = {r.line: r.text for r in records.records}
    started_doc = any(_STARTED_DOC.search(r.text) for r in records.records)
    terms: list[Term] = []
    last_first: dict[str, Term] = {}  # measure dimension -> the latest first period
    for record in records.records:
        for rule in record.rules:
            term = _term(rule, started_doc, last_first)
            if term.first:
                last_first[_dim(term.measure)] = term
            terms.append(term)
    terms = _with_minimums(terms)
    terms = _with_exemptions(terms, records, texts)
    terms = _with_age_shares(terms)
    df: dict[str, int] = {}
    for record in records.records:
        if any(r.kind == RATE for r in record.rules):
            for w in words_of(record.text):
                df[w] = df.get(w, 0) + 1
    rated = frozenset(i for i, r in enumerate(records.records) if any(x.kind == RATE for x in r.rules))
    about = words_of(re.sub(r"[_./-]+", " ", records.path))
    capped = any(_PERIOD_CAP.search(r.text) for r in records.records)
    return Rulebook(tuple(terms), {w: 1.0 / n for w, n in df.items()}, started_doc, rated, about, capped)


def _percent_record(book: Rulebook, record: int) -> bool:
    """A record whose minimum is a percentage's ("35% of the rate, but at least EUR 4.00")."""
    return any(t.kind == PERCENT and t.rule.record == record for t in book.terms)


# --------------------------------------------------------------------------------------------- internals

_NUM = r"(\d+(?:\.\d+)?|" + "|".join(w for w in WORD_NUMBERS if " " not in w) + r")"
_UNIT_WORD = (
    r"(minutes?|mins?|hours?|hrs?|h|days?|nights?|weeks?|months?|years?|km|kilometres?|miles?|kg|kilos?|m²|"
    r"m³|kwh|litres?|metres?|m)"
)
_FIRST = re.compile(rf"\bfor the first (?:{_NUM}\s*)?{_UNIT_WORD}\b", re.I)
_FURTHER = re.compile(
    rf"\b(?:for |per )?(?:every|each|any|per)\s+(?:further|additional|extra|subsequent|following|next)\s+"
    rf"(?:{_NUM}\s*)?{_UNIT_WORD}\b",
    re.I,
)
_OVER = re.compile(rf"\b(?:per|for|every|each)\s+(?:started\s+)?{_NUM}\s*{_UNIT_WORD}\b", re.I)
_STARTED = re.compile(r"\bper started\b|\bor part (?:thereof|of (?:an?|one) \w+)\b|\bstarted \w+ (?:is|are) "
                      r"charged\b", re.I)  # fmt: skip
_STARTED_DOC = re.compile(
    r"\b(?:every|each|any)\s+(?:period|hour|block|day|unit|part)\b[^.]{0,40}\bstart\w*\b[^.]{0,30}"
    r"\b(?:charged|counted|billed|paid)\s+(?:in full|as (?:a )?(?:full|whole))|\bor part thereof\b|"
    r"\b(?:part|started) (?:periods?|hours?|days?) (?:is|are) (?:charged|billed|counted) (?:in full|as)|"
    r"\b(?:charged|billed|priced) (?:per|by the|for each|for every) started (?:period|hour|day|block|unit)\b",
    re.I,
)
#: "never costs more than the day price", "capped at the daily rate", "the weekly price applies": a
#: charge by a shorter period is at most the price of the longer one (planning/composer.py)
_PERIOD_CAP = re.compile(
    r"\b(?:never|not|no)\b[^.]{0,30}\bmore than the (?:day|daily|week|weekly|month|monthly)(?:'s)? "
    r"(?:price|rate|charge|tariff)\b|\b(?:capped|limited) (?:at|to) the (?:day|daily|week|weekly|monthly) "
    r"(?:price|rate|charge)\b|\bthe (?:day|daily|week|weekly|month|monthly) (?:price|rate) applies\b",
    re.I,
)
_THRESHOLD = re.compile(
    rf"\b(?:at least|a minimum of|from|min\.?)\s+{_NUM}\s+([a-z]+)|\b{_NUM}\s+([a-z]+)\s+(?:or|and)\s+"
    rf"(?:more|longer|over|above)\b|\b{_NUM}\+\s*([a-z]+)",
    re.I,
)
#: "children under 12", "campers under 14": people of an age (a plural noun, not "parcels under 2 kg")
_AGES_UNDER = re.compile(
    r"\b(?:[a-z]+s|children|people|anyone|everyone)\s+(?:aged\s+)?(?:under|below|younger than)\s+(\d{1,2})\b"
    r"(?!\s*(?:kg|g|m|km|cm|mm|l|litres?|%|eur|min|minutes?|hours?|h|days?|nights?|weeks?|m²|m³|kwh))",
    re.I,
)
_AGES_OVER = re.compile(r"\b(?:aged\s+)?(\d{2})\s*(?:and|or)\s+(?:over|older|above)\b|\bover\s+(\d{2})s?\b"
                        r"(?=[^.]{0,20}\b(?:pay|get|receive|eat|travel)\b)", re.I)  # fmt: skip
_NOT_OFF = re.compile(r"\bnot (?:off|on|applied to|for)\s+(?:the\s+)?([^).;]+)", re.I)
_CLAUSE_BREAK = re.compile(r"\s+(?:and|or|while|whereas|but)\s+|[,;]\s*")
_OWN_PER = re.compile(rf"\s*(?:per|a|an|each|every)\s+{_UNIT_WORD}\b", re.I)
_FREE = re.compile(r"\b(?:don't|do not|does not|doesn't|never) pay\b|\b(?:travel|go|stay|eat|enter|are) "
                   r"free\b|\bfree of charge\b|\bexempt\b", re.I)  # fmt: skip


def _number(raw: str | None) -> float:
    if not raw:
        return 1.0
    low = raw.lower()
    return float(WORD_NUMBERS[low]) if low in WORD_NUMBERS else float(raw)


def _unit(raw: str) -> str:
    unit = unit_word(raw.lower())
    return "night" if singular(raw.lower()) == "night" else unit


def _dim(unit: str) -> str:
    return "time" if convert(unit, "min") is not None or unit == "night" else unit


def _amount_end(rule: DocRule) -> int:
    """Where a rule's amount ends in its clause (0 when it cannot be found)."""
    m = re.search(rf"(?<![\d.]){re.escape(f'{rule.number:g}')}(?:\.\d+)?(?![\d])", rule.when)
    return m.end() if m else 0


def _lead(rule: DocRule) -> frozenset[str]:
    """The words of a rule's clause before its amount, from the last "and" / "," / ";" before it ("... per
    day on call and EUR 65 per hour": none; "..., and the family room sleeps four for EUR 118": the
    family room's)."""
    shown = re.escape(f"{rule.number:g}")
    m = re.search(rf"(?<![\d.]){shown}(?:\.\d+)?(?![\d])", rule.when) or re.search(r"\d", rule.when)
    before = rule.when[: m.start()] if m else rule.when
    key, _, rest = before.partition(":")  # a field's name stays its subject ("Wetsuits: EUR 6 ...")
    parts = _CLAUSE_BREAK.split(rest if _ and len(key) <= 60 else before)
    lead = (key + " " if _ and len(key) <= 60 else "") + parts[-1]
    return words_of(lead) - GENERIC


def _term(rule: DocRule, started_doc: bool, last_first: dict[str, Term]) -> Term:
    when = rule.when
    lead, words = _lead(rule), words_of(when) - GENERIC
    if rule.kind != RATE:
        return _modifier(rule, lead, words)
    first, further, over = _FIRST.search(when), _FURTHER.search(when), _OVER.search(when)
    measure, amount, is_first, beyond = "", 1.0, False, 0.0
    if further:
        measure, amount = _unit(further.group(2)), _number(further.group(1))
        before = last_first.get(_dim(measure))
        if before is not None:
            beyond = before.over * (convert(before.measure, measure) or 1.0)
    elif first:
        measure, amount, is_first = _unit(first.group(2)), _number(first.group(1)), True
    elif over:
        measure, amount = _unit(over.group(2)), _number(over.group(1))
    if measure and measure not in MEASURES:
        measure, amount = "", 1.0
    own = _OWN_PER.match(when[_amount_end(rule) :])  # "EUR 65 per hour spent on ...": its own measure
    if not measure and own and _unit(own.group(1)) in MEASURES:
        measure = _unit(own.group(1))
    if not measure:
        measure = next((p for p in rule.per if p in MEASURES), "")
    if not beyond and rule.beyond:  # "beyond the first 10 minutes ... per started 5 minutes": the rules'
        beyond = rule.beyond  # own reading of what is free; a part of its own (planning/ruled.py applies it)
    started = rule.started or started_doc or bool(_STARTED.search(when))
    if rule.started and rule.step != 1:
        amount = rule.step
    return Term(rule, lead, words, measure, amount, is_first, beyond, started)


def _modifier(rule: DocRule, lead: frozenset[str], words: frozenset[str]) -> Term:
    when = rule.when
    condition = None
    m = _THRESHOLD.search(when)
    if m:
        n = m.group(1) or m.group(3) or m.group(5)
        what = m.group(2) or m.group(4) or m.group(6)
        if n and what:
            condition = Threshold(
                _number(n), _unit(what) if _unit(what) in MEASURES else singular(what.lower())
            )
    under, over = _AGES_UNDER.search(when), _AGES_OVER.search(when)
    ages = Ages(high=float(under.group(1))) if under else None
    if over and ages is None:
        ages = Ages(low=float(over.group(1) or over.group(2)))
    if ages is not None and condition is not None and condition.what in ("year", "child", "kid", "guest"):
        condition = None  # "children under 12": an age, not a threshold
    not_off: frozenset[str] = frozenset()
    n_off = _NOT_OFF.search(when)
    if n_off:
        not_off = words_of(n_off.group(1)) - GENERIC
    return Term(rule, lead, words, condition=condition, ages=ages, not_off=not_off)


def _with_minimums(terms: list[Term]) -> list[Term]:
    """A percentage's record that also states a money minimum: the percentage's amount is at least it."""
    out = []
    for t in terms:
        if t.kind == PERCENT and t.number > 0:
            least = next((m for m in terms if m.kind == MINIMUM and m.rule.record == t.rule.record
                          and m.rule.unit in MONEY), None)  # fmt: skip
            if least is not None:
                t = replace(t, at_least=least.number)
        out.append(t)
    return out


def _with_exemptions(terms: list[Term], records: DocRecords, texts: dict[int, str]) -> list[Term]:
    """A per-person rate whose own record or the next one says who of an age pays nothing."""
    out = []
    by_index = {i: r for i, r in enumerate(records.records)}
    for t in terms:
        if t.kind == RATE and "person" in t.rule.per and t.rule.record >= 0:
            for j in (t.rule.record, t.rule.record + 1):
                record = by_index.get(j)
                if record is None or (j != t.rule.record and any(r.kind == RATE for r in record.rules)):
                    continue
                free, under = _FREE.search(record.text), _AGES_UNDER.search(record.text)
                if free and under:
                    t = replace(t, exempt=Ages(high=float(under.group(1))))
                    break
        out.append(t)
    return out


def _with_age_shares(terms: list[Term]) -> list[Term]:
    """A per-person rate and a percentage by age in its record ("children under 12 eat for half price")."""
    out = []
    for t in terms:
        if t.kind == RATE and "person" in t.rule.per:
            shares = tuple((p.ages, 1 + p.number / 100) for p in terms if p.kind == PERCENT and p.ages
                           is not None and p.rule.record == t.rule.record)  # fmt: skip
            if shares:
                t = replace(t, ages_share=shares)
        out.append(t)
    return out


__all__ = ["MEASURES", "Ages", "Rulebook", "Term", "Threshold", "rulebook"]
