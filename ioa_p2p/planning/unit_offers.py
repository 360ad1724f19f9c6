"""Free units a document grants on a count ("the 7th night free"), applied to a charge's count (pure).

A rate times a count is not the charge when the documents grant some of the units free; they say so in
many ways, each read into one :class:`UnitOffer` (of ``block`` units in a row, ``charged`` are paid):

- "a stay of 7 consecutive nights is charged as 6 nights", "7 nights are charged as 6";
- "3 sessions for the price of 2", "stay 7 nights, pay for 6", "book 4 nights, pay 3";
- "every 4th night is free", "every fourth lesson free", "the 10th wash is free" (once: not "every").

:func:`with_offers` applies the offers of a document to a worked-out charge: the count the situation
gives of the offer's unit (planning/situation_values.py: "7 nights", a stay from 5 to 12 October), where it
stands in the expression as a factor of its own, becomes the count charged (``7 - floor(7 / 7) * 1``;
"the 4th night free" once: ``10 - 1``). A count below the block, an expression that already takes free
units off (``floor``), or a count that stands in it more than once (which one is it?) leave it as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.expr import WORD_NUMBERS
from ioa_p2p.planning.situation_values import situation_values
from ioa_p2p.planning.values import format_number

_ORDINALS = {
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
}
_N = r"(\d{1,2}|" + "|".join(w for w in WORD_NUMBERS if " " not in w and w not in ("zero", "dozen")) + ")"
_NTH = r"(\d{1,2})(?:st|nd|rd|th)|(" + "|".join(_ORDINALS) + ")"
_UNIT = r"([a-z]+?)(?:e?s)?"
_FORMS = (
    # "a stay of 7 consecutive nights is charged as 6 nights", "7 nights are charged as 6"
    re.compile(
        rf"\b{_N}\s+(?:consecutive\s+|successive\s+)?{_UNIT}\s+(?:is|are)\s+(?:charged|billed|priced)\s+"
        rf"(?:as|at|for)\s+(?:only\s+)?{_N}\b",
        re.I,
    ),
    # "3 sessions for the price of 2"
    re.compile(rf"\b{_N}\s+{_UNIT}\s+for\s+the\s+price\s+of\s+{_N}\b", re.I),
    # "stay 7 nights, pay for 6", "book 4 nights and pay 3"
    re.compile(
        rf"\b(?:stay|book|buy|take|hire)\s+{_N}\s+{_UNIT},?\s+(?:and\s+|but\s+)?(?:only\s+)?pay\s+(?:for\s+)?"
        rf"(?:only\s+)?{_N}\b",
        re.I,
    ),
)
_EVERY = re.compile(
    rf"\b(every|each|the)\s+(?:{_NTH})\s+{_UNIT}\b[^.;]{{0,40}}?\b(?:is\s+|are\s+)?free\b", re.I
)


@dataclass(frozen=True, slots=True)
class UnitOffer:
    """Of every ``block`` units of ``unit`` in a row, ``charged`` are paid (``every``: per block; else
    once, for a count of at least ``block``)."""

    unit: str
    block: int
    charged: int
    every: bool
    text: str


def _count(raw: str) -> int:
    word = raw.lower()
    return int(word) if word.isdigit() else int(WORD_NUMBERS.get(word, 0))


def offers_in(text: str) -> list[UnitOffer]:
    """Every offer of free units ``text`` states (see the module docstring)."""
    out: list[UnitOffer] = []
    for form in _FORMS:
        for m in form.finditer(text):
            block, unit, charged = _count(m.group(1)), singular(m.group(2)), _count(m.group(3))
            if 0 < charged < block <= 60:
                out.append(UnitOffer(unit, block, charged, True, m.group(0)))
    for m in _EVERY.finditer(text):
        block = int(m.group(2)) if m.group(2) else _ORDINALS[m.group(3).lower()]
        if 1 < block <= 60:
            every = m.group(1).lower() in ("every", "each")
            out.append(UnitOffer(singular(m.group(4)), block, block - 1, every, m.group(0)))
    return out


def charged_count(n: float, offer: UnitOffer) -> str | None:
    """The units of ``n`` that are paid under ``offer``, as an expression; None when it frees none."""
    if n != int(n) or n < offer.block:
        return None
    count = format_number(n)
    if not offer.every:
        return f"({count} - {offer.block - offer.charged})"
    return f"({count} - floor({count} / {offer.block}) * {offer.block - offer.charged})"


def with_offers(expression: str, question: str, texts: list[str]) -> str:
    """``expression`` (a charge worked out for ``question``) with the count of an offer's unit the
    situation gives replaced by the count charged, under the offers ``texts`` state; unchanged when none
    applies (see the module docstring)."""
    if "floor(" in expression:
        return expression  # free units taken off already (planning/anchored.py)
    offers = [o for t in texts for o in offers_in(t)]
    if not offers:
        return expression
    for value in situation_values(question):
        what = singular(value.what)
        offer = next((o for o in offers if o.unit == what), None)
        charged = charged_count(value.number, offer) if offer is not None else None
        if charged is None:
            continue
        shown = re.escape(format_number(value.number))
        factor = re.compile(rf"(?:(?<=\*\s)|(?<=\*)){shown}(?![\d.])|(?<![\d.]){shown}(?=\s*\*)")
        if (
            len(factor.findall(expression)) == 1
            and len(re.findall(rf"(?<![\d.]){shown}(?![\d.])", expression)) == 1
        ):
            return factor.sub(charged, expression)
    return expression


__all__ = ["UnitOffer", "charged_count", "offers_in", "with_offers"]
