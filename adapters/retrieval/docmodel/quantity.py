"""Quantities with units and rates (pure): ``EUR 12 per hour``, ``300 g per 4 jars``, ``GBP 35``, ``2.1 kW``.

:func:`quantities_in` reads every quantity of a text: the number (digits, ``1,850``, ``3.42 million``, or a
number word: ``three weeks``, ``twice``, ``half an hour``), its unit (a currency before or after it, a unit
after it, spelled any of the ways :data:`UNIT_ALIASES` knows) and, for a rate, what it is per (``per hour``,
``/kWh``, ``a month``, ``per user a month``, ``per 4 jars``) and a range's upper end (``-25 to 40 °C``).
Codes (``AW-9``, ``B2.14``, ``CH-2027-014``), clock times, dates and versions are not quantities. Units are
canonical (``h``, ``min``, ``EUR``, ``GBP``, ``kg``...) and carry a :func:`dimension` (time, money, mass...),
so that a question's answer type picks a quantity by what it measures, and later steps convert.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.values import ALIASES as _PLANNING_ALIASES
from ioa_p2p.planning.values import dates_in

#: Units the planner's values do not know, by canonical name (the planner's units come first).
EXTRA_UNITS: dict[str, tuple[str, ...]] = {
    "GBP": ("gbp", "£", "pounds sterling"),
    "CHF": ("chf",),
    "SEK": ("sek",),
    "NOK": ("nok",),
    "DKK": ("dkk",),
    "JPY": ("jpy", "¥"),
    "pence": ("pence", "p"),
    "kcal": ("kcal", "calorie", "calories", "kilocalorie", "kilocalories"),
    "GB": ("gb", "gigabyte", "gigabytes"),
    "MB": ("mb", "megabyte", "megabytes"),
    "TB": ("tb", "terabyte", "terabytes"),
    "dB": ("db", "db(a)", "decibel", "decibels"),
    "bar": ("bar",),
    "Hz": ("hz", "hertz"),
    "MWh": ("mwh", "megawatt hour", "megawatt hours"),
}
UNIT_ALIASES: dict[str, str] = {**_PLANNING_ALIASES}
for _canonical, _spellings in EXTRA_UNITS.items():
    for _s in _spellings:
        UNIT_ALIASES.setdefault(_s, _canonical)
UNIT_ALIASES["pound"] = UNIT_ALIASES["pounds"] = "lb"

DIMENSIONS: dict[str, tuple[str, ...]] = {
    "time": ("s", "min", "h", "days", "weeks", "months", "years"),
    "money": ("EUR", "USD", "GBP", "CHF", "SEK", "NOK", "DKK", "JPY", "cent", "pence"),
    "mass": ("kg", "g", "t", "lb"),
    "volume": ("L", "ml", "m³"),
    "area": ("m²",),
    "length": ("km", "m", "cm", "mm", "miles"),
    "energy": ("kWh", "Wh", "MWh", "MJ", "kJ", "J", "kcal"),
    "power": ("kW", "W"),
    "temperature": ("°C", "°F"),
    "data": ("GB", "MB", "TB"),
    "ratio": ("%",),
    "sound": ("dB",),
    "voltage": ("V",),
}
_DIMENSION_OF = {u: d for d, units in DIMENSIONS.items() for u in units}
#: Factors to each dimension's base unit (conversion within a dimension).
FACTORS: dict[str, float] = {
    "s": 1 / 3600, "min": 1 / 60, "h": 1.0, "days": 24.0, "weeks": 168.0,
    "kg": 1.0, "g": 1e-3, "t": 1e3, "lb": 0.45359237,
    "L": 1.0, "ml": 1e-3, "m³": 1e3,
    "km": 1e3, "m": 1.0, "cm": 1e-2, "mm": 1e-3, "miles": 1609.344,
    "kWh": 1.0, "Wh": 1e-3, "MWh": 1e3, "MJ": 1 / 3.6, "kJ": 1 / 3600, "J": 1 / 3.6e6,
    "kW": 1.0, "W": 1e-3, "GB": 1.0, "MB": 1e-3, "TB": 1e3,
    "EUR": 1.0, "cent": 0.01, "GBP": 1.0, "pence": 0.01,
}  # fmt: skip

NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100, "a dozen": 12, "half a": 0.5, "half an": 0.5,
    "a": 1, "an": 1, "a single": 1,
}  # fmt: skip
#: Counted frequencies: "renewed twice" is a count of 2.
TIMES_WORDS = {"once": 1, "twice": 2, "three times": 3, "four times": 4, "five times": 5}
SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "mn": 1e6, "bn": 1e9, "k": 1e3}


def dimension(unit: str) -> str:
    """The dimension a unit measures ("time", "money", ...); "" for none, the unit itself when unknown."""
    if not unit:
        return ""
    return _DIMENSION_OF.get(unit, unit)


def convert(number: float, unit: str, to: str) -> float | None:
    """``number`` ``unit`` in ``to`` (same dimension, both with factors); None when it does not convert."""
    if unit == to:
        return number
    if dimension(unit) != dimension(to) or unit not in FACTORS or to not in FACTORS:
        return None
    return number * FACTORS[unit] / FACTORS[to]


@dataclass(frozen=True, slots=True)
class Quantity:
    """A quantity a text states: ``number`` ``unit``, per ``per_amount`` ``per`` for a rate."""

    number: float
    unit: str  # canonical ("EUR", "h", "kg"); "" for a bare number
    text: str  # as written
    start: int
    end: int
    per: str = ""  # what a rate is per: a unit ("h", "kg") or a noun ("user", "jar", "sample")
    per_amount: float = 1.0  # "300 g per 4 jars": 4
    high: float | None = None  # a range's upper end ("-25 to 40 °C": number -25, high 40)
    times: bool = False  # a frequency ("twice"), a count of occasions

    @property
    def dimension(self) -> str:
        return dimension(self.unit)

    @property
    def is_rate(self) -> bool:
        return bool(self.per)


_CUR_BEFORE = r"(?P<cur>EUR|USD|GBP|CHF|SEK|NOK|DKK|JPY|€|\$|£|¥)\s?"
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_WORDNUM = "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
_UNIT_WORDS = "|".join(sorted((re.escape(a) for a in UNIT_ALIASES if len(a) > 0), key=len, reverse=True))
_QUANTITY = re.compile(
    r"(?:" + _CUR_BEFORE + r")?(?<![\w.,/\-])(?P<sign>[-−–])?(?P<num>" + _NUM + r")"
    r"(?:\s?(?P<scale>thousand|million|billion|mn|bn)\b)?"
    r"(?:[\s-]?(?P<unit>" + _UNIT_WORDS + r")(?![\w³²]))?"
    r"|(?<![\w-])(?P<word>" + _WORDNUM + r")\s(?P<wunit>" + _UNIT_WORDS + r")(?![\w³²])",
    re.I,
)
_RATE = re.compile(
    r"\s*(?:(?:/\s?|(?:per|a|an|each|every)\s)(?P<n>\d+(?:\.\d+)?\s)?(?P<per>[a-zA-Z³²]+(?:\s(?!(?:a|an|per|each|every)\b)[a-z]+)?))"
    r"(?:\s(?:a|per)\s(?P<per2>[a-z]+))?",
    re.I,
)
_RANGE_TAIL = re.compile(
    r"\s*(?:-|–|to)\s*(?P<num>" + _NUM + r")\s?(?P<unit>" + _UNIT_WORDS + r")?(?![\w³²])", re.I
)
_BLOCKED = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}|\b\d{1,2}:\d{2}\b|\b\d+(?:\.\d+){2,}\b"
    r"|\b[A-Za-z]+\d*[-.]?\d+(?:[-./]\d+)*[A-Za-z]?\b(?=.)|\b\d+[-/]\d+\b"
)
_PERIOD_WORDS = "hour day week month year night minute second person user seat head"
_PERIOD_NOUNS = frozenset(_PERIOD_WORDS.split())
_NOT_PER_WORDS = "the this that its their your our whole full time lot few"
_NOT_PER = frozenset(_NOT_PER_WORDS.split())


def _blocked(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _BLOCKED.finditer(text):
        token = m.group()
        if re.fullmatch(r"\d+(?:\.\d+)?", token):
            continue
        if re.fullmatch(r"[A-Za-z]+", token.rstrip("0123456789.")) and token[0].isalpha():
            letters = re.match(r"[A-Za-z]+", token)
            if (
                letters
                and letters.group().lower() in UNIT_ALIASES
                and token[len(letters.group()) :][:1] in " "
            ):
                continue
        spans.append((m.start(), m.end()))
    spans += [(a, b) for a, b, _ in dates_in(text)]
    return spans


def quantities_in(text: str) -> list[Quantity]:
    """Every quantity of ``text``, in order (see the module docstring)."""
    blocked = _blocked(text)
    out: list[Quantity] = []
    for m in _QUANTITY.finditer(text):
        start = m.start()
        if any(a <= m.start("num" if m.group("num") else "word") < b for a, b in blocked):
            continue
        if m.group("num"):
            number = float(m.group("num").replace(",", ""))
            if m.group("sign") and (start == 0 or not text[start - 1].isalnum()):
                number = -number
            if m.group("scale"):
                number *= SCALES[m.group("scale").lower()]
            unit = _unit(m.group("unit") or "")
            if m.group("cur"):
                unit = _unit(m.group("cur").strip())  # "EUR 4 kg": the currency is the unit
        else:
            word = m.group("word").lower()
            number = float(NUMBER_WORDS[word])
            unit = _unit(m.group("wunit"))
            if not unit or dimension(unit) in ("money", ""):  # "a GBP": not a quantity
                continue
            if word in ("a", "an", "a single") and start > 0 and text[start - 1 : start].isalnum():
                continue
        end = m.end()
        if m.group("unit") and unit == "" and m.group("num"):
            end = m.end("num")
        high = None
        tail = _RANGE_TAIL.match(text, end) if m.group("num") else None
        if tail and not (tail.group("unit") and unit and _unit(tail.group("unit")) != unit):
            high = float(tail.group("num").replace(",", ""))
            unit = unit or _unit(tail.group("unit") or "")
            end = tail.end()
        per, per_amount, end = _rate(text, end, unit)
        out.append(Quantity(number, unit, text[start:end].strip(), start, end, per, per_amount, high))
    out += _frequencies(text, out)
    kept: list[Quantity] = []
    for q in sorted(out, key=lambda q: q.start):  # a range's end, a rate's "per 4 jars": inside another
        if not kept or q.start >= kept[-1].end:
            kept.append(q)
    return kept


def _unit(spelling: str) -> str:
    low = spelling.strip().lower()
    if low in UNIT_ALIASES:
        return UNIT_ALIASES[low]
    return spelling.strip()


def _rate(text: str, end: int, unit: str) -> tuple[str, float, int]:
    """What the quantity ending at ``end`` is per: (per, per_amount, new end); ("", 1, end) for none."""
    m = _RATE.match(text, end)
    if not m:
        return "", 1.0, end
    lead = m.group(0).strip().split()[0].lower()
    words = m.group("per").split()
    first = words[0].lower().rstrip(".,;")
    not_per = first in _NOT_PER or (lead in ("a", "an", "each", "every") and first not in _PERIOD_NOUNS)
    if not_per and not (lead in ("a", "an") and _unit(first) in DIMENSIONS["time"]):
        return "", 1.0, end
    if lead in ("a", "an") and not unit:
        return "", 1.0, end
    per = _unit(first) if first in UNIT_ALIASES else _singular(first)
    stop = m.start("per") + len(words[0])
    if len(words) > 1 and _unit(words[1]) not in UNIT_ALIASES.values() and not _PER_NOUN_END(words[1]):
        per, stop = f"{per} {_singular(words[1].lower())}", m.end("per")
    if m.group("per2"):  # "per user a month": the period after the first denominator
        per, stop = f"{per}/{_unit(m.group('per2'))}", m.end("per2")
    amount = float(m.group("n")) if m.group("n") else 1.0
    return per, amount, stop


def _PER_NOUN_END(word: str) -> bool:  # noqa: N802 - a predicate of one word
    return word.lower() in _NOT_PER or word.lower() in ("and", "or", "with", "for", "in", "on", "at", "to")


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _frequencies(text: str, found: list[Quantity]) -> list[Quantity]:
    out = []
    for word, n in TIMES_WORDS.items():
        for m in re.finditer(rf"\b{word}\b", text, re.I):
            if not any(q.start <= m.start() < q.end for q in found):
                out.append(Quantity(float(n), "", m.group(), m.start(), m.end(), times=True))
    return out
