"""Requests -> plans (pure): clauses, their kinds, the earlier values they refer to.

1. The request is split into clauses (:mod:`~ioa_p2p.planning.clauses`): code blocks cut out and given to
   the clause that runs them, sentences, ``;``, sequencing words, ", and" before an action verb.
2. Whole-request plans get the first turn (a relation, a scene then a question, one natural question
   decomposed); otherwise each clause is planned in order.
3. Each clause (:mod:`~ioa_p2p.planning.clause_step`) becomes a step: ``code`` (a block, inline code
   such as ``print(2 ** 12)``, or an instruction to use Python, turned into code), ``calc`` (arithmetic in
   words or symbols), ``date`` (dates moved or compared), ``lookup`` (a question about named things or
   documents), or ``task``. A clause that only asks to report ("tell me what it prints") adds no step. A
   naturally worded question is first offered to :func:`~ioa_p2p.planning.natural.decompose`.
4. References: "it", "that", "the result", "that number" -> the previous step; "that price" -> the latest
   step about a price; "its output", "the printed number" -> the latest code step; "both", "the two numbers",
   "all three results" -> the last two / three steps; "the first value", "the second" -> by position; a
   step without a left operand ("subtract seven") works on the previous value.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ioa_p2p.planning import described, natural, operations, scaled
from ioa_p2p.planning.answer_types import QUESTION_START
from ioa_p2p.planning.basket import basket_plan
from ioa_p2p.planning.binding import with_pairs, with_stated
from ioa_p2p.planning.changed import change_plan
from ioa_p2p.planning.checked import check_steps
from ioa_p2p.planning.clause_step import TEAM_ASK, make_step
from ioa_p2p.planning.clauses import (
    ACTION,
    REPORT_ONLY,
    asked_after_statements,
    codeish,
    meta_only,
    request_clauses,
)
from ioa_p2p.planning.code import MARK_RE
from ioa_p2p.planning.code_names import free_names
from ioa_p2p.planning.coordinated import coordinated
from ioa_p2p.planning.counted import counted_kinds
from ioa_p2p.planning.derive_plan import derived_plan
from ioa_p2p.planning.expr import to_expression
from ioa_p2p.planning.first_further import first_and_further
from ioa_p2p.planning.followups import over_earlier
from ioa_p2p.planning.gathered import gathered_plan
from ioa_p2p.planning.literal import (
    format_only,
    literal_step,
    percent_relation,
    quantities_total,
    rounded,
    rounding,
)
from ioa_p2p.planning.lookups import split_lookup
from ioa_p2p.planning.lookups_added import added_lookups, nested_lookups, time_asked
from ioa_p2p.planning.on_top import on_top_step
from ioa_p2p.planning.operands import (
    combined_question,
    first_things_first,
    found_statement,
    join_statements,
    operand_lookups,
    shown_in_base,
    split_calculations,
    split_questions,
    with_context,
)
from ioa_p2p.planning.rates import apply_rate
from ioa_p2p.planning.refs import resolve
from ioa_p2p.planning.rule_step import rule_clause, split_rule_clauses
from ioa_p2p.planning.savings import saving_step
from ioa_p2p.planning.scene import (
    as_question,
    deadline_plan,
    is_question,
    join_scenes,
    lead_to_end,
    led_lookup,
    shifted,
)
from ioa_p2p.planning.scene_context import scene_as_context
from ioa_p2p.planning.tariffs import charge_plan
from ioa_p2p.planning.tasked import task_question
from ioa_p2p.planning.types import CALC, CODE, LOOKUP, MAX_STEPS, TASK, Plan, PlanStep
from ioa_p2p.planning.units import unit_phrase
from ioa_p2p.planning.values import ALIASES
from ioa_p2p.planning.worded import fact_steps, worded_step

#: Connectives that combine several quantities in one question ("three nights plus the allowances").
_COMBINES = re.compile(
    r"\b(?:(?-i:plus)|minus|times|multiplied by|divided by|in total|altogether|combined|together with)\b",
    re.I,  # "a Plus service contract": a name, not "plus"
)


def plan_request(goal: str) -> Plan:
    """The plan for ``goal`` (always at least one step when the goal has text)."""
    plan = _plan_request(goal)
    if plan.unplanned.startswith("the code uses") or _task_bound(plan):  # inputs named by what they hold
        plan = gathered_plan(goal) or plan
    plan = scene_as_context(plan)  # "I hold an annual X ticket. Find what it costs and run <code>"
    based = operations.per_base(plan.steps)  # "per 100 mL" applied to "350 mL": 3.5 times the rate
    based = scaled.stated_base(based)  # "a EUR 5 voucher" takes 500 points: "EUR 40 of vouchers" 8 times
    based = scaled.counted_in_size(based)  # parts of 8 MiB in a 200 MiB file: ceil(200 / 8)
    based = scaled.applied_percentage(based)  # "apply the VAT rate to a net EUR 200": 200 * (1 + rate)
    based = first_and_further(based)  # "the first nest and each further one" for 4: v1 + 3 * v2
    plan = replace(plan, steps=based) if based != plan.steps else plan
    shown = shown_in_base(plan.steps)  # "What is 18 x 47 in binary?": the product shown in binary
    if shown == plan.steps:
        return plan
    last = len(shown) if plan.answer_step == len(plan.steps) else plan.answer_step
    return replace(plan, steps=shown, answer_step=last)


def _plan_request(goal: str) -> Plan:
    text, clauses, blocks = request_clauses(goal)
    inputs, named = described.code_inputs(clauses, blocks), dict[str, int]()  # code inputs and their values
    relation = (
        (percent_relation(text) or quantities_total(text) or natural.packed(text)) if not blocks else None
    )
    if relation is not None:
        return Plan(goal, (relation,), 1, clauses[-1])
    changed = change_plan(text) if not blocks else None
    if changed is not None:  # how much one thing went up or down, after statements or not (changed.py)
        return Plan(goal, changed, len(changed), clauses[-1])
    basket = basket_plan(text) if not blocks else None
    if basket is not None:  # "two X and a Y: what's the total?": each looked up, counted (basket.py)
        return Plan(goal, basket, len(basket), clauses[-1])
    asked = asked_after_statements(clauses)
    if asked is not None:  # "I'd like 14 jars of X. How much sugar should I buy?": one question
        rated = charge_plan(asked) or derived_plan(asked) or apply_rate(asked)
        if rated is not None:
            return Plan(goal, rated, len(rated), clauses[-1])
    clauses = join_scenes(clauses, codeish)  # "I got back on 3 May. What's the last day ...?": one
    clauses = join_statements(clauses, codeish)  # "A 4.6 m trailer pays per metre; work out its fare": one
    clauses = split_calculations(first_things_first(clauses))  # "... the rate first."; "15 * 4 and 9 * 7"
    clauses = split_rule_clauses(clauses)  # "add the X surcharge, and hand the total to this code": two
    clauses = described.purpose_dropped(clauses, blocks)  # "What share ...? Take A and B and run <code>"
    clauses[:1] = [as_question(c) for c in clauses[:1]]  # "work out what ...": before any value is known
    if len(clauses) == 1 and not MARK_RE.search(clauses[0]) and not TEAM_ASK.search(clauses[0]):
        alone = literal_step(clauses[0], 1) if not codeish(clauses[0]) else None
        if alone is not None:
            return Plan(goal, (alone,), 1, clauses[0])
        combines, two = _COMBINES.search(clauses[0]), split_questions(clauses[0])  # "how many X and what Y?"
        decomposed = natural.decompose(clauses[0]) or combined_question(clauses[0])
        decomposed = decomposed or coordinated(
            clauses[0], 1, related=True
        )  # "between A and B", "A and B together"
        decomposed = decomposed or charge_plan(clauses[0]) or deadline_plan(clauses[0])
        decomposed = decomposed or (derived_plan(clauses[0]) if not combines and not two else None)
        decomposed = decomposed or (apply_rate(clauses[0]) if not combines else None)
        decomposed = decomposed or coordinated(clauses[0], 1)  # "the P-1 and P-2 weights together"
        if decomposed is not None:
            return Plan(goal, decomposed, len(decomposed), clauses[0])
        combined = _COMBINES.search(clauses[0])
        if combined and QUESTION_START.match(clauses[0]) and to_expression(clauses[0]) is None:
            why = (
                f"the question combines several values ('{combined.group(0)}') in a way the offline planner "
                "cannot separate into lookups and a calculation; ask for each value and the calculation as "
                "steps (e.g. 'Look up A. Look up B. Add the two.')"
            )
            return Plan(goal, (), 0, clauses[0], unplanned=why)
    if len(clauses) > 1 and not blocks and meta_only(clauses[1:]):
        natural_steps = natural.decompose(clauses[0])
        if natural_steps is not None:  # the question, then how to work it out: the question's steps
            how = next((rounding(c) for c in clauses[1:] if rounding(c)), None)
            last = natural_steps[-1]
            if how is not None and last.kind == CALC:
                last = PlanStep(
                    last.index, CALC, last.text, rounded(last.template, how), last.needs, unit=last.unit
                )
            steps_ = (*natural_steps[:-1], last)
            return Plan(goal, steps_, len(steps_), clauses[0])
    steps: list[PlanStep] = []
    marked: tuple[list[str], int] = ([], 0)  # the code inputs a clause names and where its steps start
    for clause in clauses:
        described.bind_marks(marked[0], steps[marked[1] :], named)
        clause, marks = described.input_marks(clause, inputs)  # "the charge for a classic bike (c) and ..."
        if (
            code := described.code_of(clause, blocks)
        ) is not None:  # "plug the deposit into d": with d set to
            clause = with_pairs(clause, free_names(code))
        marked = (marks, len(steps))
        hoisted, bound = described.hoist(clause, steps, blocks, inputs, named, plan_request)
        steps.extend(hoisted)  # "run <code> where n is the stops on line 7": that value planned first
        if bound is None:
            continue
        if operations.restates(bound, steps):  # "Take that", "Compute the product first": no new step
            continue
        asked = task_question(bound) if not MARK_RE.search(bound) else None
        if asked is not None:  # "Total the tickets" after the scene: what they cost in total, asked
            own = _own_plan(asked) or _own_plan(_scene_first(asked))
            if own is not None:
                steps.extend(shifted(own, len(steps)))
                continue
            bound = asked
        led = led_lookup(bound, len(steps) + 1) if not MARK_RE.search(bound) else None
        if led is not None:  # "Using the rate of X, estimate Y as rate x 5": the rate looked up first
            steps.append(led[0])
            bound = led[1]
        counted = counted_kinds(bound, steps, len(steps) + 1)
        if counted is not None:  # "2 adults plus 3 children" after the adult's and the child's fares
            steps.append(counted)
            continue
        saved = saving_step(len(steps) + 1, bound, steps) if not codeish(bound) else None
        saved = saved or (on_top_step(len(steps) + 1, bound, steps) if not codeish(bound) else None)
        if saved is not None:  # "how much does the card save over ten single visits": two costs' difference
            steps.append(saved)
            continue
        facts, clause = operations.operand_facts(bound, steps)
        if facts:  # "multiply 9.8 by the efficiency of the X7": the efficiency looked up first
            steps.extend(facts)
            made = make_step(clause, steps, blocks, nested=tuple(s.index for s in facts))
            steps.extend([made] if made is not None else [])
            continue
        if REPORT_ONLY.match(clause) and steps and not MARK_RE.search(clause):
            continue
        declared = _DECLARED_UNIT.match(clause.strip())
        if steps and declared and unit_phrase(declared.group(1), ALIASES):  # "the number it prints is in kWh"
            steps[-1] = replace(steps[-1], unit=unit_phrase(declared.group(1), ALIASES))
            continue
        operations.source_unit(clause, steps)  # "convert the code's output from kWh to MJ": its unit is kWh
        if converted := operations.conversion_question(clause, steps):  # "How many MJ is that?"
            steps.append(converted)
            continue
        if steps and format_only(clause):  # "Two decimals, please.": how the previous result is shown
            steps[-1] = _shown(steps[-1], clause, len(steps) + 1, steps)
            if steps[-1].index != len(steps):
                steps.append(steps.pop())
            continue
        if found_statement(clause, steps):  # "The depot pays a rate per km. Find it": the statement
            continue
        ruled = rule_clause(clause, steps)
        if ruled is not None:  # "take the Valley Railcard discount off it": the documents' rule applied
            steps.append(ruled)
            continue
        if not MARK_RE.search(clause):  # "Going by the handbook, how many ...?": the question first
            clause = lead_to_end(clause) if steps else as_question(lead_to_end(clause))
        refs, _ = resolve(clause, steps)
        alone = literal_step(clause, len(steps) + 1) if not refs and not codeish(clause) else None
        if alone is not None and steps and alone.kind == CALC and len(_literals(alone.template)) < 2:
            alone = None  # "work out seven hours of hire including 21 % VAT": the earlier value is implied
        if alone is not None:
            steps.append(alone)
            continue
        checks = check_steps(len(steps) + 1, clause, steps) if not codeish(clause) else None
        if checks is not None:  # "check that it is under the limit", "is EUR 50 enough for both?"
            steps.extend(checks)
            continue
        worded = worded_step(len(steps) + 1, clause, steps) if not codeish(clause) else None
        if worded is not None:  # "average them", "compute the percentage", "the larger of the two"
            steps.append(worded)
            continue
        explicit = codeish(clause) or operations.explicit_operation(clause, steps)  # "take 9 away from it"
        later = None if explicit else over_earlier(len(steps) + 1, clause, steps, refs)
        if later is not None:  # "how many tables for 130 guests", "what is the difference?"
            steps.append(later)
            continue
        own = _own_plan(clause) if not refs and not codeish(clause) else None
        if own is not None:  # a question of its own among other requests: planned as if alone
            steps.extend(shifted(own, len(steps)))
            continue
        added = added_lookups(clause, len(steps) + 1) if not refs and not codeish(clause) else None
        if added is not None:  # "add the A and the B" with nothing found yet: a lookup each, then the sum
            steps.extend(added)
            continue
        pair = (split_lookup(clause) or split_questions(clause)) if not codeish(clause) else None
        if pair is not None:  # "find the A and the B": two lookups, each with the context both share
            for question in operations.one_anaphora(list(pair)):
                steps.append(PlanStep(len(steps) + 1, LOOKUP, question.rstrip("?"), question))
            continue
        both = coordinated(clause, len(steps) + 1) if not refs and not codeish(clause) else None
        if both is not None:  # "add up the list prices of the A and B": a lookup each, then the relation
            steps.extend(both)
            continue
        nested, clause = nested_lookups(clause, len(steps) + 1)
        if not nested and not codeish(clause):  # "add the weekend surcharge to it": a fact to look up
            nested, clause = operand_lookups(clause, resolve(clause, steps)[1], len(steps) + 1, steps)
        steps.extend(nested)
        code = described.code_of(clause, blocks)
        if code is not None:  # "print(nights * rate)" after "a 3-night stay": nights = 3
            clause = with_stated(clause, code, re.sub(r"`[^`]*`", " ", MARK_RE.sub(" ", text)), steps)
        step = make_step(clause, steps, blocks, nested=tuple(s.index for s in nested))
        if step is not None and step.kind == LOOKUP and ("/" in step.unit or step.unit.startswith("in:")):
            unit = step.unit.removeprefix("in:")  # "how many litres an hour", "... in litres per second"
            steps.append(replace(step, unit="" if unit != step.unit else unit))
            step = PlanStep(step.index + 1, CALC, f"{step.text} (in {unit})", f"v{step.index}",
                            (step.index,), unit=unit)  # fmt: skip
        if step is not None and step.fmt.startswith("missing:"):
            names = step.fmt.removeprefix("missing:").replace(",", ", ")
            why = (
                f"the code uses {names}, which no earlier step gives a value to; say what it is set to "
                f"(e.g. 'with {names.split(', ')[0]} set to 5') or compute it in an earlier step"
            )
            return Plan(goal, (), 0, clause, unplanned=why)
        facts_on = fact_steps(len(steps) + 1, clause, steps) if step and step.kind == TASK else None
        if facts_on is not None:  # "multiply by the grams in a standard packet": a task before; looked up
            steps.extend(facts_on)
        elif step is not None:
            steps.append(with_context(step, steps))
        if len(steps) >= MAX_STEPS:
            break
    if not steps:
        steps = [PlanStep(1, TASK, goal.strip()[:2000], goal.strip())]
    steps = time_asked(steps)  # "look up the cut-off, convert it to minutes": the lookup asks for a period
    return Plan(goal, tuple(steps), len(steps), clauses[-1] if clauses else goal)


_ACTS = re.compile(rf"\b(?:{'|'.join(ACTION)}|work|average|total|add)\w*\b", re.I)


def _task_bound(plan: Plan) -> bool:
    """A code input bound to the result of a task step that asks for no work ("Here's my script" planned as
    a task): no value. A task that computes ("work out the fee") is a value the code may take."""
    tasks = {s.index for s in plan.steps if s.kind == TASK and not _ACTS.search(s.text)}
    return any(s.kind == CODE and any(ref in tasks for _, ref in s.bindings) for s in plan.steps)


def _own_plan(clause: str) -> tuple[PlanStep, ...] | None:
    if TEAM_ASK.search(clause):
        return None
    compared = natural.verb_comparison(clause)  # "find how much more A pays than B for X": each, then less
    if compared is not None or not is_question(clause):
        return compared
    own = combined_question(clause)  # "What is the A plus the B?": two lookups and their combination
    own = own or charge_plan(clause) or deadline_plan(clause)  # the request's quantities applied to documents
    return own or (apply_rate(clause) if not _COMBINES.search(clause) else None)


def _scene_first(question: str) -> str:
    """ "What do X cost? (the scene)" as "The scene. What do X cost?": how a natural question is asked."""
    m = re.match(r"^(.*\?)\s*\((.+)\)$", question.strip())
    return f"{m.group(2).rstrip(' .')}. {m.group(1)}" if m else question


def _shown(step: PlanStep, clause: str, index: int, steps: list[PlanStep]) -> PlanStep:
    """``step`` rounded as ``clause`` says: a calculation's expression wrapped, else a new rounding step."""
    how = rounding(clause)
    if step.kind == CALC:
        return PlanStep(step.index, CALC, step.text, rounded(step.template, how), step.needs, unit=step.unit)
    steps.append(step)
    return PlanStep(index, CALC, clause, rounded(f"v{step.index}", how), (step.index,), unit=step.unit)


_DECLARED_UNIT = re.compile(
    r"^(?:(?:treat|read|take|count) (?:it|that|this|the result) as |(?:the )?(?:number|value|result|output|"
    r"figure|amount|it|that)(?: (?:it|that|the code) (?:prints|printed|gives|returns|shows))? (?:is|was) "
    r"(?:given )?in |it (?:prints|gives|returns|outputs) (?:a number|an amount|a value) (?:of|in) )"
    r"((?:[a-z³²/]+ ?){1,3})[.]?$",
    re.I,
)


def _literals(expression: str) -> list[str]:
    """The numbers an expression states, a percentage counted once (``21 / 100`` is one number)."""
    return re.findall(r"\d+(?:\.\d+)?", re.sub(r"/ 100\b", "", expression))


__all__ = ["make_step", "plan_request"]
