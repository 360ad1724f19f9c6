"""A charge on an amount of money the question gives (pure): cover on a declared value, a fee on a price,
the VAT on a bill (issue 23, class 7).

"What does the extra cover cost for a parcel declared at EUR 460?" gives an amount of money, and the rule
the lookup found is stated over amounts of money: "the first EUR 100 of declared value is covered free;
above that, cover costs EUR 1.50 for every EUR 100 (or part of EUR 100) of value over the first EUR 100,
never more than EUR 30.00" is ``min(ceil(max(460 - 100, 0) / 100) * 1.5, 30)``. The readings of the
record the looked-up amount stands in (with the records after it that state no charge of their own):

- **per block of value**: an amount "for each / every / per EUR 1,000 of (declared) value", the blocks
  started counted in full where it says so ("or part of"), less a first amount that is free ("over the
  first EUR 100", "the first EUR 100 ... is covered free"), the value raised to the least it may be ("the
  declared value is never less than EUR 2,000");
- **a percentage of the value** ("2.5% of the declared value");
- **the value itself plus a fee** ("charged at the replacement value on its tag, plus an admin fee of
  GBP 5");
- **the VAT on a bill** the question gives ("how much VAT is added to a bill of EUR 500"): the document's
  VAT rate;

each bounded by what its record says of the charge ("never more than EUR 30.00", "at least EUR 4.00").
A question that gives no amount of money, or more than one, or a record that states none of these, has
no such reading (None): the planner's other readings answer or refuse.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.records import VAT, DocRecords
from ioa_p2p.planning.rule_fit import GENERIC, MONEY, fit_of, word_weights, words_of
from ioa_p2p.planning.values import Value, format_number, numbers_in

_AMOUNT = r"((?:[A-Z]{3}|[€£$])\s?[\d,]+(?:\.\d+)?|[\d,]+(?:\.\d+)?\s?(?:[A-Z]{3}|[€£$]))"


def _named(name: str) -> str:
    return _AMOUNT.replace("(", f"(?P<{name}>", 1)


_BLOCK = re.compile(
    rf"{_named('each')}\s+(?:per\s+[\w ]{{1,30}}?\s+)?(?:for|per)\s+(?:each|every|any)?\s*{_named('per')}"
    rf"(?P<part>\s*\(?or part (?:thereof|of[^)]*)\)?)?(?:\s+or part (?:thereof|of \w+))?\s+of\s+"
    rf"(?:the\s+)?(?:[\w-]+\s+){{0,2}}value\b(?:[^.;]*?\b(?:over|above|beyond|in excess of)\s+the first\s+"
    rf"{_named('first')})?",
    re.I,
)
_FREE_FIRST = re.compile(rf"\bthe first {_AMOUNT}\b[^.;]*\b(?:free|not charged|no charge)\b", re.I)
_PERCENT_OF = re.compile(r"(\d+(?:\.\d+)?)\s?(?:%|per ?cent)\s+of\s+(?:the\s+|its\s+)?(?:[\w-]+\s+){0,2}"
                         r"(?:value|price|amount|bill|cost)\b", re.I)  # fmt: skip
_AT_VALUE = re.compile(
    rf"\bcharged\s+at\s+(?:the|its)\s+(?:[\w-]+\s+){{0,2}}(?:value|price|cost)\b[^.;]*?\bplus\s+"
    rf"(?:an?\s+)?(?:[\w-]+\s+){{0,2}}(?:fee|charge)\s+of\s+{_AMOUNT}",
    re.I,
)
_VALUE_AT_LEAST = re.compile(rf"\bvalue is never less than\s+{_AMOUNT}|\bminimum (?:declared )?value "
                             rf"(?:is|of)\s+{_AMOUNT}", re.I)  # fmt: skip
_AT_MOST = re.compile(rf"\b(?:never more than|not more than|at most|up to a maximum of|capped at|"
                      rf"maximum of)\s+{_AMOUNT}", re.I)  # fmt: skip
_AT_LEAST = re.compile(rf"\b(?:but )?at least\s+{_AMOUNT}|\bminimum (?:charge|fee) (?:is |of )?{_AMOUNT}",
                       re.I)  # fmt: skip
_VALUE_WORDS = frozenset({"value", "valued", "worth", "declared", "declare", "declaring", "stated", "state"})
_VAT_ASKED = re.compile(r"\bhow much (?:vat|value added tax)\b|\bwhat (?:is|would be) the vat\b|"
                        r"\bthe vat (?:on|for)\b", re.I)  # fmt: skip


def valued_expression(question: str, found: Value | None) -> tuple[str, str] | None:
    """(expression, currency) of the charge ``question`` asks for on the one amount of money it gives,
    read from the record of ``found``'s document that states such a rule and fits the question best (the
    record of the amount found, of two that fit as well; see the module docstring); None when there is
    none."""
    if found is None or found.records is None:
        return None
    amounts = [n for n in numbers_in(question) if n.unit in MONEY]
    if len(amounts) != 1:
        return None
    value, currency = amounts[0].number, amounts[0].unit
    records = found.records
    if _VAT_ASKED.search(question):
        rate = next((r.number for r in records.rules if r.kind == VAT and r.number > 0), None)
        if rate is None and found.unit == "%" and re.search(r"\bvat\b", found.text, re.I):
            rate = found.number
        return (f"{format_number(value)} * {format_number(rate / 100)}", currency) if rate else None
    read = _best_reading(question, records, value, found)
    return (read, currency) if read is not None else None


def _best_reading(question: str, records: DocRecords, value: float, found: Value) -> str | None:
    """The bounded charge of the record that states such a rule and fits the question best (its words,
    then whether it states the amount the lookup found); None when none does, or two fit as well."""
    shown = re.escape(format_number(found.number)) if found.number is not None else r"(?!)"
    looked = re.compile(rf"(?<![\d.]){shown}(?:\.0+|(?<=\.\d)0+)?(?![\d]|[.]\d)")
    words = words_of(question) - GENERIC - _VALUE_WORDS  # what is charged, not how the value is said
    weights = word_weights(records)
    scored: list[tuple[float, bool, str]] = []
    for i in range(len(records.records)):
        text = _with_continuation(records, i)
        charge = _charge(text, value)
        if charge is None:
            continue
        fit = fit_of(words_of(text) & words, weights)
        if fit > 0:
            scored.append((fit, bool(looked.search(text.replace(",", ""))), _bounded(charge, text)))
    if not scored:
        return None
    scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
    if len(scored) > 1 and scored[1][:2] == scored[0][:2] and scored[1][2] != scored[0][2]:
        return None
    return scored[0][2]


def _with_continuation(records: DocRecords, i: int) -> str:
    """Record ``i``'s text with the sentences after it in its clause that state no charge of their own
    ("The declared value is never less than EUR 2,000."): up to a numbered clause, a heading or a list
    item."""
    parts = [records.records[i].text]
    for after in records.records[i + 1 : i + 3]:
        text = after.text.strip()
        if _NEW_CLAUSE.match(text) or not text.endswith((".", ";")) or _charge(text, 1.0) is not None:
            break
        parts.append(text)
    return " ".join(parts)


_NEW_CLAUSE = re.compile(r"(?:\d+(?:\.\d+)*\.?|\(?[a-z]\)|[-*\u2022]|\[\^?\w+\]:?)\s", re.I)


def _money(raw: str) -> float:
    return float(re.sub(r"[^\d.]", "", raw))


def _charge(text: str, value: float) -> str | None:
    """The charge on ``value`` that ``text`` states (unbounded), or None."""
    least = _VALUE_AT_LEAST.search(text)
    if least is not None:
        floor = _money(least.group(1) or least.group(2))
        base = f"max({format_number(value)}, {format_number(floor)})"
    else:
        base = format_number(value)
    block = _BLOCK.search(text)
    if block is not None:
        each, per, free = _money(block.group("each")), _money(block.group("per")), block.group("first")
        free_first = _FREE_FIRST.search(text)
        first = _money(free) if free else (_money(free_first.group(1)) if free_first else 0.0)
        over = f"max({base} - {format_number(first)}, 0)" if first else base
        blocks = f"{over} / {format_number(per)}"
        started = bool(block.group("part")) or bool(re.search(r"\bor part\b|\bstarted\b", block.group(0)))
        blocks = f"ceil({blocks})" if started else f"({blocks})"
        return f"{blocks} * {format_number(each)}"
    share = _PERCENT_OF.search(text)
    if share is not None:
        return f"{base} * {format_number(float(share.group(1)) / 100)}"
    at_value = _AT_VALUE.search(text)
    if at_value is not None:
        return f"{base} + {format_number(_money(at_value.group(1)))}"
    return None


def _bounded(charge: str, text: str) -> str:
    """``charge`` within what the record says of it: "never more than EUR 30.00", "at least EUR 4.00"."""
    most, least = _AT_MOST.search(text), _AT_LEAST.search(text)
    if most is not None:
        charge = f"min({charge}, {format_number(_money(most.group(1)))})"
    if least is not None:
        charge = f"max({charge}, {format_number(_money(least.group(1) or least.group(2)))})"
    return charge


__all__ = ["valued_expression"]
