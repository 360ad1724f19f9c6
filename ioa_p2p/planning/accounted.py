"""Every quantity a question gives is accounted for by the answer worked out for it (pure).

"Two of us are staying in a double room from 5 to 8 October. Room plus city tax?" gives a count of
people; "A 30 kg dog is on a drip for 20 hours" a weight and a duration; "collects 4 prescription items a
month, over three months" two counts. A derivation (planning/derive.py) or a charge from the documents'
typed rules (planning/ruled.py) that answers with an expression using none of such a quantity has
answered another question (the room's nightly price, one bag, one month): a confident wrong number. The
question's quantities are read once (:func:`stated_quantities`): numbers with their units or the things
they count, spelled-out numbers included, but never what only names or qualifies something (an age, a
year, a day of a date range, a label such as "Year 9", "line 4", "Room 101", an item code); a quantity is
**accounted for** when the expression uses it (as stated or converted by a unit factor), a band or tier
of the document's typed records holds it (the row it selects: "a 3 kg parcel" in "over 2 kg up to 5 kg"),
or the line the value was read from states it ("A 3-day hire costs EUR 120" for "a 3-day hire").
:func:`unaccounted` names the first quantity that is not, so the step is refused with that quantity named
(:class:`~ioa_p2p.planning.missing.Missing`, exit 3) instead of answering.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ioa_p2p.planning.banded import band_in
from ioa_p2p.planning.doc_facts import spelled
from ioa_p2p.planning.missing import Missing
from ioa_p2p.planning.quantities import Quantity
from ioa_p2p.planning.quantities import stated_quantities as read_quantities
from ioa_p2p.planning.values import MONTHS, NUMBER, Value, format_number

#: The factors a stated quantity may be converted by before it appears in an expression (minutes and
#: hours, days and weeks, grams and kilograms, per cent)
_FACTORS = (1.0, 60.0, 1 / 60, 24.0, 1 / 24, 7.0, 1 / 7, 1000.0, 0.001, 100.0, 0.01, 3600.0, 1 / 3600)
_AGE = re.compile(
    r"\b(?:aged|age|i'?m|i am|is|turns?|turning)\s+(\d+)\b"
    r"|\b(\d+)[- ]years?[- ]old\b|\b(\d+) years of age\b",
    re.I,
)
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
#: "from 5 to 8 October", "10-15 July", "on 3 September": days of a date, not quantities
_DAYS = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s*(?:-|\u2013|to|and|until|till)\s*(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:{_MONTH})\b"
    rf"|\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH})\b|\b(?:{_MONTH})\s+(\d{{1,2}})\b",
    re.I,
)
#: words after which a bare number is a label ("line 4", "Year 9", "Room 101"), not a count
_LABEL_BEFORE = re.compile(
    r"(?:\b(?:year|route|line|gate|room|platform|zone|band|level|tier|grade|stage|step|class|category|group|"
    r"bus|track|unit|floor|no|number|item|table|chapter|section|page|version|mark|size|type|model|plot|"
    r"pitch|bay|seat|row|box|locker|lane|road|street|flat|suite|block|phase|week|day|term|part|option|"
    r"plan|tariff|rule|clause|article|figure|form|hall|studio|court|field)"
    r"|(?-i:\b(?!(?:A|An|The|I|We|My|Our|Your|Its|Their|His|Her|For|In|On|At|By|With|And|Or|If|When|"
    r"Over|About|Only|Just|All|Some|Each|Every|Both|Buy|Book|Order|Add|Take|Need|Get)\b)[A-Z][\w-]*)|#)\s*$",
    re.I,
)


def stated_quantities(question: str) -> list[Quantity]:
    """The quantities ``question`` gives (see the module docstring), in order: what
    :func:`~ioa_p2p.planning.quantities.stated_quantities` reads (durations in words, clock ranges, counts
    of people) once the words that only qualify something are masked."""
    text = re.sub(r"(\d)-(?=[a-z])", r"\1 ", spelled(question))  # "a 3-day hire": 3 days
    masked = _AGE.sub(_mask, _DAYS.sub(_mask, text))
    masked = re.sub(r"(?<![\w.,])(\d+)(?![\w.]|,\d)", lambda m: _label(masked, m), masked)
    return [q for q in read_quantities(masked) if q.unit != "%"]


def _mask(m: re.Match[str]) -> str:
    return re.sub(r"\d", "#", m.group(0))


def _label(masked_text: str, m: re.Match[str]) -> str:
    """A bare number after a label word ("line 4", "Year 9", "Room 101") masked; else as it is."""
    before = masked_text[max(0, m.start() - 24) : m.start()]
    return _mask(m) if _LABEL_BEFORE.search(before) else m.group(0)


_PEOPLE = (
    r"(?:persons?|people|adults?|guests?|passengers?|heads?|participants?|children|child|kids?|members?|"
    r"students?|pupils?|attendees?|delegates?|visitors?|runners?|travell?ers?|seniors?|academics?|staff|"
    r"employees?|riders?|players?|diners?)"
)
_PEOPLE_WORD = re.compile(rf"^{_PEOPLE}$", re.I)
#: a document that prices per person ("EUR 2.88 per person per night", "each adult pays ...")
_PER_PERSON = re.compile(rf"\b(?:per|each|every|a|an)\s+{_PEOPLE}\b|\bpp\b", re.I)
#: a table row priced for one kind of person ("Child (4-17) | 3.50", "- Adults: EUR 12")
_PERSON_ROW = re.compile(rf"^[\s|*-]*{_PEOPLE}\b", re.I | re.M)


def _priced_per_person(found: Value | None) -> bool:
    if found is None:
        return True  # nothing read: every quantity stays required
    rules = found.records.rules if found.records is not None else []
    if any(_PEOPLE_WORD.match(per) for rule in rules for per in rule.per):
        return True
    texts = [*found.evidence, *(r.text for r in found.records.records)] if found.records else found.evidence
    return any(_PER_PERSON.search(t) or _PERSON_ROW.search(t) for t in texts) or not texts


def _numbers(expression: str) -> list[float]:
    return [float(t) for t in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?!\w|\.\d)", expression)]


#: the steps a rule may round a measure up to before it is charged ("rounded up to the next half metre")
_STEPS = (0.1, 0.25, 0.5, 1.0, 5.0, 10.0, 15.0, 30.0, 60.0)


def _used(number: float, numbers: list[float]) -> bool:
    """``number`` (as stated, converted by a unit factor, or rounded up to a step) is in ``numbers``."""
    close = [n for n in numbers for f in _FACTORS if abs(n - number * f) <= 1e-6 * max(1.0, abs(n))]
    rounded = [n for n in numbers if n > number and any(_is_step_up(number, n, step) for step in _STEPS)]
    return bool(close or rounded)


def _is_step_up(number: float, n: float, step: float) -> bool:
    return abs(n - math.ceil(number / step - 1e-9) * step) <= 1e-9 and n - number < step


def _banded(number: float, found: Value | None) -> bool:
    """A band or tier of the found value's typed records holds ``number`` (it selected a row)."""
    records = found.records if found is not None else None
    if records is None:
        return False
    return any(rule.band is not None and rule.band.holds(number) for rule in records.rules)


def _source_lines(found: Value | None) -> list[str]:
    """The lines of the evidence that state the found value (the row or sentence it was read from: "A
    3-day hire of the K2 costs EUR 120" accounts for "a 3-day hire", "5 to 9 years | 27" for "6 years")."""
    if found is None or found.kind != NUMBER or found.number is None:
        return []
    shown = format_number(found.number)
    out = []
    for text in found.evidence:
        for line in text.splitlines():
            plain = re.sub(r"(\d)-(?=[a-z])", r"\1 ", spelled(line)).replace(",", "")
            if shown in plain and found.number in _numbers(plain):
                out.append(plain)
    return out


def _stated_by(quantity: Quantity, line: str) -> bool:
    """The line states the quantity's number, or a band in its unit (one of its cells) that holds it."""
    if quantity.number in _numbers(line):
        return True
    bands = [band_in(cell) for cell in re.split(r"[|;]", line)]
    return any(
        band is not None and band.unit == quantity.unit and band.holds(quantity.number) for band in bands
    )


#: the dimensions of a charge's planned quantities its rules may apply without writing them out (a stay's
#: nights split between two seasons' rates, people a room's price does not count); a measure (kWh, kg, km)
#: the charge never uses is still unaccounted for
_SPLIT = frozenset({"time", "count"})


def unaccounted(
    question: str, expression: str, found: Value | None, taken: Sequence[Quantity] = ()
) -> Missing | None:
    """The first quantity ``question`` gives that ``expression`` (worked out from ``found``) does not
    account for, as the missing rule that would apply it; None when every one is accounted for.
    ``taken`` are the quantities the step itself was planned with (a charge's ``charge(v1; 3 nights)``):
    the rules it applies decide how a duration or a count among them counts (:data:`_SPLIT`)."""
    if re.fullmatch(r"\s*0(?:\s*\*\s*1)?\s*", expression):
        return None  # an exemption ("junior cardholders are never charged"): nothing to apply
    numbers = _numbers(expression)
    lines = _source_lines(found)
    stated = stated_quantities(question)
    for quantity in stated:
        if quantity.number == 1:
            continue  # "one night", "one heating season": one of what the rate is per
        if quantity.dimension in _SPLIT and any(
            t.number == quantity.number and t.unit == quantity.unit for t in taken
        ):
            continue  # nights split between seasons, people a room's price does not count: the rules'
        if _used(quantity.number, numbers) or _banded(quantity.number, found):
            continue
        others = [o.number for o in stated if o is not quantity]
        if any(abs(n - quantity.number * other) <= 1e-9 * max(1.0, n) for n in numbers for other in others):
            continue  # "a 3 m by 0.8 m banner": 2.4 m² used
        if any(_stated_by(quantity, line) for line in lines):
            continue
        if not quantity.unit and _PEOPLE_WORD.match(quantity.what) and not _priced_per_person(found):
            continue  # "two adults in a double room": a room's price counts no people
        thing = quantity.unit or quantity.what
        shown = f"{format_number(quantity.number)} {thing}".strip()
        looked = found.shown() if found is not None and found.kind == NUMBER else "the value found"
        return Missing(
            f"a rule that applies the {shown} the question gives",
            "",
            f"{expression.strip()} (from {looked}) uses none of it",
        )
    return None


__all__ = ["stated_quantities", "unaccounted"]
