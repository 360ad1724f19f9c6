"""A price with the VAT the documents state added, however the question says "with VAT" (pure).

Issue 23, p-chain5. "What will the Quayside Grill's March gas bill come to once VAT is added?", "What does
the Fernhill annual pass cost once VAT is on it?": the price is one lookup, the VAT rate the documents
state another (the thing's proper names with it, so the rate of its own document is read), and the answer
``v1 * (1 + v2 / 100)``. natural.py's ``_vat`` reads "cost including VAT"; these are the other wordings
(once / after / when VAT is added, on it, on top, applied; "plus VAT" after any verb). No VAT rate in the
documents: the lookup is refused and the rate named as missing, never a rate guessed.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep

_TAX = r"(?P<tax>vat|gst|sales tax)"
_ADDED = re.compile(
    rf"^(?P<body>(?:what|how much)\b.+?),?\s+(?:once|after|when|with|after adding|adding)\s+(?:the\s+)?{_TAX}"
    r"(?:\s+(?:is|has been|was|are))?\s+(?:added(?:\s+on)?|on(?:\s+it|\s+top)?|included|applied|charged)"
    r"(?:\s+to it)?$",
    re.I,
)
_PLUS = re.compile(rf"^(?P<body>(?:what|how much)\b.+?),?\s+(?:plus|with)\s+{_TAX}(?:\s+on top)?$", re.I)
_VERB = re.compile(
    r"\s+(?:cost|costs|come to|comes to|be|charge|charged|amount to|total|add up to|set (?:me|us) back)$",
    re.I,
)
_AMOUNT_NOUN = re.compile(r"\b(?:invoice|bill|charge|fee|price|cost|total|quote|rent|subscription)\b", re.I)


def vat_plan(question: str) -> tuple[PlanStep, ...] | None:
    """The price looked up, the VAT rate looked up, then the price with VAT; None for other questions."""
    q = re.sub(r"\s+", " ", question).strip().rstrip("?.! ")
    m = _ADDED.match(q) or _PLUS.match(q)
    if m is None or re.search(r"\d+(?:\.\d+)?\s?%", q):  # a rate the question gives: literal.py's
        return None
    body = re.sub(
        r"^(?:what|how much)\s+(?:will|would|does|do|did|is|are)\s+", "", m.group("body"), flags=re.I
    )
    thing = _VERB.sub("", body).strip(" ,")
    if not thing or thing.lower() in ("it", "that", "this") or len(thing.split()) > 14:
        return None
    named = thing if re.match(r"(?:the|a|an)\s|\w+['’]s\s", thing, re.I) else f"the {thing}"
    first = f"What is {named}?" if _AMOUNT_NOUN.search(thing) else f"What is the price of {named}?"
    owner = re.search(
        r"\b[A-Z][a-z][\w&-]*(?:\s+(?:&\s+)?[A-Z][a-z][\w&-]*)*", thing
    )  # "Elmstead Village Hall"
    names = owner.group(0) if owner else ""
    tax = m.group("tax").upper() if m.group("tax").lower() != "sales tax" else "sales tax"
    second = f"What is the {tax} rate" + (f" ({names})" if names else "") + "?"
    return (
        PlanStep(1, LOOKUP, first.rstrip("?"), first),
        PlanStep(2, LOOKUP, second.rstrip("?"), second),
        PlanStep(3, CALC, question.strip(), "(v1 * (1 + v2 / 100))", (1, 2)),
    )
