"""A charge for what goes beyond an allowance: N units included (per period), a rate for each further unit.

Tariffs give an amount free and price the rest: "250 km per rental day included; each further km costs
EUR 0.22", "The first 5 GB are free, then EUR 2 per additional GB", "includes 100 minutes a month; extra
minutes at EUR 0.09". The statement is typed here as (allowance, its unit, the period it is per, the rate
for each further unit); a question about the extra units ("what's the charge for the extra kilometres",
"what will the excess data cost") that states the units used (1,150 km) and, when the allowance is per a
period, how many periods (4 days) is answered ``max(0, used - allowance x periods) x rate``.

Where a record states several allowances for classes ("Groups A to D: ...; Group E: ..."), the one whose
label names what the question names applies: its words, or a range of letters or numbers holding the
question's ("group C" is in "Groups A to D"). :func:`allowance_expression` returns (expression, unit) or
None when no allowance statement fits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.quantities import Quantity
from ioa_p2p.planning.records import DocRecords
from ioa_p2p.planning.rule_fit import GENERIC, MONEY, rule_givens, words_of
from ioa_p2p.planning.values import ALIASES, Value, format_number

_N = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_W = r"([A-Za-z²³]+)(?:\s+of\s+[a-z]+)?"
_CUR = r"(EUR|USD|GBP|CHF|€|\$|£)"
_PER = r"(?:\s+(?:per|a|an|each|every)\s+([a-z ]+?))?"
_ALLOWED = (
    re.compile(rf"\b{_N}\s*{_W}{_PER}\s+(?:are |is )?(?:included|free)\b", re.I),
    re.compile(rf"\bincludes?\s+{_N}\s*{_W}{_PER}(?=[,.;)]|\s+(?:then|and))", re.I),
    re.compile(rf"\bfirst\s+{_N}\s*{_W}{_PER}\s+(?:are |is )?free\b", re.I),
)
_FURTHER = r"(?:further|additional|extra|more)"
_COSTS = r"(?:costs?|is charged(?: at)?|are charged(?: at)?|at|:)"
_RATED = (
    re.compile(rf"\b(?:each|every|per|any)\s+{_FURTHER}\s+{_W}\s+{_COSTS}\s*{_CUR}\s*{_N}", re.I),
    re.compile(rf"{_CUR}\s*{_N}\s+(?:for |per |a |an )(?:each |every )?{_FURTHER}\s+{_W}", re.I),
    re.compile(rf"\b{_FURTHER}\s+{_W}\s+{_COSTS}\s*{_CUR}\s*{_N}", re.I),
)
_ASKS_EXTRA = re.compile(
    r"\b(?:extra|excess|further|additional|overage)\b"
    r"|\b(?:over|beyond|above|more than)\s+(?:the\s+|my\s+|our\s+|its\s+)?(?:allowance|limit|included|free)",
    re.I,
)  # "over 4 days" asks for no extra: only words about what goes beyond the allowance


@dataclass(frozen=True, slots=True)
class Allowance:
    label: str  # the text before the statement ("Groups A to D")
    amount: float
    unit: str
    period: str  # the unit it is per ("days"), "" for an allowance in total
    rate: float
    currency: str


def allowances_in(text: str) -> list[Allowance]:
    """The allowances a text states, each with the rate for the units beyond it (same unit)."""
    out: list[Allowance] = []
    for segment in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text):
        allowed = next((m for p in _ALLOWED if (m := p.search(segment)) is not None), None)
        if allowed is None:
            continue
        unit = _unit(allowed.group(2))
        for pattern in _RATED:
            m = pattern.search(segment, allowed.end())
            if m is None:
                continue
            groups = m.groups()
            if pattern is _RATED[1]:
                cur, rate, rated = groups[0], groups[1], groups[2]
            else:
                rated, cur, rate = groups[0], groups[1], groups[2]
            if _unit(rated) != unit:
                continue
            period = _unit(allowed.group(3).split()[-1]) if allowed.group(3) else ""
            currency = {"€": "EUR", "$": "USD", "£": "GBP"}.get(cur, cur.upper())
            label = segment[: allowed.start()].strip(" :;,-")
            out.append(Allowance(label, _number(allowed.group(1)), unit, period, _number(rate), currency))
            break
    return out


def allowance_expression(question: str, found: Value | None) -> tuple[str, str] | None:
    """(expression, unit) for a question about the units beyond an allowance its documents state."""
    if found is None or found.records is None or not _ASKS_EXTRA.search(question):
        return None
    candidates = [a for a in _all(found.records) if a.currency in MONEY]
    givens = rule_givens(question, [])
    usable = []
    for a in candidates:
        used = [g for g in givens if _unit(g.unit or g.what) == a.unit] or _stated(question, a.unit)
        periods = [g for g in givens if g.unit == a.period] if a.period else []
        if len(used) != 1 or (a.period and len(periods) != 1):
            continue
        usable.append((a, used[0].number, periods[0].number if periods else 1.0))
    if len(usable) > 1:
        usable = [u for u in usable if _names(u[0].label, question)]
    if len(usable) != 1:
        return None
    a, used_n, periods_n = usable[0]
    allowed = (
        f"{format_number(a.amount)} * {format_number(periods_n)}" if a.period else format_number(a.amount)
    )
    return f"max(0, {format_number(used_n)} - {allowed}) * {format_number(a.rate)}", a.currency


def _stated(question: str, unit: str) -> list[Quantity]:
    """A quantity in ``unit`` as the question writes it ("14 GB") when the general reader has no such unit."""
    found = [
        Quantity(_number(m.group(1)), unit)
        for m in re.finditer(rf"{_N}\s*([A-Za-z²³]+)", question)
        if _unit(m.group(2)) == unit
    ]
    return found


def _all(records: DocRecords) -> list[Allowance]:
    return [a for rec in records.records for a in allowances_in(rec.text)]


def _names(label: str, question: str) -> bool:
    """Whether a label names what the question names: a shared telling word, or a range of letters or
    numbers ("Groups A to D", "Zones 1-3") holding the question's ("group C", "zone 2")."""
    for m in re.finditer(r"\b([A-Za-z]+)\s+([A-Z]|\d+)\s*(?:to|-|–|and)\s*([A-Z]|\d+)\b", label):
        asked = re.search(rf"\b{re.escape(m.group(1)[:4])}[a-z]*\s+([A-Z]|\d+)\b", question, re.I)
        if asked is not None and _between(asked.group(1).upper(), m.group(2), m.group(3)):
            return True
    coded = False
    for m in re.finditer(r"\b([A-Za-z]{3,})\s+([A-Z]|\d+)\b", label):
        asked = re.search(rf"\b{re.escape(m.group(1)[:4])}[a-z]*\s+([A-Z]|\d+)\b", question, re.I)
        if asked is not None and asked.group(1).upper() == m.group(2).upper():
            return True
        coded = coded or asked is not None
    if coded:  # the question names a class by its code, and this label names another
        return False
    telling = words_of(label) - GENERIC - {"group", "groups", "class", "zone", "zones", "tier", "band"}
    return bool(telling & words_of(question))


def _between(x: str, a: str, b: str) -> bool:
    if x.isdigit() and a.isdigit() and b.isdigit():
        return int(a) <= int(x) <= int(b)
    return len(x) == 1 and not x.isdigit() and a.upper() <= x <= b.upper()


def _unit(word: str) -> str:
    w = word.strip().lower()
    return ALIASES.get(w, "") or ALIASES.get(singular(w), "") or singular(w)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


__all__ = ["Allowance", "allowance_expression", "allowances_in"]
