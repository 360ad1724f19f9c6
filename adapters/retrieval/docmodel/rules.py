"""The rules a record states, typed (pure): rates, minimums, caps, percentages, surcharges, capacities,
rounding.

A rule-like document prices a situation through several kinds of statement; each is read once, from a
record's text (or a table row's cells), into a :class:`Rule`:

- ``rate``: an amount per one or more units or things ("EUR 3.20 per metre ... per night", "GBP 2 per tool
  for each started day", "each started kg above 5 kg costs CHF 1.50", "CHF 1 per started 5 minutes"),
  with ``started`` (part units count whole), ``step`` (a block size), ``beyond`` (only the part above a
  free amount counts) and the band a table row's key states;
- ``minimum`` / ``cap``: the least / most an amount or a quantity may be ("the minimum charge for an order
  is GBP 25", "with a minimum of 4 hours", "never exceeds GBP 20");
- ``percent``: a share added or taken off under a condition ("20 % off", "adds 30 %", "pay 50 % extra",
  "fines are halved"), ``vat`` when it is the tax;
- ``surcharge``: a fixed amount added under a condition ("CHF 10 extra per delivery");
- ``capacity``: how many of one thing one of another holds ("round tables seat 8 guests each", "one litre
  covers 12 m²");
- ``rounding``: a measure rounded up to a step ("rounded up to the next half metre").

``when`` keeps the words that say when the rule applies (its subject and conditions, a row's labels), so
that the planner applies a rule only when the question meets it; ``number`` is signed for a percentage
(-20 for "20 % off").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.adapters.retrieval.docmodel.bands import Band, band_of
from ioa_p2p.adapters.retrieval.docmodel.quantity import UNIT_ALIASES, Quantity, dimension, quantities_in

# the rule kinds and the per-record bound are the wire format's (the planner reads them back)
from ioa_p2p.planning.records import (
    CAP,
    CAPACITY,
    MAX_RULES,
    MINIMUM,
    PERCENT,
    RATE,
    ROUNDING,
    SURCHARGE,
    VAT,
)


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    number: float
    unit: str = ""  # the amount's unit ("EUR", "h", "guest"); a rounding's measure
    per: tuple[str, ...] = ()  # a rate's denominators, a capacity's container
    step: float = 1.0  # a rate's block ("per started 5 minutes": 5); a rounding's step
    started: bool = False  # part of a unit counts whole
    beyond: float = 0.0  # a rate counts only the part of its first denominator above this
    when: str = ""  # the words that say when it applies
    band: Band | None = None  # a table row's band ("over 5 m2 up to 20 m2")
    tier: bool = False  # the band is a tier ("first 8 MWh", "next 12 MWh"): each part at its own rate

    def to_list(self) -> list[object]:
        band = self.band
        banded = [band.low, band.high, band.low_open, band.high_open, band.unit] if band else None
        return [self.kind, self.number, self.unit, list(self.per), self.step, self.started, self.beyond,
                self.when[:200], banded, self.tier]  # fmt: skip


_MONEY = ("EUR", "USD", "GBP", "CHF", "SEK", "NOK", "DKK", "JPY", "cent", "pence")
_NUM = r"(\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|ten|half an?)"
_WORDS = {"a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0,
          "ten": 10.0, "half a": 0.5, "half an": 0.5}  # fmt: skip
_PER = re.compile(
    r"\b(?:per|each|every|a|an|for each|for every)\s+(?P<started>started\s+|part of an?\s+)?"
    r"(?:(?:further|additional|extra|subsequent)\s+)?"  # "each further km costs EUR 0.22": per km
    r"(?:(?P<n>\d+(?:\.\d+)?)\s+)?(?P<unit>square metres?|cubic metres?|[a-zA-Z²³]+)",
    re.I,
)
_BEYOND = re.compile(
    r"\b(?:above|over|beyond|more than|after)\s+(?:the\s+first\s+)?(?P<n>\d+(?:\.\d+)?)\s*"
    r"(?P<unit>[a-zA-Z²³]+)",
    re.I,
)
_OFF = re.compile(
    r"(?P<n>\d+(?:\.\d+)?)\s*(?:%|per ?cent)\s*"
    r"(?P<how>off|discount|reduction|less|cheaper|extra|more|surcharge|on top|is added|added)?",
    re.I,
)
_DISCOUNT_OF = re.compile(
    r"\b(?P<how>discount|reduction|surcharge|supplement) of (?P<n>\d+(?:\.\d+)?)\s*%", re.I
)
_ADDS = re.compile(r"\b(?P<how>adds?|plus|add|\+)\s*(?P<n>\d+(?:\.\d+)?)\s*%", re.I)
_HALVED = re.compile(r"\b(?:are|is) halved\b|\bhalf price\b|\bpay half\b", re.I)
_MINIMUM = re.compile(r"\bminimum\b|\bat least\b|\bno less than\b", re.I)
_CAP = re.compile(
    r"\bnever exceeds?\b|\bcapped at\b|\bat most\b|\bmaximum\b|\bno more than\b|\bup to a max", re.I
)
_EXTRA = re.compile(r"\bextra\b|\bsurcharge\b|\bsupplement\b|\bin addition\b|\badditional\b", re.I)
_CAPACITY = re.compile(
    r"(?P<what>[A-Za-z]+)\s+(?:each\s+)?(?:seats?|holds?|fits?|covers?|serves?|sleeps?|carr(?:y|ies))"
    r"\s+(?:about\s+|up to\s+)?(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>square metres?|m²|m2|[a-zA-Z]+)",
    re.I,
)
_ROUNDED = re.compile(
    r"\brounded up to the next (?P<step>whole|full|half)\s+(?P<unit>square metre|cubic metre|[a-z²³]+)", re.I
)


def rules_of(text: str, cells: tuple[tuple[str, str], ...] = (), band: Band | None = None,
             currency: str = "", tier: bool = False) -> tuple[Rule, ...]:  # fmt: skip
    """The rules ``text`` states (a table row: its ``cells`` keyed by their headers)."""
    text = squared(text)
    cells = tuple((squared(h), squared(c)) for h, c in cells)
    if cells:
        return _row_rules(cells, band, currency, tier)[:MAX_RULES]
    out: list[Rule] = []
    for clause in _clauses(text):
        out += _clause_rules(clause, text, currency)
    return tuple(out[:MAX_RULES])


def _clauses(text: str) -> list[str]:
    """A sentence cut where a list of amounts goes on ("hand tools 50p, power tools GBP 2") only when each
    part has its own amount; otherwise the sentence whole."""
    head, colon, tail = text.partition(":")
    if colon and len(re.findall(r"\d", tail)) >= 2:
        parts = [p.strip() for p in re.split(r"[;,]\s+|\s+and\s+(?=[A-Za-z ]*\d)", tail) if p.strip()]
        if len(parts) >= 2 and all(re.search(r"\d", p) for p in parts):
            return [f"{head}: {p}" for p in parts]
    return [text]


def _clause_rules(clause: str, sentence: str, currency: str) -> list[Rule]:
    out: list[Rule] = []
    quantities = quantities_in(clause)
    money = [
        q for q in quantities if dimension(q.unit) == "money" or (not q.unit and currency and _price_like(q))
    ]
    out += _percent_rules(clause)
    rounding = _ROUNDED.search(clause)
    if rounding:
        step = 0.5 if rounding.group("step").lower() == "half" else 1.0
        out.append(Rule(ROUNDING, step, _unit(rounding.group("unit")), step=step, when=clause))
    cap = _CAPACITY.search(clause)
    if cap:
        n = float(cap.group("n"))
        out.append(Rule(CAPACITY, n, _unit(cap.group("unit")), (_unit(cap.group("what")),), when=clause))
    for q in money:
        if not re.search(
            r"\b(?:over|above|more than|under|below|up to|from|exceeding)\s*$", clause[: q.start]
        ):
            out.append(_money_rule(q, clause, currency, money))  # not a threshold ("free for orders over X")
    if _MINIMUM.search(clause):  # "with a minimum of 4 hours"
        for q in quantities:
            lead = clause[max(0, q.start - 25) : q.start]
            if q.unit and dimension(q.unit) != "money" and _MINIMUM.search(lead):
                out.append(Rule(MINIMUM, q.number, q.unit, when=clause))
    return out


def _price_like(q: Quantity) -> bool:
    """A bare number in a document whose prices carry no currency: written as a price ("0.62", "18.40")."""
    return bool(re.fullmatch(r"\d+\.\d\d", q.text.split()[0])) if q.text else False


def _priced(clause: str) -> bool:
    return bool(re.search(r"\b(?:price|cost|fee|charge|rate|fare|pay)", clause, re.I))


def _money_rule(q: Quantity, clause: str, currency: str, money: list[Quantity]) -> Rule:
    unit = q.unit or currency
    i = money.index(q)
    start = max(0, q.start - 40, money[i - 1].end if i > 0 else 0)  # its own words, not the previous amount's
    before = re.split(r"[.;]\s", clause[start : q.start])[-1]
    after = clause[q.end : q.end + 60]
    if _MINIMUM.search(before) or re.match(r"\s*(?:minimum|at least)", after, re.I):
        return Rule(MINIMUM, q.number, unit, _pers(clause, q), when=clause)
    if _CAP.search(before):
        return Rule(CAP, q.number, unit, _pers(clause, q), when=clause)
    per_started, per_step, per_units = _per(clause, q)
    beyond = _BEYOND.search(clause)
    far = beyond.group("n") if beyond else ""
    measured = [u for u in per_units if dimension(u) not in ("", u) or u == "night"]
    if _EXTRA.search(clause) and not per_started and not measured:  # "CHF 10 extra per delivery"
        return Rule(SURCHARGE, q.number, unit, per_units, when=_when(clause, q, money))
    if not per_units and re.match(r"\s*(?:each|apiece)\b", after, re.I):  # "Chairs cost GBP 1.80 each"
        subject = re.match(r"\W*(?:the\s+)?([A-Za-z]+)", clause)
        per_units = (_unit(subject.group(1)),) if subject else ()
    return Rule(RATE, q.number, unit, per_units, per_step, per_started,
                float(far) if far and _unit(beyond.group("unit")) in per_units[:1] else 0.0,  # type: ignore[union-attr]
                when=_when(clause, q, money))  # fmt: skip


def _per(clause: str, q: Quantity) -> tuple[bool, float, tuple[str, ...]]:
    """(started, step, denominators) of the money amount ``q``: the "per X" of its clause (the whole
    clause when the amount has none of its own: "Visiting boats pay per metre ... per night: EUR 3.20")."""
    started, step, units = False, 1.0, []
    for m in _PER.finditer(clause):
        lead = m.group(0).split()[0].lower()
        unit = _unit(m.group("unit"))
        close = m.start() - q.end <= 1  # "EUR 8 a visit": right after the amount
        if lead in ("a", "an") and not (unit in _PERIOD_UNITS or m.group("started") or close):
            continue  # "a guest card", "an admin fee": not a denominator
        if lead in ("each", "every") and unit in ("started",):
            continue
        if unit.lower() in _NOT_PER or unit in _MONEY:
            continue
        if m.group("started"):
            started = True
            step = float(m.group("n")) if m.group("n") else step
        units.append(unit)
    return started, step, tuple(dict.fromkeys(units))


_PERIOD_UNITS = frozenset({"h", "min", "days", "weeks", "months", "years", "night"})
_NOT_PER = frozenset(
    ["the", "this", "that", "its", "their", "your", "our", "whole", "full", "time", "lot", "few"]
)


def _pers(clause: str, q: Quantity) -> tuple[str, ...]:
    return _per(clause, q)[2]


def _when(clause: str, q: Quantity, money: list[Quantity]) -> str:
    """The words that say when the amount applies: the clause around it, without the other amounts'
    own words (the text between this amount and the previous / next one)."""
    i = money.index(q)
    start = money[i - 1].end if i > 0 else 0
    end = money[i + 1].start if i + 1 < len(money) else len(clause)
    return clause[start:end].strip(" ,;:.")


def _percent_rules(clause: str) -> list[Rule]:
    out = []
    for m in _OFF.finditer(clause):
        how = (m.group("how") or "").lower()
        context = clause[max(0, m.start() - 40) : m.start()].lower()
        if not how:
            if re.search(r"\b(?:discount|reduction)\b", clause, re.I):
                how = "off"
            elif re.search(r"\bvat\b|\btax\b", clause, re.I) or re.search(r"\b(?:adds?|plus)\s*$", context):
                how = "added"
            else:
                continue
        off = how in ("off", "discount", "reduction", "less", "cheaper")
        kind = VAT if re.search(r"\bvat\b|\bsales tax\b", clause, re.I) else PERCENT
        n = float(m.group("n"))
        out.append(Rule(kind, -n if off else n, "%", when=clause, band=_who_band(clause)))
    for m in _DISCOUNT_OF.finditer(clause):
        off = m.group("how").lower() in ("discount", "reduction")
        kind = VAT if re.search(r"\bvat\b", clause, re.I) else PERCENT
        number = -float(m.group("n")) if off else float(m.group("n"))
        rule = Rule(kind, number, "%", when=clause, band=_who_band(clause))
        if rule not in out:
            out.append(rule)
    for m in _ADDS.finditer(clause):
        rule = Rule(PERCENT, float(m.group("n")), "%", when=clause, band=_who_band(clause))
        if all(r.number != rule.number for r in out):
            out.append(rule)
    if _HALVED.search(clause):
        out.append(Rule(PERCENT, -50.0, "%", when=clause, band=_who_band(clause)))
    return out


_AGE = re.compile(
    r"\baged?\b|\byears? old\b|\b(?:members|children|people|persons|anyone|guests|users) "
    r"(?:aged )?(?:under|over|below|above)\s+\d",
    re.I,
)


def _who_band(clause: str) -> Band | None:
    """The band of whom or what a percentage applies to ("members under 18", "groups of 10 or more",
    "bookings made at least 6 months before"), without its percentage; an age when the words say so."""
    who = _OFF.sub(" ", _DISCOUNT_OF.sub(" ", clause))
    band = band_of(who)
    if band is not None and not band.unit and _AGE.search(who):
        band = Band(band.low, band.high, band.low_open, band.high_open, "age")
    return band


def _row_rules(cells: tuple[tuple[str, str], ...], band: Band | None, currency: str,
               tier: bool) -> tuple[Rule, ...]:  # fmt: skip
    """A table row: each priced cell is a rate per what its header says ("Price per m2") or a plain
    amount, applying when the row's labels and the column's header apply."""
    labels = " ".join(c for h, c in cells if c and not re.search(r"\d", c) or c == cells[0][1])
    out = []
    for header, cell in cells[1:]:
        for q in quantities_in(cell)[:1]:
            priced = currency and (_priced(header + " " + cell) or _money_header(header) or _price_like(q))
            unit = q.unit or (currency if priced else "")
            if dimension(unit) != "money":
                continue
            leads = ("per", "each", "every")
            pers = tuple(_unit(m["unit"]) for m in _PER.finditer(header) if m[0].split()[0].lower() in leads)
            pers += tuple(_unit(u) for u in re.findall(r"/\s*([a-zA-Z²³]+)", header))
            words = re.findall(r"[A-Za-z]+", header.lower())
            pers += tuple(_PERIODIC[w] for w in words if w in _PERIODIC)
            if q.per:
                pers = (q.per, *pers)
            out.append(Rule(RATE, q.number, unit, tuple(dict.fromkeys(pers)), when=f"{labels} | {header}",
                            band=band, tier=tier))  # fmt: skip
    return tuple(out)


_PERIODIC = {"hourly": "h", "daily": "days", "nightly": "night", "weekly": "weeks", "monthly": "months",
             "yearly": "years", "annual": "years"}  # fmt: skip


def _money_header(header: str) -> bool:
    return bool(re.search(r"\b(?:price|cost|fee|charge|rate|fare|eur|gbp|usd|chf)\b|[€£$]", header, re.I))


def _unit(word: str) -> str:
    low = word.strip().lower()
    if low in ("m2", "square metre", "square metres"):
        return "m²"
    if low in ("night", "nights"):
        return "night"
    if low in UNIT_ALIASES:
        return UNIT_ALIASES[low]
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith("s") and not low.endswith("ss") and len(low) > 3:
        return low[:-1]
    return low


def squared(text: str) -> str:
    """ "m2" -> "m²", "m3" -> "m³" (a unit, not a number)."""
    return re.sub(r"\b(m|cm|km)([23])\b", lambda m: m.group(1) + ("²" if m.group(2) == "2" else "³"), text)


def tier_of(key: str, previous_high: float) -> Band | None:
    """A tier's band: "first 8 MWh" (0..8), "next 12 MWh" (after the previous tier's top), "above 20"."""
    m = re.match(r"\s*(first|next)\s+(\d+(?:\.\d+)?)", key, re.I)
    if m:
        low = 0.0 if m.group(1).lower() == "first" else previous_high
        return Band(low, low + float(m.group(2)), low > 0, False)
    return band_of(key)


__all__ = ["Rule", "rules_of", "tier_of"]
