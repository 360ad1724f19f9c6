"""A minimum or maximum charge stated beside a rate, applied to the charge worked out with it (pure).

Price lists state the bounds of a charge in the block of lines that states the rate, often on a line of
their own: "up to 5 kg ... EUR 3.20 per kg / Minimum charge ... EUR 9.00 per load", "Hire: EUR 14 per
hour, capped at EUR 60 a day", "never more than EUR 45", "a minimum fee of EUR 25 applies". A rate times
the situation's quantity (``3.2 * 2``) is then not the charge: :func:`bounded` makes it ``max(3.2 * 2, 9)``
(or ``min(..., 60)`` for a cap) when such a bound is stated in the rate's own line, or on a line of
its own in the same paragraph (the lines between blank lines or headings); a cap in another rate's line
("Late collection: EUR 5 per day, capped at EUR 30") is that rate's. Several bounds of one kind (which
one holds?), an expression that is not one product with the rate in it, or one bounded already
(``max(`` / ``min(``) are left as they are.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.values import Value, format_number, numbers_in

_MONEY = r"(?:EUR|GBP|USD|CHF|€|£|\$)\s*(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s*(?:EUR|GBP|USD|CHF|€|£)"
_MINIMUM = re.compile(
    rf"\b(?:minimum|min\.)\s+(?:charge|fee|price|payment|order|amount)\b[^\n]*?(?:{_MONEY})"
    rf"|\b(?:a|the)\s+minimum\s+(?:of\s+)?(?:{_MONEY})",
    re.I,
)
_MAXIMUM = re.compile(
    rf"\b(?:maximum|max\.)\s+(?:charge|fee|price|payment|amount)\b[^\n]*?(?:{_MONEY})"
    rf"|\b(?:capped|limited)\s+at\s+(?:{_MONEY})|\b(?:never|no)\s+more\s+than\s+(?:{_MONEY})",
    re.I,
)
_BREAK = re.compile(r"\n\s*\n|\n(?=\s*#)|\n(?=[A-Z][A-Z &/,()-]{3,}\n)")


def paragraph_of(found: Value) -> str:
    """The lines of ``found``'s paragraph that bound its rate: the line that states its number, and the
    lines of that paragraph that state a bound on their own ("Minimum charge .... EUR 9.00 per load");
    "" when no line states its number."""
    if found.number is None:
        return ""
    for passage in found.evidence:
        for paragraph in _BREAK.split(passage):
            lines = paragraph.splitlines()
            own = next((x for x in lines if any(n.number == found.number for n in numbers_in(x))), None)
            if own is not None:
                return "\n".join([own, *(x for x in lines if x is not own and _OWN_LINE.match(x))])
    return ""


#: a line that states a bound of its own, not another rate's clause
_OWN_LINE = re.compile(r"^\s*(?:[-*\u2022]\s*)?(?:minimum|maximum|min\.|max\.)\s", re.I)


def _amounts(pattern: re.Pattern[str], text: str) -> set[float]:
    out = set()
    for m in pattern.finditer(text):
        raw = next((g for g in m.groups() if g), None)
        if raw is not None:
            out.add(float(raw.replace(",", "")))
    return out


def bounded(expression: str, found: Value) -> str:
    """``expression`` (a charge worked out from the rate ``found``) within the minimum or maximum charge
    the rate's paragraph states (see the module docstring)."""
    if found.number is None or re.search(r"\b(?:max|min)\(|[+-]", expression):
        return expression
    if re.fullmatch(r"\s*[\d.]+\s*\*\s*1\s*", expression):
        return expression  # the rate times one: no quantity it was applied to
    rate = re.escape(format_number(found.number))
    if re.search(rf"(?<![\d.]){rate}(?![\d.])", expression) is None or "*" not in expression:
        return expression
    paragraph = paragraph_of(found)
    low, high = _amounts(_MINIMUM, paragraph), _amounts(_MAXIMUM, paragraph)
    low.discard(found.number)
    high.discard(found.number)
    if len(low) == 1:
        expression = f"max({expression}, {format_number(low.pop())})"
    if len(high) == 1:
        expression = f"min({expression}, {format_number(high.pop())})"
    return expression


__all__ = ["bounded", "paragraph_of"]
