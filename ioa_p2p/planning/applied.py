"""Calculations over earlier values asked for in words (pure): "calculate four nights at that cap",
"compute the claim for a 236 km trip", "work out seven hours of hire including 21 % VAT", "calculate a full
year of it", "the year-on-year growth in percent", "express it in cubic metres per hour", "convert that
into five-day working weeks" (docs/conversation.md, "Offline planner").
"""

from __future__ import annotations

import re

from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.expr import WORD_NUMBERS, names_in, to_expression
from ioa_p2p.planning.literal import digits, rounded, rounding
from ioa_p2p.planning.types import CALC, TASK, PlanStep
from ioa_p2p.planning.units import period_of, periods, unit_phrase
from ioa_p2p.planning.values import ALIASES, exact, numbers_in


def applied(index: int, clause: str, text: str, refs: list[int], before: list[PlanStep]) -> PlanStep:
    """A calculation asked for in words over earlier values ("calculate four nights at that cap", "compute
    the claim for a 236 km trip"): the expression its words give; with no operation word, the earlier
    value (a rate, a price per unit) applied to the one quantity the clause states."""
    default = f"v{refs[0] if refs else before[-1].index}"
    text = _ASIDE.sub("", text)  # "75 % of it (the travel-day rate)": an aside without numbers
    added = _ADDED_SHARE.search(text)  # "including 21 % VAT": the rest of the clause, then the share on top
    text = _ADDED_SHARE.sub("", text) if added else text
    expression = _change_in_percent(clause, before) or to_expression(text, default)
    pending = _pending(before)
    if expression is None and len(pending) >= 2 and not set(pending) <= set(refs) - {int(default[1:])}:
        expression = _combined(text, pending)
    if expression is None:
        # vN names are not numbers (a letter before the digits); "the 10-credit course" states 10
        quantities = numbers_in(re.sub(r"(\d)-(?=[a-z])", r"\1 ", digits(_DECIMALS_ASKED.sub("", text))))
        if len(pending) >= 2 and int(default[1:]) in pending and quantities:
            # "the per-card rate and the price of the lamination option ... the price of 800 laminated
            # cards": every value looked up for it is a price per unit, added up before the quantity
            operand = "(" + " + ".join(f"v{n}" for n in pending) + ")"
        else:
            operand = default
        if len(quantities) == 1:
            q = quantities[0]
            n = f"ceil({q.number:.15g})" if _PART_COUNTS.search(clause) else f"{q.number:.15g}"
            per_time = q.unit and answer_type(clause).kind == "duration" and q.unit not in _TIME
            # how long a quantity takes at a rate: the quantity over it; a rate for a quantity: times it
            expression = f"({n} / {operand})" if per_time else f"({operand} * {n})"
        elif len(quantities) > 1 and _COSTS.search(text) and answer_type(clause).kind != "duration":
            # "cost three guards for a five-hour event": the rate times each quantity
            expression = "(" + " * ".join([operand, *(f"{q.number:.15g}" for q in quantities)]) + ")"
        elif not quantities and re.search(r"\b(?:multiply|product|times)\b", text, re.I) and len(before) >= 2:
            expression = f"(v{before[-2].index} * v{before[-1].index})"
        elif not quantities:  # "calculate a full year of it" for an amount per month: x 12
            source = before[int(default[1:]) - 1]
            k = periods(period_of(source.text, per=True), period_of(clause, per=False))
            expression = f"({default} * {exact(k, 12)})" if k else None
    unit = _target_unit(clause) or asked_unit(clause)
    week = _DEFINED_WEEK.search(clause)
    if week and expression is None:  # "five-day working weeks": a week of that many days
        expression, unit = f"({default} / {WORD_NUMBERS.get(week.group(1).lower(), week.group(1))})", "weeks"
    source_unit = before[int(default[1:]) - 1].unit
    if expression is None and unit:  # "express it in cubic metres per hour": the value in another unit
        expression = default
        if source_unit and source_unit != unit:
            return PlanStep(
                index, CALC, clause, expression, (int(default[1:]),), unit=unit, fmt=f"from:{source_unit}"
            )
    if expression is None and added:
        expression = default
    if expression is None:
        return PlanStep(index, TASK, clause, clause, tuple(refs))
    if added:
        expression = f"({expression} * (1 + {added.group(1)} / 100))"
    needs = tuple(names_in(expression)) or (int(default[1:]),)
    return PlanStep(index, CALC, clause, rounded(expression, rounding(clause)), needs, unit=unit)


_ADDED_SHARE = re.compile(
    r",?\s*\b(?:including|incl\.?|plus|with|inclusive of|and add)\s+(?:the |an? )?(\d+(?:\.\d+)?)\s*"
    r"(?:%|per ?cent)\s*"
    r"(?:vat|tax|sales tax|service charge|surcharge|tip|service)\b",
    re.I,
)
_ASIDE = re.compile(r"\s*\((?![^()]*\d)[^()]*\)")
_DECIMALS_ASKED = re.compile(
    r"\b(?:to |with |in )?(?:\d+|one|two|three|four|five|six) (?:decimal(?: place)?s?|places|digits)\b", re.I
)
_COSTS = re.compile(r"\b(?:cost|costs|price|prices|pay|charge|charges|bill|hire|rent)\b", re.I)
#: What a calculation over two looked-up values is called -> how it combines them (in the order named).
_COMBINATIONS = (
    (re.compile(r"\b(?:ratio|index|density|yield|efficiency|share|proportion|per)\b", re.I), "/"),
    (re.compile(r"\b(?:expected (?:value|cost|loss)|product|area|exposure)\b", re.I), "*"),
    (re.compile(r"\b(?:difference|gap|margin|variance)\b", re.I), "-"),
    (re.compile(r"\b(?:sum|total|combined|together|add(?:ed)? up)\b", re.I), "+"),
)


def _pending(before: list[PlanStep]) -> list[int]:
    """Earlier lookups whose values no step uses yet (looked up for a later calculation)."""
    used = {n for s in before for n in s.needs} | {n for s in before for _, n in s.bindings}
    return [s.index for s in before if s.kind == "lookup" and s.index not in used]


def _combined(text: str, pending: list[int]) -> str | None:
    """ "compute the cost performance index" of two values looked up for it: what the calculation is
    called says how they combine, in the order they were named; None when its name says nothing."""
    for pattern, op in _COMBINATIONS:
        if pattern.search(text):
            return (
                "(" + f" {op} ".join(f"v{n}" for n in pending[:2] if op in "/-") + ")"
                if op in "/-"
                else ("(" + f" {op} ".join(f"v{n}" for n in pending) + ")")
            )
    return None


_DEFINED_WEEK = re.compile(r"\b(\d+|[a-z]+)[- ]day (?:working |work |school )?weeks?\b", re.I)
_PART_COUNTS = re.compile(r"\bor part\b|\bpart(?:ial)? \w+ counts? as (?:a )?whole|\brounded up\b", re.I)
_TIME = frozenset({"s", "min", "h", "days", "weeks", "months", "years"})
_GROWTH = re.compile(
    r"\b(?:growth|grow|increase|rise|change|decline|decrease|drop|fall)\b.*"
    r"\b(?:percent|per cent|%|percentage)\b"
    r"|\b(?:percent|percentage)\b.*\b(?:growth|increase|change|decline|decrease)\b",
    re.I,
)


def _change_in_percent(clause: str, before: list[PlanStep]) -> str | None:
    """ "the year-on-year growth in percent" of two earlier values: new over old, the newer one being the
    one whose words name the later year or quarter."""
    if not _GROWTH.search(clause) or len(before) < 2:
        return None
    a, b = before[-2], before[-1]

    def when(step: PlanStep) -> tuple[int, int]:
        year = re.findall(r"\b(?:19|20)\d{2}\b", step.text)
        quarter = re.findall(r"\bQ([1-4])\b", step.text)
        return (int(year[-1]) if year else 0, int(quarter[-1]) if quarter else 0)

    old, new = (a, b) if when(a) <= when(b) else (b, a)
    return f"((v{new.index} - v{old.index}) / v{old.index} * 100)"


def _target_unit(clause: str) -> str:
    """The unit a calculation is asked in ("..., in kilograms"), "" when none."""
    into = (
        r"in|into|as|to" if re.search(r"\b(?:convert|express|change|turn)\b", clause, re.I) else r"in|into|as"
    )
    for m in re.finditer(rf"\b(?:{into}) ((?:[a-z³²/]+ ?){{1,5}})", clause.lower()):
        unit = unit_phrase(m.group(1), ALIASES)
        if unit:
            return unit
    return ""


def asked_unit(question: str) -> str:
    """The unit a question asks its answer in ("how many weeks ..." -> ``weeks``, "how many litres an
    hour" -> ``L/h``), "" when it names none."""
    m = re.search(r"\bhow (?:many|much) ([a-z-]+(?: (?:an?|per|each) [a-z]+)?)", question, re.I)
    return unit_phrase(m.group(1), ALIASES) if m else ""


_IN_UNIT = re.compile(
    r"\s+(?:expressed |given |shown )?(?:in|into) "
    r"((?:cubic |square )?[a-z³²/-]+(?: (?:an?|per|each) [a-z]+)?)\s*[?.!]?$",
    re.I,
)


def unit_suffix(question: str) -> tuple[str, str]:
    """A lookup that asks for its answer in a rate's unit ("the pump's flow in litres per second"): the
    question without it and the unit ("" and the question unchanged when it ends in no rate's unit)."""
    m = _IN_UNIT.search(question)
    unit = unit_phrase(m.group(1), ALIASES) if m else ""
    if m is None or "/" not in unit:  # a rate: the documents state it per another unit ("per minute")
        return question, ""
    return question[: m.start()] + ("?" if question.rstrip().endswith("?") else ""), unit


__all__ = ["applied", "asked_unit", "unit_suffix"]
