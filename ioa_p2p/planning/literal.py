"""Self-contained calculations and how a result is to be shown (pure).

- :func:`names_in` finds what a clause names that only documents know: product and record codes (AL-200,
  INC-2024-017, FY2023), capitalised names after the first word (Brennfeld, Route A), possessives. Units,
  currencies and month names are not names.
- :func:`literal_step` is the step for a clause that holds everything it needs: dates and a date operation
  ("how many days lie between 3 March 2025 and 29 June 2025", "which date falls 45 days after ..."), or
  arithmetic over the numbers it states ("if 1,234 is divided by 7 ..."), with no name to look up.
- :func:`rounding` reads how the result is to be rounded ("to three decimal places", "two decimals",
  "to the nearest kilogram", "rounded up"); :func:`rounded` wraps an expression in it;
  :func:`format_only` tells a clause that only says how to show the previous result ("Two decimals,
  please.").
"""

from __future__ import annotations

import re
from dataclasses import replace

from ioa_p2p.planning.expr import WORD_NUMBERS, to_expression
from ioa_p2p.planning.measured import at_stated_rate
from ioa_p2p.planning.types import CALC, DATE, PlanStep
from ioa_p2p.planning.units import conversion_expression, unit_phrase
from ioa_p2p.planning.values import ALIASES, MONTHS, dates_in, numbers_in

_CODE = re.compile(r"\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+\b"
                   r"|\b[A-Z]{1,4}\d{1,4}[A-Za-z]?\b|\b[A-Z]{2,}\b")  # fmt: skip
_CAPITAL = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b")
_NOT_NAMES = frozenset(
    {"eur", "usd", "gbp", "vat", "python", "i", "ok", "am", "pm", "utc", "cet", "km", "kg", "kwh", "id"}
    | set(MONTHS)
    | {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
    | set(ALIASES)
)
_DATE_OP = re.compile(
    r"\b(?:days?|weeks?)\b.*\b(?:between|from|until|till|to|lie|elapse\w*|pass\w*|after|before|later|"
    r"earlier|since)\b|\b(?:after|before|from|plus|minus)\b.*\b(?:days?|weeks?)\b",
    re.I,
)


def names_in(clause: str) -> list[str]:
    """Names and codes a clause uses that a document would define (see the module docstring)."""
    found: list[str] = []
    masked = clause
    for m in _CODE.finditer(clause):
        if m.group(0).lower() not in _NOT_NAMES and not dates_in(m.group(0)):
            found.append(m.group(0))
            masked = masked.replace(m.group(0), " " * len(m.group(0)))
    day_spans = [(a, b) for a, b, _ in dates_in(masked)]
    for m in _CAPITAL.finditer(masked):
        if any(a <= m.start() < b for a, b in day_spans):
            continue
        words = [w for w in re.split(r"[ -]", m.group(0)) if w.lower() not in _NOT_NAMES]
        if words:
            found.append(" ".join(words))
    found += re.findall(r"\b(\w+)'s\b", clause)
    return list(dict.fromkeys(found))


_PER_UNIT = (
    r"(?:second|minute|hour|day|night|week|month|year|metre|meter|litre|liter|kilo\w*|mile|person|"
    r"people|seat|seater|room|bed|page|storey|story|course|piece|pack|guest|player|door|star)s?\b"
)


def digits(text: str) -> str:
    """Number words as digits ("forty-five days" -> "45 days"), nothing else changed."""
    tens = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
    ones = "one|two|three|four|five|six|seven|eight|nine"

    def compound(m: re.Match[str]) -> str:
        return str(WORD_NUMBERS[m.group(1).lower()] + WORD_NUMBERS[m.group(2).lower()])

    text = re.sub(rf"\b({tens})[- ]({ones})\b", compound, text, flags=re.I)
    simple = [w for w in WORD_NUMBERS if " " not in w and w not in ("dozen", "hundred", "zero")]
    # "three guards", "a five-hour event", "a two-night stay": a count of what follows
    pattern = r"\b(" + "|".join(sorted(simple, key=len, reverse=True)) + r")\b(?=\s+[a-z]|-" + _PER_UNIT + ")"
    # "one after another", "one of", "one or two": not a count of what follows
    pattern += r"(?!\s+(?:after|another|of|by|or|way|more|less|at|in|to|for|and)\b)"

    def number(m: re.Match[str]) -> str:
        hyphen = text[m.end() : m.end() + 1] == "-"
        if hyphen and re.search(r"\b(?:in|into|to|as)\s+$", text[: m.start()], re.I):
            return m.group(0)  # "convert it into five-day weeks": a unit, not a count
        return str(WORD_NUMBERS[m.group(1).lower()])

    return re.sub(pattern, number, text, flags=re.I)


_CONVERT = re.compile(
    r"\b(?:convert|express|change|turn)?\s*(-?\d[\d,]*(?:\.\d+)?)\s*([a-z°³²/]+(?: [a-z³²]+)?) "
    r"(?:to|into|in) "
    r"([a-z°³²/]+(?: [a-z°³²]+){0,2})",
    re.I,
)


def conversion(clause: str, index: int) -> PlanStep | None:
    """ "Convert 12 miles to kilometres" -> ``12 * 1.609344`` in km (units as values, planning/units.py);
    at a rate the clause states ("38.5 hours to days at 7.7 hours per day"), by that rate."""
    stated = at_stated_rate(clause, index)
    if stated is not None:
        return replace(stated, template=rounded(stated.template, rounding(clause)))
    text = clause.replace(",", "")
    asked = _ASK_CONVERT.search(text)  # "how many miles is 42.195 km": the same conversion, asked
    m = _CONVERT.search(text)
    if asked:
        number, src, dst = asked.group(2), _unit_named(asked.group(3)), _unit_named(asked.group(1))
    elif m:
        number, src = m.group(1), _unit_named(m.group(2))
        dst = unit_phrase(m.group(3), ALIASES) or _unit_named(m.group(3))
    else:
        return None
    converted = _by_stated_factor(text, number, src, dst) or (
        conversion_expression(number, src, dst) if src and dst else None
    )
    if converted is None:
        return None
    return PlanStep(index, CALC, clause, rounded(converted, rounding(clause)), unit=dst)


_ASK_CONVERT = re.compile(
    r"\bhow many ([a-z°³²]+(?: [a-z³²]+)?) (?:is|are|make|makes|equals?|would be|are there in|in)\s+"
    r"(-?\d[\d,]*(?:\.\d+)?)\s*([a-z°³²/]+(?: [a-z³²]+)?)",
    re.I,
)
#: "taking a mile as 1.609344 km", "with 1 lb = 0.4536 kg", "counting a day as 7.5 hours": a factor stated
_STATED_FACTOR = re.compile(
    r"\b(?:taking|with|counting|using|at|where|if)\s+(?:a|an|one|1)\s+([a-z°³²]+)\s*(?:as|=|equal to|being|"
    r"is|to be)\s+(\d+(?:\.\d+)?)\s*([a-z°³²]+)",
    re.I,
)


def _by_stated_factor(text: str, number: str, src: str, dst: str) -> str | None:
    """The conversion by the factor the request states ("taking a mile as 1.609344 km"), not ours."""
    m = _STATED_FACTOR.search(text)
    one, amount, other = (_unit_named(m.group(1)), m.group(2), _unit_named(m.group(3))) if m else ("", "", "")
    if not (src and dst and one and other):
        return None
    if (one, other) == (dst, src):
        return f"{number} / {amount}"
    if (one, other) == (src, dst):
        return f"{number} * {amount}"
    return None


def _unit_named(words: str) -> str:
    words = words.lower().strip()
    for candidate in (words, words.split()[0]):
        if candidate in ALIASES:
            return ALIASES[candidate]
    return ""


def quantities_total(text: str, index: int = 1) -> PlanStep | None:
    """ "Add up 3.5 hours and 2 hours 50 minutes and give me the total in minutes": the stated quantities
    of one kind, each in the unit asked, added up (no name to look up)."""
    if names_in(text) or not re.search(
        r"\b(?:add(?: up)?|total|sum|together|altogether|combined)\b", text, re.I
    ):
        return None
    target = next((u for m in re.finditer(r"\bin ((?:[a-z]+ ?){1,3})", text.lower())
                   if (u := unit_phrase(m.group(1), ALIASES))), "")  # fmt: skip
    found = [n for n in numbers_in(digits(text)) if n.unit]
    if not target or len(found) < 2:
        return None
    parts = []
    for n in found:
        expression = conversion_expression(f"{n.number:.15g}", n.unit, target)
        if expression is None:
            return None
        parts.append(f"({expression})" if n.unit != target else f"{n.number:.15g}")
    return PlanStep(index, CALC, text, rounded(" + ".join(parts), rounding(text)), unit=target)


def literal_step(clause: str, index: int) -> PlanStep | None:
    """The step for a clause that states everything it needs (no name to look up), or None."""
    if names_in(clause):
        return None
    converted = conversion(clause, index)
    if converted is not None:
        return converted
    days = dates_in(clause)
    if days and _DATE_OP.search(clause) and (len(days) == 2 or re.search(r"\d|\bweek|\bday", clause)):
        return PlanStep(index, DATE, clause, digits(clause))
    expression = to_expression(clause)
    if expression is None or days:
        return None
    return PlanStep(index, CALC, clause, rounded(expression, rounding(clause)))


_DOWN = r"reduc\w*|discount\w*|off|less|decreas\w*|cut|sale|markdown|lower\w*|drop\w*|fall|fell"
_UP = r"increas\w*|surcharge|mark-?up|more|vat|tax|tip|rise|rose|raise\w*|higher"
_BEFORE = r"before|original\w*|without|excluding|excl\.?|net|pre-?\w+|used to"
_AFTER = r"after|with|including|incl\.?|final|new|now|gross"


def percent_relation(goal: str, index: int = 1) -> PlanStep | None:
    """A word problem of one amount, one percentage change and a question about the other side of it: "A
    jacket sells for EUR 84 after a 30 % reduction. What did it cost before?" -> ``84 / (1 - 30 / 100)``;
    "EUR 50 before a 20 % discount: what is it after?" -> ``50 * (1 - 20 / 100)``."""
    if names_in(goal):
        return None
    pcts = re.findall(r"(\d+(?:\.\d+)?)\s*(?:%|per ?cent)", goal, re.I)
    amounts = [n for n in numbers_of(goal) if n not in pcts]
    change = re.search(rf"\b({_DOWN}|{_UP})\b", goal, re.I)
    if len(pcts) != 1 or len(amounts) != 1 or change is None:
        return None
    sentences = re.split(r"(?<=[.!?])\s+", goal.strip())
    question = next((x for x in reversed(sentences) if x.rstrip().endswith("?") or
                     re.match(r"(?:what|how|which)\b", x, re.I)), sentences[-1])  # fmt: skip
    statement = goal[: goal.find(question)] if question in goal and goal.find(question) > 0 else goal
    asks_before = re.search(rf"\b(?:{_BEFORE})\b", question, re.I)
    asks_after = re.search(rf"\b(?:{_AFTER})\b", question, re.I)
    stated_after = re.search(rf"\b(?:{_AFTER})\b", statement, re.I)
    sign = "-" if re.fullmatch(_DOWN, change.group(1), re.I) else "+"
    factor = f"(1 {sign} {pcts[0]} / 100)"
    if asks_before and stated_after:
        return PlanStep(index, CALC, goal, rounded(f"{amounts[0]} / {factor}", rounding(goal)))
    if asks_after and not asks_before:
        return PlanStep(index, CALC, goal, rounded(f"{amounts[0]} * {factor}", rounding(goal)))
    return None


def numbers_of(text: str) -> list[str]:
    """The numbers a text states, as written without thousands separators (dates and codes left out)."""
    return [f"{n.number:.15g}" if n.number != int(n.number) else str(int(n.number)) for n in numbers_in(text)]


_PLACES = {"one": 1, "two": 2, "three": 3, "four": 4, "1": 1, "2": 2, "3": 3, "4": 4, "0": 0, "zero": 0}
_DECIMALS = re.compile(
    r"\b(?:to |with )?(one|two|three|four|zero|\d) (?:decimal(?: place)?s?|places|digits? after the "
    r"(?:decimal )?point)\b|\bdecimal with (one|two|three|four|\d) places\b",
    re.I,
)


def rounding(clause: str) -> tuple[str, int] | None:
    """("round", digits), ("ceil", 0) or ("floor", 0) when the clause says how to round, else None."""
    m = _DECIMALS.search(clause)
    if m:
        return "round", _PLACES[(m.group(1) or m.group(2)).lower()]
    if re.search(r"\bround(?:ed|ing)? up\b|\bnext whole\b", clause, re.I):
        return "ceil", 0
    if re.search(r"\bround(?:ed|ing)? down\b", clause, re.I):
        return "floor", 0
    if re.search(r"\bto the (?:nearest )?(?:cent|penny|pence|eurocent|rappen|öre)\b", clause, re.I):
        return "round", 2
    if re.search(r"\b(?:rounded|round it|round the result) to the nearest\b|\bwhole (?:number|euros?)\b|"
                 r"\bnearest (?:whole|integer|\w+)\b", clause, re.I):  # fmt: skip
        return "round", 0
    return None


def rounded(expression: str, how: tuple[str, int] | None) -> str:
    if how is None:
        return expression
    kind, places = how
    return f"round({expression}, {places})" if kind == "round" else f"{kind}({expression})"


def format_only(clause: str) -> bool:
    """A clause that only says how to show the previous result ("Two decimals, please.")."""
    if rounding(clause) is None:
        return False
    rest = _DECIMALS.sub("", clause)
    rest = re.sub(
        r"\b(?:please|give|show|state|report|present|the|answer|result|hours?|it|as|a|an|decimal|with|in|"
        r"rounded|round|to|nearest|whole|number|cent|up|down|places?|value|that|figure|then|and|"
        r"pounds?|euros?|dollars?|francs?|krona|kronor|kroner|pence|penny|integer)\b|[^\w]+",
        " ",
        rest,
        flags=re.I,
    )
    return not rest.strip()


__all__ = [
    "digits",
    "format_only",
    "literal_step",
    "names_in",
    "percent_relation",
    "quantities_total",
    "rounded",
    "rounding",
]
