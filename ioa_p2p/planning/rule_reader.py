"""A rule a document states in one sentence or table row, read into a typed :class:`Rule` (pure).

:func:`read_rule` reads one sentence (or a table row's text) into the form it states, never a guessed
proportion:

- a **factor** on an amount: "a day return costs 1.6 times the single", "twice the fare", "pay 60 % of
  the annual fee", "half the adult fare";
- a **discount**: "15 % off the annual fee", "one third off adult fares", "a discount of 10 %", "reduced
  by 20 %", "less 5 %" (the amount times ``1 - share``);
- a **surcharge**: "registering later adds EUR 20 to that price", "plus a fee of EUR 5", "a 10 %
  surcharge" (a fixed amount added, or the amount times ``1 + share``);
- a **charge over a quantity**: "EUR 2 per day", with a base ("a call-out fee of EUR 65 plus EUR 48 per
  hour"), an allowance or grace ("after a 3-day grace period", "beyond the first 100 km", "the first 2
  hours free"), started units ("charged in half-hour steps", "a started hour counts in full", "or part
  thereof"), a minimum quantity ("a boat shorter than 8 m is charged as 8 m"), a cap ("capped at EUR
  20", "never more than", "at most") and a floor ("never less than", "a minimum charge of");
- a **share per unit** with a floor or cap: "the purchase price less 1.5 % for each full month, but never
  less than 40 % of the purchase price";
- **bands** and **conditions** (planning/rule_bands.py): the range a table row or list item holds ("11
  to 15.9 kg", "over 20") and the threshold a rule's sentence states for where it applies;
- **exceptions by class**: "does not apply to students", "members under 18 are exempt", "except for
  residents": the classes a rule does not apply to (:attr:`Rule.exempt`).

:func:`apply_to_amount` applies a factor, discount or surcharge to an amount; :func:`apply_to_quantity`
a charge to a quantity. Each returns the calculation as an expression the calculator checks (``7.7 * (1 -
1/3)``), or None when the rule is not of a form that applies (the caller refuses, naming the rule).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.values import ALIASES, format_number

FACTOR = "factor"
DISCOUNT = "discount"
SURCHARGE = "surcharge"
CHARGE = "charge"
SHARE_PER_UNIT = "share_per_unit"
KINDS = (FACTOR, DISCOUNT, SURCHARGE, CHARGE, SHARE_PER_UNIT)

_FRACTIONS = {
    "half": 0.5,
    "a half": 0.5,
    "one half": 0.5,
    "a third": 1 / 3,
    "one third": 1 / 3,
    "one-third": 1 / 3,
    "two thirds": 2 / 3,
    "two-thirds": 2 / 3,
    "a quarter": 0.25,
    "one quarter": 0.25,
    "one-quarter": 0.25,
    "three quarters": 0.75,
    "three-quarters": 0.75,
    "a fifth": 0.2,
    "one fifth": 0.2,
    "a tenth": 0.1,
    "one tenth": 0.1,
}
_FRACTION_TEXT = {0.5: "1/2", 1 / 3: "1/3", 2 / 3: "2/3", 0.25: "1/4", 0.75: "3/4", 0.2: "1/5", 0.1: "1/10"}
_MULTIPLES = {"twice": 2.0, "double": 2.0, "three times": 3.0, "triple": 3.0, "half": 0.5}
NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_CUR = r"(?:EUR|USD|GBP|CHF|€|\$|£)"
_MONEY = rf"(?:{_CUR}\s?(?P<NAME>{NUM})|(?P<NAME2>{NUM})\s?(?:{_CUR}|euros?))"
_FRACTION_WORDS = "|".join(sorted((re.escape(k) for k in _FRACTIONS), key=len, reverse=True))
_SHARE = rf"(?:(?P<NAME>{NUM})\s?(?:%|per\s?cent)|(?P<NAMEw>{_FRACTION_WORDS}))"


def _money(name: str) -> str:
    return _MONEY.replace("NAME", name)


def _share(name: str) -> str:
    return _SHARE.replace("NAME", name)


def num(text: str) -> float:
    return float(text.replace(",", ""))


def _amount(m: re.Match[str], name: str) -> float | None:
    raw = m.groupdict().get(name) or m.groupdict().get(name + "2")
    return num(raw) if raw else None


def _share_of(m: re.Match[str], name: str) -> float | None:
    raw = m.groupdict().get(name)
    if raw:
        return num(raw) / 100
    word = m.groupdict().get(name + "w")
    return _FRACTIONS.get(word.lower()) if word else None


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule, typed: ``kind`` (one of :data:`KINDS`) and the numbers its form needs."""

    kind: str
    text: str = ""
    factor: float = 1.0  # FACTOR: the amount times this; DISCOUNT / SURCHARGE by share: 1 -/+ share
    share: float = 0.0  # DISCOUNT / SURCHARGE: the share taken off or added; SHARE_PER_UNIT: per unit
    add: float = 0.0  # SURCHARGE: a fixed amount; CHARGE: the base fee
    rate: float = 0.0  # CHARGE: the price per unit
    per: str = ""  # CHARGE / SHARE_PER_UNIT: the unit the rate is per
    step: float = 1.0  # CHARGE: billed in steps of this many units
    started: bool = False  # CHARGE: a started step counts in full
    allowance: float = 0.0  # CHARGE: units free (a grace period, the first N included)
    min_quantity: float = 0.0  # CHARGE: a smaller quantity is charged as this
    cap: float | None = None  # the result is never more than this
    floor: float | None = None  # the result is never less than this (SHARE_PER_UNIT: a share)
    exempt: tuple[str, ...] = ()  # classes the rule does not apply to
    fraction_text: str = ""  # "1/3" when the share was stated in words (the expression keeps it exact)
    first: float = 0.0  # CHARGE in tiers: the first this many units at ``rate`` ...
    further: float | None = None  # ... and every unit beyond them at this rate


#: the largest multiplier a rule states ("1.6 times the single", "3 times the charge"); a larger number
#: before "times" is a year or a count ("APRIL 2026 Times and heights")
MAX_FACTOR = 20.0
_FACTOR = re.compile(rf"(?P<f>{NUM})\s?(?:times|x|×)\s+(?:the\s+|its\s+|that\s+)?\w", re.I)
_MULTIPLE = re.compile(r"\b(twice|double|three times|triple)\s+(?:the|its|that|an?)\b", re.I)
#: "every time given above is doubled", "the fee is halved": the amount the rule is about times a factor
_MULTIPLIED = re.compile(r"\b(?:is|are|gets?|will\s+be|be)\s+(doubled|tripled|trebled|halved)\b", re.I)
_MULTIPLIED_BY = {"doubled": 2.0, "tripled": 3.0, "trebled": 3.0, "halved": 0.5}
#: a charge in two tiers: "EUR 0.38 per km for the first 5,000 km in a year, EUR 0.30 per km beyond that"
_TIERS = re.compile(
    rf"{_money('r')}\s*(?:per|a|an|each|/)\s*(?P<u1>[\w-]+)(?:\s+of\s+[\w-]+)?\s+for\s+the\s+first\s+(?P<n>{NUM})\s?(?P<nu>[\w-]+)"
    rf"[^.;]*?[,;]\s*(?:and\s+|then\s+|but\s+)?{_money('s')}\s*(?:per|a|an|each|/)\s*(?P<u2>[\w-]+)(?:\s+of\s+[\w-]+)?\s+"
    r"(?:beyond|after|above|over|thereafter|for\s+(?:each|every)\s+(?:further|additional|other))\b",
    re.I,
)
_HALF_OF = re.compile(r"\b(?:pays?|at|for|costs?|charged)\s+half\s+(?:the|of|its)\b|\bhalf[- ]price\b", re.I)
_PAY_SHARE = re.compile(rf"\b(?:pays?|costs?|charged|is)\s+(?:only\s+)?{_share('s')}\s+of\s+the\b", re.I)
_OFF = re.compile(
    rf"{_share('s')}\s+(?:off|discount|reduction|less|cheaper|lower)\b|"
    rf"\b(?:discount|reduction|rebate)\s+of\s+{_share('t')}|\breduced\s+by\s+{_share('u')}|"
    rf"\bless\s+{_share('v')}(?!\s+(?:for|per)\s+each)",
    re.I,
)
_ADD_FIXED = re.compile(
    rf"\b(?:adds?|plus|add|surcharge\s+of|supplement\s+of|extra)\s+(?:an?\s+(?:\w+\s+)?(?:fee|charge|surcharge|"
    rf"supplement)\s+of\s+)?{_money('a')}|{_money('b')}\s+(?:extra|more|surcharge|supplement|on\s+top)\b",
    re.I,
)
_ADD_SHARE = re.compile(
    rf"\b(?:adds?|plus|surcharge\s+of|supplement\s+of)\s+{_share('s')}|{_share('t')}\s+(?:[\w-]+\s+)?(?:surcharge|"
    rf"supplement|extra|more|higher|dearer|on\s+top|(?:charge|fee)\s+(?:is\s+)?(?:added|applies))\b",
    re.I,
)
_RATE = re.compile(
    rf"{_money('r')}\s*(?:per|a|an|each|for\s+each|for\s+every|every|/)\s*(?P<per>[\w-]+(?:\s[\w-]+)?)", re.I
)
_BASE = re.compile(
    rf"(?:fee|charge|price|cost|costs|is)\s+(?:of\s+|is\s+)?{_money('b')}\s+(?:plus|and|\+)\s+{_money('c')}\s*"
    r"(?:per|a|an|each|for\s+each|for\s+every|every|/)\b",
    re.I,
)
_GRACE = re.compile(
    rf"\b(?:after|beyond|in\s+excess\s+of)\s+(?:a|the)?\s*(?:first\s+)?(?P<g>{NUM})[- ]?"
    r"(?P<gu>[a-z]+)"
    r"(?:\s+grace(?:\s+period)?|\s+free)?|\bfirst\s+(?P<f>\d+(?:\.\d+)?)\s+(?P<fu>[a-z]+)\s+(?:are\s+|is\s+)?"
    r"(?:free|included|at\s+no\s+charge)",
    re.I,
)
_CAP = re.compile(
    rf"\b(?:capped\s+at|never\s+more\s+than|at\s+most|up\s+to\s+a\s+maximum\s+of|maximum\s+(?:of\s+)?|"
    rf"no\s+more\s+than|not\s+exceeding|limited\s+to)\s*{_money('m')}",
    re.I,
)
_FLOOR = re.compile(
    rf"\b(?:never\s+less\s+than|at\s+least|minimum\s+(?:charge\s+)?(?:of\s+|is\s+)?|not\s+less\s+than|"
    rf"no\s+less\s+than)\s*{_money('m')}",
    re.I,
)
_SHARE_FLOOR = re.compile(rf"\b(?:never\s+less\s+than|at\s+least|not\s+less\s+than)\s+{_share('s')}", re.I)
_SHARE_CAP = re.compile(rf"\b(?:never\s+more\s+than|at\s+most|capped\s+at)\s+{_share('s')}", re.I)
_PER_UNIT_SHARE = re.compile(
    rf"\bless\s+{_share('s')}\s+(?:for|per)\s+(?:each|every)\s+(?:full\s+|complete\s+|started\s+)?(?P<per>[a-z]+)",
    re.I,
)
_STARTED = re.compile(
    r"\bstarted\s+(?P<w>[\w-]+(?:\s[\w-]+)?)\s+counts?\s+in\s+full\b|\bper\s+started\s+(?P<p>[\w-]+)|"
    r"\bor\s+part\s+(?:thereof|of\s+an?\s+(?P<q>[\w-]+))|\bin\s+(?P<s>[\w-]+)\s+steps\b|\bround(?:ed)?\s+up\b",
    re.I,
)
_MIN_QUANTITY = re.compile(
    rf"\b(?:shorter|less|smaller|lighter|fewer)\s+than\s+(?P<n>{NUM})\s?(?P<u>[a-z]+)\s+(?:is|are)\s+"
    r"(?:charged|billed|counted|priced)\s+as\s+(?P<m>\d+(?:\.\d+)?)|\bminimum\s+(?:of\s+)?(?P<k>\d+(?:\.\d+)?)\s?"
    r"(?P<ku>[a-z]+)\s+(?:is\s+)?(?:charged|billed)\b",
    re.I,
)
_EXEMPT = re.compile(
    r"\b(?:does\s+not|doesn't|do\s+not)\s+apply\s+to\s+(?P<a>[\w\s-]+?)(?:[.;,]|$)|"
    r"\b(?:except|excluding|other\s+than)\s+(?:for\s+)?(?P<b>[\w\s-]+?)(?:[.;,)]|$)|"
    r"(?P<c>[A-Za-z][\w\s-]*?)\s+(?:are|is)\s+exempt\b",
    re.I,
)
_HALF_HOUR = {
    "half-hour": 0.5,
    "half hour": 0.5,
    "quarter-hour": 0.25,
    "quarter hour": 0.25,
    "15-minute": 0.25,
}


def unit_of(word: str) -> str:
    word = word.strip().lower().rstrip(".,;")
    return ALIASES.get(word, ALIASES.get(word.rstrip("s"), word))


def _started_step(text: str, per: str) -> tuple[bool, float]:
    m = _STARTED.search(text)
    if m is None:
        return False, 1.0
    word = (m.group("w") or m.group("p") or m.group("q") or m.group("s") or "").lower()
    if word in _HALF_HOUR and per == "h":
        return True, _HALF_HOUR[word]
    return True, 1.0


def _exempt(text: str) -> tuple[str, ...]:
    found = []
    for m in _EXEMPT.finditer(text):
        words = (m.group("a") or m.group("b") or m.group("c") or "").strip().lower()
        if words and len(words.split()) <= 5:
            found.append(re.sub(r"^(?:the|all|any)\s+", "", words))
    return tuple(found)


def _bounds(text: str) -> tuple[float | None, float | None]:
    cap, floor = _CAP.search(text), _FLOOR.search(text)
    return (_amount(cap, "m") if cap else None), (_amount(floor, "m") if floor else None)


def read_rule(text: str) -> Rule | None:
    """The rule ``text`` states, or None when it states none of the forms above (or two that compete)."""
    text = " ".join(text.split())
    exempt = _exempt(text)
    per_unit = _PER_UNIT_SHARE.search(text)
    if per_unit is not None:
        low, high = _SHARE_FLOOR.search(text), _SHARE_CAP.search(text)
        return Rule(
            SHARE_PER_UNIT,
            text,
            share=_share_of(per_unit, "s") or 0.0,
            per=unit_of(per_unit.group("per")),
            floor=_share_of(low, "s") if low else None,
            cap=_share_of(high, "s") if high else None,
            exempt=exempt,
        )
    rates = list(_RATE.finditer(text))
    tiered = _tiered(text, exempt) if len(rates) == 2 else None
    if tiered is not None:
        return tiered
    if len(rates) > 1:
        return (
            None  # two prices per unit ("5.1 to 12 kg: EUR 2.80 per kg over 12 kg: EUR 2.40 per kg"): bands
        )
    if rates:
        return _charge(text, rates[0], exempt)
    forms: list[Rule] = []
    if (m := _FACTOR.search(text)) and 0 < num(m.group("f")) <= MAX_FACTOR:  # never "APRIL 2026 Times"
        forms.append(Rule(FACTOR, text, factor=num(m.group("f")), exempt=exempt))
    if m := _MULTIPLE.search(text):
        forms.append(Rule(FACTOR, text, factor=_MULTIPLES[m.group(1).lower()], exempt=exempt))
    if m := _MULTIPLIED.search(text):
        factor = _MULTIPLIED_BY[m.group(1).lower()]
        forms.append(Rule(FACTOR, text, factor=factor, fraction_text="1/2" if factor == 0.5 else "",
                          exempt=exempt))  # fmt: skip
    if _HALF_OF.search(text):
        forms.append(Rule(FACTOR, text, factor=0.5, fraction_text="1/2", exempt=exempt))
    if m := _PAY_SHARE.search(text):
        share = _share_of(m, "s")
        if share is not None:
            forms.append(Rule(FACTOR, text, factor=share, fraction_text=_fraction(m, "s"), exempt=exempt))
    if m := _OFF.search(text):
        name = next(n for n in "stuv" if m.group(n) or m.group(n + "w"))
        share = _share_of(m, name) or 0.0
        forms.append(Rule(DISCOUNT, text, share=share, fraction_text=_fraction(m, name), exempt=exempt))
    if m := _ADD_SHARE.search(text):
        name = "s" if m.group("s") or m.group("sw") else "t"
        share = _share_of(m, name) or 0.0
        forms.append(Rule(SURCHARGE, text, share=share, fraction_text=_fraction(m, name), exempt=exempt))
    elif m := _ADD_FIXED.search(text):
        amount = _amount(m, "a") if _amount(m, "a") is not None else _amount(m, "b")
        forms.append(Rule(SURCHARGE, text, add=amount or 0.0, exempt=exempt))
    kinds = {(r.kind, r.factor, r.share, r.add) for r in forms}
    if len(kinds) != 1:
        return None  # none, or two forms that compete: not read with confidence
    cap, floor = _bounds(text)
    rule = forms[0]
    return Rule(rule.kind, text, rule.factor, rule.share, rule.add, cap=cap, floor=floor, exempt=exempt,
                fraction_text=rule.fraction_text)  # fmt: skip


def _tiered(text: str, exempt: tuple[str, ...]) -> Rule | None:
    """A charge in two tiers of one unit (:data:`_TIERS`), or None."""
    m = _TIERS.search(text)
    if m is None:
        return None
    per = unit_of(m.group("u1"))
    if unit_of(m.group("u2")) != per or unit_of(m.group("nu")) != per:
        return None  # the tiers or the first units in another unit: not one charge
    first, further = _amount(m, "r"), _amount(m, "s")
    if first is None or further is None:
        return None
    cap, floor = _bounds(text)
    return Rule(CHARGE, text, rate=first, per=per, first=num(m.group("n")), further=further, cap=cap,
                floor=floor, exempt=exempt)  # fmt: skip


def _fraction(m: re.Match[str], name: str) -> str:
    word = m.groupdict().get(name + "w")
    return _FRACTION_TEXT.get(_FRACTIONS[word.lower()], "") if word else ""


def _charge(text: str, rate: re.Match[str], exempt: tuple[str, ...]) -> Rule | None:
    per = unit_of(rate.group("per").split()[0])
    if re.match(r"started$", per):
        per = unit_of(rate.group("per").split()[-1])
    base = _BASE.search(text)
    started, step = _started_step(text, per)
    grace = _GRACE.search(text)
    allowance = 0.0
    if grace is not None:
        amount, unit = (
            (grace.group("g"), grace.group("gu"))
            if grace.group("g")
            else (grace.group("f"), grace.group("fu"))
        )
        if unit_of(unit) == per or unit_of(unit.rstrip("-")) == per:
            allowance = num(amount)
    least = _MIN_QUANTITY.search(text)
    min_quantity = 0.0
    if least is not None:
        min_quantity = num(least.group("m") or least.group("k"))
    cap, floor = _bounds(text)
    rate_value = _amount(rate, "r") or 0.0
    base_fee = _amount(base, "b") if base is not None else 0.0
    if base is not None and _amount(base, "c") != rate_value:
        return None
    return Rule(
        CHARGE,
        text,
        add=base_fee or 0.0,
        rate=rate_value,
        per=per,
        step=step,
        started=started,
        allowance=allowance,
        min_quantity=min_quantity,
        cap=cap,
        floor=floor,
        exempt=exempt,
    )


def _bounded(expression: str, rule: Rule) -> str:
    if rule.cap is not None:
        expression = f"min({expression}, {format_number(rule.cap)})"
    if rule.floor is not None:
        expression = f"max({expression}, {format_number(rule.floor)})"
    return expression


def _share_text(rule: Rule) -> str:
    return rule.fraction_text or format_number(rule.share)


def apply_to_amount(rule: Rule, amount: float) -> str | None:
    """The expression of ``rule`` applied to ``amount`` (a price, a fee, a value found), or None when the
    rule is a charge over a quantity (it needs one: :func:`apply_to_quantity`)."""
    return apply_to_expression(rule, format_number(amount))


def apply_to_expression(rule: Rule, shown: str) -> str | None:
    """:func:`apply_to_amount` on an amount that is itself an expression (a sum of charges: grouped)."""
    if rule.kind in (FACTOR, DISCOUNT) or (rule.kind == SURCHARGE and rule.share):
        plain = re.fullmatch(r"-?[\d.]+", shown) or (shown.startswith("(") and _balanced(shown))
        shown = shown if plain else f"({shown})"
    if rule.kind == FACTOR:
        factor = rule.fraction_text or format_number(rule.factor)
        return _bounded(f"{shown} * {factor}", rule)
    if rule.kind == DISCOUNT:
        return _bounded(f"{shown} * (1 - {_share_text(rule)})", rule)
    if rule.kind == SURCHARGE and rule.share:
        return _bounded(f"{shown} * (1 + {_share_text(rule)})", rule)
    if rule.kind == SURCHARGE:
        return _bounded(f"{shown} + {format_number(rule.add)}", rule)
    return None


def _balanced(text: str) -> bool:
    """Whether ``text``'s first "(" closes at its end ("(a) + (b)" is two groups, not one)."""
    depth = 0
    for i, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if depth == 0 and i < len(text) - 1:
            return False
    return True


def apply_to_quantity(rule: Rule, quantity: float, unit: str = "", amount: float | None = None) -> str | None:
    """The expression of a charge ``rule`` for ``quantity`` (in ``unit``; "" when the question's unit is
    the rule's), or of a share per unit for ``quantity`` units of time applied to ``amount``; None when
    the rule is not of that form or the units differ."""
    if unit and rule.per and unit_of(unit) != rule.per:
        return None
    if rule.kind == SHARE_PER_UNIT and amount is not None:
        share = f"1 - {format_number(rule.share)} * {format_number(quantity)}"
        if rule.floor is not None:
            share = f"max({share}, {format_number(rule.floor)})"
        if rule.cap is not None:
            share = f"min({share}, {format_number(rule.cap)})"
        return f"{format_number(amount)} * ({share})"
    if rule.kind != CHARGE:
        return None
    units = format_number(quantity)
    if rule.min_quantity:
        units = f"max({units}, {format_number(rule.min_quantity)})"
    if rule.allowance:
        units = f"max({units} - {format_number(rule.allowance)}, 0)"
    if rule.started and rule.step != 1:
        units = f"ceil({units} / {format_number(rule.step)}) * {format_number(rule.step)}"
    elif rule.started:
        units = f"ceil({units})"
    charge = f"{format_number(rule.rate)} * {units}"
    if rule.further is not None:  # two tiers: the first units at the rate, the rest at the further rate
        first = format_number(rule.first)
        rest = f"{format_number(rule.further)} * max({units} - {first}, 0)"
        charge = f"{format_number(rule.rate)} * min({units}, {first}) + {rest}"
    if rule.add:
        charge = f"{format_number(rule.add)} + {charge}"
    return _bounded(charge, rule)


def applies_to(rule: Rule, group: str) -> bool:
    """Whether ``rule`` applies to a person or thing of ``group`` (not one of the classes it exempts)."""
    words = set(group.lower().split())
    return not any(set(e.split()) <= words or e in group.lower() for e in rule.exempt)
