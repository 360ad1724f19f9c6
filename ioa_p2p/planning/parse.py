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

import ast
import builtins
import re

from ioa_p2p.planning import natural
from ioa_p2p.planning.answer_types import request_act
from ioa_p2p.planning.expr import names_in, normalise, to_expression
from ioa_p2p.planning.literal import digits, format_only, literal_step, percent_relation, rounded, rounding
from ioa_p2p.planning.lookups import label_refs, split_lookup
from ioa_p2p.planning.segment import fence_code
from ioa_p2p.planning.types import CALC, CODE, DATE, LOOKUP, MAX_STEPS, TASK, Plan, PlanStep
from ioa_p2p.planning.values import ALIASES, numbers_in

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_MARK = "\u27e6code{}\u27e7"
_MARK_RE = re.compile(r"\u27e6code(\d+)\u27e7")
ACTION_WORDS = """
    add calculate compute convert count divide multiply subtract take find get look search check run
    execute write use print tell give determine work figure sum deduct retrieve fetch read double
    triple halve evaluate round translate encode decode reverse sort summarise summarize spell list
"""
ACTION = ACTION_WORDS.split()
_SEQ = r"(?:and then|then|after that|afterwards|and finally|finally|next)"
_SPLIT = re.compile(
    rf"(?<=[.!?])\s+(?=[A-Z0-9(\u27e6])|\n+|;\s*|,?\s+(?<!\band )(?={_SEQ}\b[\s,]+\w)"
    rf"|,\s*(?:and\s+)?(?=(?:{'|'.join(ACTION)})\b)"
    rf"|\s+and\s+(?=(?:{'|'.join(ACTION)})\b)|(?:(?<=[.!?:])\s+|\n)(?=\d[.)]\s)",
    re.IGNORECASE,
)
_LEAD = re.compile(rf"^(?:{_SEQ}\b|\d[.)]|first\b|please\b|could you\b|can you\b|,|\s)+", re.I)
_REPORT_ONLY = re.compile(
    r"^(?:and )?(?:tell|show|give) me\b(?!.*\b(?:of|in|from)\b.*\b[A-Z0-9]{2,})"
    r"|^(?:and )?(?:tell|show|give|state|report)(?: me| us)? (?:the |your |an? )?(?:final )?"
    r"(?:answer|result)s?[.!]?$",
    re.I,
)
_WANTS_CODE = re.compile(r"\b(python|code|script|program)\b", re.I)
_RUN_CODE = re.compile(
    r"\b(run|execute|evaluate|try)\b.*\b(code|python|script|program|snippet)\b"
    r"|\b(run|execute|evaluate) (this|that|it|the following)\b|\bthis for me\b|\bcode\b.*\bbelow\b"
    r"|^(?:run|execute)\s*:?$",
    re.I,
)
#: A clause asking for a team ("form a team to ..."): kept whole; its assignee forms the sub-team asked for.
TEAM_ASK = re.compile(
    r"\b(?:form|assemble|build|create|set\s+up|put\s+together|gather|recruit)\s+(?:a\s+|an\s+|your\s+own\s+)?"
    r"(?:new\s+|small\s+)?(?:sub-?\s?team|team)\b|\bsub-?\s?team\b",
    re.I,
)
#: Connectives that combine several quantities in one question ("three nights plus the allowances").
_COMBINES = re.compile(
    r"\b(?:plus|minus|times|multiplied by|divided by|in total|altogether|combined|together with)\b", re.I
)
_INLINE = re.compile(r"\b(?:print|len|sum|sorted|max|min|int|str)\(")
_LOOKUP_VERB = re.compile(r"^(?:look up|find|get|search|check|retrieve|fetch|read)\b", re.I)
_QUESTION = re.compile(
    r"^(?:(?:after|for|in|on|at|by|to|from|within|until|since|during) )?"
    r"(?:what|which|who|whom|when|where|how|is|are|does|do|did)\b",
    re.I,
)
_ARITH_WORD = re.compile(
    r"\b(times|plus|minus|multipl\w*|divid\w*|add|subtract|deduct|squared|cubed|square root|factorial|"
    r"percent\w*|sum|product|difference|power|total|double|half|take off)\b"
    r"|(?<![A-Za-z])[-+*/^%]\s*\d|\d\s*[-+*/^%]"
)
_DATE_STEP = re.compile(
    r"\b(\d+|a|one|two|three)\s+(days?|weeks?)\s+(after|before|later|earlier|from)\b|"
    r"\b(?:days?|minutes|hours) between\b",
    re.I,
)


def plan_request(goal: str) -> Plan:
    """The plan for ``goal`` (always at least one step when the goal has text)."""
    blocks: list[str] = []

    def cut(m: re.Match[str]) -> str:
        blocks.append(m.group(2).rstrip("\n"))
        return " " + _MARK.format(len(blocks) - 1) + " "

    text = _FENCE.sub(cut, fence_code(goal.strip()))
    # a block inside a sentence ("run <block> where value is that product") stays in it
    text = re.sub(r"(?<![.:!?])\s*\n\s*(?=\u27e6)", " ", text)
    text = re.sub(r"(?<=\u27e7)\s*\n\s*(?=[a-z])", " ", text)
    clauses = _merge_short([c for c in (_clean(p) for p in _SPLIT.split(text) if p) if c])
    clauses = _with_context(_attach_blocks(clauses))
    relation = percent_relation(text) if not blocks else None
    if relation is not None:
        return Plan(goal, (relation,), 1, clauses[-1])
    if len(clauses) == 1 and not _MARK_RE.search(clauses[0]) and not TEAM_ASK.search(clauses[0]):
        alone = literal_step(clauses[0], 1) if not _codeish(clauses[0]) else None
        if alone is not None:
            return Plan(goal, (alone,), 1, clauses[0])
        decomposed = natural.decompose(clauses[0])
        if decomposed is not None:
            return Plan(goal, decomposed, len(decomposed), clauses[0])
        combined = _COMBINES.search(clauses[0])
        if combined and _QUESTION.match(clauses[0]) and to_expression(clauses[0]) is None:
            why = (
                f"the question combines several values ('{combined.group(0)}') in a way the offline planner "
                "cannot separate into lookups and a calculation; ask for each value and the calculation as "
                "steps (e.g. 'Look up A. Look up B. Add the two.')"
            )
            return Plan(goal, (), 0, clauses[0], unplanned=why)
    steps: list[PlanStep] = []
    for clause in clauses:
        if _REPORT_ONLY.match(clause) and steps:
            continue
        if steps and format_only(clause):  # "Two decimals, please.": how the previous result is shown
            steps[-1] = _shown(steps[-1], clause, len(steps) + 1, steps)
            if steps[-1].index != len(steps):
                steps.append(steps.pop())
            continue
        refs, _ = resolve(clause, steps)
        alone = literal_step(clause, len(steps) + 1) if not refs and not _codeish(clause) else None
        if alone is not None:
            steps.append(alone)
            continue
        pair = split_lookup(clause) if not _codeish(clause) else None
        if pair is not None:  # "find the A and the B": two lookups, each with the context both share
            for question in pair:
                steps.append(PlanStep(len(steps) + 1, LOOKUP, question.rstrip("?"), question))
            continue
        nested, clause = nested_lookups(clause, len(steps) + 1)
        steps.extend(nested)
        step = make_step(clause, steps, blocks, nested=tuple(s.index for s in nested))
        if step is not None and step.fmt.startswith("missing:"):
            names = step.fmt.removeprefix("missing:").replace(",", ", ")
            why = (
                f"the code uses {names}, which no earlier step gives a value to; say what it is set to "
                f"(e.g. 'with {names.split(', ')[0]} set to 5') or compute it in an earlier step"
            )
            return Plan(goal, (), 0, clause, unplanned=why)
        if step is not None:
            steps.append(step)
        if len(steps) >= MAX_STEPS:
            break
    if not steps:
        steps = [PlanStep(1, TASK, goal.strip()[:2000], goal.strip())]
    return Plan(goal, tuple(steps), len(steps), clauses[-1] if clauses else goal)


_CONTEXT = re.compile(r"^(?:from|in|for|under|according to|on|at|within|regarding|about)\b", re.I)


def _with_context(clauses: list[str]) -> list[str]:
    """A clause that only says where to look ("From Tallowmere's INC-2024-017 timeline") is the topic of
    the next clause: ``"<context>: <next clause>"``."""
    out: list[str] = []
    carry = ""
    for clause in clauses:
        words = clause.split()
        verbless = request_act(clause) == "other" and not _QUESTION.match(clause) and len(words) <= 12
        if _CONTEXT.match(clause) and verbless and "\u27e6" not in clause:
            carry = f"{carry} {clause}".strip()
            continue
        out.append(f"{carry}: {clause}" if carry else clause)
        carry = ""
    if carry:
        out.append(carry)
    return out


def _codeish(clause: str) -> bool:
    return bool(_MARK_RE.search(clause) or _INLINE.search(clause) or _WANTS_CODE.search(clause))


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
            len(clause.split()) <= 2 and not re.search(r"\d|\u27e6|\(", clause) and not starts_with_verb
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


def _attach_blocks(clauses: list[str]) -> list[str]:
    """A clause that asks to run code gets the next free block; blocks alone join such a clause."""
    out: list[str] = []
    for clause in clauses:
        only = _MARK_RE.fullmatch(clause.strip())
        if only:
            target = next(
                (
                    i
                    for i in range(len(out) - 1, -1, -1)
                    if _RUN_CODE.search(out[i]) and not _MARK_RE.search(out[i])
                ),
                None,
            )
            if target is not None:
                out[target] += " " + clause.strip()
                continue
        out.append(clause)
    return out


_ENTITY = r"(?:[A-Z][\w-]*\d[\w-]*|[A-Z][a-z]+ [A-Z][\w-]*)(?: [a-z]+){0,2}"
_END = r"(?= to\b| from\b| by\b| and\b| with\b| plus\b| minus\b| times\b|[.,;?!]|$)"
_NESTED = (
    re.compile(rf"\bthe ({_ENTITY})'s ([a-z]+(?: [a-z]+){{0,2}}?){_END}"),  # "the X7 module's weight"
    re.compile(
        rf"\bthe ([a-z]+(?: [a-z]+){{0,2}}) of (?:the |an? )?({_ENTITY}){_END}"
    ),  # "the weight of the X7"
)
_NEST_MARK = "\u27e8n{}\u27e9"


def nested_lookups(clause: str, index: int) -> tuple[list[PlanStep], str]:
    """A calculation that names a fact it needs ("add the X7 module's weight to it", "multiply it by the
    price of the H3"): a lookup step for each such fact, and the clause with a mark where its value goes."""
    if _LOOKUP_VERB.match(clause) or _QUESTION.match(clause) or not _ARITH_WORD.search(normalise(clause)):
        return [], clause
    found: list[PlanStep] = []
    for form, pattern in enumerate(_NESTED):
        for m in list(pattern.finditer(clause))[:3]:
            entity, attribute = (m.group(1), m.group(2)) if form == 0 else (m.group(2), m.group(1))
            if re.search(r"\b(result|value|number|answer|sum|product|total|difference)\b", attribute):
                continue
            question = f"What is the {attribute} of the {entity}?"
            found.append(PlanStep(index + len(found), LOOKUP, question.rstrip("?"), question))
            clause = clause.replace(m.group(0), _NEST_MARK.format(found[-1].index), 1)
    return found, clause


def make_step(
    clause: str, before: list[PlanStep], blocks: list[str], nested: tuple[int, ...] = ()
) -> PlanStep | None:
    """The step for ``clause``; ``nested`` are lookups just planned for facts the clause names (marked
    in it), which references ("it", "the result") skip."""
    index = len(before) + 1
    labelled, named = label_refs(clause, before, nested) if request_act(clause) == "compute" else (clause, [])
    if named:  # "the ratio FY2024 ÷ FY2023": earlier values named by what they are
        refs, text = list(named), re.sub(r"\b(v\d+)(?: \1\b)+", r"\1", labelled)
    else:
        refs, text = resolve(clause, [s for s in before if s.index not in nested])
    for n in nested:
        text = text.replace(_NEST_MARK.format(n), f"v{n}")
        refs.append(n)
    for n in nested:
        clause = clause.replace(_NEST_MARK.format(n), before[n - 1].text.removeprefix("What is "))
    if TEAM_ASK.search(clause):  # the user asks for a team: the step goes as written, to be delegated
        return PlanStep(index, TASK, clause, text, tuple(refs))
    mark = _MARK_RE.search(text)
    if mark or _INLINE.search(text) or (_WANTS_CODE.search(clause) and (refs or _RUN_CODE.search(clause))):
        return _code_step(index, clause, text, refs, before, blocks[int(mark.group(1))] if mark else None)
    if _DATE_STEP.search(digits(clause)) and (refs or re.search(r"\d{4}", clause)):
        template = re.sub(r"\bv(\d+)\b", r"{\1}", digits(text))
        return PlanStep(index, DATE, clause, template, tuple(refs))
    if request_act(clause) == "compute" and (refs or before):
        return applied(index, clause, text, refs, before)
    is_lookup = bool(_LOOKUP_VERB.match(clause)) or (
        bool(_QUESTION.match(clause))
        and not re.search(r"\d", clause.split(" of ")[-1] if " of " in clause else "")
    )
    default = f"v{before[-1].index}" if before else ""
    expression = to_expression(text, default) if (_ARITH_WORD.search(normalise(text)) or refs) else None
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
        return PlanStep(index, LOOKUP, clause, _question(clause), (), unit=asked_unit(clause))
    if expression is not None:
        needs = tuple(names_in(expression))
        return PlanStep(index, CALC, clause, expression, needs)
    return PlanStep(index, TASK, clause, clause, tuple(refs))


def applied(index: int, clause: str, text: str, refs: list[int], before: list[PlanStep]) -> PlanStep:
    """A calculation asked for in words over earlier values ("calculate four nights at that cap", "compute
    the claim for a 236 km trip"): the expression its words give; with no operation word, the earlier
    value (a rate, a price per unit) applied to the one quantity the clause states."""
    default = f"v{refs[0] if refs else before[-1].index}"
    expression = to_expression(text, default)
    if expression is None:
        quantities = numbers_in(digits(text))  # vN names are not numbers (a letter before the digits)
        if len(quantities) == 1:
            expression = f"({default} * {quantities[0].number:g})"
    if expression is None:
        return PlanStep(index, TASK, clause, clause, tuple(refs))
    unit = _target_unit(clause)
    needs = tuple(names_in(expression)) or (int(default[1:]),)
    return PlanStep(index, CALC, clause, rounded(expression, rounding(clause)), needs, unit=unit)


def _target_unit(clause: str) -> str:
    """The unit a calculation is asked in ("..., in kilograms"), "" when none."""
    for m in re.finditer(r"\b(?:in|into|as) ([a-z³²]+(?: [a-z³²]+)?)\b(?! of\b)", clause.lower()):
        for word in (m.group(1), m.group(1).split()[0]):
            if word in ALIASES:
                return ALIASES[word]
    return ""


def asked_unit(question: str) -> str:
    """The unit a question asks its answer in ("how many weeks ..." -> ``weeks``), "" when it names none."""
    m = re.search(r"\bhow (?:many|much) ([a-z-]+)", question, re.I)
    return ALIASES.get(m.group(1).lower(), "") if m else ""


def _question(clause: str) -> str:
    return re.sub(r"^(?:could you|can you|please)\s+", "", clause, flags=re.I).strip()


def _unit_of(needs: tuple[int, ...], before: list[PlanStep], expression: str) -> str:
    units = {before[n - 1].unit for n in needs}
    if len(units) == 1 and not re.search(r"v\d+\s*/\s*v\d+|\*\*", expression):
        return units.pop()
    return ""


# --------------------------------------------------------------------------- references

_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3}
_COUNT = {"two": 2, "both": 2, "three": 3, "four": 4}
_MULTI = re.compile(
    r"\b(?:(?:the|all|both|these|those)\s+)?(two|three|four|both)\s+(?:numbers|results|values|figures|answers)\b"
    r"|\ball (?:the )?(?:results|values|numbers)\b|\bboth\b|\bthem\b",
    re.I,
)
_ORDINAL = re.compile(
    r"\bthe (first|second|third|fourth)(?: (?:value|number|result|one|step))?\b(?!\s*\d)", re.I
)
_CODE_REF = re.compile(
    r"\b(?:its output|the output|(?:what|whatever) it prints|the printed (?:number|value|result|output)|"
    r"what (?:the code|the program) prints)\b",
    re.I,
)
_NOUN_REF = re.compile(
    r"\b(?:that|this|the|those|these) (?!result\b|answer\b|number\b|value\b)([a-z][a-z-]{2,})\b", re.I
)
_PLAIN_REF = re.compile(
    r"\b(?:that|this) (?:result|answer|number|value|product|sum|total|amount|figure|percentage|difference|"
    r"quotient|date|count)\b|\bthe (?:result|answer|previous result|number|value|amount)\b(?! of)"
    r"|\bthe (?:total|product|sum)\b(?! of| [a-z]+ of)"
    r"|\b(?:it|that|this)\b",
    re.I,
)


def resolve(clause: str, before: list[PlanStep]) -> tuple[list[int], str]:
    """(steps referred to, the clause with each reference replaced by vN)."""
    if not before:
        return [], clause
    refs: list[int] = []
    text = clause

    def use(ns: list[int]) -> str:
        refs.extend(n for n in ns if n not in refs)
        return " and ".join(f"v{n}" for n in ns)

    text = _CODE_REF.sub(lambda m: use([_last(before, CODE)]), text)
    text = _ORDINAL.sub(
        lambda m: use([before[min(_ORDINALS[m.group(1).lower()], len(before) - 1)].index]), text
    )

    def multi(m: re.Match[str]) -> str:
        word = (m.group(1) or "").lower()
        count = (
            _COUNT.get(word, len(before))
            if word
            else (2 if m.group(0).lower() in ("both", "them") else len(before))
        )
        return use([s.index for s in before[-count:]])

    text = _MULTI.sub(multi, text)

    def noun(m: re.Match[str]) -> str:
        word = m.group(1).lower()
        for step in reversed(before):
            if re.search(rf"\b{re.escape(word[:5])}", step.text, re.I) and step.kind == LOOKUP:
                return use([step.index])
        return m.group(0)

    text = _NOUN_REF.sub(noun, text) if re.search(r"\b(that|this)\b", text, re.I) else text

    def plain(m: re.Match[str]) -> str:
        keep = " percentage" if m.group(0).lower().endswith(("percentage", "percent")) else ""
        return use([before[-1].index]) + keep

    text = _PLAIN_REF.sub(plain, text)
    return refs, text


def _last(before: list[PlanStep], kind: str) -> int:
    return next((s.index for s in reversed(before) if s.kind == kind), before[-1].index)


# --------------------------------------------------------------------------- code steps

_BIND = re.compile(
    r"(?:with|where|and)\s+`?([A-Za-z_]\w*)`?\s+(?:set to|being|=|is|equal to|as|bound to|equal)\s+"
    r"(v\d+(?: and v\d+)*)",
    re.I,
)


def _code_step(
    index: int, clause: str, text: str, refs: list[int], before: list[PlanStep], block: str | None
) -> PlanStep:
    bindings: list[tuple[str, int]] = [
        (m.group(1), int(m.group(2)[1:].split()[0])) for m in _BIND.finditer(text)
    ]
    if block is None:
        inline = _inline_code(clause)
        if inline is not None:
            block = inline
    if block is not None:
        free = [n for n in free_names(block) if n not in {b for b, _ in bindings}]
        pool = [n for n in refs if n not in {v for _, v in bindings}] or (
            [before[-1].index] if before and not bindings else []
        )  # an explicit binding ("with x set to the result") binds only what it names
        for name, ref in zip(free, pool, strict=False):
            bindings.append((name, ref))
        unbound = [n for n in free if n not in {b for b, _ in bindings}]
        if unbound:  # never run code with a variable missing: the plan says which one has no value
            return PlanStep(
                index, CODE, _short(clause), block, (), tuple(bindings), fmt="missing:" + ",".join(unbound)
            )
        needs = tuple(dict.fromkeys(v for _, v in bindings))
        return PlanStep(index, CODE, _short(clause), block, needs, tuple(bindings))
    generated = generate_code(text, refs, before)
    if generated is None:  # "write a program that ...": no code to run and nothing to compute
        return PlanStep(index, TASK, clause, clause, tuple(refs))
    code, needs = generated
    return PlanStep(index, CODE, clause, code, needs, tuple((f"v{n}", n) for n in needs))


def _inline_code(clause: str) -> str | None:
    """The call starting at ``print(`` (or ``len(``, ...) in ``clause``, to its closing parenthesis."""
    for m in _INLINE.finditer(clause):
        depth, quote = 0, ""
        for i in range(m.end() - 1, len(clause)):
            ch = clause[i]
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "\"'":
                quote = ch
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    piece = clause[m.start() : i + 1]
                    try:
                        ast.parse(piece)
                    except SyntaxError:
                        break
                    return piece
    return None


def free_names(code: str) -> list[str]:
    """Names the code reads but never sets (not builtins): its inputs."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    stored |= {
        a.asname or a.name.split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    stored |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    stored |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args}
    loaded = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return list(dict.fromkeys(n for n in loaded if n not in stored and not hasattr(builtins, n)))


def generate_code(text: str, refs: list[int], before: list[PlanStep]) -> tuple[str, tuple[int, ...]] | None:
    """Python for an instruction such as "print the result times 48.5, rounded to 2 decimals"; None when
    the instruction names no value to print and no computation (it is not code the planner can write)."""
    explicit = bool(refs)
    if not refs and before:
        refs = [before[-1].index]
    low = normalise(text)
    moved = re.search(r"(\d+)\s+(days?|weeks?)\s+(after|later|before|earlier)", text.lower())
    if moved and refs:
        days = int(moved.group(1)) * (7 if moved.group(2).startswith("week") else 1)
        sign = "-" if moved.group(3) in ("before", "earlier") else "+"
        code = (
            f"import datetime\nday = datetime.date.fromisoformat(str(v{refs[0]}))\n"
            f"print(day {sign} datetime.timedelta(days={days}))"
        )
        return code, (refs[0],)
    body = re.split(r"\bprints?\b|\bwork out\b|\bcompute\b|\bcalculate\b", low, maxsplit=1)[-1]
    body = re.sub(
        r",?\s*(?:rounded|to (?:one|two|three|\d+) decimal|with (?:a )?thousands|in binary|as binary).*$",
        "",
        body,
    )
    if not refs:
        return None
    default = f"v{refs[0]}"
    expression = to_expression(body, default) or None
    for_n = re.search(
        r"\bfor (\d+(?:\.\d+)?) (?:weeks?|days?|months?|years?|hours?|units?|times)\b", text.lower()
    )
    formatted = re.search(r"\bround|\bdecimal|\bbinary\b|thousands? separator", low)
    if expression is None and not (explicit or for_n or formatted):
        return None
    if expression is None:
        expression = f"{default} * {for_n.group(1)}" if for_n else " + ".join(f"v{n}" for n in refs[:1])
    value = f"({expression})"
    decimals = re.search(r"(?:to|with) (\d+) decimal|(\d+) decimal places?|to (one|two|three) decimal", low)
    if decimals:
        digits = (
            decimals.group(1) or decimals.group(2) or str({"one": 1, "two": 2, "three": 3}[decimals.group(3)])
        )
        shown = f"round({value}, {digits})"
    elif re.search(r"\bround", low):
        shown = f"round({value})"
    elif re.search(r"\bbinary\b", low):
        shown = f"bin(int({value}))[2:]"
    elif re.search(r"thousands? separator", low):
        shown = f'f"{{{value}:,}}"'
    else:
        shown = value
    needs = tuple(sorted({*names_in(expression)} or set(refs[:1])))
    return f"print({shown})", needs


def _short(text: str) -> str:
    return _MARK_RE.sub("[code]", text).strip()


__all__ = ["free_names", "generate_code", "make_step", "plan_request", "resolve"]
