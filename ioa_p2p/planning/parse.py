"""Requests -> plans (pure): clauses, their kinds, the earlier values they refer to.

1. Fenced code blocks are cut out first and stay whole; a clause that asks to run code ("run this code",
   "the following code") gets the next block, a block on its own becomes a step of its own.
2. The rest is split into clauses: numbered items, sentences, ``;``, sequencing words ("then", "after
   that", "finally") and ", and" / "and" before an action verb.
3. Each clause becomes a step: ``code`` (a block, inline code such as ``print(2 ** 12)``, or an instruction
   to use Python, turned into code), ``calc`` (arithmetic in words or symbols), ``date`` (dates moved or
   compared), ``lookup`` (a question about named things or documents), or ``task``. A clause that only asks
   to report ("tell me what it prints") adds no step. A naturally worded question is first offered to
   :func:`~ioa_p2p.planning.natural.decompose` (lookups + a computation).
4. References: "it", "that", "the result", "that number" -> the previous step; "that price" -> the latest
   step about a price; "its output", "the printed number" -> the latest code step; "both", "the two numbers",
   "all three results" -> the last two / three steps; "the first value", "the second" -> by position; a
   step without a left operand ("subtract seven") works on the previous value.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ioa_p2p.planning import described, natural
from ioa_p2p.planning.answer_types import ARITH_WORD, LOOKUP_VERB, QUESTION_START, answer_type, request_act
from ioa_p2p.planning.applied import applied, asked_unit, unit_suffix
from ioa_p2p.planning.code import MARK, MARK_RE, RUN_CODE, attach_blocks, code_step, join_bindings
from ioa_p2p.planning.coordinated import coordinated
from ioa_p2p.planning.derive import derived_plan
from ioa_p2p.planning.expr import names_in, normalise, to_expression
from ioa_p2p.planning.followups import over_earlier
from ioa_p2p.planning.literal import (
    digits,
    format_only,
    literal_step,
    percent_relation,
    quantities_total,
    rounded,
    rounding,
)
from ioa_p2p.planning.lookups import label_one, label_refs, nested_lookups, split_lookup
from ioa_p2p.planning.operands import (
    NEST_MARK,
    amounts_at_rate,
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
from ioa_p2p.planning.refs import resolve, resolve_code_refs
from ioa_p2p.planning.scene import (
    as_question,
    deadline_plan,
    is_question,
    join_scenes,
    lead_to_end,
    shifted,
)
from ioa_p2p.planning.segment import CODE_SEMICOLON, fence_code, keep_code_semicolons
from ioa_p2p.planning.tariffs import charge_plan
from ioa_p2p.planning.types import CALC, DATE, LOOKUP, MAX_STEPS, TASK, Plan, PlanStep
from ioa_p2p.planning.units import unit_phrase
from ioa_p2p.planning.values import ALIASES, dates_in, numbers_in

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
ACTION_WORDS = """
    add calculate compute convert count divide multiply subtract take find get look search check run
    execute write use print tell give determine work figure sum deduct retrieve fetch read double
    triple halve evaluate round translate encode decode reverse sort summarise summarize spell list express
    plug pass feed insert substitute store save bind assign supply apply turn split share increase decrease
    reduce raise average
"""
ACTION = ACTION_WORDS.split()
_SEQ = r"(?:and then|then|after that|afterwards|and finally|finally|next(?=,))"  # "the next ferry" is no step
_SPLIT = re.compile(
    rf"(?<=[.!?])\s+(?=[A-Z0-9(\u27e6])|\n+|;\s*|,?\s+(?<!\band )(?={_SEQ}\b[\s,]+\w)"
    rf"|,\s*(?:and\s+)?(?=(?:{'|'.join(ACTION)})\b)"
    rf"|\s+and\s+(?=(?:{'|'.join(ACTION)})\b)|(?:(?<=[.!?:])\s+|\n)(?=\d[.)]\s)",
    re.IGNORECASE,
)
_LEAD = re.compile(
    rf"^(?:{_SEQ}\b|\d[.)]|(?:step|part|task) (?:\d+|one|two|three|four)\s*[:.)-]|first\b|second\b|third\b|"
    rf"lastly\b|please\b|could you\b|can you\b|,|\s)+",
    re.I,
)
_REPORT_ONLY = re.compile(
    r"^(?:and )?(?:tell|show|give) me(?: (?:what (?:it|that|this|the (?:code|program|script|snippet)|you get)"
    r"(?: (?:prints|printed|outputs|returns|gives|shows|is|was))?|the (?:final )?(?:answer|result|output)s?"
    r"|it|that|the (?:printed )?number(?: it prints)?))?[.!]?$"
    r"|^(?:and )?(?:tell|show|give|state|report)(?: me| us)? (?:the |your |an? )?(?:final )?"
    r"(?:answer|result|total|sum|figure|amount|value|number|product|outcome)s?[.!]?$",
    re.I,
)
_WANTS_CODE = re.compile(r"\b(python|code|script|program)\b", re.I)
#: A clause asking for a team ("form a team to ..."): kept whole; its assignee forms the sub-team asked for.
TEAM_ASK = re.compile(
    r"\b(?:form|assemble|build|create|set\s+up|put\s+together|gather|recruit)\s+(?:a\s+|an\s+|your\s+own\s+)?"
    r"(?:new\s+|small\s+)?(?:sub-?\s?team|team)\b|\bsub-?\s?team\b",
    re.I,
)
#: Connectives that combine several quantities in one question ("three nights plus the allowances").
_COMBINES = re.compile(
    r"\b(?:(?-i:plus)|minus|times|multiplied by|divided by|in total|altogether|combined|together with)\b",
    re.I,  # "a Plus service contract": a name, not "plus"
)
_INLINE = re.compile(r"\b(?:print|len|sum|sorted|max|min|int|str)\(")
_DATE_STEP = re.compile(
    r"\b(\d+|a|one|two|three)\s+(days?|weeks?)\s+(after|before|later|earlier|from)\b|"
    r"\b(?:days?|minutes|hours) (?:between|apart)\b|\bminutes pass\b",
    re.I,
)


def plan_request(goal: str) -> Plan:
    """The plan for ``goal`` (always at least one step when the goal has text)."""
    plan = _plan_request(goal)
    shown = shown_in_base(plan.steps)  # "What is 18 x 47 in binary?": the product shown in binary
    if shown == plan.steps:
        return plan
    last = len(shown) if plan.answer_step == len(plan.steps) else plan.answer_step
    return replace(plan, steps=shown, answer_step=last)


def _plan_request(goal: str) -> Plan:
    blocks: list[str] = []

    def cut(m: re.Match[str]) -> str:
        blocks.append(m.group(2).rstrip("\n"))
        return " " + MARK.format(len(blocks) - 1) + " "

    text = described.drop_hints(
        _FENCE.sub(cut, fence_code(goal.strip()))
    )  # "(look it up)" says how, not what
    # a block inside a sentence ("run <block> where value is that product") stays in it
    text = re.sub(r"(?<![.:!?\s])\s*\n\s*(?=\u27e6)", " ", text)
    text = re.sub(r"(?<=\u27e7)\s*\n\s*(?=[a-z])", " ", text)
    text = _ABBREVIATION.sub(lambda m: m.group(0)[:-1] + _DOT, text)  # "No. 7" ends no sentence
    text = keep_code_semicolons(text)  # "run a = 6; b = 7; print(a * b)": one piece of code
    pieces = [p.replace(_DOT, ".").replace(CODE_SEMICOLON, ";") for p in described.split(_SPLIT, text) if p]
    clauses = _merge_short([c for c in (_clean(p) for p in pieces) if c])
    clauses = described.join_code_parts(
        _with_context(join_bindings(attach_blocks(clauses, blocks), blocks)), blocks
    )
    clauses = described.code_first(clauses, blocks)
    inputs, named = described.code_inputs(clauses, blocks), dict[str, int]()  # code inputs and their values
    relation = (
        (percent_relation(text) or quantities_total(text) or natural.packed(text)) if not blocks else None
    )
    if relation is not None:
        return Plan(goal, (relation,), 1, clauses[-1])
    asked = _asked_after_statements(clauses)
    if asked is not None:  # "I'd like 14 jars of X. How much sugar should I buy?": one question
        rated = charge_plan(asked) or derived_plan(asked) or apply_rate(asked)
        if rated is not None:
            return Plan(goal, rated, len(rated), clauses[-1])
    clauses = join_scenes(clauses, _codeish)  # "I got back on 3 May. What's the last day ...?": one
    clauses = join_statements(clauses, _codeish)  # "A 4.6 m trailer pays per metre; work out its fare": one
    clauses = split_calculations(first_things_first(clauses))  # "... the rate first."; "15 * 4 and 9 * 7"
    clauses[:1] = [as_question(c) for c in clauses[:1]]  # "work out what ...": before any value is known
    if len(clauses) == 1 and not MARK_RE.search(clauses[0]) and not TEAM_ASK.search(clauses[0]):
        alone = literal_step(clauses[0], 1) if not _codeish(clauses[0]) else None
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
    if len(clauses) > 1 and not blocks and _meta_only(clauses[1:]):
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
    for clause in clauses:
        hoisted, bound = described.hoist(clause, steps, blocks, inputs, named, plan_request)
        steps.extend(hoisted)  # "run <code> where n is the stops on line 7": that value planned first
        if bound is None:
            continue
        if described.restates(bound, steps):  # "Take that", "Compute the product first": no new step
            continue
        facts, clause = described.operand_facts(bound, steps)
        if facts:  # "multiply 9.8 by the efficiency of the X7": the efficiency looked up first
            steps.extend(facts)
            made = make_step(clause, steps, blocks, nested=tuple(s.index for s in facts))
            steps.extend([made] if made is not None else [])
            continue
        if _REPORT_ONLY.match(clause) and steps and not MARK_RE.search(clause):
            continue
        declared = _DECLARED_UNIT.match(clause.strip())
        if steps and declared and unit_phrase(declared.group(1), ALIASES):  # "the number it prints is in kWh"
            steps[-1] = replace(steps[-1], unit=unit_phrase(declared.group(1), ALIASES))
            continue
        described.source_unit(clause, steps)  # "convert the code's output from kWh to MJ": its unit is kWh
        if converted := described.conversion_question(clause, steps):  # "How many MJ is that?"
            steps.append(converted)
            continue
        if steps and format_only(clause):  # "Two decimals, please.": how the previous result is shown
            steps[-1] = _shown(steps[-1], clause, len(steps) + 1, steps)
            if steps[-1].index != len(steps):
                steps.append(steps.pop())
            continue
        if found_statement(clause, steps):  # "The depot pays a rate per km. Find it": the statement
            continue
        if not MARK_RE.search(clause):  # "Going by the handbook, how many ...?": the question first
            clause = lead_to_end(clause) if steps else as_question(lead_to_end(clause))
        refs, _ = resolve(clause, steps)
        alone = literal_step(clause, len(steps) + 1) if not refs and not _codeish(clause) else None
        if alone is not None and steps and alone.kind == CALC and len(_literals(alone.template)) < 2:
            alone = None  # "work out seven hours of hire including 21 % VAT": the earlier value is implied
        if alone is not None:
            steps.append(alone)
            continue
        explicit = _codeish(clause) or described.explicit_operation(clause, steps)  # "take 9 away from it"
        later = None if explicit else over_earlier(len(steps) + 1, clause, steps, refs)
        if later is not None:  # "how many tables for 130 guests", "what is the difference?"
            steps.append(later)
            continue
        own = _own_plan(clause) if not refs and not _codeish(clause) else None
        if own is not None:  # a question of its own among other requests: planned as if alone
            steps.extend(shifted(own, len(steps)))
            continue
        pair = (split_lookup(clause) or split_questions(clause)) if not _codeish(clause) else None
        if pair is not None:  # "find the A and the B": two lookups, each with the context both share
            for question in described.one_anaphora(list(pair)):
                steps.append(PlanStep(len(steps) + 1, LOOKUP, question.rstrip("?"), question))
            continue
        both = coordinated(clause, len(steps) + 1) if not refs and not _codeish(clause) else None
        if both is not None:  # "add up the list prices of the A and B": a lookup each, then the relation
            steps.extend(both)
            continue
        nested, clause = nested_lookups(clause, len(steps) + 1)
        if not nested and not _codeish(clause):  # "add the weekend surcharge to it": a fact to look up
            nested, clause = operand_lookups(clause, resolve(clause, steps)[1], len(steps) + 1, steps)
        steps.extend(nested)
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
        if step is not None:
            steps.append(with_context(step, steps))
        if len(steps) >= MAX_STEPS:
            break
    if not steps:
        steps = [PlanStep(1, TASK, goal.strip()[:2000], goal.strip())]
    return Plan(goal, tuple(steps), len(steps), clauses[-1] if clauses else goal)


_DOT = "\u2024"
_ABBREVIATION = re.compile(
    r"\b(?:No|Nr|Nos|St|Dr|Mr|Mrs|Ms|Fig|Vol|approx|incl|excl|e\.g|i\.e|vs|cf|ca|Co|Ltd|Inc|Jr|Sr|p|pp)"
    r"\.(?= \S)"
)
#: Clauses after a natural question that only say how to work it out ("Look up both figures and give the
#: percentage to two decimals."): the question's own steps do that.
_META = re.compile(
    r"^(?:(?:look up|find|get|use|check) (?:both|the two|all|the|these|those) (?:figures|values|numbers|"
    r"amounts)\b|(?:give|show|state|report|express) (?:it|the (?:percentage|share|result|answer|ratio|value|"
    r"difference))\b|and\b)",
    re.I,
)


def _meta_only(clauses: list[str]) -> bool:
    parts = [p for c in clauses for p in re.split(r"\s+and\s+", c) if p.strip()]
    return all(_META.match(p.strip()) or format_only(p) or _REPORT_ONLY.match(p.strip()) for p in parts)


_CONTEXT = re.compile(
    r"^(?:from|in|for|under|according to|on|at|within|regarding|about|using|based on|going by|as per|"
    r"following)\b",
    re.I,
)


def _with_context(clauses: list[str]) -> list[str]:
    """A clause that only says where to look ("From Tallowmere's INC-2024-017 timeline") is the topic of
    the next clause: ``"<context>: <next clause>"``."""
    out: list[str] = []
    carry = ""
    for clause in clauses:
        words = clause.split()
        verbless = request_act(clause) == "other" and not QUESTION_START.match(clause) and len(words) <= 12
        if _CONTEXT.match(clause) and verbless and "\u27e6" not in clause:
            carry = f"{carry} {clause}".strip()
            continue
        out.append(f"{clause.rstrip(' .?')} ({carry})" if carry else clause)
        carry = ""
    if carry:
        out.append(carry)
    return out


def _asked_after_statements(clauses: list[str]) -> str | None:
    """Statements that set the scene, then one question: the whole as one question (None otherwise)."""
    if len(clauses) < 2 or any(_codeish(c) for c in clauses):
        return None
    *scene, question = clauses
    if not (QUESTION_START.match(question) or question.rstrip().endswith("?")):
        return None
    if any(request_act(c) != "other" or c.rstrip().endswith("?") for c in scene):
        return None
    return " ".join([*scene, question])


def _own_plan(clause: str) -> tuple[PlanStep, ...] | None:
    if not is_question(clause) or TEAM_ASK.search(clause):
        return None
    own = combined_question(clause)  # "What is the A plus the B?": two lookups and their combination
    own = own or charge_plan(clause) or deadline_plan(clause)  # the request's quantities applied to documents
    return own or (apply_rate(clause) if not _COMBINES.search(clause) else None)


def _codeish(clause: str) -> bool:
    return bool(MARK_RE.search(clause) or _INLINE.search(clause) or _WANTS_CODE.search(clause))


def _shown(step: PlanStep, clause: str, index: int, steps: list[PlanStep]) -> PlanStep:
    """``step`` rounded as ``clause`` says: a calculation's expression wrapped, else a new rounding step."""
    how = rounding(clause)
    if step.kind == CALC:
        return PlanStep(step.index, CALC, step.text, rounded(step.template, how), step.needs, unit=step.unit)
    steps.append(step)
    return PlanStep(index, CALC, clause, rounded(f"v{step.index}", how), (step.index,), unit=step.unit)


def _merge_short(clauses: list[str]) -> list[str]:
    """A piece of one or two words without a number ("in Python", "and") joins the next piece."""
    out: list[str] = []
    carry = ""
    for clause in clauses:
        starts_with_verb = clause.split()[0].lower() in ACTION
        bare_verb = len(clause.split()) == 1 and starts_with_verb  # "write [and run ...]"
        if bare_verb or (
            len(clause.split()) <= 2
            and not re.search(r"\d|\u27e6|\(", clause)
            and not starts_with_verb
            and not format_only(clause)  # "One decimal.": how the previous result is shown
            and not re.search(
                r"['\"\u2018\u201c]\S.*['\"\u2019\u201d]", clause
            )  # "Uppercase 'abc'": a request
        ):
            carry += clause + (" and " if bare_verb else " ")
            continue
        out.append(carry + clause)
        carry = ""
    if carry.strip():
        if out:
            out[-1] += " " + carry.strip()
        else:
            out.append(carry.strip())
    return out


def _clean(part: str) -> str:
    part = _LEAD.sub("", part.strip()).strip(" ,;:")
    return part if len(part) >= 2 else ""


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
    wants_code = _WANTS_CODE.search(resolve_code_refs(clause, before)[1])  # not "the code's output"
    if mark or _INLINE.search(text) or (wants_code and (refs or RUN_CODE.search(clause))):
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


def _short(text: str) -> str:
    return MARK_RE.sub("[code]", text).strip()


__all__ = ["make_step", "plan_request"]
