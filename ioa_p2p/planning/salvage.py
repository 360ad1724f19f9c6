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
otherwise it stays failed, as before: nothing is guessed. A charge may also start from the row of a
table of bands that the quantity the question states falls in ("all aged 10": the "Child (4-17)" row's
price; planning/category.py): the price is then the value, as if the lookup had found it.
:func:`accepted_value` is what every driver (the offline planner's tracker, the goal report, the dry run)
asks of an attempt's result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ioa_p2p.planning.category import ages_in, category_row
from ioa_p2p.planning.derive import DERIVE, derive_expression
from ioa_p2p.planning.records import NO_SINGLE_ANSWER, DocRecords, records_from_data
from ioa_p2p.planning.results import MAX_EVIDENCE_CHARS, answers, value_of
from ioa_p2p.planning.season import out_of_period
from ioa_p2p.planning.tariffs import CHARGE
from ioa_p2p.planning.typed_charge import typed_charge
from ioa_p2p.planning.types import CALC, LOOKUP, Plan, PlanStep
from ioa_p2p.planning.values import Value, format_number, numbers_in


def accepted_value(
    plan: Plan, step: PlanStep, text: str, data: Mapping[str, Any] | None, completed: bool
) -> Value | None:
    """The value an attempt at ``step`` gives the plan: its own value when the attempt completed and
    answers the step, else the records of a lookup a later derivation closes with (see the module
    docstring); None when neither."""
    value = value_of(text, data, step.template) if completed else None
    # a time the document does not cover is no answer (planning/season.py; refusal.py names it missing)
    outside = step.kind == LOOKUP and out_of_period(step.template, value) is not None
    if value is not None and answers(step, value, data) and not outside:
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
    later = [s for s in plan.steps if step.index in s.needs[:1]]
    if any(closes(s, value) for s in later):
        return value
    row = category_row(step.template, records)  # the row of the band the question's age/weight is in
    if row is None:
        return None
    anchored = (
        Value.of_number(row.amount, row.unit, row.record.text)
        .with_evidence(value.evidence)
        .with_records(records)
    )
    return anchored if any(_counts_all(s, anchored) for s in later) else None


def _counts_all(step: PlanStep, found: Value) -> bool:
    """``step`` works out an expression from ``found`` that uses every count the question states besides
    the ages and measures ("30 pupils, all aged 10": 30), so a charge that lost one is never taken."""
    derived = _derived(step, found)
    if derived is None:
        return False
    ages = set(ages_in(step.text))
    counts = {format_number(f.number) for f in numbers_in(step.text) if f.number not in ages and not f.unit}
    used = set(re.findall(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])", derived[0]))
    return counts <= used


def records_value(records: DocRecords) -> Value:
    """A value that states no answer and carries ``records`` (their texts as its evidence)."""
    texts = "\n".join(r.text for r in records.records)[:MAX_EVIDENCE_CHARS]
    shown = f"{NO_SINGLE_ANSWER} {records.path}".strip() if records.path else NO_SINGLE_ANSWER
    return Value.of_text(shown).with_evidence((texts,)).with_records(records)


def _derived(step: PlanStep, found: Value) -> tuple[str, str] | None:
    """The expression ``step`` (a derivation or a charge) works out from ``found``, if any."""
    if step.kind == CALC and step.template == DERIVE:
        return derive_expression(step.text, found)
    if step.kind == CALC and CHARGE.fullmatch(step.template.strip()):
        return typed_charge(step.text, found)
    return None


def closes(step: PlanStep, found: Value) -> bool:
    """Whether ``step`` (a derivation or a charge from typed rules) works out an expression from
    ``found``'s records that computes something (not the value itself, which states no answer)."""
    derived = _derived(step, found)
    return derived is not None and any(ch.isdigit() for ch in derived[0])


__all__ = ["accepted_value", "closes", "records_value", "salvaged"]
