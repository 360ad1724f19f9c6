"""Derivations whose form the documents state outright (pure).

Some quantities are not a chain of rates but a form a document spells out: a formula ("RCF = 1.118 x
10^-5 x r x N^2, where ..."), solved for the variable the question asks for (planning/formula.py); the
phases of one item summed into the whole duration asked for (planning/summed.py). Such a
form closes only when its structure is found and every operand but the one asked for has a value from
the question or the documents, so it is tried before the looser chains of rates (planning/derive.py), and
it is the only derivation a lookup that found no single answer may feed (planning/salvage.py): the
documents' records, not a guessed base rate, decide.
"""

from __future__ import annotations

from ioa_p2p.planning.formula import formula_expression
from ioa_p2p.planning.summed import summed_expression
from ioa_p2p.planning.values import Value


def closed_expression(question: str, found: Value) -> tuple[str, str] | None:
    """(expression, unit) for ``question`` by a form the documents ``found`` was read from state; None
    when none closes."""
    return formula_expression(question, found.evidence, found.records) or summed_expression(
        question, found.evidence, found.records
    )


__all__ = ["closed_expression"]
