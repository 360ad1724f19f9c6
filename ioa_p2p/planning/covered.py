"""A fee that covers a first number of units and a price for each unit beyond them, read from one
sentence into a typed charge (pure; issue 23, p-natural5).

Price lists state a base fee with what it includes and the price of the rest in one sentence:

- "The monthly fee is £8.50 and covers up to 25 transactions a month; each transaction above 25 costs 35p."
- "Parking is EUR 2 for the first hour and EUR 1.50 for each further hour."
- "A box costs GBP 6 including the first 2 kg, then GBP 1.20 per extra kg."

:func:`covered_rule` reads such a sentence into a :class:`~ioa_p2p.planning.rule_reader.Rule` of kind
``charge``: the fee (``add``), the units it covers (``allowance``), the price per further unit (``rate``,
pence read as hundredths of the fee's currency) and that unit (``per``), its started steps ("or part of
it": whole units). :func:`~ioa_p2p.planning.rule_reader.apply_to_quantity` then gives ``fee + rate x
max(q - covered, 0)`` for the quantity the question states. The units the fee covers and the further
units must be one unit, and the number "above" names must be the number covered (else None: two rules).
"""

from __future__ import annotations

import re

from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.rule_reader import CHARGE, NUM, Rule, num, unit_of

_CUR = r"(?:EUR|USD|GBP|CHF|€|\$|£)"
_FEE = rf"(?:{_CUR}\s?(?P<fee>{NUM})|(?P<fee2>{NUM})\s?(?:{_CUR}|euros?|pounds?))"
_PRICE = (
    rf"(?:{_CUR}\s?(?P<rate>{NUM})|(?P<rate2>{NUM})\s?(?:{_CUR}|euros?|pounds?)"
    r"|(?P<pence>\d+(?:\.\d+)?)\s?p\b)"
)
#: what the fee covers: "covers up to 25 transactions", "includes the first 2 kg", "for the first hour"
_COVERS = re.compile(
    rf"\b(?:covers?|includes?|including|inclusive\s+of|for)\s+(?:up\s+to\s+|the\s+first\s+|the\s+|a\s+|an\s+)?"
    rf"(?P<n>{NUM}|one|an?)?\s*(?P<unit>[a-z]+)",
    re.I,
)
_FURTHER = r"(?:further|additional|extra|more|subsequent)"
#: the price of the rest: "each transaction above 25 costs 35p", "EUR 1.50 for each further hour",
#: "then GBP 1.20 per extra kg"
_BEYOND = (
    re.compile(
        rf"\b(?:each|every|any|per)\s+(?P<unit>[a-z]+)\s+(?:above|over|beyond|after|in\s+excess\s+of)\s+"
        rf"(?:the\s+first\s+)?(?P<n>{NUM})\s+(?:costs?|is\s+charged(?:\s+at)?|are\s+charged(?:\s+at)?|at)\s+"
        rf"{_PRICE}",
        re.I,
    ),
    re.compile(
        rf"{_PRICE}\s+(?:for|per|a|an)\s+(?:each\s+|every\s+)?{_FURTHER}\s+(?P<unit>[a-z]+)",
        re.I,
    ),
    re.compile(
        rf"\b(?:each|every|any)\s+{_FURTHER}\s+(?P<unit>[a-z]+)\s+(?:costs?|is\s+charged(?:\s+at)?|at)\s+"
        rf"{_PRICE}",
        re.I,
    ),
)
_WORD_ONE = {"one": 1.0, "a": 1.0, "an": 1.0}
_PART = re.compile(r"\bor\s+part\s+(?:of\s+(?:it|one|an?\s+\w+)|thereof)\b|\bstarted\b", re.I)


def covered_rule(text: str) -> Rule | None:
    """The charge ``text`` states as a fee covering a first number of units plus a price for each unit
    beyond them, or None when it states no such pair."""
    text = " ".join(text.split())
    for pattern in _BEYOND:
        beyond = pattern.search(text)
        if beyond is None:
            continue
        fee = _fee_before(text, beyond.start())
        if fee is None:
            continue
        amount, covers = fee
        unit = _unit(beyond.group("unit"))
        covered = _covered(covers, unit)
        if covered is None:
            continue
        stated = beyond.groupdict().get("n")
        if stated is not None and num(stated) != covered:
            return None  # "covers 25 ... above 30": two rules, not one
        rate = _price(beyond)
        if rate is None:
            continue
        return Rule(
            CHARGE, text, add=amount, rate=rate, per=unit, allowance=covered, started=bool(_PART.search(text))
        )
    return None


def _fee_before(text: str, end: int) -> tuple[float, re.Match[str]] | None:
    """The fee stated before ``end`` and what it covers (the clause after it)."""
    head = text[:end]
    fees = list(re.finditer(_FEE, head, re.I))
    if not fees:
        return None
    first = fees[0]
    covers = _COVERS.search(head, first.start())
    if covers is None:
        return None
    raw = first.group("fee") or first.group("fee2")
    return num(raw), covers


def _covered(covers: re.Match[str], unit: str) -> float | None:
    """The number of ``unit`` the fee covers, or None when it covers another unit."""
    if _unit(covers.group("unit")) != unit:
        return None
    n = covers.group("n")
    if n is None:  # "for the first hour": one
        return (
            1.0
            if re.search(r"\bfirst\s*$", covers.group(0)[: covers.start("unit") - covers.start()])
            else None
        )
    return _WORD_ONE[n.lower()] if n.lower() in _WORD_ONE else num(n)


def _unit(word: str) -> str:
    """A unit word as one form: "hours" and "hour" -> h, "transactions" -> transaction."""
    return singular(unit_of(word))


def _price(m: re.Match[str]) -> float | None:
    if m.group("pence"):
        return num(m.group("pence")) / 100
    raw = m.group("rate") or m.group("rate2")
    return num(raw) if raw else None


__all__ = ["covered_rule"]
