"""Relations between quantities in natural questions -> lookups + a computation (pure).

The shapes :func:`~ioa_p2p.planning.natural.decompose` tries after its comparisons and conversions:

- sums of two named amounts ("add the fee for a lost card to the charge for a late return");
- differences in a unit ("how many minutes longer does A take than B");
- changes ("by how much did X grow from Q3 to Q4");
- whole containers for a stated quantity (``ceil(347 / 12)``), see :func:`packed`;
- repetitions and frequencies ("there and back every workday, how many minutes a week");
- averages per member ("on average, how many hours was each customer without power");
- shares of a fact ("one fifth of the annual budget").
"""

from __future__ import annotations

import re

from ioa_p2p.planning.expr import FRACTIONS, MULTIPLES, WORD_NUMBERS, normalise, to_expression
from ioa_p2p.planning.literal import names_in
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep
from ioa_p2p.planning.values import ALIASES, exact, numbers_in


def lookup_step(i: int, question: str) -> PlanStep:
    question = re.sub(r"\s+", " ", question).strip(" ?.,")
    return PlanStep(i, LOOKUP, question, question + "?")


def calc_step(i: int, text: str, expression: str, needs: tuple[int, ...], unit: str = "") -> PlanStep:
    return PlanStep(i, CALC, text, expression, needs, unit=unit)


# --------------------------------------------------------------------------- sums, differences, packing

_REFERS = re.compile(r"\b(?:it|that|this|them|the result|the answer|v\d+)\b|\d", re.I)
_CONTEXT_LEAD = re.compile(
    r"^(?:(?:using|from|in|according to|based on|with|going by) (?P<ctx>[^,]{3,80}),\s*)", re.I
)


def _with_context(phrase: str, context: str, names: list[str]) -> str:
    """``phrase`` as a question, with the names ``names`` it lacks and the context the request set."""
    phrase = re.sub(r"^(?:an?|one|the)\s+", "the ", phrase.strip(" ,.?"), flags=re.I)
    phrase = phrase if phrase.lower().startswith("the ") else f"the {phrase}"
    missing = [n for n in names if n.lower() not in phrase.lower()]
    extra = ", ".join([*missing, *([context] if context else [])])
    return f"What is {phrase}" + (f" ({extra})" if extra else "") + "?"


def _count(phrase: str) -> tuple[int, str]:
    m = re.match(r"^(\d+|[a-z]+)\s+(.+)$", phrase.strip())
    if m:
        word = m.group(1).lower()
        n = int(word) if word.isdigit() else WORD_NUMBERS.get(word)
        if n is not None and n > 1 and word not in ("a", "an", "one"):
            return n, m.group(2)
    return 1, phrase


def sum_of_two(q: str) -> tuple[PlanStep, ...] | None:
    """ "Add the fee for a lost card to the charge for a late return", "what do a lock change and one
    replacement fob add up to": each named amount looked up (with the names and the context they share),
    then added (a count before a name multiplies it)."""
    lead = _CONTEXT_LEAD.match(q)
    context = lead.group("ctx") if lead else ""
    body = q[lead.end() :] if lead else q
    m = re.match(r"^(?:please\s+)?add (?:up )?(?P<a>.+?) (?:to|and) (?P<b>.+)$", body, re.I) or re.search(
        r"\bwhat (?:do|does|would|will) (?P<a>.+?) and (?P<b>.+?) (?:add up to|come to|cost (?:together|in "
        r"total|altogether)|total|sum to)$",
        body,
        re.I,
    )
    if (
        not m
        or _REFERS.search(m.group("a"))
        or _REFERS.search(normalise(m.group("b")))
        and not _count(m.group("b"))[0]
    ):
        return None
    (ka, a), (kb, b) = _count(m.group("a")), _count(m.group("b"))
    if _REFERS.search(a) or _REFERS.search(b) or min(len(a.split()), len(b.split())) < 2:
        return None
    names = names_in(body)
    steps = (
        lookup_step(1, _with_context(a, context, names)),
        lookup_step(2, _with_context(b, context, names)),
    )
    left = f"{ka} * v1" if ka > 1 else "v1"
    right = f"{kb} * v2" if kb > 1 else "v2"
    return (*steps, calc_step(3, q, f"({left} + {right})", (1, 2)))


_LONGER = {
    "longer": "-", "more": "-", "later": "-", "higher": "-", "larger": "-", "heavier": "-", "further": "-",
    "shorter": "-", "less": "-", "fewer": "-", "earlier": "-", "lower": "-", "smaller": "-", "lighter": "-",
}  # fmt: skip
_PREP = r"(?:in|at|on|for|from|of|under|with|per|during)"


def unit_comparison(q: str) -> tuple[PlanStep, ...] | None:
    """ "How many minutes longer does the oak stain take to dry than the pine stain at Tovar Joinery": the
    same question about each of the two things (the context after the second goes with both), then the
    difference."""
    words = "|".join(_LONGER)
    m = re.match(
        rf"^how (?:many|much) ((?:[a-z]+ ){{1,2}}?)({words}) ((?:per [a-z]+ |[a-z]+ )?)"
        rf"(does|do|did|is|are|was|were|will) "
        rf"(.+?) than (.+)$",
        q,
        re.I,
    )
    if not m:
        return None
    unit, _, per, verb, first, second = m.groups()
    tail = re.search(rf"\s{_PREP}\s", " " + second)
    other, context = (second[: tail.start() - 1], second[tail.start() - 1 :]) if tail else (second, "")
    other = other.strip()
    head = other.split()[-1].lower() if other.split() else ""
    at = [i for i, w in enumerate(first.split()) if w.lower().rstrip("'s") == head.rstrip("s")]
    if not other or not at:
        return None
    subject = " ".join(first.split()[: at[0] + 1])
    rest = " ".join(first.split()[at[0] + 1 :])
    ask = f"How {'many' if 'many' in q.lower()[:9] else 'much'} {unit.strip()} {per.strip()}".replace(
        "  ", " "
    )
    one = f"{ask.strip()} {verb} {subject} {rest}{context}"
    two = f"{ask.strip()} {verb} {other} {rest}{context}"
    return (
        lookup_step(1, one),
        lookup_step(2, two),
        calc_step(3, q, "abs(v1 - v2)", (1, 2), ALIASES.get(unit.strip(), "")),
    )


def change(q: str) -> tuple[PlanStep, ...] | None:
    """ "By how much did the online revenue grow from Q3 to Q4 2024": the later value less the earlier."""
    m = re.search(
        r"\bby how (?:much|many(?: [a-z]+)?) (?:did|does|has|have|will|would) (?:the )?(.+?) "
        r"(grow|increase|rise|go up|fall|drop|decline|decrease|shrink|change)\w* (?:from|between) (.+?) "
        r"(?:to|and) (.+)$",
        q,
        re.I,
    )
    if not m:
        return None
    what, verb, a, b = m.groups()
    a, b = a.strip(), b.strip()
    unit = re.search(r",? in (thousands|millions) of (\w+)$", b, re.I)
    b = b[: unit.start()] if unit else b
    shared = re.search(r"\s(\d{4}|FY\d{2,4})$", b)  # "Q3 to Q4 2024": the year goes with both
    a_full = f"{a} {shared.group(1)}" if shared and not re.search(r"\d{4}", a) else a
    sign = "(v1 - v2)" if verb.lower() in ("fall", "drop", "decline", "decrease", "shrink") else "(v2 - v1)"
    return (
        lookup_step(1, f"{what} in {a_full}"),
        lookup_step(2, f"{what} in {b}"),
        calc_step(3, q, sign, (1, 2)),
    )


_CONTAINER = (
    r"(?:stacks?|packs?|packets?|boxes|box|crates?|cases?|cartons?|bundles?|rolls?|sets?|tables?|"
    r"trays?|bags?|pallets?|batches|batch|buses|bus|cars?|vans?|rooms?|rows?|shelves|shelf|sheets?)"
)


def packed(q: str) -> PlanStep | None:
    """ "Chairs come in stacks of twelve and we need 347. How many stacks do we order?": whole containers
    for the quantity, rounded up (``ceil(347 / 12)``); both numbers are stated."""
    n = normalise(q)
    asked = re.search(rf"\bhow many ({_CONTAINER})\b", n)
    if not asked:
        return None
    kind = asked.group(1)[:4]
    size = re.search(
        rf"\b(?:in|into)?\s*{kind}\w* (?:of|holding|with|that (?:hold|seat|take)s?) (\d+(?:\.\d+)?)\b"
        rf"|\b{kind}\w* (?:hold|holds|seat|seats|take|takes|fit|fits) (\d+(?:\.\d+)?)\b"
        rf"|\b(\d+(?:\.\d+)?) (?:\w+ )?(?:per|a|to a|in a|in each|each) {kind}\w*\b",
        n,
    )
    if not size:
        return None
    per = next(g for g in size.groups() if g)
    rest = n[: size.start()] + " " + n[size.end() :]
    totals = [x for x in re.findall(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])", rest) if x != per]
    if len(totals) != 1:
        return None
    return calc_step(1, q, f"ceil({totals[0]} / {per})", (), "")


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


def repeated(q: str) -> tuple[PlanStep, ...] | None:
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
        value = exact(stated[0].number)
        return (calc_step(1, q, f"({value} * {product})", (), unit or stated[0].unit),)
    question = f"How many {asked.group(1)} does it take to {what}"
    return (lookup_step(1, question), calc_step(2, q, f"(v1 * {product})", (1,), unit))


def average(q: str) -> tuple[PlanStep, ...] | None:
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
        lookup_step(1, f"{total} in total"),
        lookup_step(2, f"How many {noun}s {context}".strip()),
        calc_step(3, q, "(v1 / v2)", (1, 2), ALIASES.get(asked.group(1).lower(), "")),
    )


SCALE = rf"(\d+(?:\.\d+)?%|(?:an? |one |\d+ )?(?:{'|'.join(FRACTIONS)})s?|{'|'.join(MULTIPLES)})"


def scaled(q: str) -> tuple[PlanStep, ...] | None:
    """ "What is one fifth of the annual budget of the Oslo team?": a lookup of the fact, then the share."""
    n = normalise(q)
    m = re.match(
        rf"^(?:what is|what's|how much is|how many \w+ (?:is|are)|calculate|compute) {SCALE} of (.+)$", n
    )
    if not m or re.search(r"(?<![a-z\d-])\d", re.sub(r"\b[a-z]+-?\d[\w-]*", "", m.group(2))):
        return None
    expression = to_expression(f"{m.group(1)} of v1", "v1")
    if expression is None:
        return None
    fact = q[len(q) - len(m.group(2)) :] if q.lower().endswith(m.group(2)) else m.group(2)
    return (lookup_step(1, f"What is {fact}"), calc_step(2, q, expression, (1,)))


__all__ = [
    "PER_PERIOD",
    "REPEATS",
    "SCALE",
    "average",
    "calc_step",
    "change",
    "lookup_step",
    "packed",
    "repeated",
    "scaled",
    "sum_of_two",
    "unit_comparison",
]
