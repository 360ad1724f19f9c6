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

from ioa_p2p.planning.expr import FRACTIONS, MULTIPLES, normalise, to_expression
from ioa_p2p.planning.types import CALC, DATE, LOOKUP, PlanStep
from ioa_p2p.planning.values import ALIASES, numbers_in

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


def _lookup(i: int, question: str) -> PlanStep:
    question = re.sub(r"\s+", " ", question).strip(" ?.,")
    return PlanStep(i, LOOKUP, question, question + "?")


def _calc(i: int, text: str, expression: str, needs: tuple[int, ...], unit: str = "") -> PlanStep:
    return PlanStep(i, CALC, text, expression, needs, unit=unit)


def _target_unit(q: str) -> str:
    m = re.search(
        r"\bin (pounds|lbs?|kilograms|kg|miles|kilometres|kilometers|km|grams|kwh|wh|minutes|hours)\b",
        q,
        re.I,
    )
    return _UNIT_NAMES[m.group(1).lower()] if m else ""


def _strip_unit(q: str) -> str:
    return re.sub(
        r"\s+in (pounds|lbs?|kilograms|kg|miles|kilometres|kilometers|km|grams|kwh|wh|minutes|hours)\b",
        "",
        q,
        flags=re.I,
    )


def decompose(question: str) -> tuple[PlanStep, ...] | None:
    q = question.strip().rstrip("?.! ")
    for shape in (
        _days_between,
        _share,
        _together,
        _percent_change,
        _comparison,
        _combined,
        _purchase,
        _quantity,
        _vat,
        _defined_unit,
        _average,
        _repeated,
        _scaled,
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
        _lookup(1, f"What is the {whole} from {part}"),
        _lookup(2, f"What is the total {whole}"),
        _calc(3, q, "(v1 / v2 * 100)", (1, 2), "%"),
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
        _lookup(1, f"{attribute} of the {m.group(1)}"),
        _lookup(2, f"{attribute} of the {m.group(2)}"),
        _calc(3, q, "(v1 + v2)", (1, 2)),
    )


def _days_between(q: str) -> tuple[PlanStep, ...] | None:
    if not re.search(r"\bhow many (days|weeks)\b", q, re.I):
        return None
    m = re.search(r"\bthe two dates (?:in|of|from) (.+)$", q, re.I)
    if m:
        return (_lookup(1, f"the two dates in {m.group(1)}"), PlanStep(2, DATE, q, "days between {1}", (1,)))
    m = re.search(r"\bbetween (.+?) and (.+)$", q, re.I) or re.search(
        r"\bfrom (.+?) (?:to|until|till) (.+)$", q, re.I
    )
    if m:
        a, b = m.group(1), m.group(2)
    else:
        m = re.search(r"\b(?:days|weeks) (after|before) (.+?) (?:does|did|do|is|was|will) (.+)$", q, re.I)
        if not m:
            return None
        a, b = m.group(2), m.group(3)
    return (
        _lookup(1, f"When was {a}"),
        _lookup(2, f"When {_when(b)}"),
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
        _lookup(1, f"{what} in {a}"),
        _lookup(2, f"{what} in {b}"),
        _calc(3, q, "((v2 - v1) / v1 * 100)", (1, 2), "%"),
    )


def _comparison(q: str) -> tuple[PlanStep, ...] | None:
    m = re.search(r"\bhow (?:much|many) more (.+?) (?:did|do|does|were|was|are|is) (.+?) than (.+)$", q, re.I)
    if m:
        thing, rest, other = m.groups()
        first = f"{thing} {rest}"
        tail = re.search(r"\b(in|at|on|during|for|from) (.+)$", rest, re.I)
        other = re.sub(r"^(in|at|on|during|for|from) ", "", other.strip(), flags=re.I)
        second = (
            f"{thing} {rest[: tail.start()]}{tail.group(1)} {other}" if tail else f"{thing} {rest} {other}"
        )
        return (_lookup(1, first), _lookup(2, second), _calc(3, q, "(v1 - v2)", (1, 2)))
    adjectives = "|".join(sorted(ADJECTIVES, key=len, reverse=True))
    m = re.search(
        rf"\bhow (?:much|many \w+) ({adjectives}) (?:is|are|was|were) {_ENTITY} than {_ENTITY}$", q, re.I
    )
    if not m:
        return None
    attribute = ADJECTIVES[m.group(1).lower()]
    return (
        _lookup(1, f"{attribute} of the {m.group(2)}"),
        _lookup(2, f"{attribute} of the {m.group(3)}"),
        _calc(3, q, "abs(v1 - v2)", (1, 2)),
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
            _lookup(1, f"{what} of the {a}"),
            _lookup(2, f"{what} of the {b}"),
            _calc(3, q, "(v1 + v2)", (1, 2)),
        )
    if re.search(r"\b(across|in) (both|all)\b|\baltogether\b|\bin total\b", q, re.I) and re.search(
        r"\bhow (many|much)\b|\btotal\b", q, re.I
    ):
        return (_lookup(1, q), _calc(2, q, "total(v1)", (1,)))
    return None


def _purchase(q: str) -> tuple[PlanStep, ...] | None:
    n = normalise(q)
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
    steps = [_lookup(i, f"price of the {thing}") for i, (_, thing) in enumerate(items, 1)]
    expression = " + ".join(f"{count} * v{i}" for i, (count, _) in enumerate(items, 1))
    steps.append(_calc(len(items) + 1, q, f"({expression})", tuple(range(1, len(items) + 1))))
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
    unit = _target_unit(rest)
    steps = [_lookup(1, f"{VERBS[verb]} of the {thing}")]
    steps.append(_calc(2, q, f"({count} * v1)", (1,), unit))
    return tuple(steps)


def _defined_unit(q: str) -> tuple[PlanStep, ...] | None:
    """ "How many hours of leave ..., if a working day is one fifth of the standard working week?": the
    answer in the defined unit (days, looked up) times the definition (a share of another fact)."""
    m = re.search(rf",? if (?:a|an|one) ([a-z -]+?) is {_SCALE} of (?:the |a |an )?(.+)$", q, re.I)
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
        _lookup(1, question),
        _lookup(2, f"What is the {fact}"),
        _calc(3, q, f"(v1 * {per})", (1, 2), ALIASES.get(asked.group(1).lower(), "")),
    )


def _vat(q: str) -> tuple[PlanStep, ...] | None:
    m = re.search(r"\b(?:cost|price|pay)\b.*\b(?:including|incl\.?|with|plus) (vat|sales tax|tax)\b", q, re.I)
    if not m:
        return None
    thing = re.sub(r"\b(?:including|incl\.?|with|plus) (?:vat|sales tax|tax)\b", "", q, flags=re.I)
    thing = re.sub(r"^(?:what|how much) (?:does|do|is|would) (?:an?|the|one)?\s*", "", thing, flags=re.I)
    thing = re.sub(r"\b(cost|price)\b", "", thing).strip()
    return (
        _lookup(1, f"price of the {thing}"),
        _lookup(2, f"{m.group(1)} rate"),
        _calc(3, q, "(v1 * (1 + v2 / 100))", (1, 2), ""),
    )


# --------------------------------------------------------------------------- general relations

#: Words that repeat what they follow: "and back" doubles a trip.
REPEATS = (
    (r"\b(?:there and back|and back|round[- ]trip|return trip|both ways|each way and back)\b", 2),
    (r"\btwice\b", 2),
    (r"\bthree times\b", 3),
)
#: How often a frequency happens in a period: (frequency words, period word) -> count.
_FREQUENCY = r"\b(?:every|each|per|a) (work(?:ing)? ?day|weekday|day|week|month)\b|\bdaily\b|\bweekly\b"
_PERIOD = r"\b(?:per|a|each|every|in a|of a|in one|over a|for a) (?:(\d+)-day )?(week|month|year)\b"
PER_PERIOD = {
    ("workday", "week"): 5,
    ("day", "week"): 7,
    ("week", "year"): 52,
    ("day", "year"): 365,
    ("month", "year"): 12,
}


def _kind_of_day(word: str) -> str:
    word = word.lower()
    return "workday" if word.startswith(("work", "weekday")) else ("day" if word == "daily" else word)


def _times(q: str) -> tuple[list[int], str] | None:
    """The factors the repetition and frequency words of ``q`` multiply by, and ``q`` without them; None
    when a frequency has no period it can be counted in (the question is then not this shape)."""
    factors: list[int] = []
    rest = q
    for pattern, k in REPEATS:
        if re.search(pattern, rest, re.I):
            factors.append(k)
            rest = re.sub(pattern, "", rest, flags=re.I)
    freq = re.search(_FREQUENCY, rest, re.I)
    if freq:
        period = re.search(_PERIOD, normalise(rest[freq.end() :] + " " + rest[: freq.start()]))
        if period is None:
            return None
        what = _kind_of_day(freq.group(1) or freq.group(0).removesuffix("ly"))
        count = int(period.group(1)) if period.group(1) and what == "workday" else None
        count = count or PER_PERIOD.get((what, period.group(2)))
        if count is None:
            return None
        factors.append(count)
        rest = rest[: freq.start()] + rest[freq.end() :]
        rest = re.sub(r"\b(?:of|in|per|a|each|every) (?:a )?(?:\w+-day )?(?:week|month|year)\b", "", rest)
    return factors, rest


def _repeated(q: str) -> tuple[PlanStep, ...] | None:
    """ "If I ride line 4 end to end and back every workday, how many minutes a week?": the activity's
    quantity (stated, or looked up) times each repetition."""
    asked = re.search(r"\bhow (?:many|much) ([a-z-]+)", q, re.I)
    if not asked:
        return None
    found = _times(q)
    if found is None or not found[0]:
        return None
    factors, rest = found
    activity = re.search(r"\b(?:if|when) (?:i|we|you|they|he|she|it) (.+?)(?:,|$)", rest, re.I)
    if not activity:
        return None
    what = " ".join(activity.group(1).split())
    stated = [n for n in numbers_in(what) if n.unit]
    product = " * ".join(str(k) for k in factors)
    unit = ALIASES.get(asked.group(1).lower(), "")
    if stated:
        value = f"{stated[0].number:g}"
        return (_calc(1, q, f"({value} * {product})", (), unit or stated[0].unit),)
    question = f"How many {asked.group(1)} does it take to {what}"
    return (_lookup(1, question), _calc(2, q, f"(v1 * {product})", (1,), unit))


def _average(q: str) -> tuple[PlanStep, ...] | None:
    """ "On average, how many hours was each affected customer without power in IR-2291?": the total over
    all of them, divided by how many there are."""
    if not re.search(r"\b(?:on average|average)\b", q, re.I):
        return None
    each = re.search(
        r"\b(?:each|per|every) ((?:[a-z-]+ ){0,2}?[a-z-]+?)s?\b"
        r"(?= (?:in|of|at|on|during|for|was|were|did|had|have|has|get|got|spend|lose|receive)\b|[,?]|$)",
        q,
        re.I,
    )
    asked = re.search(r"\bhow (?:many|much) ([a-z-]+)", q, re.I)
    if not each or not asked:
        return None
    noun = each.group(1)
    context = " ".join(re.findall(r"\b(?:in|of|at|during|for) (?:the )?(?:[a-z]+ )?[A-Z][\w-]*\d[\w-]*", q))
    total = re.sub(r"\b(?:on average|average),?\s*", "", q, flags=re.I)
    total = total.replace(each.group(0), f"all {noun}s")
    return (
        _lookup(1, f"{total} in total"),
        _lookup(2, f"How many {noun}s {context}".strip()),
        _calc(3, q, "(v1 / v2)", (1, 2), ALIASES.get(asked.group(1).lower(), "")),
    )


_SCALE = rf"(\d+(?:\.\d+)?%|(?:an? |one |\d+ )?(?:{'|'.join(FRACTIONS)})s?|{'|'.join(MULTIPLES)})"


def _scaled(q: str) -> tuple[PlanStep, ...] | None:
    """ "What is one fifth of the annual budget of the Oslo team?": a lookup of the fact, then the share."""
    n = normalise(q)
    m = re.match(
        rf"^(?:what is|what's|how much is|how many \w+ (?:is|are)|calculate|compute) {_SCALE} of (.+)$", n
    )
    if not m or re.search(r"(?<![a-z\d-])\d", re.sub(r"\b[a-z]+-?\d[\w-]*", "", m.group(2))):
        return None
    expression = to_expression(f"{m.group(1)} of v1", "v1")
    if expression is None:
        return None
    fact = q[len(q) - len(m.group(2)) :] if q.lower().endswith(m.group(2)) else m.group(2)
    return (_lookup(1, f"What is {fact}"), _calc(2, q, expression, (1,)))


__all__ = ["ADJECTIVES", "CONVERSIONS", "PER_PERIOD", "REPEATS", "decompose"]
