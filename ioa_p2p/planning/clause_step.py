"""One clause -> one step (pure): code, a date moved, a calculation over earlier values, a lookup or a task.

:func:`make_step` reads a clause after the request's own plans (natural questions, charges, rates) had their
turn: references become ``vN``, facts looked up for it replace their markers, and the clause's kind decides
the step (code when it holds or asks for code, a date step for "3 days after", a calculation when it
computes over earlier values, a lookup when it asks about named things or documents, a task otherwise).
"""

from __future__ import annotations

import re

from ioa_p2p.planning.answer_types import ARITH_WORD, LOOKUP_VERB, QUESTION_START, answer_type, request_act
from ioa_p2p.planning.applied import applied, asked_unit, unit_suffix
from ioa_p2p.planning.clauses import INLINE_CODE, WANTS_CODE
from ioa_p2p.planning.code import MARK_RE, RUN_CODE, code_step
from ioa_p2p.planning.expr import names_in, normalise, to_expression
from ioa_p2p.planning.literal import digits
from ioa_p2p.planning.lookups import label_one, label_refs
from ioa_p2p.planning.operands import NEST_MARK, amounts_at_rate
from ioa_p2p.planning.refs import resolve, resolve_code_refs
from ioa_p2p.planning.types import CALC, DATE, LOOKUP, TASK, PlanStep
from ioa_p2p.planning.values import dates_in, numbers_in

#: A clause asking for a team ("form a team to ..."): kept whole; its assignee forms the sub-team asked for.
TEAM_ASK = re.compile(
    r"\b(?:form|assemble|build|create|set\s+up|put\s+together|gather|recruit)\s+(?:a\s+|an\s+|your\s+own\s+)?"
    r"(?:new\s+|small\s+)?(?:sub-?\s?team|team)\b|\bsub-?\s?team\b",
    re.I,
)
_DATE_STEP = re.compile(
    r"\b(\d+|a|one|two|three)\s+(days?|weeks?)\s+(after|before|later|earlier|from)\b|"
    r"\b(?:days?|minutes|hours) (?:between|apart)\b|\bminutes pass\b",
    re.I,
)


def make_step(
    clause: str, before: list[PlanStep], blocks: list[str], nested: tuple[int, ...] = ()
) -> PlanStep | None:
    """The step for ``clause``; ``nested`` are lookups just planned for facts the clause names (marked
    in it), which references ("it", "the result") skip."""
    index = len(before) + 1
    labelled, named = label_refs(clause, before, nested) if request_act(clause) == "compute" else (clause, [])
    if named:  # "the ratio FY2024 ÷ FY2023": earlier values named by what they are
        coded, labelled = resolve_code_refs(labelled, before)  # "... minus the code's output"
        refs, text = [*named, *coded], re.sub(r"\b(v\d+)(?: \1\b)+", r"\1", labelled)
    else:
        refs, text = resolve(clause, [s for s in before if s.index not in nested])
        coded, marked = resolve_code_refs(clause, before) if request_act(clause) == "compute" else ([], "")
        if coded and not re.search(r"\bv\d+\b.*\bv\d+\b", text):  # "the deposit minus the code's output"
            labelled, named = label_one(marked, [s for s in before if s.index not in coded], nested)
            if named:
                refs, text = [*named, *coded], labelled
    text = amounts_at_rate(text)  # "5 hours at v2": (5 * v2)
    for n in nested:
        text = text.replace(NEST_MARK.format(n), f"v{n}")
        refs.append(n)
    for n in nested:
        clause = clause.replace(NEST_MARK.format(n), before[n - 1].text.removeprefix("What is "))
    if TEAM_ASK.search(clause):  # the user asks for a team: the step goes as written, to be delegated
        return PlanStep(index, TASK, clause, text, tuple(refs))
    mark = MARK_RE.search(text)
    wants_code = WANTS_CODE.search(resolve_code_refs(clause, before)[1])  # not "the code's output"
    if mark or INLINE_CODE.search(text) or (wants_code and (refs or RUN_CODE.search(clause))):
        return code_step(index, clause, text, refs, before, blocks[int(mark.group(1))] if mark else None)
    if _DATE_STEP.search(digits(clause)) and (refs or re.search(r"\d{4}", clause)):
        template = re.sub(r"\bv(\d+)\b", r"{\1}", digits(text))
        return PlanStep(index, DATE, clause, template, tuple(refs))
    days = dates_in(clause)
    if len(days) == 1 and before and re.search(r"\bdate\b|\bwhen\b|\bday\b", clause, re.I) and not refs:
        # "give the due date for a bill issued on 14 November 2025": that date moved by the earlier value
        return PlanStep(
            index, DATE, clause, f"{days[0][2].isoformat()} + {{{before[-1].index}}}", (before[-1].index,)
        )
    if request_act(clause) == "compute" and (refs or before):
        return applied(index, clause, text, refs, before)
    if refs and answer_type(clause).numeric and len(numbers_in(digits(text))) == 1:
        return applied(index, clause, text, refs, before)  # "if I bake five batches, how many hours is that?"
    is_lookup = (
        bool(LOOKUP_VERB.match(clause))
        or request_act(clause) == "question"
        or (
            bool(QUESTION_START.match(clause))
            and not re.search(  # "the product of 3 and 4" is arithmetic; "the keys of Flat 4B" a name
                r"(?<![\w-])(?!(?:19|20)\d\d\b)\d+(?:\.\d+)?(?![\w-])",  # a year is no operand either
                clause.split(" of ")[-1] if " of " in clause else "",
            )
        )
    )
    default = f"v{before[-1].index}" if before else ""
    expression = to_expression(text, default) if (ARITH_WORD.search(normalise(text)) or refs) else None
    if expression is not None and (
        refs or not is_lookup or not re.search(r"[A-Z]\w*\d|\b[A-Z][a-z]+\b", clause[1:])
    ):
        needs = tuple(names_in(expression))
        return PlanStep(index, CALC, clause, expression, needs, unit=_unit_of(needs, before, expression))
    if is_lookup or re.search(
        r"\b(in|from|according to) the [\w -]*(list|report|policy|contract|sheet|"
        r"datasheet|handbook|notes|log|timetable|docs?|documents?)\b",
        clause,
        re.I,
    ):
        asked, in_unit = unit_suffix(_question(clause))  # "... in litres per second": converted after
        return PlanStep(
            index, LOOKUP, clause, asked, (), unit=asked_unit(clause) or (in_unit and f"in:{in_unit}")
        )
    if expression is not None:
        needs = tuple(names_in(expression))
        return PlanStep(index, CALC, clause, expression, needs)
    return PlanStep(index, TASK, clause, clause, tuple(refs))


def _question(clause: str) -> str:
    return re.sub(r"^(?:could you|can you|please)\s+", "", clause, flags=re.I).strip()


def _unit_of(needs: tuple[int, ...], before: list[PlanStep], expression: str) -> str:
    units = {before[n - 1].unit for n in needs}
    if len(units) == 1 and not re.search(r"v\d+\s*/\s*v\d+|\*\*", expression):
        return units.pop()
    return ""


__all__ = ["TEAM_ASK", "make_step"]
