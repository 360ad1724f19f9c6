"""Two looked-up prices summed and multiplied by a count, when one of them is not per unit (pure).

Issue 23, p-chain5. The clause planner reads "find the price of the first X and of each further X, then
price N of them" and "find the rate per kWh and the session fee; what does one 30 kWh session cost?" as
``(v1 + v2) * N``: every price times the count. Two lookups say otherwise by what they are:

- the first one and each further one (the same thing counted: "first wasp nest" / "each further nest",
  "first hour" / "each additional hour"): ``v1 + (N - 1) * v2``;
- a rate and a fee charged once (per session, booking, visit, order, call-out; a standing, joining or
  admin fee): ``v1 * N + v2``.

A first period of another unit than the further ones ("first-week rate" and "extra-day rate") is left as
it is: how many further units a count holds then depends on the period's length.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep

_SUM_TIMES = re.compile(r"^\(*\s*\(\s*v(\d+)\s*\+\s*v(\d+)\s*\)\s*\*\s*(\d+(?:\.\d+)?)\s*\)*$")
_FIRST = re.compile(r"\bfirst[\s-]+((?:[a-z]+ ?){1,3})", re.I)
_FURTHER = re.compile(
    r"\b(?:each |every |any )?(?:further|additional|extra|subsequent|other)[\s-]+([a-z]+)", re.I
)
_ONCE = re.compile(
    r"\b(?:session|booking|call[- ]?out|visit|order|connection|standing|joining|admin(?:istration)?|"
    r"service|arrangement|registration|entry)\s+(?:fee|charge)\b|\b(?:fee|charge)\s+per\s+"
    r"(?:session|booking|visit|order|call[- ]?out|job|trip)\b",
    re.I,
)
_RATE = re.compile(r"\bper\b|\brate\b|\bprice\b|/\s?[a-z]", re.I)


def _same(first: str, further: str) -> bool:
    """Whether "first <words>" and "further <word>" count one thing ("first wasp nest", "further nest")."""
    if further.lower() in ("one", "ones", "item", "items", "unit", "units"):
        return True
    return singular(further) in {singular(w) for w in first.split()}


def _reworked(expression: str, texts: dict[int, str]) -> str | None:
    m = _SUM_TIMES.match(expression.strip())
    if m is None:
        return None
    x, y, count = int(m.group(1)), int(m.group(2)), m.group(3)
    for a, b in ((x, y), (y, x)):
        first, further = _FIRST.search(texts.get(a, "")), _FURTHER.search(texts.get(b, ""))
        if first and further and _same(first.group(1), further.group(1)):
            return f"(v{a} + ({count} - 1) * v{b})"
        if (
            _ONCE.search(texts.get(b, ""))
            and not _ONCE.search(texts.get(a, ""))
            and _RATE.search(texts.get(a, ""))
        ):
            return f"(v{a} * {count} + v{b})"
    return None


def first_and_further(steps: Sequence[PlanStep]) -> tuple[PlanStep, ...]:
    """``steps`` with each ``(vA + vB) * N`` over such lookups reworked (the others as they are)."""
    texts = {s.index: s.template for s in steps if s.kind == LOOKUP}
    out = []
    for s in steps:
        reworked = _reworked(s.template, texts) if s.kind == CALC else None
        out.append(replace(s, template=reworked) if reworked else s)
    return tuple(out)
