"""Amounts a document itself says are no longer the value (pure): corrections and changes in prose.

A thread or a notice restates a figure it replaced: "£7.80 per guest (not £6.90 as in my first email)",
"now £14, up from £12", "the pudding was £6.95; it went up", "instead of £20". An amount named so is
**replaced**: a fact elsewhere that states only replaced amounts (the first e-mail's "canapes £6.90 per
guest", a quoted post's "Pitch: £16") is another period's figure, and the fact scorer (:mod:`.facts`)
weighs it down unless the question asks for an earlier value. The correcting fact itself is not weighed
down (it states the new amount too).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ioa_p2p.planning.values import is_money, numbers_in

#: the weight of a fact whose every amount of money the document says was replaced
REPLACED_WEIGHT = 0.6
_AMOUNT = (
    r"(?:(?:[£$€]|\b(?:GBP|EUR|USD|CHF)\s)\s?\d[\d,]*(?:\.\d+)?|"
    r"\d[\d,]*(?:\.\d+)?\s?(?:GBP|EUR|USD|CHF|pence|p)\b)"
)
_REPLACED = re.compile(
    r"\b(?:not|instead of|rather than|no longer|previously|formerly|used to be|up from|down from|"
    r"replac(?:es|ed|ing)|was|were)\s+(?:the\s+|a\s+|an\s+)?(?:old\s+|previous\s+)?(?:price\s+of\s+)?"
    rf"(?P<amount>{_AMOUNT})",
    re.IGNORECASE,
)


def replaced_amounts(texts: Iterable[str]) -> set[float]:
    """The amounts of money ``texts`` name as replaced ("not £6.90", "up from £12", "was £6.95")."""
    out: set[float] = set()
    for text in texts:
        for m in _REPLACED.finditer(text):
            out.update(n.number for n in numbers_in(m.group("amount")) if n.number is not None)
    return out


def only_replaced(text: str, replaced: set[float]) -> bool:
    """Whether every amount of money ``text`` states is one the document says was replaced, and ``text``
    does not say so itself (a correction states the new amount beside the old)."""
    if not replaced or _REPLACED.search(text):
        return False
    money = [n.number for n in numbers_in(text) if is_money(n.unit) and n.number is not None]
    return bool(money) and all(m in replaced for m in money)


__all__ = ["REPLACED_WEIGHT", "only_replaced", "replaced_amounts"]
