"""A charge composed of several of a document's rules (pure): the solver for natural questions that need
more than one rule (issue 23, class 7).

"What do three friends pay for dorm beds for 4 nights, with the tourist tax?" needs the bed's rate per
person per night, the tax's rate per person per night, and the long-stay discount whose condition (7
nights or longer) does not hold. :func:`composed_charge` works from the typed rules of the document the
lookup came from (:func:`~ioa_p2p.planning.rulebook.rulebook`) and the quantities the question gives
(measures with units, counts of things, the people and their ages: planning/party.py):

1. the **asked quantity** is an amount of money (a question that asks for another quantity is not its);
2. the **base**: each rate of the document is a candidate; its words before the amount (a row's, a
   field's name) must fit the question's words, its band must hold for a given quantity, and every
   measure it is per must be given (converted to its unit, over the quantity it is stated over, started
   periods in full); a first period takes the further periods that follow it (``24 + ceil(max(75 - 30,
   0) / 15) * 7``); a count it is per is the party's head count (people), a given count of that thing, or
   one (the question names one room, one parcel);
3. **other charges the question names** (words only that charge's record has: "tourist tax", "Saturday
   delivery", "wetsuits"), each on its own terms, sharing the question's quantities;
4. **percentages** whose condition holds (a threshold on a given quantity, people of an age for the
   rate of their record: "children under 12 eat for half price") or whose subject the question names;
   a discount is off the base only (never off what it says it is not off), a surcharge adds at least its
   minimum; VAT when the question asks for it;
5. every quantity the question gives must be used (as an operand, to choose a band, or to meet a
   condition); otherwise, or when two bases fit equally and give different amounts, there is no
   composition (None) and the planner's other readings answer or refuse.

The chain is at most a base, two other charges and the percentages that apply (depth <= 3 charges).
:func:`composed_rate` is the same reading for "what is X per minute": a rate stated over another
quantity ("EUR 18 per 45 minutes") divided out.
"""

from __future__ import annotations

import math
import re

from ioa_p2p.planning.doc_facts import WORD_NUMBERS, convert, singular
from ioa_p2p.planning.party import Member, head_count, party_of
from ioa_p2p.planning.quantities import Quantity
from ioa_p2p.planning.records import VAT, DocRecords
from ioa_p2p.planning.rule_fit import GENERIC, words_of
from ioa_p2p.planning.rule_part import (
    PERSON_WORDS,
    Part,
    bounded,
    conv,
    group,
    part_of,
    question_givens,
    unit_of,
)
from ioa_p2p.planning.rulebook import MEASURES, Rulebook, Term, rulebook
from ioa_p2p.planning.ruled import asks_money
from ioa_p2p.planning.values import format_number

MAX_EXTRAS = 2
#: how many of the best-fitting rates are tried as the base of a chain
MAX_BASES = 3
#: how well another charge's own words must fit the question to be named by it
NAMED = 0.9


def composed_charge(
    question: str, records: DocRecords | None, *, vat: bool = True, looked: tuple[float, ...] | None = None
) -> tuple[str, str] | None:
    """(expression, currency) of the charge the question asks for (see the module docstring), or None;
    ``vat=False`` leaves VAT to a step of its own; ``looked``: the amounts the lookup found, one of which
    must be in the chain (None: the lookup found none, the rules alone decide)."""
    if records is None or not _asks_charge(question) or _RATE_ASKED.search(question):
        return None
    book = rulebook(records)
    party = party_of(question)
    givens = question_givens(question, records, party)
    if _COMPARES.search(question):
        return None  # a saving or a difference: two charges compared, not one composed
    words = words_of(question) - GENERIC
    asked = words - _added(question)  # the charges added ("with the tourist tax") do not choose the base
    bases = [
        p for t in book.rates if not t.beyond and (p := part_of(t, book, givens, party, asked, base=True))
    ]
    bases = [_period_capped(bounded(p, book), book, givens) for p in bases if p.score >= 1.0]
    if not bases:
        return None
    bases.sort(key=lambda p: (len(p.used), p.score), reverse=True)  # the one that uses most, then fits best
    chains = []  # (the base's rank, the chain) for each base whose chain closes
    for base in bases[:MAX_BASES]:
        chain = _chain(base, book, records, givens, party, question, vat, looked)
        if chain is not None:
            chains.append(((len(base.used), base.score), chain))
    if not chains:
        return None
    if len(chains) > 1 and chains[1][0] == chains[0][0] and chains[1][1][0] != chains[0][1][0]:
        return None  # two chains fit as well and disagree: not for this solver to choose
    return chains[0][1]


def _chain(base: Part, book: Rulebook, records: DocRecords, givens: list[Quantity],
           party: tuple[Member, ...] | None, question: str, vat: bool,
           looked: tuple[float, ...] | None) -> tuple[str, str] | None:  # fmt: skip
    """The charge built on ``base``: its percentages, the other charges the question names, VAT; None
    unless it uses every given quantity, composes more than one rule and leaves out no rule the question
    names (see the module docstring)."""
    words = words_of(question) - GENERIC
    used, people, composite = set(base.used), base.people, base.composite
    judged: list[int] = []  # the records of the percentages weighed
    expr = _with_percents(book, base, givens, party, words, used, judged)
    used_records = {base.term.rule.record, *judged}
    composite = composite or bool(judged)
    extras = _extras(book, base, givens, party, question)
    if len(extras) > MAX_EXTRAS:
        return None
    for extra in extras:
        used_records.add(extra.term.rule.record)
        expr = f"{expr} + {extra.expr}"
        used |= extra.used
        people = people or extra.people
        composite = True
    if party is not None and not base.people and _EACH.search(question):  # "eight friends each hire one"
        expr = f"({expr}) * {format_number(head_count(party))}"
        people = composite = True
    used_records |= {b.record for p in (base, *extras) for b in book.bounds(p.term)}
    used_records |= {t.rule.record for t in book.terms if t.kind == VAT}  # asked for or not, it is VAT
    if vat and _WITH_VAT.search(question) and not _NO_VAT.search(question) and book.vat is not None:
        expr = f"({expr}) * {format_number(1 + book.vat / 100)}"
    if {i for i, g in enumerate(givens) if g.unit or g.number != 1.0} - used:
        return None  # a quantity the question gives is not accounted for (planning/accounted.py); "one tent"
        # counts one of what the charge is for
    if party is not None and _counts_people(question, party) and not people:
        return None
    if not composite:
        return None  # one rule applied as it is: the planner's single-rule readings (ruled.py) answer it
    if looked is not None and not any(_among(p.term.number, looked) for p in (base, *extras)):
        return None  # the price the lookup found is in no part of the chain: another reading of the question
    if _named_unused(book, records, base, extras, used_records, words - _names(question)):
        return None  # a rule the question names is not in the chain: the chain is not the whole answer
    return expr, records.currency or base.term.rule.unit


def composed_rate(question: str, records: DocRecords | None) -> tuple[str, str] | None:
    """ "What is X per minute?": the rate of X, stated over another quantity, per one of the unit asked."""
    m = _RATE_ASKED.search(question)
    if records is None or m is None:
        return None
    book = rulebook(records)
    unit = unit_of(m.group(1))
    words = words_of(question) - GENERIC
    fits = [(book.fit(t.lead & words), t) for t in book.rates if t.measure and not t.beyond and not t.first]
    fits = [(s, t) for s, t in fits if s >= 1.0 and convert(t.measure, unit) is not None]
    if not fits:
        return None
    fits.sort(key=lambda x: x[0], reverse=True)
    if len(fits) > 1 and fits[1][0] == fits[0][0]:
        return None
    t = fits[0][1]
    over = t.over * (convert(t.measure, unit) or 1.0)
    return f"{format_number(t.number)} / {format_number(over)}", f"{t.rule.unit}/{unit}"


# --------------------------------------------------------------------------------------------- internals

_RATE_ASKED = re.compile(r"\bper (minute|hour|day|night|km|kilometre|kg|kilo|litre|metre)\s*[?.]?\s*$", re.I)
_WITH_VAT = re.compile(r"\b(?:with|including|incl\.?|inclusive of|plus|and) (?:the )?vat\b|\bvat included\b",
                       re.I)  # fmt: skip
_NO_VAT = re.compile(r"\b(?:before|excluding|excl\.?|without|net of)\b[^.?]*\bvat\b", re.I)
_NOT_ADDED = re.compile(
    r"\b(?:without|excluding|not including|leaving out|leave out|not counting|apart from)\b", re.I
)
_COMPARES = re.compile(r"\bsav(?:e|es|ing|ings)\b|\binstead of\b|\brather than\b|\bdifference\b|"
                       r"\bcompared (?:to|with)\b|\bmore than\b|\bcheaper\b", re.I)  # fmt: skip
_ADDED = re.compile(
    r"\b(?:with|plus|including|incl\.?|also|(?:we |both |all )?(?:need|needs))\s+"
    r"(?:the\s+|a\s+|an\s+|our\s+|some\s+)?([a-z-]+(?:\s+[a-z-]+){0,2})|\b([a-z-]+(?:\s+[a-z-]+)?)\s+included\b",
    re.I,
)
#: words that name no charge: what a rule does, what a customer does
_SAYS_NOTHING = frozenset(
    re.findall(
        r"\w+",
        "included include includes including costs charged charges stay stays staying book books booking "
        "booked hire hires hiring hired take takes taking use uses using send sends sending need needs want "
        "wants pay pays paying paid get gets buy buys buying added add",
    )
)
_NUMBER_WORDS = frozenset(WORD_NUMBERS)
_EACH = re.compile(r"\beach\b(?! way)", re.I)


def _among(number: float, looked: tuple[float, ...]) -> bool:
    return any(abs(number - n) < 1e-9 for n in looked)


def _asks_charge(question: str) -> bool:
    """An amount of money: what the answer types say, or "what's my total", "what will the bill come to"."""
    if asks_money(question):
        return True
    return bool(_TOTAL_ASKED.search(question)) and not _OTHER_ASKED.search(question)


_TOTAL_ASKED = re.compile(r"\b(?:total|bill|come to|comes to|altogether|in all)\b", re.I)
_OTHER_ASKED = re.compile(r"\bhow (?:many|long|far|often|heavy)\b|\bwhen\b|\bwhat time\b", re.I)


def _with_percents(book: Rulebook, base: Part, givens: list[Quantity], party: tuple[Member, ...] | None,
                   words: frozenset[str], used: set[int], judged: list[int]) -> str:  # fmt: skip
    """The base's amount after the percentages that apply to it; ``judged`` gets one entry per percentage
    whose condition was weighed (held or not): a composition even when none applies."""
    expr = base.expr
    for p in book.percents:
        if p.ages is not None and p.rule.record == base.term.rule.record:
            continue  # by age, per person: in the head count (_heads)
        applies = False
        if p.rule.band is not None and p.condition is None:  # "teams of 4 to 10 runners": a count in a band
            held = _in_band(p, givens, party)
            if held is None:
                continue
            judged.append(p.rule.record)
            if held < 0:
                continue
            used.add(held) if held < len(givens) else None
            applies = True
        elif p.condition is not None:
            i = _meets(p, givens, party)
            if i is None:
                judged.extend([p.rule.record] if _about(p, givens, party) else [])
                continue
            if i >= 0:
                used.add(i)
            applies = True
        elif p.ages is None:
            own = p.lead - base.term.words - base.term.lead  # whom it is for: its subject
            applies = book.fit(own & words) >= NAMED
        if not applies or (p.not_off and p.not_off & base.term.lead):
            continue
        judged.append(p.rule.record)
        share = format_number(abs(p.number) / 100)
        if p.number < 0:
            expr = f"{group(expr)} * {format_number(1 + p.number / 100)}"
        elif p.at_least:
            expr = f"{expr} + max({group(base.expr)} * {share}, {format_number(p.at_least)})"
        else:
            expr = f"{expr} + {group(base.expr)} * {share}"
    return expr


def _period_capped(base: Part, book: Rulebook, givens: list[Quantity]) -> Part:
    """A charge by a shorter period at most the price of the longer periods it spans, where the document
    says so ("a single day's hire never costs more than the day price": 7 hours at EUR 9 an hour, EUR 45
    a day, is ``min(9 * 7, 45 * 1)``); the longer period's rate is the one of the base's own record."""
    t = base.term
    if not book.period_cap or not t.measure or convert(t.measure, "min") is None:
        return base
    longer = [x for x in book.rates if x.rule.record == t.rule.record and x is not t and x.measure
              and (k := convert(x.measure, t.measure)) is not None and k * x.over > t.over]  # fmt: skip
    given = next((g for i, g in enumerate(givens) if i in base.used and g.unit
                  and convert(g.unit, t.measure) is not None), None)  # fmt: skip
    if not longer or given is None:
        return base
    cap = min(longer, key=lambda x: (convert(x.measure, t.measure) or 0.0) * x.over)
    spans = (convert(given.unit, cap.measure) or 0.0) * given.number / cap.over
    periods = format_number(float(math.ceil(spans - 1e-9)))
    expr = f"min({base.expr}, {format_number(cap.number)} * {periods})"
    return Part(t, expr, base.used, base.score, base.people, True)


def _in_band(p: Term, givens: list[Quantity], party: tuple[Member, ...] | None) -> int | None:
    """A percentage's band ("teams of 4 to 10", "groups of 6 or more") against the question's count: the
    given's index (len(givens) for the party), -1 when the count is outside it, None when none is given."""
    band = p.rule.band
    assert band is not None
    if band.unit:
        for i, g in enumerate(givens):
            if g.unit and (k := conv(g.unit, band.unit)) is not None:
                return i if band.holds(g.number * k) else -1
        return None
    counts = [(i, g.number) for i, g in enumerate(givens) if not g.unit and g.what]
    if party is not None:
        counts.append((len(givens), head_count(party)))
    for i, n in counts:
        return i if band.holds(n) else -1
    return None


def _named_unused(book: Rulebook, records: DocRecords, base: Part, extras: list[Part], used: set[int],
                  words: frozenset[str]) -> bool:  # fmt: skip
    """Whether a record that states an amount or a percentage, and that the question names by words of its
    own (not the base's, not the document's name), is left out of the chain ("club members pay EUR 5.00
    less" for "a club-affiliated runner")."""
    known = base.term.words | base.term.lead | book.about
    for part in extras:
        known = known | part.term.lead
    for i, record in enumerate(records.records):
        if i in used or not record.rules:
            continue
        # what it is per names nothing ("EUR 2.50 per parcel"), unless it is what it sells ("firewood")
        per = words_of(" ".join(p for r in record.rules for p in r.per)) - _leads(book, i)
        own = words_of(record.text) - GENERIC - known - _SAYS_NOTHING - _NUMBER_WORDS - per
        if book.fit(own & words) >= NAMED:
            return True
    return False


def _leads(book: Rulebook, record: int) -> frozenset[str]:
    return frozenset().union(*(t.lead for t in book.terms if t.rule.record == record))


_PLACE = re.compile(r"\b(?:at|in|from|with|by|to)\s+(?:the\s+)?([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")


def _names(question: str) -> frozenset[str]:
    """The words of the place or company a question asks at ("at Ferncombe", "with Kiln Couriers", "from
    Brackenfold"): where it asks, not what it asks for ("on the Fernhill Health Plan" stays)."""
    found = _PLACE.findall(question)
    return words_of(" ".join(found))


def _about(p: Term, givens: list[Quantity], party: tuple[Member, ...] | None) -> bool:
    """Whether the question gives the quantity ``p``'s threshold is about (its condition was weighed)."""
    c = p.condition
    assert c is not None
    return any(
        (g.unit and c.what in MEASURES and conv(g.unit, c.what) is not None)
        or singular(g.what) == c.what
        or (c.what == "night" and g.unit == "night")
        for g in givens
    )


def _meets(p: Term, givens: list[Quantity], party: tuple[Member, ...] | None) -> int | None:
    """The given that meets ``p``'s threshold (its index; -1 for the party's head count), or None."""
    c = p.condition
    assert c is not None
    for i, g in enumerate(givens):
        if g.unit and c.what in MEASURES and (k := conv(g.unit, c.what)) is not None:
            return i if g.number * k >= c.low else None
        if singular(g.what) == c.what or (c.what == "night" and g.unit == "night"):
            return i if g.number >= c.low else None
    if party is not None and (c.what in PERSON_WORDS or c.what not in MEASURES):
        return -1 if head_count(party) >= c.low else None
    return None


def _extras(book: Rulebook, base: Part, givens: list[Quantity], party: tuple[Member, ...] | None,
            question: str) -> list[Part]:  # fmt: skip
    """The other charges the question names (their own words, not the base's), each on its own terms."""
    out = []
    # "with the tourist tax", "we need wetsuits"; never the owner's name ("with Lumen Car Hire")
    named_words = _added(question) - _excluded(question) - book.about
    words = words_of(question) - GENERIC
    asked = words - _added(question)
    for t in book.rates:
        if t is base.term or t.beyond or t.first or t.rule.band is not None:
            continue
        # its name, less the base's name and the base's words the question chose it by ("next-day")
        own = t.lead - base.term.lead - (base.term.words & asked) - _SAYS_NOTHING
        if book.fit(own & named_words) < NAMED:
            continue
        part = part_of(t, book, givens, party, words, base=False)
        if part is not None:
            out.append(bounded(part, book))
    return out


def _added(question: str) -> frozenset[str]:
    """The words of the charges a question adds ("with the tourist tax", "linen included")."""
    out: set[str] = set()
    for m in _ADDED.finditer(question):
        out |= words_of(m.group(1) or m.group(2))
    return frozenset(out) - GENERIC


def _excluded(question: str) -> frozenset[str]:
    """The words of what the question leaves out ("leaving out the standing charge and wastewater")."""
    m = _NOT_ADDED.search(question)
    if not m:
        return frozenset()
    rest = re.split(r"[,?;]", question[m.end() :])[0]
    return words_of(rest) - GENERIC


def _counts_people(question: str, party: tuple[Member, ...]) -> bool:
    """Whether the question gives a count of people the answer must use ("three friends"), not a first
    person who only asks ("what's my total")."""
    return any(m.kind or m.age is not None or m.count != 1 for m in party)


__all__ = ["composed_charge", "composed_rate"]
