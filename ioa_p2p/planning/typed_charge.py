"""A charge worked out from the answer document's typed rules, and which of two readings of it wins (pure).

A charge step ("what does the hire cost", inside a calculation or on its own) starts from the value a lookup
found and the typed rules of the document it came from: the value on its own terms with what the situation
adds (planning/situated.py), several rules composed (planning/composer.py), a comparison of two prices
(planning/compared.py), an allowance, the typed rules' charge (planning/ruled.py) or the charge anchored on
the price looked up (planning/anchored.py); :func:`preferred` chooses between the last two. Used by
planning/derive.py and, for a lookup that found no single answer, planning/salvage.py.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.allowance import allowance_expression
from ioa_p2p.planning.anchored import EXEMPT, anchored_expression
from ioa_p2p.planning.banded import banded_expression
from ioa_p2p.planning.closed import closed_expression
from ioa_p2p.planning.compared import compared_expression
from ioa_p2p.planning.composer import composed_charge
from ioa_p2p.planning.fees import with_fees
from ioa_p2p.planning.operand_rules import class_price, operand_charge
from ioa_p2p.planning.records import NO_SINGLE_ANSWER
from ioa_p2p.planning.ruled import ruled_expression
from ioa_p2p.planning.situated import situated_charge, stated_terms
from ioa_p2p.planning.values import NUMBER, Value, format_number, is_money
from ioa_p2p.planning.whichever import whichever_charge


def typed_charge(question: str, found: Value | None, *, vat: bool = True) -> tuple[str, str] | None:
    """(expression, unit) for a charge step from the answer document's typed rules: several of its rules
    composed, a comparison of two of its prices, or (when the retrieval read no terms of its own and
    itemised no bill) the charge its rules give; None when they give none. ``vat=False``: the charge
    inside a calculation that adds VAT itself (only a composition of rules then)."""
    if found is None or found.records is None:
        return None
    situated = whichever_charge(question, found)  # "EUR 25 or twice the single, whichever is greater"
    situated = situated or stated_terms(question, found) or situated_charge(question, found)
    situated = situated or operand_charge(question, found) or class_price(question, found)
    if situated is not None:  # the value found on its own terms, with what the situation adds (situated.py)
        return situated  # or the rule it selects on the fact that rule names (operand_rules.py)
    composed = composed_charge(question, found.records, vat=vat, looked=looked_amounts(found))  # composer.py
    if found.text.startswith(NO_SINGLE_ANSWER):  # no price found: only a form the documents state closes
        return closed_expression(question, found) or composed
    if composed is not None:
        return composed
    if not vat:
        return None
    compared = compared_expression(question, found.records)
    if compared is not None and computes(compared[0]):
        return compared
    allowed = allowance_expression(question, found)  # the units beyond an allowance, at their rate
    if allowed is not None:
        return allowed
    ruled = (
        ruled_expression(question, found.records, found.terms, found.number) if found.kind == NUMBER else None
    )
    charge = preferred(anchored_expression(question, found), ruled, found)
    banded = banded_expression(question, found, charge)  # a percentage by the band of a quantity
    return banded or (with_fees(charge, found) if charge is not None else None)


def looked_amounts(found: Value) -> tuple[float, ...] | None:
    """The amounts a lookup found, one of which a composition of rules must start from; None when it
    found no single answer (the rules alone decide, planning/salvage.py)."""
    if found.text.startswith(NO_SINGLE_ANSWER):
        return None
    if found.kind == NUMBER and found.number is not None:
        return (found.number,)
    return tuple(i.number for i in found.items if i.kind == NUMBER and i.number is not None)


def preferred(
    anchored: tuple[str, str] | None, ruled: tuple[str, str] | None, found: Value
) -> tuple[str, str] | None:
    """The charge of a question the rules exempt (0); the typed rules' charge when it is worked out from
    the price looked up (it reads bands, tiers and other charges too) unless only the anchored reading
    applies a bound ("at most 10 days charged"); else the charge worked out from the price looked up and
    the rules around it (planning/anchored.py); else the typed rules' own choice, but only when it starts
    from the amount of money looked up (a late charge of EUR 15 is never answered by a cleaning fee times
    the hours of three weeks)."""
    ruled = ruled if ruled is not None and computes(ruled[0]) else None
    anchored = anchored if anchored is not None and computes(anchored[0]) else None
    if ruled is not None and anchored is None and found.number is not None and is_money(found.unit):
        shown = re.escape(format_number(found.number))
        if not re.search(rf"(?<![\d.]){shown}(?![\d.])", ruled[0]):
            ruled = None  # the price looked up is in no part of it: another charge's rule, never the answer
    if anchored is not None and anchored[0] == EXEMPT:  # "Junior cardholders are never charged ..."
        return anchored
    if ruled is not None and found.number is not None:
        shown = re.escape(format_number(found.number))
        if re.search(rf"(?<![\d.]){shown}(?![\d.])", ruled[0]):  # both from the price looked up
            bounds = set(_BOUNDS.findall(anchored[0] if anchored else "")) - set(_BOUNDS.findall(ruled[0]))
            # the price's own bounds ("at most 10 days charged per rental") beat document-wide ones
            return anchored if anchored is not None and bounds else ruled  # a bound only one reads wins
    return anchored or ruled


_BOUNDS = re.compile(r"\b(?:min|max|floor|ceil)\([^()]*\)")


def computes(expression: str) -> bool:
    """Whether an expression has anything to compute (a bare amount is the value looked up)."""
    return bool(re.search(r"[-+*/(]", expression.lstrip("-")))


__all__ = ["computes", "looked_amounts", "preferred", "typed_charge"]
