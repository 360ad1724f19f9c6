"""A percentage looked up, applied to an amount looked up just before it (pure).

"Find the monthly price of a Fixed Desk and the VAT rate that comes on top; what is one month including
VAT?", "... then add the VAT to the price", "what does the hire cost after the member discount?": after two
lookups, one of a percentage that is added (VAT, a tax, a surcharge, a tip) or taken off (a discount, a
rebate) and one of an amount, a request that names the percentage as included, added or taken off is the
amount with it applied: ``vA * (1 + vP)`` or ``vA * (1 - vP)`` (a percentage's value is its fraction, as
in planning/scaled.py). None for anything else: a request that asks for the percentage's share alone ("the
VAT on it") is the share, planned elsewhere.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.followups import names_new_thing, unused
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep

_ADDED = re.compile(r"\b(?:vat|tax|surcharge|mark-?up|tip|gratuity|service charge|levy)\b", re.I)
_TAKEN = re.compile(r"\b(?:discount|rebate|reduction)\b", re.I)
_RATE = re.compile(r"\b(?:rate|percentage|per ?cent)\b|%", re.I)
#: the amount with the percentage in it: "including VAT", "with the discount", "add the VAT to the price"
_APPLIED = re.compile(
    r"\b(?:including|incl\.?|inclusive of|with|plus|after|add|adding|added|gross|less|minus|apply|applied)\b"
    r"[^.;?]*?\b(?:the |its |that )?(?:vat|tax|surcharge|tip|gratuity|levy|discount|rebate|reduction)\b"
    r"|\b(?:vat|tax|surcharge|discount)\b[^.;?]*\b(?:included|added|applied|on top|taken off|deducted)\b",
    re.I,
)
_SHARE_ONLY = re.compile(r"\bhow much (?:is )?(?:the )?(?:vat|tax|discount)\b|\bthe (?:vat|tax) on\b", re.I)


def on_top_step(index: int, clause: str, before: list[PlanStep]) -> PlanStep | None:
    """``vA * (1 ± vP)`` for a request applying the percentage looked up to the amount (see above)."""
    if not _APPLIED.search(clause) or _SHARE_ONLY.search(clause) or re.search(r"\d", clause):
        return None
    pending = [n for n in unused(before) if before[n - 1].kind == LOOKUP][-2:]
    if len(pending) < 2 or names_new_thing(clause, before):
        return None
    rates = [n for n in pending if _percentage(before[n - 1].text)]
    if len(rates) != 1:
        return None
    rate = rates[0]
    amount = pending[0] if rate == pending[1] else pending[1]
    sign = "+" if _ADDED.search(before[rate - 1].text) else "-"
    return PlanStep(
        index, CALC, clause, f"(v{amount} * (1 {sign} v{rate}))", (amount, rate), unit=before[amount - 1].unit
    )


def _percentage(text: str) -> bool:
    """A lookup of a percentage that is added or taken off ("the VAT rate", "the member discount")."""
    added, taken = bool(_ADDED.search(text)), bool(_TAKEN.search(text))
    return added != taken and (bool(_RATE.search(text)) or taken or bool(re.search(r"\bvat\b", text, re.I)))


__all__ = ["on_top_step"]
