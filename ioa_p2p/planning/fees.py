"""A charge's fixed fees that its rates bring in their own clause (pure).

"EUR 2.40 per litre plus a refuelling service fee of EUR 15.00": a charge worked out with the rate (by
planning/derive.py or the typed rules) adds the fee once, when the rate is one of its operands and the fee
is not already.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.answer_types import MONEY_UNITS
from ioa_p2p.planning.values import Value, format_number

_PLUS_FEE = re.compile(
    r"(?:EUR|USD|GBP|CHF|€|\$|£)?\s*(\d+(?:\.\d+)?)\s*(?:per|a|an|for each)\s+[a-z²³]+\s+plus\s+(?:an?\s+)?"
    r"(?:[a-z-]+\s+){0,3}?(?:fee|charge|surcharge)?\s*(?:of\s+)?(?:EUR|USD|GBP|CHF|€|\$|£)\s*(\d+(?:\.\d+)?)"
    r"(?![\d.]*\s*(?:per|a|an|each)\s)",
    re.I,
)


def with_fees(derived: tuple[str, str], found: Value) -> tuple[str, str]:
    """A charge with the fixed amounts its rates bring in their own clause ("EUR 2.40 per litre plus a
    refuelling service fee of EUR 15.00"): each such fee added once when the rate is an operand and the
    fee is not already."""
    expr, unit = derived
    if not charge_unit(unit):
        return derived
    texts = [r.text for r in found.records.records] if found.records is not None else list(found.evidence)
    numbers = set(re.findall(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])", expr))
    fees: list[str] = []
    for text in texts:
        for m in _PLUS_FEE.finditer(text):
            rate, fee = format_number(float(m.group(1))), format_number(float(m.group(2)))
            if rate in numbers and fee not in numbers and fee not in fees:
                fees.append(fee)
    return (expr + "".join(f" + {f}" for f in fees), unit) if fees else derived


def charge_unit(unit: str) -> bool:
    """A currency (EUR, GBP, CHF...) or a cent: the unit of a charge."""
    return unit in MONEY_UNITS or unit == "cent" or re.fullmatch(r"[A-Z]{3}", unit) is not None


__all__ = ["charge_unit", "with_fees"]
