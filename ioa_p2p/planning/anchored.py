"""A charge worked out from the price the lookup found and the rules around it (pure).

The retrieval's answer to "What will the young driver surcharge come to for 12 days?" is the price the
question is about ("EUR 14.00 per day, at most EUR 140.00 per rental"); what is still to do is to apply
the rules that govern that price. :func:`anchored_expression` starts from that price (the **anchor**: the
record of the answer document that states the number looked up) and applies, by what the records say
rather than by the question's wording:

1. the **column** whose period holds for the day or month the question names ("Standard entry (1 Jan -
   28 Feb 2027)" for 15 January 2027; "High season (Apr-Oct)" for May: planning/periods.py);
2. its **operands**: what the price is per (its own "per day", or its section's "per room per night"),
   each from a quantity the question states, at most a quantity the rules allow ("at most 10 days
   charged per rental"), with every N-th one free ("the 7th night and every 7th night after it free");
   a measure the question does not state leaves the charge to other derivations (None);
3. its **bounds**: a cap of the same record ("at most EUR 140.00 per rental", a row's "Maximum fine
   per item" cell);
4. **percentages and fixed amounts whose condition the question meets** ("Registered charities get
   25 % off", "Members of a club ... pay EUR 5.00 less", "A chip-timing fee of EUR 2.50 is added": when
   the question names the club or the chip fee), each per item;
5. a **count** the question states of what the price is for ("two library books"), the whole times it;
6. an **exemption**: "Junior cardholders are never charged overdue fines" for a junior card's fine: 0.

Returns (expression, unit) or None when the looked-up value is not a price of the answer document's
records or the price's operands are not all stated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.periods import When, asked_when, holds, period_in
from ioa_p2p.planning.persons import party_expression
from ioa_p2p.planning.quantities import Quantity
from ioa_p2p.planning.records import CAP, PERCENT, RATE, DocRecord, DocRecords
from ioa_p2p.planning.rule_fit import GENERIC, MONEY, ages_in, fit_of, rule_givens, word_weights, words_of
from ioa_p2p.planning.ruled import asks_money, modifiers
from ioa_p2p.planning.values import LIST, NUMBER, Value, format_number, numbers_in

#: what a price may be per that the question must state (a measure, a period)
MEASURES = frozenset({"h", "min", "days", "weeks", "months", "years", "night", "m", "km", "m²", "m³", "kg",
                      "g", "L", "ml", "kWh", "miles"})  # fmt: skip
_PERSONS = frozenset(
    ["adult", "child", "people", "person", "guest", "passenger", "member", "student", "visitor", "pupil",
     "runner", "senior", "participant", "traveller"]
)  # fmt: skip


#: the charge of a question whom the rules exempt from it
EXEMPT = "0 * 1"


@dataclass(frozen=True, slots=True)
class Anchor:
    record: DocRecord
    number: float
    per: tuple[str, ...]
    label: str  # the words of the price (its row's labels and column header, or its sentence)


def anchored_expression(question: str, found: Value | None) -> tuple[str, str] | None:
    """(expression, unit) for a charge question from the price ``found`` and its document's rules."""
    if found is None or found.records is None:
        return None
    asked = re.search(r"\bhow much\b|\bwhat(?:'s| is) the total\b", question, re.I)
    money = asks_money(question) or (bool(asked) and found.unit in MONEY)
    if not money:  # "..., how much?": money when the price looked up is
        return None
    records = found.records
    party = party_expression(question, records)  # "a senior and a student": each kind at its own row
    if party is not None:
        return party, found.unit if found.unit in MONEY else records.currency
    givens = rule_givens(question, records.rules)
    looked = _looked_number(found, givens)
    if looked is None:
        return None
    words = words_of(question)
    weight = word_weights(records)
    anchor = _anchor(records, looked, words, weight)
    if anchor is None:
        return None
    if _SUPPLEMENT.search(anchor.record.text):  # "costs EUR 120 more on every contract": on top of a price
        anchor = _base_of(anchor, records, words, weight)
        if anchor is None:
            return None
    unit = found.unit if found.unit in MONEY else _currency(anchor, records)
    if _exempt(question, words, records, anchor):
        return EXEMPT, unit
    anchor = _in_period(anchor, question)
    amount, used = _applied(anchor, givens, records, question)
    if amount is None:
        return None
    amount = _capped(amount, anchor, records)
    rate_rule = next((r for r in anchor.record.rules if r.kind == RATE and r.number == anchor.number), None)
    banded = givens + ages_in(question)
    if rate_rule is not None:
        for p in modifiers(records.rules, words, weight, banded, rate_rule, PERCENT):
            amount = f"({amount}) * {format_number(1 + p.number / 100)}"
    for sign, n in _fixed(records, anchor, words, weight, question):
        amount = f"{amount} {sign} {format_number(n)}"
    count = _count(givens, used, anchor, question)
    if count is not None:
        amount = f"({amount}) * {format_number(count)}"
    if not re.search(r"[-+*/(]", amount):
        return None  # nothing applied: the value looked up answers
    return amount, unit


def _looked_number(found: Value, givens: list[Quantity]) -> float | None:
    """The price looked up: a number, or the first of a list ("EUR 8, EUR 0.22": the one cited) when
    every other is a price per a measure the question does not state (it cannot apply)."""
    if found.kind == NUMBER and found.number is not None:
        return found.number
    if found.kind != LIST or not found.items or found.items[0].number is None or found.records is None:
        return None
    stated = {g.unit or _UNITS.get(g.what.lower(), "") for g in givens}
    for item in found.items[1:]:
        pers = [r.per for r in found.records.rules if r.kind == RATE and r.number == item.number]
        if not pers or not all(any(p in MEASURES and p not in stated for p in per) for per in pers):
            return None
    return found.items[0].number


def _anchor(
    records: DocRecords, looked: float, words: frozenset[str], weight: dict[str, float]
) -> Anchor | None:
    """The record stating the price looked up whose words fit the question best."""
    best: tuple[float, Anchor] | None = None
    for rec in records.records:
        for number, per, label in _prices(rec):
            if abs(number - looked) > 1e-9:
                continue
            fit = fit_of((words_of(f"{rec.text} {' '.join(rec.section)}") & words) - GENERIC, weight)
            if best is None or fit > best[0]:
                best = (fit, Anchor(rec, number, per, label))
    return best[1] if best is not None and best[0] > 0 else None


_SUPPLEMENT = re.compile(
    r"\b(?:EUR|GBP|USD|CHF)\s*\d+(?:\.\d+)?\s+(?:more|extra)\b|\bsupplement\b|\bon top of\b", re.I
)


def _base_of(supplement: Anchor, records: DocRecords, words: frozenset[str],
             weight: dict[str, float]) -> Anchor | None:  # fmt: skip
    """The price a supplement the lookup found goes on top of: of the section's other prices, the one
    whose words fit the question best (the supplement is added by its own condition, :func:`_fixed`)."""
    best: tuple[float, Anchor] | None = None
    for rec in records.records:
        other = rec is not supplement.record and rec.section == supplement.record.section
        if not other or _SUPPLEMENT.search(rec.text):
            continue
        for number, per, label in _prices(rec):
            fit = fit_of((words_of(f"{rec.text} {label}") & words) - GENERIC, weight)
            if best is None or fit > best[0]:
                best = (fit, Anchor(rec, number, per, label))
    return best[1] if best is not None and best[0] > 0 else None


def _prices(rec: DocRecord) -> list[tuple[float, tuple[str, ...], str]]:
    """(number, what it is per, its label) of each price a record states: its money rates, or (a row of
    a table whose prices carry no currency) its numeric cells, per what its section says."""
    out = [(r.number, r.per, r.when) for r in rec.rules if r.kind == RATE and r.unit in MONEY]
    if out or not rec.cells:
        return out
    per = _section_per(rec) + tuple(
        _UNITS[w] for w in _PER_WORD.findall(" ".join(h for h, _ in rec.cells)) if w in _UNITS
    )
    bare = [(h, c) for h, c in rec.cells[1:] if re.fullmatch(r"\d[\d,]*(?:\.\d+)?", c.strip())]
    priced = [(h, c) for h, c in bare if _MONEY_HEADER.search(h)]  # "Price per year (EUR)"
    for header, cell in priced or bare:
        found = numbers_in(cell)
        if len(found) == 1 and not found[0].unit and not _BOUND.search(header):
            out.append((found[0].number, tuple(dict.fromkeys(per)), f"{rec.cells[0][1]} | {header}"))
    return out


_MONEY_HEADER = re.compile(r"\b(?:price|cost|fee|charge|rate|fare|eur|gbp|usd|chf)\b", re.I)


_PER_WORD = re.compile(r"\bper\s+([a-z]+)", re.I)
_BOUND = re.compile(r"\b(?:maximum|max\.?|at most|cap|capped|sleeps|seats|places|capacity)\b", re.I)
_UNITS = {"day": "days", "days": "days", "night": "night", "nights": "night", "hour": "h", "hours": "h",
          "week": "weeks", "month": "months", "year": "years", "kg": "kg", "km": "km", "litre": "L",
          "liter": "L"}  # fmt: skip


def _section_per(rec: DocRecord) -> tuple[str, ...]:
    heading = rec.section[-1] if rec.section else ""
    return tuple(_UNITS.get(w.lower(), singular(w)) for w in _PER_WORD.findall(heading))


def _in_period(anchor: Anchor, question: str) -> Anchor:
    """The price of the anchor's row in the column whose period holds when the question says."""
    when = asked_when(question)
    if when is None or not anchor.record.cells:
        return anchor
    columns = [(label.split(" | ")[-1], n, per, label) for n, per, label in _prices(anchor.record)]
    own = next((c for c in columns if c[1] == anchor.number), None)
    periods = [(period_in(header), n, per, label) for header, n, per, label in columns]
    if own is not None and (p := period_in(own[0])) is not None and holds(p, when):
        return anchor
    held = [(n, per, label) for p, n, per, label in periods if p is not None and holds(p, when)]
    if len(held) != 1:
        return anchor
    n, per, label = held[0]
    return Anchor(anchor.record, n, per, label)


def _currency(anchor: Anchor, records: DocRecords) -> str:
    text = f"{' '.join(anchor.record.section)} {anchor.record.text}"
    m = re.search(r"\b(EUR|GBP|USD|CHF)\b", text)
    return m.group(1) if m else records.currency


def _given(givens: list[Quantity], unit: str, used: set[int]) -> tuple[float, int] | None:
    for i, g in enumerate(givens):
        if i in used:
            continue
        stated = g.unit or _UNITS.get(g.what.lower(), "")  # "7 nights": a count of nights
        if stated == unit or (unit == "night" and stated == "days"):
            return g.number, i
    return None


def _applied(
    anchor: Anchor, givens: list[Quantity], records: DocRecords, question: str
) -> tuple[str | None, set[int]]:
    """The price times its operands (each measure it is per from a stated quantity, bounded and with free
    ones taken off as the rules say); None when a measure is not stated."""
    parts = [format_number(anchor.number)]
    used: set[int] = set()
    for per in dict.fromkeys(anchor.per):
        if per in MEASURES:
            g = _given(givens, per, used)
            if g is None:
                return None, used
            n, i = g
            used.add(i)
            operand = format_number(n)
            most = _at_most(anchor.record, per)
            if most is not None and most < n:
                operand = f"min({operand}, {format_number(most)})"
            every = _free_every(records, per)
            nightly = _nightly(anchor, question, n) if every is None or n < every else None
            if nightly is not None:  # "arriving 30 March, 3 nights": each night at its own season's price
                parts[0] = nightly
                continue
            if every is not None and n >= every:
                operand = f"({operand} - floor({operand} / {format_number(every)}))"
            parts.append(operand)
            continue
        for i, q in enumerate(givens):  # "per car": a stated count of cars
            if i not in used and not q.unit and q.what and singular(q.what) == singular(per) and q.number > 1:
                used.add(i)
                parts.append(format_number(q.number))
                break
    return " * ".join(parts), used


def _nightly(anchor: Anchor, question: str, nights: float) -> str | None:
    """The nights from the day the question names, each at the price of the column whose period holds
    on it, when they fall in more than one ("112 * 2 + 145"); None otherwise."""
    when = asked_when(question)
    if when is None or when.day is None or nights != int(nights) or not 1 < nights <= 366:
        return None
    columns = [(p, n) for n, _, label in _prices(anchor.record) if (p := period_in(label.split(" | ")[-1]))]
    counts: dict[float, int] = {}
    for k in range(int(nights)):
        held = [n for p, n in columns if holds(p, When(day=when.day + timedelta(days=k)))]
        if len(held) != 1:
            return None
        counts[held[0]] = counts.get(held[0], 0) + 1
    if len(counts) < 2:
        return None
    return " + ".join(f"{format_number(n)} * {c}" for n, c in counts.items())


_UNIT_RE = r"(days?|nights?|hours?|weeks?|months?)"


def _at_most(rec: DocRecord, per: str) -> float | None:
    """ "at most 10 days charged per rental": the most of ``per`` a price counts."""
    text = f"{' '.join(rec.section[-1:])} {rec.text}"
    for m in re.finditer(rf"\b(?:at most|up to|maximum of|no more than)\s+(\d+)\s+{_UNIT_RE}", text, re.I):
        if _UNITS.get(m.group(2).lower().rstrip("s"), "") == per or _UNITS.get(m.group(2).lower()) == per:
            return float(m.group(1))
    return None


def _free_every(records: DocRecords, per: str) -> float | None:
    """ "the 7th night and every 7th night after it free": every N-th of ``per`` is free."""
    for rec in records.records:
        m = re.search(rf"\bevery (\d+)(?:st|nd|rd|th) {_UNIT_RE}\b[^.]*?\bfree\b", rec.text, re.I)
        if m and _UNITS.get(m.group(2).lower()) == per:
            return float(m.group(1))
    return None


def _capped(amount: str, anchor: Anchor, records: DocRecords) -> str:
    """The amount at most a cap of the same record ("at most EUR 140.00 per rental", a row's "Maximum
    fine per item")."""
    rec = anchor.record
    caps: list[float] = []
    after = False  # the caps stated after the price and before the record's next price are its own
    for r in rec.rules:
        if r.kind == RATE and r.unit in MONEY:
            after = r.number == anchor.number
        elif after and r.kind == CAP and r.unit in MONEY:
            caps.append(r.number)
    for header, cell in rec.cells[1:]:
        found = numbers_in(cell)
        if _BOUND.search(header) and len(found) == 1 and (found[0].unit in MONEY or not found[0].unit):
            caps.append(found[0].number)
    caps = [c for c in caps if c > anchor.number]
    return f"min({amount}, {format_number(min(caps))})" if caps and " * " in amount else amount


_LESS = re.compile(r"\b(?:EUR|GBP|USD|CHF)\s*(\d+(?:\.\d+)?)\s+(?P<how>less|off|more|extra)\b", re.I)
_ADDED = re.compile(
    r"\b(?:EUR|GBP|USD|CHF)\s*(\d+(?:\.\d+)?)\s+(?:is|are)\s+(?:added|charged on top|payable on top)\b", re.I
)
_SUBJECT = re.compile(r"^(.*?)\b(?:pay|pays|get|gets|receive|receives|costs?)\b", re.I)
_EVERY = re.compile(r"\b(?:to|on|for)\s+(?:every|each|any)\s+([a-z]+)", re.I)


def _fixed(records: DocRecords, anchor: Anchor, words: frozenset[str],
           weight: dict[str, float], question: str) -> list[tuple[str, float]]:  # fmt: skip
    """Fixed amounts of the anchor's section whose condition the question meets: "Members of a club
    ... pay EUR 5.00 less" (its subject's words are the question's), "A chip-timing fee of EUR 2.50 is
    added to every entry" (the question names the fee)."""
    out: list[tuple[str, float]] = []
    own = words_of(anchor.label) | words_of(anchor.record.text)
    for rec in records.records:
        if rec is anchor.record or rec.section != anchor.record.section or rec.cells:
            continue
        less = _LESS.search(rec.text)
        subject = _SUBJECT.match(rec.text)
        who = words_of(subject.group(1)) - GENERIC if subject else frozenset()
        named = bool(who) and who <= words  # "The VC-24R costs EUR 120 more": the question's VC-24R
        if less and (named or fit_of((who & words) - own, weight) >= 0.5) and not _negated(who, question):
            out.append(("-" if less.group("how").lower() in ("less", "off") else "+", float(less.group(1))))
        added = _ADDED.search(rec.text)
        if added:
            name = words_of(rec.text[: added.start()]) - GENERIC - own
            every = _EVERY.search(rec.text[added.end() :])  # "is added to every entry": an entry's price
            kinds = {singular(w) for w in own | words | words_of(" ".join(anchor.record.section[-1:]))}
            if name & words or (every and singular(every.group(1)) in kinds):  # "Entry fees": an entry
                out.append(("+", float(added.group(1))))
    return out


_NEGATION = re.compile(r"\b(?:no|not|nobody|none|neither|nor|without|non)\b[^.;,]*$", re.I)


def _negated(who: frozenset[str], question: str) -> bool:
    """Whether the question denies whom a condition is about ("nobody is in a club")."""
    for w in who:
        m = re.search(rf"\b{re.escape(w)}", question, re.I)
        if m and _NEGATION.search(question[max(0, m.start() - 30) : m.start()]):
            return True
    return False


def _count(givens: list[Quantity], used: set[int], anchor: Anchor, question: str) -> float | None:
    """A count the question states of what the price is for ("two library books", "30 pupils")."""
    own = {singular(w) for w in words_of(f"{anchor.label} {' '.join(anchor.record.section[-1:])}")}
    for i, g in enumerate(givens):
        if i in used or g.unit or not g.what or g.number <= 1 or g.number != int(g.number):
            continue
        thing = singular(g.what)
        if re.search(rf"\b(?:each|per|every|a single|one) {re.escape(thing)}", question, re.I):
            continue  # "240 parcels ... what does each parcel cost?": the price of one
        per_thing = [p for p in anchor.per if p not in MEASURES]  # "per room": not per person
        if thing in own or (thing in _PERSONS and (own & _PERSONS or not per_thing)):
            return g.number  # "30 pupils", "six of us" for a price per person (or per nothing else)
    return None


_NEVER = re.compile(
    r"\b(?:are|is)\s+never\s+(?:charged|fined)\b|\bpays?\s+no\b|\b(?:are|is)\s+exempt\s+from\b"
    r"|\b(?:are|is)\s+not\s+(?:charged|fined)\b",
    re.I,
)


_FUNCTION = frozenset({"the", "a", "an", "of", "on", "for", "to", "in", "any", "and", "or"})


def _exempt(question: str, words: frozenset[str], records: DocRecords, anchor: Anchor) -> bool:
    """A rule that exempts whom the question is about from what it asks for: "Junior cardholders are
    never charged overdue fines" for a junior card's fine."""
    asked = {singular(w) for w in re.findall(r"[a-z]+", question.lower())}
    for rec in records.records:
        for sentence in re.split(r"(?<=[.;])\s+", rec.text):
            m = _NEVER.search(sentence)
            if not m:
                continue
            head = sentence[: m.start()].rpartition(":")[2]  # "Junior card (...): free. Junior cardholders"
            subject = _named_whole(head, words, words_of(anchor.label))
            what = {singular(w) for w in re.findall(r"[a-z]+", sentence[m.end() :].lower())} - _FUNCTION
            if subject and what & asked:
                return True
    return False


def _named_whole(head: str, words: frozenset[str], label: frozenset[str]) -> bool:
    """Whether the question names one of the classes an exemption lists ("community amateur sports clubs
    and charities ...") by at least half of its words: "our club account" is no amateur sports club."""
    for part in re.split(r",|;|\band\b|\bor\b", head):
        own = words_of(part) - GENERIC - label
        named = own & words
        if named and 2 * len(named) >= len(own):
            return True
    return False
