"""A rule that names its operand in words, applied for the situation a question describes (pure; issue 23,
p-chain).

"Guests of a season permit holder fish at half the adult day price": the rule is selected by the
question's situation ("A friend who holds a season permit is taking me along as his guest on five days";
planning/situation_words.py), its form is read by planning/rule_reader.py (a factor of 1/2), and its
**operand** is a fact the rule names in words ("the adult day price"), resolved in the same document's
table: the one cell whose row label (its parenthesised note left out) and column header hold every word
of it (``Day (one beat) | Adult: EUR 18``). The charge is the rule applied to that fact, times the count
the question gives of what the fact is per ("five days" for a day price): ``18 * 1/2 * 5``.

None (the planner's other readings answer or refuse) unless exactly one rule is selected, its operand
resolves to exactly one amount, and every quantity the question gives is used.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.doc_facts import givens_in, singular
from ioa_p2p.planning.party import party_of
from ioa_p2p.planning.records import Band, DocRecords
from ioa_p2p.planning.rule_reader import DISCOUNT, FACTOR, apply_to_expression, read_rule, unit_of
from ioa_p2p.planning.rule_step import sentences_of
from ioa_p2p.planning.situation_words import STOP, selects, stem, telling_stems, words_in
from ioa_p2p.planning.values import Value, format_number, is_money, numbers_in

_OPERAND = re.compile(
    r"\b(?:half|a\s+third|one\s+third|two\s+thirds|a\s+quarter|three\s+quarters|twice|double|"
    r"\d+(?:\.\d+)?\s+times|\d+(?:\.\d+)?\s?%\s+of|(?:\d+(?:\.\d+)?\s?%|a\s+third|a\s+quarter|half)\s+off)\s+"
    r"(?:of\s+)?the\s+(?P<op>[a-z][a-z\s-]{2,40}?)\s*(?:[.,;(]|$)",
    re.I,
)
_ASKS_AMOUNT = re.compile(r"\b(?:how\s+much|pay|cost|costs|charged?|price|bill|owe|total)\b", re.I)
#: words that say what kind of amount an operand is, never which one
_AMOUNT_WORDS = frozenset(
    words_in("price prices fare fares fee fees rate rates charge charges cost costs ticket amount standard")
)


def operand_charge(question: str, found: Value | None) -> tuple[str, str] | None:
    """(expression, currency) of the rule the question's situation selects, applied to the operand it
    names (see the module docstring), or None."""
    if found is None or found.records is None or not _ASKS_AMOUNT.search(question):
        return None
    sentences = sentences_of(Value.of_text("").with_records(found.records))
    telling = telling_stems(sentences)
    chosen = set()
    for sentence in sentences:
        m = _OPERAND.search(sentence)
        rule = read_rule(sentence) if m is not None else None
        if m is None or rule is None or rule.kind not in (FACTOR, DISCOUNT) or rule.exempt:
            continue
        if not selects(question, sentence, telling):
            continue
        operand = _resolved(m.group("op"), found.records)
        if operand is not None:
            chosen.add((sentence, operand))
    if len(chosen) != 1:
        return None
    sentence, (amount, label) = chosen.pop()
    rule = read_rule(sentence)
    expr = apply_to_expression(rule, format_number(amount)) if rule is not None else None
    if expr is None:
        return None
    givens = [g for g in givens_in(question) if g.number != 1.0]
    per = {singular(w) for w in words_in(label)} | {unit_of(w) for w in words_in(label)}
    counts = [g for g in givens if g.unit and (singular(g.unit.lower()) in per or unit_of(g.unit) in per)]
    if len(counts) > 1 or len(givens) != len(counts):
        return None  # a quantity the question gives is not what the operand is per
    if counts:
        expr = f"{expr} * {format_number(counts[0].number)}"
    return expr, found.records.currency or "EUR"


_SHARE_OF = re.compile(
    r"(?P<n>\d+(?:\.\d+)?)\s?(?:%|per\s?cent)\s+of\s+(?:the\s+)?(?P<op>[a-z][a-z\s-]{2,40}?)\s*(?:[.,;(]|$)",
    re.I,
)


def share_of_given(question: str, found: Value | None) -> tuple[str, str] | None:
    """A share the documents state of an amount the question gives ("Overheads: up to 12 % of the direct
    costs" for "Our direct costs come to EUR 22,500. What's the most we can budget for overheads?"): the
    one sentence whose subject the question names and whose operand is the amount the question gives
    with the operand's words in its clause: ``0.12 * 22500``. None for none or several."""
    if found is None or found.records is None or not _ASKS_AMOUNT.search(question):
        return None
    given = _given_amounts(question)
    if len(given) != 1:
        return None
    amount, clause = given[0]
    asked = {stem(w) for w in words_in(question.replace(clause, " "))} - STOP
    sentences = sentences_of(Value.of_text("").with_records(found.records))
    telling = telling_stems(sentences)
    exprs = set()
    for sentence in sentences:
        m = _SHARE_OF.search(sentence)
        if m is None:
            continue
        operand = {stem(w) for w in words_in(m.group("op"))} - STOP
        subject = {stem(w) for w in words_in(sentence[: m.start()])} - STOP - operand
        if not operand or not operand <= {stem(w) for w in words_in(clause)}:
            continue  # the share is of something else than the amount given
        if not subject & asked & telling:
            continue  # the question does not ask for what the share is of
        exprs.add(f"{format_number(float(m.group('n')) / 100)} * {format_number(amount)}")
    if len(exprs) != 1:
        return None
    return exprs.pop(), found.records.currency or "EUR"


def _given_amounts(question: str) -> list[tuple[float, str]]:
    """The amounts of money the question gives, each with its clause."""
    out = []
    for clause in re.split(r"(?<=[.?!;])\s+", question):
        out += [(n.number, clause) for n in numbers_in(clause) if is_money(n.unit) and n.number is not None]
    return out


def class_price(question: str, found: Value | None) -> tuple[str, str] | None:
    """The price of the table column whose class of person holds the age the question states ("I'm 67":
    "Concession*" where a note defines "Concession: anglers aged 65 and over"; "Junior (under 16)"; else
    the one column that states no class), in the row of the period the question counts ("three days":
    "Day (one beat)"), times that count: ``12 * 3``. None unless each of those is one."""
    party = party_of(question)
    if found is None or found.records is None or party is None or len(party) != 1 or party[0].age is None:
        return None
    age = party[0].age
    periods = [g for g in givens_in(question) if g.number not in (1.0, age)]
    if len(periods) != 1:
        return None  # one period counted, and nothing else the price would have to use
    said = [a for a in (periods[0].unit, *periods[0].alts) if a]
    period = {singular(a.lower()) for a in said} | {unit_of(a) for a in said}
    notes = [r.text for r in found.records.records if not r.cells]
    prices = set()
    for record in found.records.records:
        if len(record.cells) < 3:
            continue
        label = {singular(w) for w in words_in(re.sub(r"\([^)]*\)", " ", record.cells[0][1]))}
        if not label & period:
            continue
        columns = [(h, _class_band(h, notes), c) for h, c in record.cells[1:]]
        held = [c for _, band, c in columns if band is not None and band.holds(age)]
        plain = [c for _, band, c in columns if band is None]
        cell = held[0] if len(held) == 1 else plain[0] if not held and len(plain) == 1 else None
        amounts = [n.number for n in numbers_in(cell or "") if is_money(n.unit) and n.number is not None]
        if len(amounts) == 1:
            prices.add(amounts[0])
    if len(prices) != 1:
        return None
    expr = f"{format_number(prices.pop())} * {format_number(periods[0].number)}"
    return expr, found.records.currency or "EUR"


_AGED = re.compile(
    r"\baged\s+(?P<lo>\d{1,3})\s+(?:and|or)\s+(?:over|above|older)|\baged\s+(?P<a>\d{1,3})\s*(?:-|to)\s*(?P<b>\d{1,3})|"
    r"\b(?:aged\s+)?under\s+(?P<hi>\d{1,3})\b|\b(?P<plus>\d{1,3})\s*\+|\((?P<c>\d{1,3})\s*(?:-|–|to)\s*(?P<d>\d{1,3})\)",
    re.I,
)


def _class_band(header: str, notes: list[str]) -> Band | None:
    """The ages a column's class covers: in the header ("Junior (under 16)", "Senior 65+") or in the note
    that defines its name ("* Concession: anglers aged 65 and over"); None for a column of no class."""
    name = re.sub(r"\(.*|[*†‡]+", "", header).strip()
    texts = [header] + [n for n in notes if name and re.match(rf"^\W*{re.escape(name)}\s*:", n.strip(), re.I)]
    for text in texts:
        m = _AGED.search(text)
        if m is None:
            continue
        if m.group("lo"):
            return Band(low=float(m.group("lo")))
        if m.group("a"):
            return Band(low=float(m.group("a")), high=float(m.group("b")))
        if m.group("c"):
            return Band(low=float(m.group("c")), high=float(m.group("d")))
        if m.group("hi"):
            return Band(high=float(m.group("hi")), high_open=True)
        return Band(low=float(m.group("plus")))
    return None


def _resolved(operand: str, records: DocRecords) -> tuple[float, str] | None:
    """The one amount of a table cell whose row label and column header hold every word of ``operand``
    (its kind of amount aside), with the row's label; None for none or several."""
    wanted = {stem(w) for w in words_in(operand)} - {stem(w) for w in _AMOUNT_WORDS} - STOP
    if not wanted:
        return None
    found = set()
    for record in records.records:
        if len(record.cells) < 2:
            continue
        label = re.sub(r"\([^)]*\)", " ", record.cells[0][1])
        for header, cell in record.cells[1:]:
            have = {stem(w) for w in words_in(f"{label} {re.sub(r'[(].*', ' ', header)}")}
            amounts = [n.number for n in numbers_in(cell) if is_money(n.unit) and n.number is not None]
            if wanted <= have and len(amounts) == 1:
                found.add((amounts[0], label.strip()))
    return found.pop() if len(found) == 1 else None


__all__ = ["class_price", "operand_charge", "share_of_given"]
