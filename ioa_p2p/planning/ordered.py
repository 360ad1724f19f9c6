"""Two earlier values put in the order a relation names them (pure).

A request over two earlier values often says which is which only by meaning: "A as a percentage of B"
(A is the part, B the whole), "what share of B is A", "the overcharge per invoice" (the value about
invoices divides), "how many times as heavy as B is A". Each side of the relation is matched to an
earlier step by position words ("the first", "the latter") or by words only that step's text has ("Q4",
"invoices"); a side nobody can tell keeps the order the values were found in.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.lookups import words_of
from ioa_p2p.planning.types import PlanStep

_POSITION = (
    (re.compile(r"\b(?:first|former|earlier)\b", re.I), 0),
    (re.compile(r"\b(?:second|latter|last|later)\b", re.I), 1),
)
#: "as a percentage of", "what percentage of", "what share of", "the proportion of"
_PART_OF = re.compile(
    r"\bas an? (?:percentage|percent|per cent|share|proportion|fraction) of\b"
    r"|\b(?:percentage|percent|per cent|share|proportion|fraction) of\b",
    re.I,
)
_AS_PART = re.compile(r"\bas an? \w+(?: \w+)? of\b", re.I)
#: where the phrase naming the whole ends ("what share of the total is the Utrecht revenue")
_VERB = re.compile(r"\b(?:is|are|was|were|does|do|did|comes?|came|goes|went|makes?|made|represents?)\b", re.I)
_TIMES = re.compile(r"\bhow many times\b", re.I)
_AFTER_TIMES = re.compile(r"\b(?:as \w+ as|than|of|the)\s+(.+)$", re.I)
_PER = re.compile(r"\bper ([a-z]+)\b", re.I)


def side_of(phrase: str, before: list[PlanStep], a: int, b: int) -> int | None:
    """The one of steps ``a`` and ``b`` that ``phrase`` names, or None when it names neither or both."""
    for pattern, position in _POSITION:
        if pattern.search(phrase):
            return (a, b)[position]
    words = words_of(phrase)
    own_a = words & (words_of(before[a - 1].text) - words_of(before[b - 1].text))
    own_b = words & (words_of(before[b - 1].text) - words_of(before[a - 1].text))
    if own_a and not own_b:
        return a
    if own_b and not own_a:
        return b
    return None


def percent_of(clause: str, before: list[PlanStep], a: int, b: int) -> str | None:
    """ "the first as a percentage of the second", "what share of B is A": part / whole * 100."""
    m = _PART_OF.search(clause)
    if m is None:
        return None
    rest = clause[m.end() :]
    if _AS_PART.match(m.group(0)):  # "A as a percentage of B": the whole after the cue, the part before
        whole = side_of(rest, before, a, b) or side_of(clause[: m.start()], before, a, b)
        whole = whole if side_of(rest, before, a, b) else _other(whole, a, b)
    else:  # "what percentage of B is A": the whole up to the verb
        cut = _VERB.search(rest)
        named = side_of(rest[: cut.start()] if cut else rest, before, a, b)
        whole = (
            named
            if named is not None
            else (_other(side_of(rest[cut.end() :], before, a, b), a, b) if cut else None)
        )
    whole = whole if whole is not None else b
    part = a if whole == b else b
    before_cue = clause[: m.start()] if _AS_PART.match(m.group(0)) else clause[m.end() :]
    change = _CHANGE.search(before_cue)
    if change is not None:  # "the rise as a percentage of the old fee": the change is the part
        fall = change.group(0).lower().startswith(_FALLS)
        part_of = f"(v{whole} - v{part})" if fall else f"(v{part} - v{whole})"
        return f"({part_of} / v{whole} * 100)"
    return f"(v{part} / v{whole} * 100)"


#: a change from one value to the other named as the part ("the rise as a percentage of the old fee")
_CHANGE = re.compile(
    r"\b(?:rise|increase|growth|gain|jump|change|drop|fall|decrease|decline|reduction|cut|saving)s?\b", re.I
)
_FALLS = ("drop", "fall", "decrease", "decline", "reduction", "cut", "saving")


def times_as(clause: str, before: list[PlanStep], a: int, b: int) -> str | None:
    """ "how many times as heavy as B is A", "how many times the second is the first": A / B."""
    m = _TIMES.search(clause)
    if m is None:
        return None
    after = _AFTER_TIMES.search(clause[m.end() :])
    base = side_of(_VERB.split(after.group(1))[0], before, a, b) if after else None
    base = base if base is not None else b
    return f"(v{_other(base, a, b)} / v{base})"


def per_named(clause: str, before: list[PlanStep], a: int, b: int) -> str | None:
    """ "the overcharge per invoice" over a total and a count: the value about invoices divides."""
    for m in _PER.finditer(clause):
        divisor = side_of(m.group(1), before, a, b)
        if divisor is None:
            continue
        dividend = _other(divisor, a, b)
        if side_of(clause[: m.start()], before, a, b) in (dividend, None):
            return f"(v{dividend} / v{divisor})"
    return None


def _other(n: int | None, a: int, b: int) -> int | None:
    if n is None:
        return None
    return b if n == a else a


__all__ = ["per_named", "percent_of", "side_of", "times_as"]
