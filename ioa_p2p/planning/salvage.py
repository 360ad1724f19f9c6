"""A lookup that found no single answer still feeds the derivation its records close (pure).

The retrieval refuses a question no one passage answers ("nothing in the documents answers this"), or
answers it with a value of another type than the step asks for (a length for "how many seconds"); either
way its result still carries the typed records of the document that matched best (``data["records"]``,
planning/records.py). When a later step of the plan **derives** from that lookup (``derive(v1)``,
planning/derive.py, or a charge worked out from the typed rules, planning/ruled.py), those records are
what it needs: the rates, amounts and rules whose units close the quantity the question asks for. The
lookup then counts as done with a value that states no answer of its own
(:data:`~ioa_p2p.planning.records.NO_SINGLE_ANSWER`) and carries the records (and their texts as
evidence); the derivation chooses among them by units and dimensions, as it does for any document.

Only when a dependent derivation closes (gives an expression that computes) is the lookup salvaged;
otherwise it stays failed, as before: nothing is guessed. :func:`accepted_value` is what every driver (the
offline planner's tracker, the goal report, the dry run) asks of an attempt's result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ioa_p2p.planning.derive import DERIVE, derive_expression, typed_charge
from ioa_p2p.planning.records import NO_SINGLE_ANSWER, DocRecords, records_from_data
from ioa_p2p.planning.results import MAX_EVIDENCE_CHARS, answers, value_of
from ioa_p2p.planning.tariffs import CHARGE
from ioa_p2p.planning.types import CALC, LOOKUP, Plan, PlanStep
from ioa_p2p.planning.values import Value


def accepted_value(
    plan: Plan, step: PlanStep, text: str, data: Mapping[str, Any] | None, completed: bool
) -> Value | None:
    """The value an attempt at ``step`` gives the plan: its own value when the attempt completed and
    answers the step, else the records of a lookup a later derivation closes with (see the module
    docstring); None when neither."""
    value = value_of(text, data, step.template) if completed else None
    if value is not None and answers(step, value, data):
        return value
    return salvaged(plan, step, data)


def salvaged(plan: Plan, step: PlanStep, data: Mapping[str, Any] | None) -> Value | None:
    """A value carrying the typed records a failed (or unanswering) lookup's result sent, when a step that
    derives from the lookup closes with them; None otherwise."""
    if step.kind != LOOKUP or not data:
        return None
    records = records_from_data(data.get("records"))
    if records is None or not records.records:
        return None
    value = records_value(records)
    for later in plan.steps:
        if step.index in later.needs[:1] and closes(later, value):
            return value
    return None


def records_value(records: DocRecords) -> Value:
    """A value that states no answer and carries ``records`` (their texts as its evidence)."""
    texts = "\n".join(r.text for r in records.records)[:MAX_EVIDENCE_CHARS]
    shown = f"{NO_SINGLE_ANSWER} {records.path}".strip() if records.path else NO_SINGLE_ANSWER
    return Value.of_text(shown).with_evidence((texts,)).with_records(records)


def closes(step: PlanStep, found: Value) -> bool:
    """Whether ``step`` (a derivation or a charge from typed rules) works out an expression from
    ``found``'s records that computes something (not the value itself, which states no answer)."""
    if step.kind != CALC:
        return False
    if step.template == DERIVE:
        derived = derive_expression(step.text, found)
    elif CHARGE.fullmatch(step.template.strip()):
        derived = typed_charge(step.text, found)
    else:
        return False
    return derived is not None and any(ch.isdigit() for ch in derived[0])


__all__ = ["accepted_value", "closes", "records_value", "salvaged"]
