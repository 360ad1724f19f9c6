"""The question read against a document's typed rules (pure): its words, its quantities and ages.

Shared by planning/rule_apply.py (one rate applied) and planning/ruled.py (a charge or a count worked
out): the words that say what a text or a rule is about (:func:`words_of`, :func:`rule_words`), how
telling each word of the document is (:func:`word_weights`, :func:`fit_of`), the quantities a question
states, rounded as the document's rounding rules say (:func:`rule_givens`), the ages it states
(:func:`ages_in`, a band's quantity, never an operand) and a stated quantity in a rule's unit
(:func:`find_given`).
"""

from __future__ import annotations

import math
import re

from ioa_p2p.planning.answer_types import MONEY_UNITS
from ioa_p2p.planning.doc_facts import content_words, convert, singular
from ioa_p2p.planning.quantities import Quantity, stated_quantities
from ioa_p2p.planning.records import ROUNDING, DocRecords, DocRule
from ioa_p2p.planning.units import period_of

MONEY = frozenset({*MONEY_UNITS, "GBP", "CHF", "SEK", "NOK", "DKK", "JPY", "pence"})
#: words that say nothing about which rule applies (who pays, what a charge is)
_GENERIC_WORDS = (
    "member customer visitor people person anyone all charge fee price cost order booking pay paying get "
    "gets receive rate total amount one per each every day week month year hour our your their fine fare "
    "rent bill invoice"
)
GENERIC = frozenset(_GENERIC_WORDS.split())


_KEPT = frozenset({"full", "whole", "total", "all"})  # function words elsewhere, names of plans and rows here


def words_of(text: str) -> frozenset[str]:
    """The words that say what a text is about (doc_facts.content_words), "Full" and "Whole" kept: here
    they name a plan, a row or a column."""
    return content_words(text) | (_KEPT & set(re.findall(r"[a-z]+", text.lower())))


def word_weights(records: DocRecords) -> dict[str, float]:
    """How telling each word of the document is: 1 / the number of its records that use it."""
    df: dict[str, int] = {}
    for r in records.records:
        for w in words_of(r.text):
            df[w] = df.get(w, 0) + 1
    return {w: 1.0 / n for w, n in df.items()}


def fit_of(found: frozenset[str], weight: dict[str, float]) -> float:
    return sum(weight.get(w, 1.0) for w in found)


def rule_givens(question: str, rules: list[DocRule]) -> list[Quantity]:
    """The question's quantities; "four banners of 2 m by 1 m" also as their area; measures rounded as
    the document's rounding rules say."""
    text = re.sub(r"\bsquare met(?:re|er)s?\b|\bm2\b|\bsq\.? ?m\b", "m²", question, flags=re.I)
    text = re.sub(r"\bcubic met(?:re|er)s?\b|\bm3\b", "m³", text, flags=re.I)
    text = _AGE_WORDS.sub(" ", text)  # an age is a band's quantity, never an operand (ages_in)
    found = stated_quantities(text)
    period = period_of(text, per=False) or period_of(text, per=True)  # "for a year", "each month"
    if period and not any(q.unit == period + "s" for q in found):  # "a year of ...", "yearly"
        found.append(Quantity(1.0, period + "s", "", f"a {period}"))
    out = list(found)
    m = re.search(r"(\d+(?:\.\d+)?)\s*m\s*(?:by|x|×)\s*(\d+(?:\.\d+)?)\s*m\b", question)
    if m:
        count = next(
            (q.number for q in found if q.unit == "" and q.text and question.find(q.text) < m.start()), 1
        )
        out.append(Quantity(count * float(m.group(1)) * float(m.group(2)), "m²", "area", m.group(0)))
        out = [q for q in out if q.unit != "m" and not (q.unit == "" and q.number == count)] if count else out
    rounded = []
    for q in out:
        step = next((r.step for r in rules if r.kind == ROUNDING and r.unit == q.unit), 0.0)
        rounded.append(
            Quantity(math.ceil(q.number / step - 1e-9) * step, q.unit, q.what, q.text) if step else q
        )
    return rounded


#: the one reading of a stated age (planning/category.py and the rules' bands use it): "a 16-year-old",
#: "12 years old", "aged 70", "age 9", "at the age of 4", "15 years of age", "7-year-olds"
_AGE_WORDS = re.compile(
    r"\b\d{1,3}[- ]years?[- ]olds?\b|\b(?:aged|age|ages|at the age of)\s+\d{1,3}\b|\b\d{1,3} years of age\b",
    re.I,
)


def ages_in(question: str) -> list[Quantity]:
    """The ages a question states ("a 16-year-old", "aged 70"), in years."""
    out = []
    for m in _AGE_WORDS.finditer(question):
        n = re.search(r"\d+", m.group())
        if n:
            out.append(Quantity(float(n.group()), "age", "age", m.group()))
    return out


def find_given(givens: list[Quantity], unit: str, used: frozenset[int]) -> tuple[float, int] | None:
    """A stated quantity in ``unit`` (converted), or counting that thing; (number, index)."""
    for i, g in enumerate(givens):
        if i in used:
            continue
        if g.unit and (c := convert(g.unit, unit)) is not None:
            return g.number * c, i
        if (
            g.unit == "night"
            and unit == "night"
            or (not g.unit and g.what and singular(g.what) == singular(unit))
        ):
            return g.number, i
    return None


def rule_words(rate: DocRule) -> frozenset[str]:
    return words_of(rate.when)


__all__ = [
    "GENERIC",
    "MONEY",
    "ages_in",
    "find_given",
    "fit_of",
    "rule_givens",
    "rule_words",
    "word_weights",
    "words_of",
]
