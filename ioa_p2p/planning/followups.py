"""Steps over earlier values that a request does not name (pure).

After lookups, a request often says what to do with their values without referring to them by a word
the reference rules know, or by naming a new operand; each such request is planned by what it asks for:

- **counts of containers**: "how many tables do 130 guests need" after looking up the seats per table,
  "we need 75 servings; how many pots is that" after the servings one pot makes, "if each table seats 8,
  how many tables for that many guests": the number of things over the capacity of one container,
  **rounded up** (half a table is a table);
- **repeated batches**: "how many minutes of oven time do 60 loaves take" after the loaves per batch and
  the bake time of a batch: the batches (rounded up) times the time of one;
- **two earlier values combined** by what the request calls the result: "the difference", "how much
  more", "multiply them", "the ratio", "add them up", "the average of the two", and "the total <x>" of a
  count and an amount per item ("the number of delayed shipments and the average delay of one, then the
  total delay" is a product, not a sum).

A request that names something no earlier step names (a new product, a new company) is a new question,
not a step over earlier values: :func:`over_earlier` then returns None.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.answer_types import answer_type, request_act
from ioa_p2p.planning.applied import applied
from ioa_p2p.planning.literal import digits
from ioa_p2p.planning.lookups import label_refs, words_of
from ioa_p2p.planning.measured import in_units_of
from ioa_p2p.planning.ordered import per_named, percent_of, times_as
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.shares import (
    date_shift_step,
    days_between_step,
    per_unit_step,
    percent_step,
    period_step,
    split_step,
)
from ioa_p2p.planning.types import CALC, CODE, LOOKUP, PlanStep
from ioa_p2p.planning.units import DIMENSIONS, unit_phrase
from ioa_p2p.planning.values import ALIASES, exact, is_money, numbers_in

_HOW_MANY = re.compile(r"\bhow many (?:\d+(?:\.\d+)?\s*[a-z]+\s+)?([a-z]+)", re.I)
#: "each table seats 8", "every pot makes 12", "8 per table", "tables of 8", "8 to a table"
_CAPACITY = (
    re.compile(r"\b(?:each|every|one|a|an|per)\s+([a-z]+)\s+(?:seats|holds|takes|fits|makes|serves|fills|"
               r"carries|has room for|can take|can hold|sleeps)\s+(\d+(?:\.\d+)?)", re.I),
    re.compile(r"\b(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(?:per|to an?|for each|in each|at each|each)\s+([a-z]+)",
               re.I),
    re.compile(r"\b([a-z]+)\s+(?:of|seating|holding|for)\s+(\d+(?:\.\d+)?)\b", re.I),
)  # fmt: skip
_PER_CONTAINER = (
    r"(?:per|each|every|one|a|an|single)\s+(?:[a-z]+\s+)?{}\b|\b{}\s+(?:fills|makes|holds|seats|serves)"
)
_DIFFERENCE = re.compile(
    r"\b(?:difference|differ|gap|by how much|how (?:many|much)(?: [\w²³/-]+)? (?:more|fewer|less|longer|"
    r"shorter|higher|lower|cheaper|dearer|bigger|smaller|heavier|lighter|greater|larger|faster|slower)"
    r"|subtract (?:them|one from the other)|by how (?:much|many)(?: [\w²³/-]+)?"
    r"|how (?:much|many)\b[^?]*\b(?:went (?:up|down)|rose|risen|grew|grown|increased|fell|fallen|dropped"
    r"|decreased|changed)"  # "work out the rise", "that day's range", "how far apart they are"
    r"|(?:the|its|their|that|this|the day's|that day's) (?:net )?"
    r"(?:rise|increase|decrease|drop|fall|range|spread|change)"
    r"(?![^.;?]*(?:\bper ?cent|\bpercentage\b|%))"  # "the rise in percent": a change over the old value
    r"|how far apart)\b",
    re.I,
)
_PRODUCT = re.compile(
    r"\b(?:multiply (?:them|the two|both|these|those|the values|the figures|the numbers)|product|"
    r"multiplied together|times each other)\b",
    re.I,
)
_RATIO = re.compile(
    r"\b(?:ratio|quotient|divide (?:the first|them|one) by|how many times (?:as|more))\b", re.I
)
_AVERAGE = re.compile(
    r"\b(?:average|mean) of (?:them|the two|both|these|those|the values)\b"
    r"|\b(?:their|the two's) (?:average|mean)\b",
    re.I,
)
_SUM = re.compile(
    r"\b(?:add (?:them|the two|both|these|those|up|the values|the figures)|sum|total|together|combined|"
    r"altogether|in all)\b",
    re.I,
)
#: a number the clause states (not a code such as K2 or AL-500, not a year naming a period)
_STATED_NUMBER = re.compile(r"(?<![\w.-])(?!(?:19|20)\d\d\b)\d")
_TIME_BETWEEN = re.compile(
    r"\b(?:minutes|hours|days|weeks|months|time|dates?|long)\b[^.?!]*\b(?:between|apart)\b", re.I
)
_COUNTED = re.compile(r"\b(?:how many|number of|count of)\b", re.I)
_PER_ITEM = re.compile(r"\b(?:average|mean|per|each|every|of one|a single|apiece|for one)\b", re.I)
_NOT_NEW = frozenset(
    """i we you he she they it eur usd gbp vat python ok then give and or but what how which who when where
    why for if in on at to with from by of as so now next also first finally please the a an this that these
    those our my your their its is are was were do does did can could would should will may must let say
    suppose assume given using use take after before once""".split()  # noqa: SIM905
)


def unused(before: list[PlanStep]) -> list[int]:
    """Earlier steps whose values no later step uses yet (code steps only count when they print a value)."""
    used = {n for s in before for n in s.needs} | {n for s in before for _, n in s.bindings}
    return [s.index for s in before if s.index not in used and s.kind != CODE]


def names_new_thing(clause: str, before: list[PlanStep]) -> bool:
    """The clause names something (a capitalised name, a code such as AL-350) no earlier step names."""
    known = " ".join(s.text + " " + s.template for s in before).lower()
    for m in re.finditer(r"\b([A-Z][\w&'-]*|\d[\w-]*[A-Z][\w-]*)", clause):
        opening = not clause[: m.start()].strip(" (") or clause[: m.start()].rstrip().endswith(
            (".", "?", "!", "(")
        )
        if (
            opening
            and not re.match(r"[A-Z][\w&'-]*\s+[A-Z]", clause[m.start() :])
            and not re.search(r"\d", m.group(1))
        ):
            continue  # a sentence's first word ("Work out ..."), unless a name of several words starts there
        word = m.group(1).rstrip("'s").lower()
        if re.search(r"\bhow (?:many|much)\s+$", clause[: m.start()], re.I):
            continue  # "how many GB more": the unit asked for, not a name
        if word in _NOT_NEW or len(word) < 2:
            continue
        if word not in known:
            return True
    return False


def over_earlier(index: int, clause: str, before: list[PlanStep], refs: list[int]) -> PlanStep | None:
    """The step for a request over earlier values it does not name (see the module docstring), or None."""
    if not before or names_new_thing(clause, before):
        return None
    pending = unused(before)
    source = (
        before[refs[-1] - 1]
        if len(refs) == 1
        else (before[pending[-1] - 1] if not refs and pending else None)
    )
    return (
        percent_step(index, clause, source)
        or split_step(index, clause, source)
        or per_unit_step(index, clause, source)
        or date_shift_step(index, clause, source if not refs else None)
        or days_between_step(index, clause, before, pending)
        or period_step(index, clause, source)
        or _bought_for(index, clause, before, source)
        or _by_capacity(index, clause, before, pending, refs)
        or _combined(index, clause, before, pending)
        or in_units_of(index, clause, before, source)
        or _over_duration(index, clause, before, pending, refs)
        or _rate_applied(index, clause, before, pending, refs)
    )


_SHARE = re.compile(r"\b(?:percent\w*|per cent|share|proportion)\b|%", re.I)


def _share_of(clause: str, before: list[PlanStep], a: int, b: int) -> tuple[int, int] | None:
    """ "How many basic-plan customers is that?" after a percentage and a total: the share of the whole
    (the percentage step first, then the whole)."""
    if not re.search(r"\bhow (?:many|much)\b|\bwhat (?:number|amount)\b", clause, re.I):
        return None
    shares = [n for n in (a, b) if _SHARE.search(before[n - 1].text)]
    if len(shares) != 1:
        return None
    return shares[0], b if shares[0] == a else a


_PER_TIME = re.compile(r"\bper (hour|minute|day|week)\b|\b(hour|dai|week)ly\b", re.I)
_TIME_UNIT = {"hour": "h", "minute": "min", "day": "days", "dai": "days", "week": "weeks"}


def _over_duration(
    index: int, clause: str, before: list[PlanStep], pending: list[int], refs: list[int]
) -> PlanStep | None:
    """ "compute a stay from 08:15 to 17:45 at that rate" after a price per hour: the rate times the
    duration in the rate's time unit (570 min at a rate per hour: x 9.5)."""
    source = refs[-1] if len(refs) == 1 else (pending[-1] if not refs and pending else None)
    if (
        source is None
        or request_act(clause) not in ("compute", "question")
        or re.search(r"%|per ?cent", clause)
    ):
        return None  # a share on top ("including 21 % VAT") is the applied calculation's
    if label_refs(clause, before, ())[1]:
        return None  # "add the deposit to 5 hours at the rate": several values, the calculation's words
    m = _PER_TIME.search(before[source - 1].text)
    times = [q for q in stated_quantities(digits(clause)) if q.dimension == "time"]
    if m is None or len(times) != 1 or len(stated_quantities(digits(clause))) != 1:
        return None
    per = _TIME_UNIT[(m.group(1) or m.group(2)).lower()]
    seconds = DIMENSIONS["time"]
    amount = times[0].number * seconds[times[0].unit] / seconds[per]
    return PlanStep(index, CALC, clause, f"(v{source} * {exact(amount, 12)})", (source,))


def _bought_for(index: int, clause: str, before: list[PlanStep], source: PlanStep | None) -> PlanStep | None:
    """ "How many minutes does EUR 42 buy?" after a price per minute: the money over the price."""
    asked = _HOW_MANY.search(clause)
    if source is None or asked is None:
        return None
    money = [n for n in numbers_in(digits(clause)) if is_money(n.unit) and n.unit != "cent"]
    per = re.search(r"\bper ([a-z]+)", source.text, re.I)
    if len(money) != 1 or per is None:
        return None
    if unit_phrase(asked.group(1), ALIASES) != unit_phrase(per.group(1), ALIASES) and _singular(
        asked.group(1)
    ) != _singular(per.group(1)):
        return None
    return PlanStep(index, CALC, clause, f"({money[0].number:.15g} / v{source.index})", (source.index,))


_RATE_OF = re.compile(r"\bper ([a-z]+)|\b(hour|day|week|month|year|night)ly\b|\bdaily\b", re.I)


def _rate_and_quantity(clause: str, before: list[PlanStep], a: int, b: int) -> tuple[int, int] | None:
    """ "What does a full day cost?" after the rate per hour and the hours of a full day: a value per
    unit and an amount of that unit multiply (the rate first, then the quantity)."""
    if request_act(clause) not in ("question", "compute") or not answer_type(clause).numeric:
        return None
    for rate, other in ((a, b), (b, a)):
        m = _RATE_OF.search(before[rate - 1].text)
        if m is None:
            continue
        unit = _singular(m.group(1) or m.group(2) or "day")
        if unit in words_of(before[other - 1].text) and not _RATE_OF.search(before[other - 1].text):
            return rate, other
    return None


def _rate_applied(
    index: int, clause: str, before: list[PlanStep], pending: list[int], refs: list[int]
) -> PlanStep | None:
    """ "A 3-hour session costs how much?" right after looking up the price per hour: the value just found
    applied to the one quantity the question states, as if it said "at that rate"."""
    if (refs and refs != [before[-1].index]) or not pending or pending[-1] != before[-1].index:
        return None
    if re.search(
        r"\b(?:divide|divided|multiply|multiplied|add|subtract|deduct|minus|plus|times)\b", clause, re.I
    ):
        return None  # an operation in words: the calculation's own
    if re.search(
        r"\b(?:half|halves|thirds?|quarters?|fourths?|fifths?|sixths?|tenths?)\s+of\b", clause, re.I
    ):
        return None  # "three quarters of it": a fraction of the value, not 3 quarters of a year (p-rule)
    if re.search(r"\b(?:date|when|after|before|later|earlier)\b", clause, re.I):
        return None  # a date moved by a period: the date steps'
    if before[-1].kind != LOOKUP:
        return None
    if request_act(clause) not in ("question", "compute") or not answer_type(clause).numeric:
        return None
    stated = [q for q in stated_quantities(digits(clause)) if q.dimension]
    costed = len(stated) in (2, 3) and re.search(
        r"\b(?:total|cost|costs|price|pay|charge|bill)\b", clause, re.I
    )
    factors = " * ".join(f"{q.number:.15g}" for q in stated)
    both = _both_named(clause, before, pending) if costed else None
    if both is not None:  # "two visitor adults for three nights with breakfast": both prices, per quantity
        return PlanStep(index, CALC, clause, f"((v{both[0]} + v{both[1]}) * {factors})", both)
    if label_refs(clause, before, ())[1]:
        return None
    if costed:
        # "for a group of 7 riders renting for 3 days, what is the total?": the rate times each quantity
        return PlanStep(index, CALC, clause, f"(v{before[-1].index} * {factors})", (before[-1].index,))
    if len(stated) != 1:
        return None
    step = applied(index, clause, clause, [before[-1].index], before)
    return step if step.kind == CALC else None


_COST_WORD = re.compile(r"\b(?:total|cost|costs|price|pay|charge|bill)\b", re.I)


def _both_named(clause: str, before: list[PlanStep], pending: list[int]) -> tuple[int, int] | None:
    """The last two unused lookups when the clause names each by a word the other lacks (the overnight
    price and the half-board price, for "two non-member adults for two nights with half board"): both
    are paid per the quantities stated."""
    if len(pending) < 2 or any(before[n - 1].kind != LOOKUP for n in pending[-2:]):
        return None
    a, b = pending[-2], pending[-1]
    said = _parts(words_of(clause))
    own_a, own_b = _parts(words_of(before[a - 1].text)), _parts(words_of(before[b - 1].text))
    return (a, b) if (own_a - own_b) & said and (own_b - own_a) & said else None


def _parts(words: set[str]) -> set[str]:
    return {w for word in words for w in (word, *word.split("-")) if len(w) > 2}


def _singular(word: str) -> str:
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "xes", "sses")):
        return w[:-2]
    return w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w


def _capacity_in(clause: str, container: str) -> float | None:
    """The capacity of one ``container`` the clause states ("each table seats 8", "tables of 8")."""
    for form, pattern in enumerate(_CAPACITY):
        for m in pattern.finditer(clause):
            word, number = (m.group(2), m.group(1)) if form == 1 else (m.group(1), m.group(2))
            if _singular(word) == container:
                return float(number)
    return None


def _by_capacity(
    index: int, clause: str, before: list[PlanStep], pending: list[int], refs: list[int]
) -> PlanStep | None:
    text = digits(clause)
    asked = _HOW_MANY.search(text)
    kind = answer_type(clause).kind
    quantities = [q for q in stated_quantities(text)]
    if asked is not None and kind in ("count", "number"):
        container = _singular(asked.group(1))
        capacity = _capacity_in(text, container)
        if capacity is not None:  # "if each table seats 8, how many tables for that many guests"
            source = refs[-1] if refs else (pending[-1] if pending else before[-1].index)
            return PlanStep(index, CALC, clause, f"ceil(v{source} / {capacity:.15g})", (source,))
        sized = [
            q
            for q in quantities
            if q.unit and q.text and re.search(rf"{re.escape(q.text)}\s+{re.escape(asked.group(1))}", text)
        ]
        if len(sized) == 1 and pending:  # "how many 40 kg crates can one van carry": whole items that fit
            return PlanStep(
                index, CALC, clause, f"floor(v{pending[-1]} / {sized[0].number:.15g})", (pending[-1],)
            )
        holder = _holder_of(container, before, pending)
        others = [q for q in quantities if _singular(q.what or "") != container]
        if holder is not None and len(others) == 1:  # "how many pots for 75 servings"
            n = others[0].number
            return PlanStep(index, CALC, clause, f"ceil({n:.15g} / v{holder})", (holder,))
        return None
    lasting = _lasting(index, clause, before, pending)
    if lasting is not None:
        return lasting
    if kind == "duration" and len(pending) >= 2 and len(quantities) == 1 and quantities[0].number > 1:
        counts = [n for n in pending if _COUNTED.search(before[n - 1].text) or _per_thing(before[n - 1].text)]
        times = [n for n in pending if n not in counts]
        if len(counts) == 1 and len(times) == 1:  # "60 loaves, batch after batch": batches x time of one
            n = quantities[0].number
            return PlanStep(index, CALC, clause, f"(ceil({n:.15g} / v{counts[0]}) * v{times[0]})",
                            (counts[0], times[0]), unit=before[times[0] - 1].unit)  # fmt: skip
    return None


_DAILY = {
    "day": r"\b(?:a|per|each|every) day\b|\bdaily\b",
    "week": r"\b(?:a|per|each|every) week\b|\bweekly\b",
    "hour": r"\b(?:an|per|each|every) hour\b|\bhourly\b",
    "month": r"\b(?:a|per|each|every) month\b|\bmonthly\b",
}


def _lasting(index: int, clause: str, before: list[PlanStep], pending: list[int]) -> PlanStep | None:
    """ "How many days does one charge last?" after a range and the distance covered a day: the amount
    over the amount per period."""
    m = re.search(r"\bhow many (day|week|hour|month)s\b", clause, re.I)
    if m is None or len(pending) < 2:
        return None
    per = _DAILY[m.group(1).lower()]
    rates = [n for n in pending[-2:] if re.search(per, before[n - 1].text, re.I)]
    if len(rates) != 1:
        return None
    whole = next(n for n in pending[-2:] if n != rates[0])
    return PlanStep(index, CALC, clause, f"(v{whole} / v{rates[0]})", (whole, rates[0]))


def _per_thing(text: str) -> bool:
    return bool(re.search(r"\b(?:per|each|a|one)\s+(?:batch|pot|tray|table|box|load|run|round|trip)\b", text))


def _holder_of(container: str, before: list[PlanStep], pending: list[int]) -> int | None:
    """The earlier step (its value unused) about what one ``container`` holds ("servings one pot makes",
    "seats at each table", "jars per batch")."""
    form = re.compile(_PER_CONTAINER.format(re.escape(container), re.escape(container)), re.I)
    hits = [n for n in pending if form.search(before[n - 1].text) or form.search(before[n - 1].template)]
    if not hits:
        hits = [n for n in pending if container in words_of(before[n - 1].text)]
    return hits[-1] if len(hits) == 1 else None


def _combined(index: int, clause: str, before: list[PlanStep], pending: list[int]) -> PlanStep | None:
    """Two earlier values combined by what the clause calls the result; the clause states no number."""
    if len(pending) < 2 or _STATED_NUMBER.search(digits(clause)) or _TIME_BETWEEN.search(clause):
        return None  # time between two clock times or dates: the date steps work it out
    a, b = pending[-2], pending[-1]
    coded = bool(
        re.search(r"\d", digits(clause))
    )  # names with digits (FY2024, K2): order-free relations only
    ordered = percent_of(clause, before, a, b) or times_as(clause, before, a, b)
    ordered = ordered or (per_named(clause, before, a, b) if not _SUM.search(clause) else None)
    if ordered is not None:  # "A as a percentage of B", "how many times B", "the X per Y"
        unit = "%" if ordered.endswith("* 100)") else ""
        needs = tuple(dict.fromkeys(int(n) for n in re.findall(r"v(\d+)", ordered)))
        return PlanStep(index, CALC, clause, ordered, needs, unit=unit)
    if _DIFFERENCE.search(clause):
        expression = f"abs(v{a} - v{b})"
    elif _PRODUCT.search(clause):
        expression = f"(v{a} * v{b})"
    elif _RATIO.search(clause) and not coded:  # "the ratio FY2024 ÷ FY2023": the names say the order
        expression = f"(v{a} / v{b})"
    elif _AVERAGE.search(clause):
        expression = f"((v{a} + v{b}) / 2)"
    elif not coded and _share_of(clause, before, a, b) is not None:
        share, whole = _share_of(clause, before, a, b)  # type: ignore[misc]
        expression = f"(v{share} / 100 * v{whole})"
    elif _SUM.search(clause):
        counted = [n for n in (a, b) if _COUNTED.search(before[n - 1].text)]
        per_item = [n for n in (a, b) if _PER_ITEM.search(before[n - 1].text) and n not in counted]
        if len(counted) == 1 and len(per_item) == 1:  # a count and an amount per item: the total is a product
            expression = f"(v{counted[0]} * v{per_item[0]})"
        else:
            expression = "(" + " + ".join(f"v{n}" for n in pending[-3:]) + ")"
    else:
        pair = None if coded else _rate_and_quantity(clause, before, a, b)
        if pair is None:
            return None
        expression = f"(v{pair[0]} * v{pair[1]})"
    needs = tuple(int(n) for n in re.findall(r"v(\d+)", expression))
    units = {before[n - 1].unit for n in needs}
    unit = units.pop() if len(units) == 1 and "*" not in expression and "/" not in expression else ""
    return PlanStep(index, CALC, clause, expression, tuple(dict.fromkeys(needs)), unit=unit)


__all__ = ["names_new_thing", "over_earlier", "unused"]
