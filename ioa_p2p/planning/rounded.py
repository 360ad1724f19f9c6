"""The rounding a rule's own sentence states for the amount it gives (pure; issue 23, p-natural5).

Fares and fees reduced by a share are often rounded as the document says: "one third off, rounded down to
the nearest 5p", "half the adult fare, rounded up to the next 10 cents", "rounded to the nearest whole
euro". :func:`stated_rounding` reads that into (function, step) and :func:`rounded_as_stated` wraps an
expression in it (``floor(x / 0.05) * 0.05``): the calculator works in exact fractions, so the step
divides exactly. A sentence that states no rounding leaves the expression as it is.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.values import format_number

_ROUNDED = re.compile(
    r"\brounded\s+(?P<dir>down|up)?\s*(?:to\s+the\s+)?(?:nearest|next)\s+"
    r"(?:(?P<cur>EUR|GBP|USD|CHF|€|£|\$)\s?(?P<amount>\d+(?:\.\d+)?)"
    r"|(?P<n>\d+(?:\.\d+)?)\s?(?P<small>p|pence|penny|c|ct|cents?)\b"
    r"|(?:whole\s+)?(?P<whole>pound|euro|dollar|franc|unit)s?\b"
    r"|(?P<ten>ten|five)\s+(?:pence|cents?)\b)",
    re.I,
)
_WORDS = {"ten": 10.0, "five": 5.0}


def stated_rounding(sentence: str) -> tuple[str, float] | None:
    """("floor" | "ceil" | "round", step in the currency's unit) of "rounded down to the nearest 5p",
    or None when the sentence states no rounding."""
    m = _ROUNDED.search(sentence)
    if m is None:
        return None
    direction = (m.group("dir") or "").lower()
    function = {"down": "floor", "up": "ceil"}.get(direction, "round")
    if m.group("amount"):
        step = float(m.group("amount"))
    elif m.group("n"):
        step = float(m.group("n")) / 100
    elif m.group("ten"):
        step = _WORDS[m.group("ten").lower()] / 100
    else:
        step = 1.0
    return (function, step) if step > 0 else None


def rounded_as_stated(sentence: str, expression: str) -> str:
    """``expression`` rounded as ``sentence`` states (unchanged when it states no rounding)."""
    stated = stated_rounding(sentence)
    if stated is None:
        return expression
    function, step = stated
    if step == 1.0:
        return f"{function}({expression})"
    shown = format_number(step)
    return f"{function}(({expression}) / {shown}) * {shown}"


__all__ = ["rounded_as_stated", "stated_rounding"]
