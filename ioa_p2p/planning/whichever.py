"""A charge the documents state as the greater (or lesser) of two amounts, one of them a multiple or share
of the price looked up (pure; issue 23, p-natural5).

"Penalty fare: EUR 25 or twice the anytime single to the next station, whichever is greater." "The
cancellation fee is 20 % of the booking or GBP 15, whichever is less." A question whose words name the
rule's subject ("what penalty fare am I charged?") after a lookup of the price the rule multiplies (the
single to the next station) is charged ``max(25, 3.1 * 2)``: :func:`whichever_charge`. The other amount
is a fixed sum of money; the multiple is read by planning/rule_reader.py (a factor: "twice the", "1.5
times the", "50 % of the"). A price looked up that is the fixed sum itself, a rule whose subject the
question does not name, or two such rules that fit give None (the other readings answer or refuse).
"""

from __future__ import annotations

import re

from ioa_p2p.planning.rule_reader import FACTOR, read_rule
from ioa_p2p.planning.rule_step import sentences_of
from ioa_p2p.planning.situation_words import FORM_WORDS, STOP, word_overlap, words_in
from ioa_p2p.planning.values import NUMBER, Value, format_number, is_money

_CUR = r"(?:EUR|USD|GBP|CHF|€|\$|£)"
_MONEY = re.compile(
    rf"{_CUR}\s?(?P<n>\d[\d,]*(?:\.\d+)?)|(?P<m>\d[\d,]*(?:\.\d+)?)\s?(?:{_CUR}|euros?|pounds?)"
)
_WHICHEVER = re.compile(
    r"(?P<a>[^,;]+?)\s+or\s+(?P<b>[^;]+?),?\s+whichever\s+is\s+(?:the\s+)?"
    r"(?P<w>greater|higher|larger|more|bigger|less|lower|smaller)\b",
    re.I,
)
_GREATER = frozenset({"greater", "higher", "larger", "more", "bigger"})


def whichever_charge(question: str, found: Value | None) -> tuple[str, str] | None:
    """(expression, currency) of the greater or lesser of a fixed amount and a multiple of the price
    ``found``, as a sentence of its document states for what the question asks; None otherwise."""
    if found is None or found.kind != NUMBER or found.number is None or not is_money(found.unit):
        return None
    asked = set(words_in(question)) - STOP
    out: set[str] = set()
    for sentence in sentences_of(found):
        m = _WHICHEVER.search(sentence)
        if m is None:
            continue
        parts = _parts(m.group("a"), m.group("b"))
        if parts is None:
            continue
        fixed, multiple = parts
        if abs(fixed - found.number) < 1e-9:
            continue  # the fixed sum looked up: not the price the rule multiplies
        subject = set(words_in(sentence[: m.start()] or m.group("a"))) - STOP - FORM_WORDS
        subject -= {w for w in subject if re.fullmatch(r"eur|gbp|usd|chf|\d+", w)}
        if not subject or 2 * word_overlap(subject, asked) < len(subject):
            continue  # the question does not name what the rule is for
        pick = "max" if m.group("w").lower() in _GREATER else "min"
        amount = f"{format_number(found.number)} * {multiple}"
        out.add(f"{pick}({format_number(fixed)}, {amount})")
    return (out.pop(), found.unit) if len(out) == 1 else None


def _parts(a: str, b: str) -> tuple[float, str] | None:
    """(the fixed amount, the multiple as an expression) of the two alternatives, in either order."""
    for fixed_text, other in ((a, b), (b, a)):
        money = list(_MONEY.finditer(fixed_text))
        if len(money) != 1 or _MONEY.search(other):
            continue
        rule = read_rule(other)
        if rule is None or rule.kind != FACTOR:
            continue
        raw = money[0].group("n") or money[0].group("m")
        return float(raw.replace(",", "")), rule.fraction_text or format_number(rule.factor)
    return None


__all__ = ["whichever_charge"]
