"""A minimum number of units stated in a rate's own line, applied to the count it is charged for (pure;
issue 23, p-natural5).

Price lists bound the quantity a rate is charged for beside the rate: "Key-top replacement | per key |
9.5 | minimum 12 keys", "Evening buffet .... £14.25 per head, minimum 60 heads", "EUR 3 per chair (min.
20 chairs)". A charge worked out as the rate times the situation's count (``9.5 * 5``) is then charged
for at least that many: :func:`at_least_stated` makes it ``9.5 * max(5, 12)``. Only a minimum of what
the rate is per (the line's "per key" and "12 keys") counts; a minimum charge in money is
planning/paragraph_bounds.py's, a minimum of another thing ("minimum 6 hours" beside "per waiter"), or a
rate per two things ("per waiter per hour": which one does the count count?) is left alone, as is a
line with two such minimums (which one holds?).
"""

from __future__ import annotations

import re

from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.paragraph_bounds import paragraph_of
from ioa_p2p.planning.values import Value, format_number

_LEAST = re.compile(
    r"\b(?:minimum|min\.?|at\s+least)\s+(?:of\s+)?(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>[a-z]+)", re.I
)
_PER = re.compile(r"(?:\bper|/|\beach|\ba)\s+(?P<unit>[a-z]+)", re.I)
_MONEY_WORDS = frozenset({"eur", "gbp", "usd", "chf", "euro", "pound", "dollar", "charge", "fee", "order"})


def at_least_stated(expression: str, found: Value) -> str:
    """``expression`` with the count the rate ``found`` is multiplied by raised to the minimum its own
    line states (see the module docstring); unchanged otherwise."""
    if found.number is None:
        return expression
    line = paragraph_of(found).split("\n", 1)[0]
    if not line:
        return expression
    per = {singular(m.group("unit")) for m in _PER.finditer(line)}
    least = [
        (float(m.group("n")), singular(m.group("unit")))
        for m in _LEAST.finditer(line)
        if m.group("unit").lower() not in _MONEY_WORDS
    ]
    least = [(n, unit) for n, unit in least if {unit} == per]  # per that one thing only
    if len(least) != 1:
        return expression
    n = format_number(least[0][0])
    rate = re.escape(format_number(found.number))
    product = re.compile(rf"(?<![\d.])(\(?{rate}\)?\s*\*\s*)(\d+(?:\.\d+)?)(?![\d.(])")
    found_products = product.findall(expression)
    if len(found_products) != 1:
        return expression  # the rate times no count, or several: not one charge to bound
    return product.sub(lambda m: f"{m.group(1)}max({m.group(2)}, {n})", expression)


__all__ = ["at_least_stated"]
