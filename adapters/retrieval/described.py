"""A class the question describes instead of naming it (pure).

"How much is an off-peak trip for a 2-axle lorry over 3.5 t?" over a toll order whose table is keyed by
class ("Class 3 | 9.20 | 7.40 | 4.00") and which defines its classes in a list of its own:

    Class 2   Cars and vans up to 3.5 t, with or without a trailer
    Class 3   Goods vehicles over 3.5 t with 2 axles; buses and coaches

The question never says "Class 3"; its situation (2 axles, over 3.5 t) is the description of one. A
document's **definitions** are lines that open with a designator ("Class 3", "Band B", "Grade L2": a
capitalised noun and a short identifier) followed by words; when a question names no designator of that
noun, :func:`described_designator` gives the one whose description shares the most of the question's
terms and quantities, if it shares more than any other (so "a motorcycle" finds "Class 1  Motorcycles
and mopeds"; "a vehicle", which two descriptions share, finds none). The retrieval asks again with the
designator named (index.py); the answer must then come from a fact that names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ioa_p2p.adapters.retrieval.terms import question_terms, terms

#: a definition line: a designator ("Class 3", "Band B", "Grade L2") then its description, after a gap,
#: a colon or a dash
_DEFINITION = re.compile(
    r"^\s*(?:[-*•]\s*)?\**([A-Z][a-z]{2,})\s+([A-Z]{1,2}\d{0,2}|\d{1,3})\**(?:\s{2,}|\s*[:–-]\s+|\t)(\S.{3,})$"
)
#: the smallest number of the question's terms a description must share
MIN_SHARED = 1
#: the best description must share this many terms more than the next best
MARGIN = 1


def definitions(lines: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
    """The designators a document defines, by noun: {"Class": [("Class 3", "Goods vehicles ..."), ...]};
    a noun needs two definitions or more."""
    out: dict[str, list[tuple[str, str]]] = {}
    for line in lines:
        m = _DEFINITION.match(line)
        if m and not re.match(r"[\d.,]", m.group(3)):  # "Class 1   1.80   1.20 free": a table's row
            out.setdefault(m.group(1), []).append((f"{m.group(1)} {m.group(2)}", m.group(3).strip()))
    return {noun: found for noun, found in out.items() if len({d for d, _ in found}) >= 2}


def described_designator(question: str, lines: Iterable[str]) -> str | None:
    """The designator whose definition the question's situation describes (module docstring); None when
    the question names one already, or no description clearly fits."""
    asked = {t for t in question_terms(question) if not t.startswith("u_")}
    asked |= {t.split("-")[0] for t in asked if re.fullmatch(r"\d+-[a-z]+", t)}  # "2-axle": 2 and axle
    asked |= {t.split("-")[1] for t in asked if re.fullmatch(r"\d+-[a-z]+", t)}
    best: tuple[int, str] | None = None
    for noun, defined in definitions(lines).items():
        if re.search(rf"\b{noun}\s+(?:[A-Z]{{1,2}}\d{{0,2}}|\d{{1,3}})\b", question, re.I):
            return None  # the question names one: nothing to find
        scored = sorted(
            ((len(_description_terms(text) & asked), designator) for designator, text in defined),
            reverse=True,
        )
        top, runner = scored[0], scored[1] if len(scored) > 1 else (0, "")
        if top[0] >= MIN_SHARED and top[0] - runner[0] >= MARGIN and (best is None or top[0] > best[0]):
            best = top
    return best[1] if best else None


def _description_terms(text: str) -> set[str]:
    found = {t for t in terms(text)}
    return found | {t.rstrip("s") for t in found if len(t) > 3}  # "axles" meets "axle", "coaches" "coach"


__all__ = ["MARGIN", "MIN_SHARED", "described_designator", "definitions"]
