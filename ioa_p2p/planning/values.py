"""Structured values (pure): numbers with units, dates and text, read from and written into text.

:func:`numbers_in` finds the numbers of a text with their unit (``EUR 4,290``, ``9.8 kWh``, ``0.5 %``,
``3.42 million``), skipping codes (``X7``, ``KE-X7-01``), dates and clock times; :func:`dates_in` finds
dates in the common forms; :func:`parse_value` reads the value a short result states (a calculator's
``17 * 23 = 391``, a program's last printed line). :class:`Value` is the one value type that steps pass on.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal
from typing import Any

from ioa_p2p.planning.clock import CLOCK, render_clock
from ioa_p2p.planning.records import DocRecords

NUMBER = "number"
DATE = "date"
TEXT = "text"
LIST = "list"

#: Canonical unit -> spellings (lower case). Units a number may carry after it (or EUR/€ before it).
UNITS: dict[str, tuple[str, ...]] = {
    "kg": ("kg", "kgs", "kilogram", "kilograms", "kilo", "kilos"),
    "g": ("g", "gram", "grams"),
    "t": ("t", "tonne", "tonnes", "ton", "tons"),
    "L": ("l", "litre", "litres", "liter", "liters"),
    "ml": ("ml", "millilitre", "millilitres", "milliliter", "milliliters"),
    "m³": ("m³", "m3", "cubic metre", "cubic metres", "cubic meters"),
    "m²": ("m²", "m2", "square metre", "square metres", "square meters", "sqm"),
    "lb": ("lb", "lbs", "pound", "pounds"),
    "kWh": ("kwh",),
    "MWh": ("mwh",),
    "Wh": ("wh",),
    "mAh": ("mah",),
    "kW": ("kw",),
    "W": ("w", "watt", "watts"),
    "MJ": ("mj", "megajoule", "megajoules"),
    "kJ": ("kj", "kilojoule", "kilojoules"),
    "J": ("j", "joule", "joules"),
    "V": ("v", "volt", "volts"),
    "EUR": ("eur", "euro", "euros", "€"),
    "USD": ("usd", "$", "dollar", "dollars"),
    "cent": ("cent", "cents", "ct", "eurocent", "eurocents"),
    "%": ("%", "percent", "per cent", "pct"),
    "h": ("h", "hr", "hrs", "hour", "hours"),
    "min": ("min", "mins", "minute", "minutes"),
    "s": ("s", "sec", "secs", "second", "seconds"),
    "days": ("day", "days"),
    "weeks": ("week", "weeks"),
    "months": ("month", "months"),
    "years": ("year", "years"),
    "km": ("km", "kilometre", "kilometres", "kilometer", "kilometers"),
    "miles": ("mi", "mile", "miles"),
    "m": ("m", "metre", "metres", "meter", "meters"),
    "cm": ("cm",),
    "mm": ("mm",),
    "cycles": ("cycle", "cycles"),
    "°C": ("°c", "celsius", "degrees celsius", "centigrade"),
    "°F": ("°f", "fahrenheit", "degrees fahrenheit"),
}
ALIASES = {alias: unit for unit, spellings in UNITS.items() for alias in spellings}
#: ISO 4217 codes a number may carry before or after it, written in capitals ("CHF 41", "41 CHF"); the
#: euro and the dollar first (the default currency of a charge is the first)
CURRENCIES: tuple[str, ...] = (
    "EUR", "USD", "GBP", "CHF", "JPY", "CNY", "SEK", "NOK", "DKK", "ISK", "PLN", "CZK", "HUF", "RON", "BGN",
    "HRK", "RSD", "TRY", "UAH", "RUB", "CAD", "AUD", "NZD", "MXN", "BRL", "ARS", "CLP", "COP", "PEN", "INR",
    "PKR", "BDT", "LKR", "IDR", "MYR", "SGD", "THB", "VND", "PHP", "KRW", "HKD", "TWD", "ILS", "AED", "SAR",
    "QAR", "KWD", "EGP", "MAD", "NGN", "KES", "ZAR", "GHS", "TND",
)  # fmt: skip
#: currency symbols written before (or after) an amount
SYMBOLS = {
    "€": "EUR", "$": "USD", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW", "₺": "TRY", "₽": "RUB",
    "₪": "ILS", "₴": "UAH", "฿": "THB", "₫": "VND", "₦": "NGN", "₱": "PHP", "zł": "PLN",
}  # fmt: skip
_CURRENCY_SET = frozenset(CURRENCIES)


def is_money(unit: str) -> bool:
    """A currency (its ISO code) or a cent: the unit of an amount of money."""
    return unit in _CURRENCY_SET or unit == "cent"


SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "mn": 1e6, "bn": 1e9}
_MONTH_WORDS = "january february march april may june july august september october november december"
MONTHS = {name: i for i, full in enumerate(_MONTH_WORDS.split(), 1) for name in {full, full[:3], full[:4]}}

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_NUMBER = re.compile(
    r"(?P<cur>(?:\b(?:" + "|".join(CURRENCIES) + r")|[€$£¥₹₩₺₽₪₴฿₫₦₱])\s?)?(?<![\w.,/-])(?P<sign>[-−])?"
    r"(?P<num>" + _NUM + r")(?![\w]*-\w)"
    r"(?P<tail>\s?(?:%|°C|per cent|[A-Za-zł€$£¥₹₩₺₽₪₴฿₫₦₱³²]+(?:/[A-Za-z³²]+)?)?)",
)
_CODE_BEFORE = re.compile(r"[A-Za-z][-]?$")
_NOT_NUMBER = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./]\d{1,2}[./]\d{4}|\b\d{1,2}:\d{2}\b|\b\d+(?:\.\d+){2,}\b"
)
_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
_DATE_FORMS = (
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"),
    re.compile(
        r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?(?: of)? (?P<mn>" + _MONTH_NAMES + r")\.?,? (?P<y>\d{4})\b", re.I
    ),
    re.compile(r"\b(?P<mn>" + _MONTH_NAMES + r")\.? (?P<d>\d{1,2})(?:st|nd|rd|th)?,? (?P<y>\d{4})\b", re.I),
    re.compile(r"\b(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})\b"),
)


@dataclass(frozen=True, slots=True)
class Value:
    """A step's value: a number (with its unit), a date (ISO), a text, or a list of values."""

    kind: str  # NUMBER | DATE | TEXT | LIST
    number: float | None = None
    unit: str = ""
    iso: str = ""  # the date, YYYY-MM-DD
    text: str = ""  # how it is shown (the source's own spelling when read from text)
    items: tuple[Value, ...] = field(default=())
    #: For an amount the documents charge: what it is per and the terms it is charged on, as the source
    #: states them (planning/tariffs.py): ("per", "h"), ("step", "15 min"), ("minimum", "3 h"), ...
    terms: tuple[tuple[str, str], ...] = field(default=())
    #: The passages a looked-up value was read from (never sent on): a derivation reads the quantities
    #: that define what a question asks for from them (planning/derive.py).
    evidence: tuple[str, ...] = field(default=(), compare=False, repr=False)
    #: The typed records of the document a looked-up value came from (planning/records.py; never sent on):
    #: a derivation applies their rates, bands and rules (planning/ruled.py).
    records: DocRecords | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of_number(cls, number: float, unit: str = "", text: str = "") -> Value:
        return cls(NUMBER, float(number), unit, "", text or format_number(number, unit))

    @classmethod
    def of_date(cls, day: date, text: str = "") -> Value:
        return cls(DATE, None, "", day.isoformat(), text or day.isoformat())

    @classmethod
    def of_text(cls, text: str) -> Value:
        return cls(TEXT, None, "", "", text.strip())

    @classmethod
    def of_list(cls, items: tuple[Value, ...]) -> Value:
        return cls(LIST, None, "", "", ", ".join(v.shown() for v in items), tuple(items))

    def shown(self) -> str:
        if self.kind == NUMBER and self.number is not None:
            return format_number(self.number, self.unit)
        return self.iso if self.kind == DATE else self.text

    def numbers(self) -> list[float]:
        if self.kind == NUMBER and self.number is not None:
            return [self.number]
        return [n for v in self.items for n in v.numbers()]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "text": self.shown()}
        if self.kind == NUMBER:
            out.update(value=self.number, unit=self.unit)
        elif self.kind == DATE:
            out["date"] = self.iso
        elif self.kind == LIST:
            out["items"] = [v.to_dict() for v in self.items]
        if self.terms:
            out["terms"] = [[k, v] for k, v in self.terms]
        return out

    def with_terms(self, terms: tuple[tuple[str, str], ...]) -> Value:
        return self._with(terms=terms)

    def with_evidence(self, evidence: tuple[str, ...]) -> Value:
        return self._with(evidence=evidence)

    def with_records(self, records: DocRecords | None) -> Value:
        return self._with(records=records)

    def _with(self, **changes: Any) -> Value:
        return replace(self, **changes)

    @classmethod
    def from_dict(cls, raw: Any) -> Value | None:
        """The value of an adapter's ``data`` entry; None when it is not one."""
        if not isinstance(raw, dict):
            return None
        kind = raw.get("kind")
        try:
            if kind == NUMBER and isinstance(raw.get("value"), int | float):
                number = cls.of_number(float(raw["value"]), str(raw.get("unit") or ""))
                return number.with_terms(_terms_of(raw.get("terms")))
            if kind == DATE:
                return cls.of_date(date.fromisoformat(str(raw.get("date"))))
            if kind == LIST and isinstance(raw.get("items"), list):
                items = tuple(v for v in (cls.from_dict(i) for i in raw["items"][:50]) if v is not None)
                return cls.of_list(items) if items else None
            if kind == TEXT and str(raw.get("text", "")).strip():
                return cls.of_text(str(raw["text"])[:500])
        except (ValueError, TypeError, OverflowError):
            return None
        return None


MAX_TERMS = 12


def _terms_of(raw: Any) -> tuple[tuple[str, str], ...]:
    """Terms from a result's ``data`` (bounded; anything else ignored)."""
    if not isinstance(raw, list):
        return ()
    out = []
    for pair in raw[:MAX_TERMS]:
        if isinstance(pair, list | tuple) and len(pair) == 2 and all(isinstance(x, str) for x in pair):
            out.append((pair[0][:20], pair[1][:60]))
    return tuple(out)


def exact(number: float, significant: int = 0) -> str:
    """Every digit of ``number``, never an exponent (1048576 -> ``1048576``, 1.5e-07 -> ``0.00000015``):
    how a number stated in a request or a document is written into a step's expression; a conversion
    factor is first rounded to ``significant`` digits (1/1.609344 to 12: ``0.621371192237``)."""
    if not math.isfinite(number):
        return str(number)
    if significant:
        number = float(f"{number:.{significant}g}")
    if number == int(number):
        return str(int(number))
    shown = format(Decimal(repr(number)), "f")
    return shown.rstrip("0").rstrip(".") if "." in shown else shown


def format_number(number: float, unit: str = "") -> str:
    if not math.isfinite(number):
        return str(number)
    if unit == CLOCK:  # a time: minutes since midnight (planning/clock.py)
        return render_clock(number)
    if number == int(number) and abs(number) < 1e15:
        shown = str(int(number))
    else:
        shown = f"{number:.10g}" if abs(number) >= 1e-4 else f"{number:.6g}"
        if "e" in shown:  # 12345678901.5 or 1.5e-07: every digit, no exponent
            shown = exact(float(f"{number:.15g}"))
        elif "." in shown:
            rounded = f"{number:.6f}".rstrip("0").rstrip(".")
            shown = rounded if abs(float(rounded) - number) < 1e-9 * max(1.0, abs(number)) else shown
    if not unit:
        return shown
    if unit in _CURRENCY_SET:
        return f"{unit} {shown}"
    return f"{shown}{unit}" if unit == "%" else f"{shown} {unit}"


@dataclass(frozen=True, slots=True)
class Found:
    """A number found in a text: where, its value and unit."""

    start: int
    end: int
    number: float
    unit: str
    text: str


def numbers_in(text: str) -> list[Found]:
    """Numbers with their units, in order; codes (X7, KE-X7-01), dates, times and versions skipped."""
    blocked = [(m.start(), m.end()) for m in _NOT_NUMBER.finditer(text)]
    blocked += [(m.start(), m.end()) for form in _DATE_FORMS for m in form.finditer(text)]
    out: list[Found] = []
    for m in _NUMBER.finditer(text):
        start = m.start("num")
        if any(a <= start < b for a, b in blocked) or _CODE_BEFORE.search(text[max(0, start - 2) : start]):
            continue
        number = float(m.group("num").replace(",", ""))
        if m.group("sign"):
            number = -number
        unit, end = "", m.end("num")
        raw = m.group("tail").strip()
        tail = raw.lower()
        if m.group("cur"):
            cur = m.group("cur").strip()
            unit = SYMBOLS.get(cur, cur)
        if not unit and (raw in _CURRENCY_SET or raw in SYMBOLS):  # "41 CHF", "20 zł"
            unit, end = SYMBOLS.get(raw, raw), m.end("tail")
        elif tail in SCALES:
            number *= SCALES[tail]
            end = m.end("tail")
        elif tail in ALIASES and not unit:
            unit, end = ALIASES[tail], m.end("tail")
        elif "/" in tail and not unit:  # a rate: 160 L/min, 9.6 m³/h, 40 km/h
            top, bottom = tail.split("/", 1)
            top = "cent" if top == "c" else top  # "29.10 c/kWh": cents per kWh
            if top in ALIASES and bottom in ALIASES:
                unit, end = f"{ALIASES[top]}/{ALIASES[bottom]}", m.end("tail")
            elif top in ALIASES:
                unit, end = ALIASES[top], m.start("tail") + len(m.group("tail")) - len(bottom) - 1
        begin = m.start("cur") if m.group("cur") else m.start()
        out.append(Found(begin, end, number, unit, text[begin:end].strip()))
    return out


def dates_in(text: str) -> list[tuple[int, int, date]]:
    """Dates (start, end, date) in order of position; impossible dates skipped."""
    found: dict[int, tuple[int, int, date]] = {}
    for form in _DATE_FORMS:
        for m in form.finditer(text):
            parts = m.groupdict()
            month = int(parts["m"]) if parts.get("m") else MONTHS.get(parts["mn"].lower().rstrip("."), 0)
            try:
                day = date(int(parts["y"]), month, int(parts["d"]))
            except ValueError:
                continue
            if not any(a <= m.start() < b for a, b, _ in found.values()):
                found[m.start()] = (m.start(), m.end(), day)
    return [found[k] for k in sorted(found)]


_RESULT_LINE = re.compile(r"=\s*(?:≈\s*)?(?P<v>[-−]?[\d.,]+(?:e[-+]?\d+)?)\s*(?P<u>\S*)\s*$")


def parse_value(text: str) -> Value | None:
    """The value a short result states: the last ``= v`` of a calculation, else the last line's single
    date or number, else a short last line as text; None when nothing short stands out."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    last = lines[-1]
    m = _RESULT_LINE.search(last)
    if m:
        with_unit = numbers_in(m.group("v") + (" " + m.group("u") if m.group("u") else ""))
        if with_unit:
            return Value.of_number(with_unit[0].number, with_unit[0].unit)
    if re.fullmatch(r"-?0[xob][0-9a-f]+", last, re.I):  # 0x1e0: a number written in another base
        return Value.of_text(last)
    days = dates_in(last)
    if len(days) == 1 and len(last) <= 40:
        return Value.of_date(days[0][2], days[0][2].isoformat())
    numbers = numbers_in(last)
    if len(numbers) == 1 and len(last) <= 60:
        rest = (last[: numbers[0].start] + last[numbers[0].end :]).strip(" .:=")
        if re.search(r"[A-Za-z]{2,}", rest) and not re.fullmatch(
            r"(?:the )?(?:answer|result|total)( is)?", rest, re.I
        ):
            return Value.of_text(last)  # "16 minutes over target": the printed line is the answer
        return Value.of_number(numbers[0].number, numbers[0].unit, numbers[0].text)
    if len(last) <= 80:
        return Value.of_text(last)
    return None


__all__ = [
    "ALIASES",
    "CURRENCIES",
    "DATE",
    "LIST",
    "NUMBER",
    "SYMBOLS",
    "TEXT",
    "UNITS",
    "Found",
    "Value",
    "dates_in",
    "exact",
    "format_number",
    "is_money",
    "numbers_in",
    "parse_value",
]
