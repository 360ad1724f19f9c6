"""Scoring for bench/bench_goals_suite.py (pure, stdlib only): does a text state the expected answer?

``score_text(expected, text)`` returns the matching piece of ``text`` or None. Expected answers::

    {"type": "number", "value": 145.5, "tol": 0.05, "unit": "kg"}   # |found - value| <= tol; unit optional
    {"type": "date", "value": "2025-04-22"}
    {"type": "text", "value": "Priya Raman"}     # or "any_of": [...] / "all_of": [...] instead of "value"
    {"type": "text", "value": "14 hours", "accept": ["14 h", "fourteen hours"]}  # value or any accepted form
    {"type": "number", "value": 18, "tol": 0.01, "unit": "EUR/m²"}   # a rate: its first unit must match

Numbers: thousands separators (4,290), decimal commas (9,8), exponents (1e3), signs (-5, −5), scale words
(4.05 million also counts as 4050000); a known unit written after the number (or EUR/€ before it) must be the
expected unit; a bare number matches any unit. A number glued to letters before it (X7, v2) is not a number.
Units: an expected ``unit`` names the unit the number is in: a known unit (or its spelling: "hours", "g"),
a rate or a scaled amount whose first part is known ("EUR/m²", "m³/h", "EUR thousand"), or a count of
things ("customers"; "" for a bare number); a number followed by a different known unit does not match.
Dates: 2025-04-22, 2025/04/22, 22.04.2025, 22/04/2025 and 04/22/2025, 22 April 2025, 22nd of April 2025,
April 22, 2025, Apr 22nd 2025. Text: case-insensitive, any whitespace, on word boundaries.

A goal whose value is in no document must be refused (issue 23: the missing value named, exit 3)::

    {"type": "refused", "missing": "the Fee for a 150 sq ft unit"}   # right when a step is "missing"

No text states a refusal (``score_text`` gives None); :func:`goal_hit` judges it from the result's steps.
"""

from __future__ import annotations

import contextlib
import json
import re
from datetime import date
from typing import Any

UNITS = {
    "kg": ("kg", "kgs", "kilogram", "kilograms", "kilo", "kilos"),
    "g": ("g", "gram", "grams"),
    "L": ("l", "litre", "litres", "liter", "liters"),
    "ml": ("ml", "millilitre", "millilitres", "milliliter", "milliliters"),
    "m³": ("m³", "m3", "cubic"),
    "m²": ("m²", "m2", "sqm"),
    "lb": ("lb", "lbs", "pound", "pounds"),
    "kWh": ("kwh",),
    "Wh": ("wh",),
    "kW": ("kw",),
    "EUR": ("eur", "euro", "euros", "€"),
    "%": ("%", "percent", "pct"),
    "h": ("h", "hr", "hrs", "hour", "hours"),
    "min": ("min", "mins", "minute", "minutes"),
    "days": ("day", "days"),
    "weeks": ("week", "weeks"),
    "km": ("km", "kilometre", "kilometres", "kilometer", "kilometers"),
    "miles": ("mi", "mile", "miles"),
    "years": ("year", "years", "yr", "yrs"),
    # units no goal expects, so that "180 mm" is not read as EUR 180
    "mm": ("mm", "cm", "m", "metre", "metres", "meter", "meters"),
    "tonnes": ("t", "tonne", "tonnes", "ton", "tons"),
    "V": ("v", "mv", "volt", "volts"),
    "W": ("w", "watt", "watts", "mw", "mwh"),
    "°C": ("°c", "°", "c"),
    "cycles": ("cycle", "cycles"),
}
ALIAS = {alias: unit for unit, aliases in UNITS.items() for alias in aliases}
SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9}
NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-−–]?)(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?![\w.]*\d)\s*(?P<unit>[A-Za-z€%°²³]+(?:/[A-Za-z²³]+)?)?"
)
#: Dates, clock times and ordinals are not numbers (2025-01-20 is not 20, 21:00 is not 21, 16th not 16).
NOT_NUMBERS = re.compile(
    r"\d{4}[-/]\d{1,2}[-/]\d{1,2}|\d{1,2}[./]\d{1,2}[./]\d{4}|\b\d{1,2}:\d{2}(?::\d{2})?\b"
    r"|\b\d+(?:st|nd|rd|th)\b"
)
MONTHS = {
    m: i
    for i, name in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ],
        1,
    )
    for m in (name, name[:3], name[:4])
}


def numbers_in(text: str) -> list[tuple[float, str | None, str]]:
    """(value, unit or None, matched text) for every number in ``text``; a number with a scale word also
    counts scaled (4.05 million -> 4050000); a currency written before it counts as its unit."""
    found = []
    text = NOT_NUMBERS.sub(lambda m: " " * len(m.group(0)), text)
    for m in NUMBER.finditer(text):
        raw = m.group("num")
        value = (
            float(raw.replace(",", ".")) if re.fullmatch(r"\d+,\d{1,2}", raw) else float(raw.replace(",", ""))
        )
        value = -value if m.group("sign") else value
        word = (m.group("unit") or "").lower()
        before = text[max(0, m.start() - 5) : m.start()].lower()
        unit = ALIAS.get(word.split("/")[0]) or ("EUR" if ("eur" in before or "€" in before) else None)
        found.append((value, unit, m.group(0).strip()))
        if word in SCALE:
            found.append((value * SCALE[word], None, m.group(0).strip()))
    return found


def dates_in(text: str) -> list[tuple[date, str]]:
    out = []
    month = r"(?P<mon>[A-Za-z]{3,9})\.?"
    patterns = (
        (r"(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})", ("ymd",)),
        (r"(?P<a>\d{1,2})[./](?P<b>\d{1,2})[./](?P<y>\d{4})", ("dmy", "mdy")),
        (r"(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + month + r",?\s+(?P<y>\d{4})", ("named",)),
        (month + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})", ("named",)),
    )
    for pattern, orders in patterns:
        for m in re.finditer(pattern, text):
            g = m.groupdict()
            for order in orders:
                if order == "ymd":
                    ymd = (g["y"], g["m"], g["d"])
                elif order == "named":
                    if g["mon"].lower() not in MONTHS:
                        continue
                    ymd = (g["y"], MONTHS[g["mon"].lower()], g["d"])
                else:
                    day, mon = (g["a"], g["b"]) if order == "dmy" else (g["b"], g["a"])
                    ymd = (g["y"], mon, day)
                with contextlib.suppress(ValueError):
                    out.append((date(int(ymd[0]), int(ymd[1]), int(ymd[2])), m.group(0)))
    return out


def score_text(expected: dict[str, Any], text: str) -> str | None:
    """The matching piece of ``text`` when it states the expected answer, else None."""
    kind = expected["type"]
    if kind == "refused":  # judged from the steps (goal_hit), never from a text
        return None
    if kind == "number":
        value, tol = float(expected["value"]), float(expected["tol"])
        unit = expected_unit(expected.get("unit"))
        for number, found_unit, piece in numbers_in(text):
            if abs(number - value) <= tol and (found_unit is None or unit is None or found_unit == unit):
                return piece
        return None
    if kind == "date":
        wanted = date.fromisoformat(expected["value"])
        return next((piece for day, piece in dates_in(text) if day == wanted), None)
    if kind == "text":
        accepted = list(expected.get("any_of", [])) + list(expected.get("accept", []))
        options = expected.get("all_of") or [expected.get("value"), *accepted]
        pieces = [_find_phrase(o, text) for o in options if o]
        if expected.get("all_of"):
            return "; ".join(p for p in pieces if p) if all(pieces) else None
        return next((p for p in pieces if p), None)
    raise ValueError(f"unknown expected type {kind!r}")


def expected_unit(unit: str | None) -> str | None:
    """The known unit an expected ``unit`` is in (None: any unit): itself, a spelling of it, or the first
    part of a rate or scaled amount ("EUR/m²" -> EUR, "EUR thousand" -> EUR); a count of things
    ("customers") or "" is a bare number."""
    if not unit:
        return None
    if unit in UNITS:
        return unit
    head = re.split(r"[/ ]", unit.strip(), maxsplit=1)[0]
    if head in UNITS:
        return head
    return ALIAS.get(head.lower())


def _find_phrase(phrase: str, text: str) -> str | None:
    words = r"\s+".join(re.escape(w) for w in phrase.split())
    before = r"(?<![\d.])" if phrase[0].isdigit() else r"(?<!\w)"
    after = r"(?![\d]|\.\d)" if phrase[-1].isdigit() else r"(?!\w)"
    m = re.search(before + words + after, text, re.IGNORECASE)
    return m.group(0) if m else None


def answer_text(result: dict[str, Any]) -> tuple[str, str]:
    """(answer, where from): the result's ``answer`` when it has one, else the conclusion's first line."""
    answer = result.get("answer")
    if isinstance(answer, dict):
        answer = answer.get("text") or answer.get("value") or json.dumps(answer)
    if answer not in (None, ""):
        return str(answer), "answer"
    lines = [ln.strip() for ln in str(result.get("conclusion") or "").splitlines() if ln.strip()]
    return (lines[0] if lines else ""), "first line"


#: How a goal that did not answer right ended: it named a value it lacked (an honest refusal, issue 23:
#: a step with status "missing"), it answered with a wrong value, or it gave no answer for another reason.
REFUSED, WRONG, NO_ANSWER = "refused", "wrong", "no answer"


def refused_step(steps: Any) -> bool:
    """Did the result name a value it lacked (a step with status ``missing``)?"""
    return isinstance(steps, list) and any(
        isinstance(s, dict) and s.get("status") == "missing" for s in steps
    )


def goal_hit(expected: dict[str, Any], answer: str, steps: Any) -> bool:
    """Is the goal answered right: the expected value stated in ``answer`` (an answer that says there is
    none never is, whatever numbers its explanation holds), or, for a goal that must be refused, a step
    named missing."""
    if expected["type"] == "refused":
        return refused_step(steps)
    if answer.startswith("No answer"):  # "No answer: ..., needed by step 2." never states a 2
        return False
    return score_text(expected, answer) is not None


def miss_kind(answer_ok: bool, answer: str, steps: Any) -> str:
    """``""`` for a right answer, else :data:`REFUSED`, :data:`WRONG` or :data:`NO_ANSWER`: refusals that
    name the missing value are counted apart from confident wrong answers."""
    if answer_ok:
        return ""
    if refused_step(steps):
        return REFUSED
    return WRONG if answer and not answer.startswith("No answer") else NO_ANSWER


def score_result(expected: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    answer, source = answer_text(result)
    everything = f"{answer}\n{result.get('conclusion') or ''}"
    tasks = result.get("tasks") or []
    hit = goal_hit(expected, answer, result.get("steps"))
    refusal = expected["type"] == "refused"
    return {
        "status": result.get("status"),
        "answer": answer,
        "answer_source": source,
        "answer_ok": hit,
        "miss": miss_kind(hit, answer, result.get("steps")),
        "anywhere_match": ("refused" if hit else None) if refusal else score_text(expected, everything),
        "conclusion_chars": len(str(result.get("conclusion") or "")),
        "tasks_completed": sum(1 for t in tasks if t.get("status") == "completed"),
        "tasks": len(tasks),
        "steps": len(result["steps"]) if isinstance(result.get("steps"), list) else None,
        "citations": len(result["citations"]) if isinstance(result.get("citations"), list) else None,
    }


SELF_TEST: tuple[tuple[dict[str, Any], str, bool], ...] = (
    ({"type": "number", "value": 3946.8, "tol": 0.01, "unit": "EUR"}, "EUR 3,946.80", True),
    ({"type": "number", "value": 3946.8, "tol": 0.01, "unit": "EUR"}, "it costs 3946,80 €.", True),
    ({"type": "number", "value": 3946.8, "tol": 0.01, "unit": "EUR"}, "3946.8 kg", False),
    ({"type": "number", "value": 9.8, "tol": 0.001, "unit": "kWh"}, "Usable capacity: 9.8kWh", True),
    ({"type": "number", "value": 9.8, "tol": 0.001}, "section 9.8.1", False),
    ({"type": "number", "value": 7, "tol": 0.001}, "the X7 module", False),
    ({"type": "number", "value": 20, "tol": 0.001}, "on 2025-01-20 at 20:15", False),
    ({"type": "number", "value": 180, "tol": 0.01, "unit": "EUR"}, "600 x 420 x 180 mm", False),
    ({"type": "number", "value": 4050000, "tol": 1}, "EUR 4.05 million", True),
    ({"type": "number", "value": -5, "tol": 0.1}, "result: −5", True),
    ({"type": "number", "value": 18.42, "tol": 0.05, "unit": "%"}, "grew by 18.4210 percent", True),
    ({"type": "date", "value": "2025-04-22"}, "on April 22nd, 2025", True),
    ({"type": "date", "value": "2025-04-22"}, "22.04.2025", True),
    ({"type": "date", "value": "2025-04-22"}, "2025-04-23", False),
    ({"type": "text", "value": "2.3.4"}, "fixed in v2.3.4.", True),
    ({"type": "text", "value": "2.3.4"}, "firmware 2.3.41", False),
    ({"type": "text", "value": "Priya Raman"}, "lead: PRIYA  raman", True),
    ({"type": "text", "all_of": ["Kiel", "Lyon"]}, "Kiel and Lyonnais", False),
    ({"type": "text", "value": "15 minutes", "accept": ["15 min"]}, "The answer is 15 min.", True),
    ({"type": "text", "value": "15 minutes", "accept": ["15 min"]}, "The answer is 150 min.", False),
    ({"type": "number", "value": 18, "tol": 0.01, "unit": "EUR/m²"}, "EUR 18 per m²", True),
    ({"type": "number", "value": 9.6, "tol": 0.01, "unit": "m³/h"}, "9.6 m³/h", True),
    ({"type": "number", "value": 9.6, "tol": 0.01, "unit": "m³/h"}, "9.6 kg", False),
    ({"type": "number", "value": 6900, "tol": 0.01, "unit": "L/h"}, "6,900 l/h", True),
    ({"type": "number", "value": 194, "tol": 0, "unit": "EUR thousand"}, "EUR 194 thousand", True),
    ({"type": "number", "value": 2.92, "tol": 0.01, "unit": "hours"}, "2.92 h", True),
    ({"type": "number", "value": 2.92, "tol": 0.01, "unit": "hours"}, "2.92 min", False),
    ({"type": "number", "value": 1840, "tol": 0, "unit": "customers"}, "1,840 customers", True),
    ({"type": "number", "value": 840, "tol": 0.01, "unit": "g"}, "840 g", True),
    ({"type": "number", "value": 16, "tol": 0}, "2 to the 16th power", False),
)


#: (expected, answer, steps, right?): a refusal is judged from the steps, a value from the answer
HIT_TEST: tuple[tuple[dict[str, Any], str, Any, bool], ...] = (
    ({"type": "refused", "missing": "x"}, "", [{"status": "completed"}, {"status": "missing"}], True),
    ({"type": "refused", "missing": "x"}, "EUR 12", [{"status": "completed"}], False),
    ({"type": "refused", "missing": "x"}, "", None, False),
    ({"type": "number", "value": 12, "tol": 0.01}, "EUR 12", [{"status": "missing"}], True),
    ({"type": "number", "value": 12, "tol": 0.01}, "", [{"status": "missing"}], False),
)


def self_test() -> list[str]:
    """Failures of the scorer on the forms above (empty when it works)."""
    return [
        f"score_text({exp}, {text!r}) should {'match' if want else 'not match'}"
        for exp, text, want in SELF_TEST
        if (score_text(exp, text) is not None) != want
    ] + [
        f"goal_hit({exp}, {answer!r}, {steps}) should be {want}"
        for exp, answer, steps, want in HIT_TEST
        if goal_hit(exp, answer, steps) != want
    ]
