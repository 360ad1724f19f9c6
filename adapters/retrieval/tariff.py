"""What an amount is charged per, and the terms it is charged on (pure): a document's rules as data.

An amount found for a question about a price ("EUR 1.80" in a row whose column is "Charge per hour") is
read with:

- **per**: the units it is charged per, from the words after it ("EUR 38 per guard per hour", "0.32 per
  km", "EUR 25 for each day or part of a day") or its column's header ("Charge per hour", "RATE/h") or the
  document's own note ("All rates in EUR per hour");
- **terms** stated in the same row or sentence, or in the rules of the documents of the same folder:
  increments ("per started 15 minutes", "each day or part of a day", "a booking that starts or ends
  part-way through an hour is charged for the whole hour"), a minimum quantity ("minimum hire 3 hours", a
  "MIN. HIRE (hours)" column, "a 10-minute minimum per job"), a cap ("Daily cap" column, "capped at EUR
  X"), a free allowance ("the first 24 hours are free", "get the first two hours free") and a percentage
  off ("Registered charities receive 15 % off room hire") - from another sentence only when the question
  names the case it is granted for (the charity, the cancellation), never on a plain price;
- **for**: a measure the question states that the amount's own row states too ("a 90-minute lesson" and
  "Motorway lesson | 90 min | 84.00"): a fixed price for that much, not a price per a unit of it.

A rule applies only when the request meets its conditions: a rule sentence that names something (a
capitalised name, a bold phrase: "In the Station Road car park Blue Badge holders ... get the first two
hours free") counts only when the question names it too; rules of superseded documents or sections never
count. :func:`charge_terms` returns the terms as ``(name, value)`` pairs, the form
:class:`~ioa_p2p.planning.values.Value` carries them in (``planning/tariffs.py`` applies them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ioa_p2p.adapters.retrieval.facts import Fact, section_of, terms
from ioa_p2p.planning.answer_types import MONEY_UNITS, answer_type
from ioa_p2p.planning.expr import WORD_NUMBERS
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.units import unit_in_header
from ioa_p2p.planning.values import ALIASES, Value, numbers_in

_NUM = r"(\d+(?:\.\d+)?|" + "|".join(w for w in WORD_NUMBERS if " " not in w) + r")"
#: per-unit words -> the unit (a count of a thing keeps its noun)
PER_UNITS = {
    "hour": "h", "hours": "h", "h": "h", "hr": "h", "minute": "min", "minutes": "min", "min": "min",
    "day": "days", "days": "days", "24 hours": "days", "week": "weeks", "month": "months", "year": "years",
    "km": "km", "kilometre": "km", "kilometer": "km", "mile": "miles", "kwh": "kWh", "kg": "kg",
    "metre": "m", "meter": "m", "m": "m", "m²": "m²", "m2": "m²", "square metre": "m²", "litre": "L",
}  # fmt: skip
_PER_AFTER = re.compile(
    r"^\s*(?:/\s*|per |an? |each |for each |for every |every )(?:started )?(?:(?:\d+|one) )?"
    r"(square metre|24 hours|[a-z²]+)\b",
    re.I,
)
_PER_HEADER = re.compile(r"(?:per |/)\s*(square metre|[a-z²]+)\b", re.I)
_NOTE_PER = re.compile(r"\ball (?:rates|prices|charges|fees)\b[^.]*?\bper ([a-z]+)\b", re.I)

_STEP = (
    re.compile(rf"\bper started {_NUM} (minutes?|hours?|days?)\b", re.I),
    re.compile(
        rf"\b(?:each|every|per|for each) (?:started )?(?:{_NUM} )?(minute|hour|day|night|week|km|metre)s? "
        r"or part\b",
        re.I,
    ),  # fmt: skip
    re.compile(r"\bpart[- ](hour|day)s? (?:are|is) charged as (?:a )?(?:whole|full)", re.I),
    re.compile(r"\b(?:starts|ends|begins)\b[^.]*\bpart[- ]way through an? (hour|day)\b[^.]*\bwhole\b", re.I),
    re.compile(r"\bin whole (hours|days)\b", re.I),
)
_MINIMUM = (
    re.compile(
        rf"\b(?:minimum|min\.)(?: hire| charge| booking| stay| time| job)?(?: is| of)?:? {_NUM}[- ]"
        r"(minutes?|hours?|days?|nights?)\b",
        re.I,
    ),  # fmt: skip
    re.compile(rf"\b{_NUM}[- ](minute|hour|day|night)s?\)? minimum\b", re.I),
    re.compile(r"\bminimum charge\b[^.]*\bis (?:one|a) (quarter) hour\b", re.I),
)
_FREE = re.compile(rf"\bfirst {_NUM} (minutes?|hours?|days?|nights?)\b[^.]{{0,40}}?\bfree\b", re.I)
_CAP = re.compile(
    r"\b(?:capped at|cap(?: is| of)|maximum (?:charge|fee)(?: is| of)?)\s*(?:EUR|€)\s?(\d[\d,]*(?:\.\d+)?)",
    re.I,
)
_OFF = re.compile(r"\b(\d+(?:\.\d+)?)\s?% (?:off|discount|reduction)\b", re.I)
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?: [A-Z][a-z]+)+)\b")
_TERM_WORDS = re.compile(r"minimum|minutes?|hours?|days?|started|free|cap|off|per|part|whole|\d", re.I)


def _number(word: str) -> float:
    return float(word) if re.match(r"\d", word) else float(WORD_NUMBERS.get(word.lower(), 1))


def _unit(word: str) -> str:
    word = word.lower()
    if word == "quarter":
        return "min"
    return PER_UNITS.get(word, PER_UNITS.get(word.rstrip("s"), ALIASES.get(word, "")))


def rate_per(fact: Fact, value: Value, notes: Sequence[str] = ()) -> list[str]:
    """The units ``value`` (an amount in ``fact``) is charged per: after it, else its column's header,
    else a note of its document ("All rates in EUR per hour"); [] for a fixed amount."""
    if fact.cells:
        for header, cell in fact.cells:
            if any(n.number == value.number for n in numbers_in(cell)):
                after = _after(cell, value)
                found = after or [
                    _unit(m.group(1)) or m.group(1).lower() for m in _PER_HEADER.finditer(header)
                ]
                if found:
                    return found
                break
    else:
        after = _after(fact.text.split("\0")[0], value)
        if after:
            return after
    for note in notes:
        m = _NOTE_PER.search(note)
        if m:
            return [_unit(m.group(1)) or m.group(1).lower()]
    return []


def _after(text: str, value: Value) -> list[str]:
    for n in numbers_in(text):
        if n.number != value.number:
            continue
        rest = text[n.end :]
        out: list[str] = []
        while (m := _PER_AFTER.match(rest)) is not None and len(out) < 3:
            word = m.group(1).lower()
            if word in ("or", "and", "the", "cent", "eur"):
                break
            out.append(_unit(word) or word)
            rest = rest[m.end() :]
        return out
    return []


_DIMENSION_WORDS = {
    "time": r"hours?|h|hr|minutes?|min|days?|nights?|24 hours",
    "length": r"km|kilometres?|kilometers?|miles?|metres?|meters?|m",
    "energy": r"kwh|wh",
    "mass": r"kg|kilograms?|tonnes?|t",
    "area": r"m²|m2|square metres?",
}


def per_dimension_pattern(dimensions: Sequence[str]) -> re.Pattern[str] | None:
    """A pattern for "per <unit>" / "/<unit>" of any of ``dimensions`` (a rate to apply to a quantity)."""
    words = "|".join(_DIMENSION_WORDS[d] for d in dimensions if d in _DIMENSION_WORDS)
    if not words:
        return None
    return re.compile(rf"(?:\bper (?:started )?(?:\d+ )?|/\s*|\ban? |\beach )(?:{words})\b", re.I)


def applies(sentence: str, question: str) -> bool:
    """A rule applies unless it names something (a bold phrase, a name) the question does not."""
    q = terms(question)
    sentence = "**" + sentence if sentence.count("**") % 2 else sentence  # "- **X** ..." cut after "- **"
    named = [b for b in _BOLD.findall(sentence) if not _TERM_WORDS.search(b)]
    named += [m.group(1) for m in _NAME.finditer(sentence.replace("**", ""))]
    return all(terms(n) & q for n in named)


def charge_terms(
    question: str, fact: Fact, value: Value, rules: Sequence[Fact]
) -> tuple[tuple[str, str], ...]:
    """The per-units and the terms of the amount ``value`` read in ``fact`` (see the module docstring);
    ``rules`` are the facts of the documents of the same folder."""
    notes = [f.text for f in rules if f.path == fact.path and f.line <= 3]
    out: list[tuple[str, str]] = [("per", u) for u in rate_per(fact, value, notes)]
    if fact.cells:
        for header, cell in fact.cells:
            low = header.lower()
            if re.search(r"\bcap\b|maximum charge", low):
                money = [n for n in numbers_in(cell) if n.unit in ("EUR", "USD") or not n.unit]
                if money:
                    out.append(("cap", f"{money[0].number:g}"))
            elif re.search(r"\bmin(?:imum|\.)", low):
                unit = unit_in_header(header, ALIASES) or next(
                    (_unit(w) for w in re.findall(r"[a-z]+", low) if _unit(w) and w not in ("min", "m")), ""
                )
                nums = numbers_in(cell)
                if nums and unit:
                    out.append(("minimum", f"{nums[0].number:g} {nums[0].unit or unit}"))
    own = fact.text.split("\0")[0]
    if not any(name == "per" for name, _ in out):  # "Motorway lesson | 90 min | 84.00": the price of 90 min
        out += [("for", q) for q in _stated_in(question, own, value)]
    seen = {k for k, _ in out}
    # the topic in common words (names connect every rule of a company's documents)
    plain = re.sub(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'-]*", " ", question)
    topic = (terms(plain) | terms(re.sub(r"\b[A-Z][\w'-]*", " ", own))) - _GENERIC
    usable = [f.text.split("\0")[0] for f in rules if _usable(f, fact, question, topic)]
    for rule in [own, *usable]:
        for name, found in _terms_in(rule):
            if name == "discount" and rule is not own and not _benefit_meets(rule, own, question):
                continue  # "students get 8 % off", "if the instructor cancels ... 15 % off": not asked
            if name not in seen:
                out.append((name, found))
                seen.add(name)
    return tuple(out[:12])


def _usable(rule: Fact, fact: Fact, question: str, topic: set[str]) -> bool:
    """A rule of the same folder counts when it is in force, on the topic (its section's heading shares a
    word with the question or the amount's own row or sentence) and its conditions are met."""
    if rule.cells or rule.text == fact.text or "\0superseded" in rule.context:
        return False
    if not _overlap(terms(section_of(rule)) - _GENERIC, topic):
        return False
    leaf = section_of(rule).split(">")[
        -1
    ]  # a sibling section ("3.2 Cycling" beside "3.1 Mileage"): its own topic
    if section_of(rule) != section_of(fact) and not _overlap(terms(leaf) - _GENERIC, topic):
        return False
    return applies(rule.text.split("\0")[0], question)


def _stated_in(question: str, own: str, value: Value) -> list[str]:
    """The measures the question states ("a 90-minute lesson") that the amount's own row or sentence states
    too ("90 min"): a fixed price for that much, not a price per a unit of it."""
    found = [n for n in numbers_in(own) if n.unit and n.number != value.number]
    return [
        f"{q.number:g} {q.unit}"
        for q in stated_quantities(question)
        if q.unit and any(n.number == q.number and ALIASES.get(n.unit, n.unit) == q.unit for n in found)
    ]


def _benefit_meets(rule: str, own: str, question: str) -> bool:
    """A percentage off stated in another sentence is for someone or some case ("Registered charities
    receive 15 % off room hire", "if the instructor cancels, a voucher for 15 % off"): it counts when the
    question names that case - a word of the rule beyond the priced thing's own row or sentence, the words
    every price rule uses and the words of a discount itself."""
    case = terms(_OFF.sub(" ", rule)) - terms(own) - _GENERIC - _BENEFIT_WORDS
    named = terms(_NAMES.sub(" ", question))  # "Fernmoor Riding School": who charges, not the case
    return bool({t for t in case if not t[0].isdigit()} & named)


_NAMES = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'-]*")
#: the words of granting a discount: no case in them
_BENEFIT_WORDS = frozenset(
    {"get", "gets", "receive", "receiv", "give", "given", "off", "discount", "reduction", "all", "any",
     "also", "can", "may", "will", "voucher", "next", "their", "your", "you", "our", "we", "they"}
)  # fmt: skip


def _overlap(a: set[str], b: set[str]) -> bool:
    """Two sets of terms share a word, or one's word begins the other's ("moor", "mooring")."""
    return bool(a & b) or any(len(x) >= 4 and len(y) >= 4 and (x.startswith(y) or y.startswith(x))
                              for x in a for y in b)  # fmt: skip


#: words every price rule uses: no topic in them
_GENERIC = frozenset(
    {"charge", "rate", "price", "fee", "cost", "pay", "hour", "day", "minute", "eur", "part", "rule",
     "schedule", "how", "table", "note", "general", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
)  # fmt: skip


def _terms_in(sentence: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    text = sentence.replace("**", "")
    for pattern in _STEP:
        m = pattern.search(text)
        if m:
            groups = [g for g in m.groups() if g]
            count = _number(groups[0]) if len(groups) == 2 else 1.0
            out.append(("step", f"{count:g} {_unit(groups[-1])}"))
            break
    for pattern in _MINIMUM:
        m = pattern.search(text)
        if m:
            if m.group(1).lower() == "quarter":
                out.append(("minimum", "15 min"))
            else:
                out.append(("minimum", f"{_number(m.group(1)):g} {_unit(m.group(2))}"))
            break
    m = _FREE.search(text)
    if m:
        out.append(("free", f"{_number(m.group(1)):g} {_unit(m.group(2))}"))
    m = _CAP.search(text)
    if m:
        out.append(("cap", m.group(1).replace(",", "")))
    m = _OFF.search(text)
    if m:
        out.append(("discount", f"{m.group(1)} %"))
    return out


def asks_price(question: str) -> bool:
    """The question asks what something costs."""
    return answer_type(question).kind == "amount" or bool(_PRICE_WORDS.search(question))


def charged(question: str, value: Value) -> bool:
    """The question asks what something costs and the value is an amount of money."""
    money = value.unit in MONEY_UNITS or (not value.unit and answer_type(question).kind == "amount")
    asked = answer_type(question).kind == "amount" or bool(_PRICE_WORDS.search(question))
    return value.kind == "number" and money and asked


_PRICE_WORDS = re.compile(
    r"\b(?:cost|costs|price|pay|charge|charged|fee|fees|fine|fines|rate|bill|hire|come to|worth|"
    r"claim|owe|how much)\b",
    re.I,
)


__all__ = [
    "asks_price",
    "charged",
    "PER_UNITS",
    "applies",
    "charge_terms",
    "per_dimension_pattern",
    "rate_per",
]
