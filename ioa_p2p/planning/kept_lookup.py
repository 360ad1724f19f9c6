"""A right lookup kept: a derivation applies only what the question asks (issue 23, p-derive; pure).

"What is the standard entry fee for the Kittering Marathon 2027?" is answered by the table cell the lookup
read (EUR 85). The derivation after it (planning/derive.py, planning/typed_charge.py) may still find
rules around that cell - "a chip-timing fee of EUR 2.50 is added to every entry", "members get 3 % off" -
or numbers in the question that only name or select the thing asked ("band 4", "Zone 2", "Year 13", "a
40 ft container", "a 10-journey carnet", "within 7 days"), and rewrite the right value into a wrong one
(87.5, "2.4 * 3", "290 * 40") or refuse it ("the question gives no number of grams").

:func:`kept_lookup` says when the value looked up answers as it is. It finds the value's **own record**
(the row or sentence of the document that states it; a row with its column headings, both with their
section headings and the document's name) and keeps the value when

- every quantity the question gives (planning/accounted.py reads them: never an age, a date, a year or a
  label such as "Zone 4", "Flat 4B") is one, or is stated by that record (it selected the row: "Pack of 10
  sessions EUR 410" for "a pack of 10 sessions", "Massage, 80 minutes: EUR 110" for "an 80-minute
  massage", "every kWh above 400" for "every kWh above 400");
- every telling word of the question is the record's own, or names nothing else in the document: a word
  another sentence uses ("members", "weekend", "late", "VAT", "per year", "total") may select a rule the
  derivation applies, and then the derivation decides;
- the question names no unit the record does not state ("in minutes", "per hour" of a rate per day) and
  asks for nothing the value's unit cannot be ("how long" answered by an amount of money).

Otherwise (None) the derivation goes on as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ioa_p2p.planning.accounted import stated_quantities
from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.banded import band_in
from ioa_p2p.planning.clock import asks_time
from ioa_p2p.planning.derive_plan import DERIVE
from ioa_p2p.planning.dimensions import asked_dimensions, dimension_of
from ioa_p2p.planning.doc_facts import spelled
from ioa_p2p.planning.quantities import Quantity
from ioa_p2p.planning.records import NO_SINGLE_ANSWER, DocRecord, DocRecords
from ioa_p2p.planning.season import out_of_period
from ioa_p2p.planning.situation_words import stem, words_in
from ioa_p2p.planning.subject import unnamed_subject
from ioa_p2p.planning.tariffs import CHARGE
from ioa_p2p.planning.types import CALC, PlanStep
from ioa_p2p.planning.values import ALIASES, NUMBER, Value, format_number, numbers_in

#: the longest record (in words) whose words may say what its value is for: a row, a field, a sentence
_WORDS_AT_MOST = 60
#: words of a question that ask for a value without naming what it is of
_ASKING = frozenset(
    words_in(
        "a an the of in on at to for per and or is are was were be been by with from as it its this that "
        "there what which who how much many does do did will would should could can i we you me my our your "
        "their tell give state say please exactly currently current now cost costs price priced charge "
        "charged charges fee fees pay pays paid amount rate value figure number listed list quoted shown set "
        "apply applies applied get gets make makes take takes need needs one full standard normal usual "
        "regular before excluding excl exclusive without"
    )
)
#: words asking for a value to be composed with others: the derivation decides, unless the record says it
_COMPOSING = frozenset(
    words_in(
        "total totals altogether overall combined together sum all-in including include includes included "
        "incl inclusive plus after before net gross both extra additional additionally difference more less "
        "save saving instead"
    )
)


def kept_lookup(question: str, found: Value | None) -> tuple[str, str] | None:
    """(``"N * 1"``, unit) for the value ``found`` when it answers ``question`` as asked (see the module
    docstring); None when a derivation may have something to apply."""
    if found is None or found.kind != NUMBER or found.number is None or found.records is None:
        return None
    if found.text.startswith(NO_SINGLE_ANSWER) or asks_time(question):
        return None
    if unnamed_subject(question, found) is not None or out_of_period(question, found) is not None:
        return None  # another subject's document, a month outside its prices: refused by the derivation
    own = own_record(question, found.number, found.records, found.unit)
    if own is None or len(words_in(own.text)) > _WORDS_AT_MOST:
        return None  # a paragraph states many things: the words it shares with the question tell little
    text = own_text(own, found.records.path, found.records)
    if unselected(question, text) or leftover(question, text, found.records, own):
        return None
    if not per_stated(question, own) or unnamed_labels(question, text):
        return None
    if unasked_per(question, own.text, found.number):
        return None  # "95 kWh per square metre" for a whole season: a rate the derivation multiplies
    if not _fits_dimension(question, found.unit, text):
        return None
    return f"{format_number(found.number)} * 1", found.unit


def kept_step(step: PlanStep, values: Mapping[int, Value]) -> str | None:
    """The expression of a derivation (``derive(v1)``) or a whole charge (``charge(v1; ...)``) whose value
    looked up answers its question as asked (:func:`kept_lookup`); None for any other step."""
    if step.kind != CALC or not step.needs or step.needs[0] not in values:
        return None
    if step.template != DERIVE and not CHARGE.fullmatch(step.template.strip()):
        return None
    kept = kept_lookup(step.text, values[step.needs[0]])
    return kept[0] if kept is not None else None


def own_record(question: str, number: float, records: DocRecords, unit: str = "") -> DocRecord | None:
    """The record that states ``number`` (a cell of a row, a sentence; in ``unit`` when one does), the one
    sharing most words with the question when several do; None when none does."""
    asked = _stems(words_in(question))
    best: tuple[tuple[bool, int], DocRecord] | None = None
    digits = format_number(number).split(".")[0] if number >= 20 else ""
    for record in records.records:
        if digits not in record.text.replace(",", ""):  # cheap: no record states it
            continue
        units = [f.unit for f in numbers_in(_plain(record.text)) if _same(f.number, number)]
        if not units:
            continue
        shared = len(asked & _stems(words_in(own_text(record, records.path, records))))
        score = (unit in units or not unit, shared)  # "EUR 2.40" over a clause numbered 2.4
        if best is None or score > best[0]:
            best = (score, record)
    return best[1] if best is not None else None


def own_text(record: DocRecord, path: str, records: DocRecords | None = None) -> str:
    """A record's text with what qualifies it: its column headings, its section headings, the document's
    folder and file name and its first line (its title)."""
    headings = " ".join(name for name, _ in record.cells)
    title = records.records[0].text if records is not None and records.records else ""
    return " ".join((record.text, record.key, headings, " ".join(record.section), path, title))


def unselected(question: str, text: str) -> list[float]:
    """The numbers of the quantities ``question`` gives (not one) that the record's ``text`` does not
    state, neither as the number nor by a band holding it."""
    stated = _numbers(text)
    bands = [b for b in (band_in(cell) for cell in re.split(r"[|;:,()]", text)) if b is not None]
    out = []
    coded = _CODE.sub(lambda m: m.group(0) if m.group(1).lower() in ALIASES else "#" + m.group(1), question)
    # every number with a unit too: "a turnover of GBP 20,000", "my allotment is 260 m up" (never an age)
    measured = [Quantity(f.number, f.unit) for f in numbers_in(_plain(coded)) if f.unit]
    for quantity in [*stated_quantities(coded), *measured]:
        if quantity.number == 1 or quantity.number in stated or _year(quantity.number, quantity.unit):
            continue
        if any(b.holds(quantity.number) and (not b.unit or b.unit == quantity.unit) for b in bands):
            continue
        out += [quantity.number] if quantity.number not in out else []
    return out


def leftover(question: str, text: str, records: DocRecords, own: DocRecord) -> set[str]:
    """The telling words of ``question`` that the record's ``text`` does not state and another record of
    the document does (they may name a rule the value is charged on), and the composing words it does not
    state ("total", "including", "after")."""
    mine = _stems(words_in(text))
    plain = _CONDITION.sub(" ", question)  # "less than 2 hours before": a condition, its number selects
    asked = {w for w in words_in(plain) if w not in _ASKING and len(w) > 1}
    missing = {w for w in asked if _stems([w]) - mine}
    if not missing:
        return set()
    elsewhere = _stems(w for r in records.records if r is not own for w in words_in(r.text))
    thing = _ASKED_THING.search(plain)  # "how much interest": the thing asked is the record's, or not it
    named = {thing.group(1).lower()} if thing is not None else set()
    return {w for w in missing if w in _COMPOSING or stem(w) in elsewhere or w in named}


#: a number glued to one capital letter that is no unit ("Flat 4B", "Gate 12A"): a label
_CODE = re.compile(r"\b\d+([A-Z])\b")
#: the thing a question asks an amount or a count of ("how much interest", "how many sessions")
_ASKED_THING = re.compile(r"\bhow (?:much|many) ([a-z]+)\b", re.I)


def unnamed_labels(question: str, text: str) -> list[str]:
    """The labels of the question ("Zone 4", "Year 13", "Flat 4B", "version 3.1") that the record's
    ``text`` does not state: a value read for another zone or year is not kept (the derivation decides)."""
    return [
        m.group(1)
        for m in _LABEL.finditer(question)
        if not re.search(rf"(?<![\w.]){re.escape(m.group(1))}(?![\w]|\.\d)", text, re.I)
    ]


_LABEL = re.compile(
    r"\b(?:zone|band|route|line|year|version|release|flat|room|unit|plot|pitch|bay|gate|platform|level|tier|"
    r"grade|class|group|category|stage|phase|step|plan|tariff|size|type|model|no\.?|number|#)\s*"
    r"(\d[\w.]*\w|\d)",
    re.I,
)


#: the words of a condition on a quantity ("less than 2 hours", "at least 18", "up to 5 kg")
_CONDITION = re.compile(
    r"\b(?:(?:less|fewer|more|greater|other|longer|shorter|later|earlier)\s+than|at\s+(?:least|most)|"
    r"up\s+to|no\s+(?:more|later|less)\s+than)(?=\s+(?:\d|an?\b|one\b))",
    re.I,
)


def per_stated(question: str, own: DocRecord) -> bool:
    """Every unit the question asks a rate per ("per minute", "hourly") is the unit the record states its
    value per ("EUR 0.80 per minute", a column headed "Per hour"); "per minute" of "75 minutes: EUR 96"
    is a rate the derivation works out."""
    asked = [m.group(1) for m in re.finditer(r"\bper\s+([a-z]+)", question, re.I)]
    asked += [_PERIODS[w] for w in words_in(question) if w in _PERIODS]
    headings = _stems(w for name, _ in own.cells for w in words_in(name))
    for word in asked:
        root = stem(word.lower())
        per = rf"(?:\b(?:per|an?|each|every)\s+|/\s*){re.escape(root)}"
        if root not in headings and not re.search(per, own.text, re.I):
            return False
    return True


#: after a number: its unit (up to three words: "kWh of gas") and what it is per ("per", "/", "each", "every")
_PER_AFTER = re.compile(
    r"^(?:\s*[^\s\d/]+){0,3}?\s*(?:\b(?:per|each|every)\s+|/\s*)([a-z]+(?:-[a-z]+)*)", re.I
)


def unasked_per(question: str, text: str, number: float) -> bool:
    """Whether ``text`` states ``number`` per something (``"95 kWh of gas per square metre"``, ``"52
    km/h"``, ``"EUR 2.50 per square metre per month"``) that the question never names: it asks for a
    whole the rate is a part of, not for the rate."""
    asked = _stems(words_in(question))
    plain = _plain(text)
    for m in re.finditer(r"\d[\d,]*(?:\.\d+)?", plain):
        try:
            value = float(m.group(0).replace(",", ""))
        except ValueError:
            continue
        if not _same(value, number):
            continue
        per = _PER_AFTER.match(plain[m.end() : m.end() + 60])
        unit = per.group(1).lower().split("-")[-1] if per is not None else ""  # "engineer-hour": an hour
        if unit and stem(_PERIODS.get(unit, unit)) not in asked:
            return True
    return False


def _fits_dimension(question: str, unit: str, text: str) -> bool:
    """The value's unit is of a dimension the question may be answered in; a rate the question asks "per
    minute" (its unit's dimension is the rate's amount) is judged without the unit it is per."""
    plain = re.sub(r"\b(?:per|a|an|each|every)\s+(?:[a-z-]+\s+)?(\w+)", "", question, flags=re.I)
    wanted = asked_dimensions(plain)
    have = dimension_of(unit)
    units = answer_type(plain).units  # "how long is the massage": a length or a duration, never its price
    if units and have and have not in {dimension_of(u) for u in units}:
        return False
    return not wanted or not have or have in wanted


def _stems(words: Iterable[str]) -> set[str]:
    """Stems, a period's adjective as its noun ("hourly" -> "hour", "annual" -> "year")."""
    return {stem(_PERIODS.get(w, w)) for w in words}


_PERIODS = {
    "hourly": "hour",
    "daily": "day",
    "nightly": "night",
    "weekly": "week",
    "monthly": "month",
    "yearly": "year",
    "annual": "year",
    "annually": "year",
}


def _year(number: float, unit: str) -> bool:
    """A bare whole number that reads as a year ("the 2024 year-end count"): it names a period."""
    return unit in ("", "years") and number.is_integer() and 1900 <= number <= 2100


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def _plain(text: str) -> str:
    """Small number words as digits, "40-litre" as "40 litre"."""
    return re.sub(r"(\d)-(?=[a-z])", r"\1 ", spelled(text)).replace("\u2009", "")


def _numbers(text: str) -> list[float]:
    """The numbers ``text`` states (thousands separators and small number words read)."""
    return [n.number for n in numbers_in(_plain(text))]


__all__ = [
    "kept_lookup",
    "kept_step",
    "leftover",
    "own_record",
    "own_text",
    "per_stated",
    "unnamed_labels",
    "unselected",
]
