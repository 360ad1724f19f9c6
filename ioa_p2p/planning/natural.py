"""Naturally worded questions -> lookups + a computation (pure).

Recognised shapes (wording varies; each is a kind of question, not a sentence):

- days between two dates: "how many days between A and B", "how many days after A does B", "... the two
  dates in D" (one lookup of both dates);
- comparisons: "how much heavier / more expensive / longer is A than B", "how many more X in A than in B";
- totals: "the combined / total X of A and B", "X across both / all ..." (a lookup of every value, summed);
- changes: "by what percentage did X grow from A to B";
- quantities: "what would 3 of the A weigh [in pounds]", "if I buy two A and one B, what do I pay";
- "... including VAT": the price and the VAT rate.

Each returns the steps: ``lookup`` questions over documents and one ``calc`` / ``date`` step over their
values; None when the question has none of these shapes (it stays one step).
"""

from __future__ import annotations

import re

from ioa_p2p.planning.changed import change_plan
from ioa_p2p.planning.compared_parties import verb_comparison
from ioa_p2p.planning.expr import normalise, to_expression
from ioa_p2p.planning.options import options_plan
from ioa_p2p.planning.relations import (
    SCALE,
    average,
    calc_step,
    change,
    lookup_step,
    packed,
    repeated,
    scaled,
    sum_of_two,
    unit_comparison,
)
from ioa_p2p.planning.shared import shared_words
from ioa_p2p.planning.tariffs import charge_plan
from ioa_p2p.planning.taxed import vat_plan
from ioa_p2p.planning.types import DATE, PlanStep
from ioa_p2p.planning.values import ALIASES, dates_in

ADJECTIVES = {
    "heavier": "weight",
    "lighter": "weight",
    "longer": "length",
    "shorter": "length",
    "more expensive": "price",
    "cheaper": "price",
    "bigger": "size",
    "larger": "size",
    "smaller": "size",
    "older": "age",
    "newer": "age",
    "faster": "speed",
    "slower": "speed",
    "higher": "value",
    "lower": "value",
}
VERBS = {"weigh": "weight", "cost": "price", "pay": "price", "last": "duration", "take": "duration"}
#: target unit -> (source unit, factor): value_in_target = value_in_source * factor
CONVERSIONS = {
    "lb": ("kg", 1 / 0.45359237),
    "kg": ("lb", 0.45359237),
    "miles": ("km", 1 / 1.609344),
    "km": ("miles", 1.609344),
    "g": ("kg", 1000.0),
    "Wh": ("kWh", 1000.0),
    "kWh": ("Wh", 0.001),
    "min": ("h", 60.0),
    "h": ("min", 1 / 60),
}
_UNIT_NAMES = {
    "pounds": "lb",
    "lbs": "lb",
    "lb": "lb",
    "kilograms": "kg",
    "kg": "kg",
    "miles": "miles",
    "kilometres": "km",
    "kilometers": "km",
    "km": "km",
    "grams": "g",
    "watt-hours": "Wh",
    "wh": "Wh",
    "kwh": "kWh",
    "minutes": "min",
    "hours": "h",
}
_ENTITY = r"(?:an?|the|one|each)?\s*(.+?)"


def _target_unit(q: str) -> str:
    m = re.search(
        r"\bin (pounds|lbs?|kilograms|kg|miles|kilometres|kilometers|km|grams|kwh|wh|minutes|hours)\b",
        q,
        re.I,
    )
    return _UNIT_NAMES[m.group(1).lower()] if m else ""


def decompose(question: str) -> tuple[PlanStep, ...] | None:
    q = question.strip().rstrip("?.! ")
    for shape in (
        _times_as,
        _days_between,
        sum_of_two,
        unit_comparison,
        change,
        _share,
        _together,
        _percent_change,
        change_plan,  # one thing's change, neither end given (changed.py)
        options_plan,  # two ways of buying one thing, counted (options.py)
        vat_plan,  # "once VAT is added", "plus VAT" (taxed.py)
        _comparison,
        _combined,
        _purchase,
        _quantity,
        _vat,
        _defined_unit,
        average,
        repeated,
        scaled,
    ):
        steps = shape(q)
        if steps is not None:
            return steps
    return None


def _share(q: str) -> tuple[PlanStep, ...] | None:
    """ "What share of the Q4 café revenue came from Utrecht?": the part over the whole, in percent."""
    m = re.search(
        r"\bwhat (?:share|percentage|proportion|part|fraction) of (?:the )?(.+?) (?:came|comes|come|was|is|"
        r"were|went|goes) (?:from|in|at|for|by|to) (?:the )?(.+)$",
        q,
        re.I,
    )
    if not m:
        return None
    whole, part = m.group(1), m.group(2)
    return (
        lookup_step(1, f"What is the {whole} from {part}"),
        lookup_step(2, f"What is the total {whole}"),
        calc_step(3, q, "(v1 / v2 * 100)", (1, 2), "%"),
    )


def _together(q: str) -> tuple[PlanStep, ...] | None:
    """ "What do a K1 and a K2 weigh together?": each one's attribute, added up."""
    verbs = "|".join(VERBS)
    m = re.search(
        rf"\b(?:what|how much) (?:do|does|would|will) (?:an? |the |one )?(.+?) and (?:an? |the |one )?(.+?) "
        rf"({verbs})\b (?:together|combined|in total|altogether)$",
        q,
        re.I,
    )
    if not m:
        return None
    attribute = VERBS[m.group(3).lower()]
    return (
        lookup_step(1, f"{attribute} of the {m.group(1)}"),
        lookup_step(2, f"{attribute} of the {m.group(2)}"),
        calc_step(3, q, "(v1 + v2)", (1, 2)),
    )


def _days_between(q: str) -> tuple[PlanStep, ...] | None:
    if not re.search(r"\bhow many (days|weeks)\b", q, re.I):
        return None
    m = re.search(r"\bthe two dates (?:in|of|from) (.+)$", q, re.I)
    if m:
        return (
            lookup_step(1, f"the two dates in {m.group(1)}"),
            PlanStep(2, DATE, q, "days between {1}", (1,)),
        )
    m = re.search(r"\bbetween (.+?) and (.+)$", q, re.I) or re.search(
        r"\bfrom (.+?) (?:to|until|till) (.+)$", q, re.I
    )
    if m:
        a, b = shared_words(m.group(1), m.group(2))  # "the app 3.4.0 and 3.4.1 releases": both releases
    else:
        m = re.search(r"\b(?:days|weeks) (after|before) (.+?) (?:does|did|do|is|was|will) (.+)$", q, re.I)
        if not m:
            return None
        a, b = m.group(2), m.group(3)
    return (
        lookup_step(1, f"When was {a}"),
        lookup_step(2, f"When {_when(b)}"),
        PlanStep(3, DATE, q, "days between {1} and {2}", (1, 2)),
    )


def _when(clause: str) -> str:
    return clause if re.match(r"(is|was|does|did|will)\b", clause, re.I) else f"does {clause}"


def _percent_change(q: str) -> tuple[PlanStep, ...] | None:
    m = re.search(
        r"by (?:what|how much|how many) (?:percentage|percent|%)(?: points)? (?:did|does|has|have|will) "
        r"(?:the )?(.+?) (?:grow|increase|rise|fall|drop|decline|decrease|change)\w* from (.+?) to (.+)$",
        q,
        re.I,
    )
    if not m:
        return None
    what, a, b = m.groups()
    return (
        lookup_step(1, f"{what} in {a}"),
        lookup_step(2, f"{what} in {b}"),
        calc_step(3, q, "((v2 - v1) / v1 * 100)", (1, 2), "%"),
    )


def _comparison(q: str) -> tuple[PlanStep, ...] | None:
    verbed = verb_comparison(q)
    if verbed is not None:
        return verbed
    m = re.search(r"\bhow (?:much|many) more (.+?) (?:did|do|does|were|was|are|is) (.+?) than (.+)$", q, re.I)
    if m:
        thing, rest, other = m.groups()
        first = f"{thing} {rest}"
        tail = re.search(r"\b(in|at|on|during|for|from) (.+)$", rest, re.I)
        other = re.sub(r"^(in|at|on|during|for|from) ", "", other.strip(), flags=re.I)
        second = (
            f"{thing} {rest[: tail.start()]}{tail.group(1)} {other}" if tail else f"{thing} {rest} {other}"
        )
        return (lookup_step(1, first), lookup_step(2, second), calc_step(3, q, "(v1 - v2)", (1, 2)))
    adjectives = "|".join(sorted(ADJECTIVES, key=len, reverse=True))
    m = re.search(
        rf"\bhow (?:much|many \w+) ({adjectives}) (?:is|are|was|were) {_ENTITY} than {_ENTITY}$", q, re.I
    )
    if not m:
        return None
    attribute = ADJECTIVES[m.group(1).lower()]
    return (
        lookup_step(1, f"{attribute} of the {m.group(2)}"),
        lookup_step(2, f"{attribute} of the {m.group(3)}"),
        calc_step(3, q, "abs(v1 - v2)", (1, 2)),
    )


_AS_ATTRIBUTE = {
    "much": "price", "expensive": "price", "costly": "price", "heavy": "weight", "long": "duration",
    "large": "size", "big": "size", "fast": "speed", "powerful": "power", "many": "number",
}  # fmt: skip
_AS_VERB = {"cost": "price", "weigh": "weight", "take": "duration", "last": "duration"}


def _times_as(q: str) -> tuple[PlanStep, ...] | None:
    """ "The heaviest pump in the range costs how many times as much as the lightest one?", "how many
    times heavier is A than B": the attribute of each, then their ratio."""
    m = re.match(
        r"^(?P<a>.+?) (?P<verb>costs?|weighs?|takes?|lasts?|is|are) how many times (?:as (?P<adj>\w+) as|"
        r"(?P<more>more \w+|\w+er) than) (?P<b>.+)$",
        q,
        re.I,
    ) or re.match(
        r"^how many times (?:as (?P<adj>\w+)|(?P<more>more \w+|\w+er)) (?P<verb>is|are|does|do) (?P<a>.+?) "
        r"(?:than|as) (?P<b>.+?)(?: (?:cost|weigh|take|last))?$",
        q,
        re.I,
    )
    if not m:
        return None
    word = (m.group("adj") or m.group("more") or "").lower().removeprefix("more ")
    verb = m.group("verb").lower().rstrip("s")
    attribute = _AS_ATTRIBUTE.get(word) or _AS_ATTRIBUTE.get(word.removesuffix("ier") + "y") or ""
    attribute = _AS_VERB.get(verb, attribute) if word in ("much", "many", "") else attribute
    attribute = attribute or ADJECTIVES.get(word, "")
    if not attribute:
        return None
    a, b = m.group("a").strip(), m.group("b").strip()
    head = re.match(r"^(.+?)\s+((?:in|of|at|from|on)\s+.+)$", a)
    subject, context = (head.group(1), head.group(2)) if head else (a, "")
    noun = subject.split()[-1] if subject.split() else ""
    b = re.sub(r"\bone$", noun, b) if noun else b
    tail = re.match(r"^(.+?)\s+((?:in|at|from|on)\s+.+)$", b)
    if context and context.lower() not in b.lower():
        b = f"{b} {context}"  # "... in the range costs ... the lightest one": the range goes with both
    elif tail and not context:
        a = f"{a} {tail.group(2)}"  # "is A than B at Wexley Gym": the place goes with both
    return (
        lookup_step(1, f"What is the {attribute} of {a}"),
        lookup_step(2, f"What is the {attribute} of {b}"),
        calc_step(3, q, "(v1 / v2)", (1, 2)),
    )


def _combined(q: str) -> tuple[PlanStep, ...] | None:
    m = re.search(
        r"\b(?:combined|total|overall|joint) (.+?) of (?:an?|one|the)?\s*(.+?) and (?:an?|one|the)?\s*(.+)$",
        q,
        re.I,
    )
    if m:
        what, a, b = m.groups()
        return (
            lookup_step(1, f"{what} of the {a}"),
            lookup_step(2, f"{what} of the {b}"),
            calc_step(3, q, "(v1 + v2)", (1, 2)),
        )
    if re.search(r"\b(across|in) (both|all)\b|\baltogether\b|\bin total\b", q, re.I) and re.search(
        r"\bhow (many|much)\b|\btotal\b", q, re.I
    ):
        return (lookup_step(1, q), calc_step(2, q, "total(v1)", (1,)))
    return None


def _purchase(q: str) -> tuple[PlanStep, ...] | None:
    n = normalise(q)
    for start, end, _ in reversed(dates_in(n)):  # "arriving 30 March 2026": a date, not 30 of something
        n = n[:start] + " " + n[end:]
    if not re.search(r"\b(buy|order|purchase|pay|cost)\b", n):
        return None
    items = re.findall(
        r"\b(\d+) ((?:[a-z0-9-]+ ){0,3}?(?:modules?|units?|inverters?|batteries|battery|kits?|"
        r"items?|pieces?|[a-z0-9-]*\d[a-z0-9-]*)(?: [a-z]+)?)\b",
        n,
    )
    items = [(count, thing) for count, thing in items if not re.match(r"\d", thing)]
    if len(items) < 2:
        return None
    steps = [lookup_step(i, f"price of the {thing}") for i, (_, thing) in enumerate(items, 1)]
    expression = " + ".join(f"{count} * v{i}" for i, (count, _) in enumerate(items, 1))
    steps.append(calc_step(len(items) + 1, q, f"({expression})", tuple(range(1, len(items) + 1))))
    return tuple(steps)


def _quantity(q: str) -> tuple[PlanStep, ...] | None:
    verbs = "|".join(VERBS)
    n = normalise(q)
    m = re.search(
        rf"\b(?:would|do|does|will) (\d+(?:\.\d+)?) (?:of (?:the|our|these) )?(.+?) ({verbs})\b(.*)$", n
    )
    if not m:
        return None
    count, thing, verb, rest = m.groups()
    if VERBS[verb] == "price":  # a price for a quantity: on the documents' terms (bands, options, fees)
        return charge_plan(q)
    unit = _target_unit(rest)
    steps = [lookup_step(1, f"{VERBS[verb]} of the {thing}")]
    steps.append(calc_step(2, q, f"({count} * v1)", (1,), unit))
    return tuple(steps)


def _defined_unit(q: str) -> tuple[PlanStep, ...] | None:
    """ "How many hours of leave ..., if a working day is one fifth of the standard working week?": the
    answer in the defined unit (days, looked up) times the definition (a share of another fact)."""
    m = re.search(rf",? if (?:a|an|one) ([a-z -]+?) is {SCALE} of (?:the |a |an )?(.+)$", q, re.I)
    asked = re.search(r"\bhow (?:many|much) ([a-z-]+)", q, re.I)
    if not m or not asked:
        return None
    defined, share, fact = m.group(1), m.group(2), m.group(3)
    per = to_expression(f"{normalise(share)} of v2", "v2")
    if per is None:
        return None
    main = q[: m.start()]
    plural = defined.split()[-1] + "s"
    question = main[: asked.start(1)] + plural + main[asked.end(1) :]
    return (
        lookup_step(1, question),
        lookup_step(2, f"What is the {fact}"),
        calc_step(3, q, f"(v1 * {per})", (1, 2), ALIASES.get(asked.group(1).lower(), "")),
    )


def _vat(q: str) -> tuple[PlanStep, ...] | None:
    m = re.search(r"\b(?:cost|price|pay)\b.*\b(?:including|incl\.?|with|plus) (vat|sales tax|tax)\b", q, re.I)
    if not m:
        return None
    thing = re.sub(r"\b(?:including|incl\.?|with|plus) (?:vat|sales tax|tax)\b", "", q, flags=re.I)
    thing = re.sub(r"^(?:what|how much) (?:does|do|is|would) (?:an?|the|one)?\s*", "", thing, flags=re.I)
    thing = re.sub(r"\b(cost|price)\b", "", thing).strip()
    return (
        lookup_step(1, f"price of the {thing}"),
        lookup_step(2, f"{m.group(1)} rate"),
        calc_step(3, q, "(v1 * (1 + v2 / 100))", (1, 2), ""),
    )


__all__ = ["ADJECTIVES", "CONVERSIONS", "decompose", "packed", "verb_comparison"]
