"""The quantities a request states (pure): durations, distances, energies, weights and counts of things.

People state quantities in many forms; each is read as a number in a known unit, so that a rate from the
documents can be applied to it whatever its wording:

- clock ranges: "from 9:40 until 2 pm", "9:00 to 13:30", "between 10 am and 4 pm" -> minutes between them;
- durations in words: "five and a half hours", "half an hour", "an hour and a half", "a two-hour
  reception", "3 days and 2 hours" (parts joined by "and" add up), "12 h 40 min";
- measures with units: "180 km", "220 kWh", "3.1 metres", "a 9 kg box";
- counts of things: "twelve of us adults", "76 guests", "650 business cards", "two colleagues".

:func:`stated_quantities` returns them in order of appearance, each with the thing it measures or counts
("adults", "guests", "outline") when the words say so. Years, dates, clock times and codes are not
quantities.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.expr import WORD_NUMBERS
from ioa_p2p.planning.literal import digits
from ioa_p2p.planning.units import DIMENSIONS
from ioa_p2p.planning.values import ALIASES, dates_in, is_money, numbers_in


@dataclass(frozen=True, slots=True)
class Quantity:
    number: float
    unit: str  # a canonical unit ("min", "h", "km", "kWh") or "" for a count
    what: str = ""  # the thing counted or measured, when the words say so
    text: str = ""  # as written

    @property
    def dimension(self) -> str:
        return dimension_of(self.unit)


def dimension_of(unit: str) -> str:
    """``time``, ``length``, ... for a unit; ``count`` for none."""
    if not unit:
        return "count"
    return next((dim for dim, units in DIMENSIONS.items() if unit in units), "")


_CLOCK = r"(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|h)?"
_RANGE = re.compile(
    rf"\b(?:from|between)?\s*{_CLOCK}\s*(?:to|until|till|and|-|–)\s*{_CLOCK}(?!\d|[.:]\d)", re.I
)
_HALF = (
    (re.compile(r"\b(\d+) and a half (hours?|days?|minutes?|weeks?)\b", re.I), 0.5),
    (re.compile(r"\b(?:an?|one) (hour|day|week|minute) and a half\b", re.I), 1.5),
    (re.compile(r"\bhalf an? (hour|day)\b", re.I), 0.5),
    (re.compile(r"\b(?:a|one) quarter(?: of an?)? (hour)\b", re.I), 0.25),
)
_WORDS = "|".join(w for w in WORD_NUMBERS if " " not in w and w not in ("zero", "dozen", "hundred"))
#: number words that digits() leaves alone: "five and a half", "two-hour", "twelve of us"
_WORD_BEFORE = re.compile(rf"\b({_WORDS})(\s+and a half\b|-(?=[a-z])|\s+of (?:us|them|you)\b)", re.I)
_SKIP_THINGS = frozenset("of us them the a an and or to for in on at by with from per each every".split())  # noqa: SIM905


def _minutes(hour: str, minute: str | None, mark: str | None) -> int | None:
    h, m = int(hour), int(minute or 0)
    mark = (mark or "").lower().replace(".", "")
    if mark == "pm" and h < 12:
        h += 12
    if mark == "am" and h == 12:
        h = 0
    return h * 60 + m if h <= 24 and m < 60 else None


def clock_range(text: str) -> tuple[int, str] | None:
    """Minutes between the two clock times of a range ("from 9:40 until 2 pm" -> 260), and the range as
    written; a range needs a clock time (with minutes, am/pm or "from/between")."""
    for m in _RANGE.finditer(text):
        h1, m1, a1, h2, m2, a2 = m.groups()
        clockish = any((m1, m2, a1, a2)) or re.match(r"\s*(?:from|between)\b", m.group(0), re.I)
        if not clockish or (a1 or "").lower() == "h" and not m1:
            continue
        start = _minutes(h1, m1, a1 if a1 and a1.lower() != "h" else None)
        end = _minutes(h2, m2, a2 if a2 and a2.lower() != "h" else None)
        if start is None or end is None:
            continue
        if end <= start and not a2 and end + 12 * 60 > start:  # "9:40 until 2": the afternoon
            end += 12 * 60
        if end > start:
            return end - start, m.group(0).strip()
    return None


def stated_quantities(text: str) -> list[Quantity]:
    """The quantities ``text`` states, in order (see the module docstring)."""
    found: list[tuple[int, Quantity]] = []
    spans: list[tuple[int, int]] = []
    clock = clock_range(text)
    if clock is not None:
        at = text.find(clock[1])
        found.append((at, Quantity(float(clock[0]), "min", "", clock[1])))
        spans.append((at, at + len(clock[1])))
    plain = digits(_WORD_BEFORE.sub(lambda m: f"{WORD_NUMBERS[m.group(1).lower()]}{m.group(2)}", text))
    for pattern, part in _HALF:
        for m in pattern.finditer(plain):
            if any(a <= m.start() < b for a, b in spans):
                continue
            whole = float(m.group(1)) if m.group(1).isdigit() else 0.0
            unit = ALIASES.get(m.groups()[-1].lower(), "")
            found.append((m.start(), Quantity(whole + part, unit, "", m.group(0))))
            spans.append((m.start(), m.end()))
    days = [(a, b) for a, b, _ in dates_in(plain)]
    spelled = re.sub(r"(\d)-(?=[a-z])", r"\1 ", plain)  # "a two-hour reception", "a 5,000-litre pond"
    for n in numbers_in(spelled):
        if any(a <= n.start < b for a, b in spans + days):
            continue
        if n.unit == "" and 1900 <= n.number <= 2100:
            continue  # a year
        if re.match(r"\s*(?:st|nd|rd|th)\b|[:.]\d", spelled[n.end :]):
            continue
        if is_money(n.unit) or n.unit == "%":
            continue  # money and shares are not quantities to charge for
        what = _thing_after(spelled[n.end :]) if not n.unit else _thing_after(spelled[n.end :], measured=True)
        found.append((n.start, Quantity(n.number, n.unit, what, n.text)))
    return [q for _, q in sorted(_joined(found, spelled), key=lambda x: x[0])]


def _thing_after(rest: str, measured: bool = False) -> str:
    """The noun a count is of ("12 of us adults" -> adults, "650 business cards" -> cards); for a measure,
    the thing measured after "of" ("3.1 metres of outline")."""
    if measured:
        m = re.match(r"\s*of\s+([a-z][a-z-]+)", rest)
        return m.group(1) if m else ""
    if re.match(r"\s*of (?:us|them|you)\s+(?:\w+ing|are|were|will|who|in|at|on|from)\b", rest):
        return "people"  # "six of us entering the race": a count of people
    m = re.match(r"\s*(?:of (?:us|them|you)\s+)?([a-z][a-z-]*)(?: ([a-z][a-z-]*))?", rest)
    if not m or m.group(1) in _SKIP_THINGS:
        return ""
    first, second = m.group(1), m.group(2) or ""
    # "business cards": the plural after a modifier is the head; "colleagues riding along": the first
    return (
        second
        if second.endswith("s")
        and not (first.endswith("s") and not first.endswith("ss"))
        and second not in _SKIP_THINGS
        else first
    )


def _joined(found: list[tuple[int, Quantity]], text: str) -> list[tuple[int, Quantity]]:
    """Parts of one duration joined by "and" or a space ("3 days and 2 hours", "12 h 40 min") add up, in
    the smaller unit's terms (hours here)."""
    out: list[tuple[int, Quantity]] = []
    for at, q in sorted(found, key=lambda x: x[0]):
        if out and q.dimension == "time" and out[-1][1].dimension == "time" and q.unit != out[-1][1].unit:
            prev_at, prev = out[-1]
            between = text[prev_at + len(prev.text) : at] if prev.text else ""
            if re.fullmatch(r"\s*(?:and|,)?\s*", between):
                seconds = prev.number * DIMENSIONS["time"][prev.unit] + q.number * DIMENSIONS["time"][q.unit]
                unit = min((prev.unit, q.unit), key=lambda u: DIMENSIONS["time"][u])
                out[-1] = (
                    prev_at,
                    Quantity(seconds / DIMENSIONS["time"][unit], unit, "", f"{prev.text} {q.text}"),
                )
                continue
        out.append((at, q))
    return out


__all__ = ["Quantity", "clock_range", "dimension_of", "stated_quantities"]
