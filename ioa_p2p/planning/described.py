"""Values described in words where code or a calculation needs them (pure).

People say what a code input is instead of computing it first: "run <code> where hours is 46 times the
standard working week from the handbook", "set ttr to the minutes between the alert and the fix, then run
<code>", "execute the code below with price set to the cost of 800 laminated cards". And they point at a
block's output before the block: "divide the output of this code by 8: <code>". The planner reads the
structure, not the wording:

- a **code input** is a name the code reads but never sets (:func:`~ioa_p2p.planning.code.free_names`);
  a clause binding one ("with/where/and NAME is/set to/being/= <description>", "set/let/bind NAME to
  <description>") gives it a value;
- a description that is not an earlier value ("it", "the result", "that total", a number, the words of an
  earlier step, or a phrase that names nothing of its own: no name, no quantity, "the VAT-inclusive
  amount") is **a request of its own**: it is planned like any request (lookups, calculations; the
  planner is passed in), its steps go before the code, and the input is bound to its answer. When it
  cannot be planned, nothing is hoisted and the code step reports the input as missing;
- a **declaration** ("Set x to 15 % of 640.") is no step itself: its description's steps are, and the
  name keeps its value for the code that reads it later;
- a clause that refers to a block's output **before** the block ("add 35 % to the number this code
  prints: <code>") becomes two: the block runs first (at the start of the plan when it reads no input,
  else just before the clause), then the clause works on "the code's output";
- an **operand** of an operation ("multiply A by B", "divide A by B", "subtract A from B", "add A to B",
  "A times / plus / minus / divided by B") that is a noun phrase naming a fact ("the round-trip efficiency
  of the X7", "the number of stops on line 7") is looked up first, one that is code ("what print(2 ** 12)
  prints") is run first, and one that is itself arithmetic ("45 × 12") is kept in brackets;
- instructions in brackets ("(look it up)", "(calculate it first)") say how, not what: they are no
  request and are dropped; other brackets ("(kWh)", "(aged 5-15)") stay, and clause splitting never
  cuts inside them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ioa_p2p.planning.answer_types import LOOKUP_VERB
from ioa_p2p.planning.code import MARK_RE, free_names, inline_code
from ioa_p2p.planning.expr import normalise
from ioa_p2p.planning.lookups import words_of
from ioa_p2p.planning.operands import NEST_MARK, context_names
from ioa_p2p.planning.refs import resolve
from ioa_p2p.planning.types import CALC, CODE, LOOKUP, TASK, Plan, PlanStep

#: A verb that opens an instruction in brackets: how to work something out, not a request of its own.
_HINT_VERBS = r"look|find|get|calculate|compute|work|check|use|see|read|take|then|multiply|add|divide"
_HINT = re.compile(rf"\s*\((?:{_HINT_VERBS})\b[^()\u27e6]*\)", re.I)
_PAREN = re.compile(r"\((?:[^()\u27e6]|\([^()\u27e6]*\))*\)")
_MASK = {" ": "\ue000", "\n": "\ue001", ";": "\ue002"}
_UNMASK = {v: k for k, v in _MASK.items()}

_BINDING_VERB = r"(?:set to|set equal to|being|=|is|equals|equal to|equal|as|bound to|to)"
_DESCRIBED = re.compile(
    rf"(?:\bwith|\bwhere|\band|,)\s+`?(?P<name>[A-Za-z_]\w*)`?\s+{_BINDING_VERB}\s+"
    r"(?P<desc>[^:\u27e6]+?)"
    rf"(?=\s*(?::|\u27e6|$)|\s*[,;]?\s+(?:and|with)\s+`?[A-Za-z_]\w*`?\s+{_BINDING_VERB}\s)",
    re.I,
)
_DECLARE = re.compile(
    rf"^(?:now\s+|then\s+)?(?:set|let|make|define|assign|bind|give)\s+`?(?P<name>[A-Za-z_]\w*)`?\s+"
    rf"(?:{_BINDING_VERB}|be|the value(?: of)?)\s+(?P<desc>.+?)[.!]?$",
    re.I,
)
#: Descriptions that only name an earlier value (no words of their own to plan).
_GENERIC = frozenset(
    re.findall(
        r"\w+",
        "result value number answer total sum product difference figure amount output quotient ratio "
        "previous last first second third one two both it that this",
    )
)
_FORWARD = re.compile(
    r"\b(?:the (?:number|value|result|figure|output|amount)s? (?:that )?(?:this|the following|the below|"
    r"the|that) (?:python |code |program |script |snippet )?(?:code |program |script |snippet )?"
    r"(?:prints|outputs|returns|gives|produces|shows)"
    r"|the (?:output|result) of (?:this|the following|the below|the) (?:python )?(?:code|program|script|"
    r"snippet)(?: below)?"
    r"|what(?:ever)? (?:this|the following) (?:python |code |program |script |snippet )?"
    r"(?:prints|outputs|returns|gives|produces|shows))\b",
    re.I,
)
_RUNS = re.compile(r"^(?:please\s+)?(?:run|execute|evaluate|try)\b", re.I)

Planner = Callable[[str], Plan]


def drop_hints(text: str) -> str:
    """``text`` without the instructions that only say how: in brackets ("(look it up)"), or a request's
    closing "..., and report the amount" (the conclusion reports it anyway)."""
    return _REPORT_TAIL.sub(r"\1", _HINT.sub("", text))


_REPORT_TAIL = re.compile(
    r",?\s+and (?:then )?(?:report|state|show|give|tell me) (?:the|your|that) (?:final )?"
    r"(?:amount|result|answer|total|figure|number|value)([.!]?)\s*$",
    re.I,
)


def mask_brackets(text: str) -> str:
    """``text`` with the spaces, line breaks and ';' inside brackets masked, so no clause ends there."""
    return _PAREN.sub(lambda m: "".join(_MASK.get(ch, ch) for ch in m.group(0)), text)


def unmask(text: str) -> str:
    return "".join(_UNMASK.get(ch, ch) for ch in text)


def split(pattern: re.Pattern[str], text: str) -> list[str]:
    """``pattern.split(text)`` that never cuts inside brackets."""
    return [unmask(p) for p in pattern.split(mask_brackets(text)) if p]


def code_of(clause: str, blocks: list[str]) -> str | None:
    """The code a clause holds: its block, else the inline call it writes out."""
    mark = MARK_RE.search(clause)
    return blocks[int(mark.group(1))] if mark else inline_code(clause)


def code_inputs(clauses: list[str], blocks: list[str]) -> set[str]:
    """Every name some code of the request reads and never sets."""
    names: set[str] = set()
    for clause in clauses:
        code = code_of(clause, blocks)
        if code is not None:
            names.update(free_names(code))
    return names


def code_first(clauses: list[str], blocks: list[str]) -> list[str]:
    """A clause that works on a block's output before the block ("divide the output of this code by 8:
    <code>") as two clauses: the block run, then the clause on "the code's output" (see the module
    docstring for where the run goes)."""
    out: list[str] = []
    first: list[str] = []
    i = 0
    while i < len(clauses):
        clause = clauses[i]
        alone = i + 1 < len(clauses) and MARK_RE.fullmatch(clauses[i + 1].strip())
        mark = MARK_RE.search(clause) or (MARK_RE.search(clauses[i + 1]) if alone else None)
        rest = MARK_RE.sub(" ", clause).strip(" :,.\n")
        if mark is None or _RUNS.match(clause.strip()) or not _FORWARD.search(rest):
            out.append(clause)
            i += 1
            continue
        run = f"Run {mark.group(0)}"
        (out if free_names(blocks[int(mark.group(1))]) else first).append(run)
        out.append(_FORWARD.sub("the code's output", re.sub(r"\s+", " ", rest)))
        i += 2 if alone and not MARK_RE.search(clause) else 1
    return first + out


_INPUT_ONLY = re.compile(rf"^(?:with|where|and)?\s*`?(?P<name>[A-Za-z_]\w*)`?\s+{_BINDING_VERB}\s+\S", re.I)
_RUN_ONLY = re.compile(r"^(?:please\s+)?(?:run|execute|evaluate|try)\b[^\u27e6]*$", re.I)


def join_code_parts(clauses: list[str], blocks: list[str]) -> list[str]:
    """A run instruction and the block after it ("Run this projection:" / "<code> with r being ..."), and
    a clause that only binds an input of the code before it ("<code>" / "n being 12 % of 950"), as one."""
    inputs = code_inputs(clauses, blocks)
    out: list[str] = []
    for clause in clauses:
        c = clause.strip()
        if out and _RUN_ONLY.match(out[-1].strip()) and c.startswith("\u27e6") and MARK_RE.match(c):
            out[-1] = f"{out[-1].rstrip(' :')} {c}"
            continue
        m = _INPUT_ONLY.match(c)
        if (
            out
            and m
            and m.group("name") in inputs
            and m.group("name") in free_names(code_of(out[-1], blocks) or "")
        ):
            out[-1] = f"{out[-1].rstrip(' .')} with {c.removeprefix('with ').removeprefix('where ')}"
            continue
        out.append(clause)
    return out


def _names_step(span: str, before: list[PlanStep]) -> bool:
    """The span is an earlier value: a reference only, or the words of an earlier step."""
    refs, text = resolve(span, before)
    if refs and not (words_of(re.sub(r"\bv\d+\b", " ", text)) - _GENERIC):
        return True
    wanted = words_of(span) - _GENERIC
    return any(wanted and wanted <= words_of(s.text) for s in before)


def _names_earlier(desc: str, before: list[PlanStep]) -> bool:
    """The description is an earlier value: a reference, a number, or the words of an earlier step."""
    refs, text = resolve(desc, before)
    words = words_of(re.sub(r"\bv\d+\b", " ", text)) - _GENERIC
    if refs and not words:
        return True
    if not re.search(r"\d|\b[A-Z][a-z]", desc):  # names nothing of its own: "the quarterly figure"
        return True
    if re.fullmatch(r"\s*-?[\d.,]+\s*", desc):
        return True
    wanted = words_of(desc) - _GENERIC
    return any(wanted and wanted <= words_of(s.text) for s in before)


def _as_request(desc: str) -> str:
    desc = desc.strip().rstrip(".?!")
    if re.match(r"^(?:the |an? )?(?:number|count|time|date|day|minutes|hours|days|cost|price|total)\b", desc):
        return f"What is {desc}?"
    if re.search(r"\d|\b(?:times|plus|minus|divided|multiplied|percent|of)\b", desc):
        return f"Calculate {desc}."
    return f"What is {desc}?"


def _planned(desc: str, plan: Planner) -> tuple[PlanStep, ...] | None:
    """The steps of a description planned as a request of its own (None: it cannot be planned)."""
    if MARK_RE.search(desc) or inline_code(desc) is not None:
        return None
    sub = plan(_as_request(desc))
    if sub.unplanned or not sub.steps or any(s.kind == TASK for s in sub.steps):
        return None
    if sub.answer_step != len(sub.steps):
        return None
    return sub.steps


def hoist(
    clause: str,
    before: list[PlanStep],
    blocks: list[str],
    inputs: set[str],
    declared: dict[str, int],
    plan: Planner,
) -> tuple[list[PlanStep], str | None]:
    """(steps to plan before ``clause``, the clause rewritten; None when it was only a declaration).

    ``declared`` maps input names to the step holding their value; it is updated."""
    from ioa_p2p.planning.scene import shifted  # scene imports nothing of ours that imports this

    offset = len(before)
    declaration = _DECLARE.match(clause.strip())
    if declaration and declaration.group("name") in inputs and code_of(clause, blocks) is None:
        name, desc = declaration.group("name"), declaration.group("desc")
        if _names_earlier(desc, before):
            refs, _ = resolve(desc, before)
            if refs:
                declared[name] = refs[-1]
                return [], None
            return [], clause
        steps = _planned(desc, plan)
        if steps is None:
            return [], clause
        moved = shifted(steps, offset)
        declared[name] = moved[-1].index
        return moved, None
    code = code_of(clause, blocks)
    if code is None:
        return [], clause
    free = set(free_names(code))
    added: list[PlanStep] = []
    for m in list(_DESCRIBED.finditer(clause)):
        name, desc = m.group("name"), m.group("desc").strip(" .,`")
        if name not in free or _names_earlier(desc, before + added):
            continue
        steps = _planned(desc, plan)
        if steps is None:
            continue
        moved = shifted(steps, offset + len(added))
        added.extend(moved)
        clause = clause.replace(m.group(0), f" with {name} set to v{moved[-1].index}", 1)
    bound = {m.group("name") for m in _DESCRIBED.finditer(clause)}
    extra = [f"{n} set to v{declared[n]}" for n in sorted(free & declared.keys()) if n not in bound]
    if extra:
        clause = f"{clause} with {' and '.join(extra)}"
    return added, clause


_LEAD_VERB = r"^(?:please\s+)?(?:(?:calculate|compute|work out|take|what is|what's|find|get|give me)\s+)?"
_OPERATIONS = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        r"^(?:please\s+)?(?P<op>multiply)\s+(?P<a>.+?)\s+(?:by|with)\s+(?P<b>.+?)$",
        r"^(?:please\s+)?(?P<op>divide)\s+(?P<a>.+?)\s+by\s+(?P<b>.+?)$",
        r"^(?:please\s+)?(?P<op>subtract|deduct)\s+(?P<a>.+?)\s+from\s+(?P<b>.+?)$",
        r"^(?:please\s+)?(?P<op>take)\s+(?P<a>.+?)\s+(?:away|off)\s+from\s+(?P<b>.+?)$",
        r"^(?:please\s+)?(?P<op>add)\s+(?P<a>.+?)\s+to\s+(?P<b>.+?)$",
        r"^(?:please\s+)?(?:then\s+)?(?P<op>subtract|deduct)\s+(?P<a>(?!.*\bfrom\b).+?)$",
        _LEAD_VERB + r"(?P<a>.+?)\s+(?P<op>times|multiplied by|divided by|plus|minus)\s+(?P<b>.+?)$",
    )
)
_PURPOSE = re.compile(r"\s+(?:to (?:get|give|turn|find|see|convert|work out)|so that|in order)\b.*$", re.I)
_FACT_START = re.compile(
    r"^(?:[Tt]he|[Ii]ts|[Tt]heir|[Hh]is|[Hh]er|[Oo]ur|[Aa]n?)\s+\S|^[A-Z][\w&-]*(?:'s|\s)"
)


def _arithmetic_only(span: str) -> bool:
    """The span is numbers and operators only ("45 × 12", "9.8 kWh", "17 %")."""
    return bool(re.fullmatch(r"[\d.\s()*/+%-]+", normalise(span).strip(" .")))


_GIVEN = re.compile(
    r"(?:EUR|USD|GBP|CHF|€|\$|£)\s*\d|\d\s*(?:%|€|EUR\b|euros?\b|per ?cent)|,\s*\d[\d.,]*\s*$"
    r"|\bof\s+\d[\d.,]*\s*$|^(?:the|a|an)\s+\d",
    re.I,
)
#: A phrase that states its value ("the reorder level of 120", "the 250 modules", "the carriages, 8").
_GIVEN_VALUE = re.compile(r",\s*\d[\d.,]*\s*$|\bof\s+\d[\d.,]*\s*$|^(?:the|a|an)\s+\d[\d.,]*\s+[a-z]", re.I)
_STANDALONE = re.compile(r"(?<![\w.,-])\d+(?:[.,]\d+)*(?![\w-])")


def _is_fact(span: str, before: list[PlanStep]) -> bool:
    """The span names a fact to look up: a noun phrase with words of its own, no earlier value ("its
    usable capacity": a fact about what the earlier steps are about)."""
    if not _FACT_START.match(span) or _arithmetic_only(span) or inline_code(span) is not None:
        return False
    if _GIVEN.search(span):  # "a freight bill of EUR 860", "the number of carriages, 8": a value given
        return False
    if re.match(r"(?:its|their)\s", span, re.I):
        return bool(words_of(span) - _GENERIC)
    refs, text = resolve(span, before)
    return not refs and bool(words_of(text) - _GENERIC)


def _question(span: str, before: list[PlanStep]) -> str:
    """The lookup for a fact operand; "its X" / a phrase naming nothing is about what the earlier lookups
    name (the product, the company)."""
    phrase = _of_form(re.sub(r"^(?:its|their)\s+", "the ", span, flags=re.I))
    about = [n for n in context_names(before) if n.lower() not in phrase.lower()]
    named = re.search(r"\d|\b[A-Z]", phrase)
    return f"What is {phrase}" + (f" ({', '.join(about)})" if about and not named else "") + "?"


def _of_form(span: str) -> str:
    """ "the X7 module's weight" as "the weight of the X7 module" (the attribute first)."""
    m = re.fullmatch(r"(?P<the>the\s+)?(?P<e>[^'\s][^']*?)'s\s+(?P<a>[^']+)", span.strip(), re.I)
    return f"the {m.group('a')} of {m.group('the') or ''}{m.group('e')}" if m else span


_SUBTRACT = re.compile(r"^(?:please\s+)?(?:then\s+)?(?:subtract|deduct)\s+\S", re.I)
_SHARE = re.compile(r"%|\bper ?cent|\bpercentage|\brate\b|\bshare\b|\bdiscount|\bsurcharge|\bvat\b", re.I)


def explicit_operation(clause: str, before: list[PlanStep]) -> bool:
    """The clause is an operation its verb names ("take 250 away from it", "divide it by 4", "subtract
    the reorder level of 120"): its operands are what it says, not a quantity to read against earlier
    values, unless a percentage or a rate is involved (that is read against them)."""
    body = _PURPOSE.sub("", clause.strip().rstrip(".?!"))
    if not (any(pattern.match(body) for pattern in _OPERATIONS[:5]) or _SUBTRACT.match(body)):
        return False
    refs, _ = resolve(body, before)
    return not _SHARE.search(body) and not any(_SHARE.search(before[n - 1].text) for n in refs)


_RESTATE = re.compile(
    r"^(?:please\s+)?(?:take|use|keep|grab|start with|start from|compute|calculate|work out)\s+"
    r"(?P<x>.+?)(?:\s+(?:first|now|then|again))?[.!]?$",
    re.I,
)


def restates(clause: str, before: list[PlanStep]) -> bool:
    """The clause only names an earlier value again ("Take that", "Compute the product first"): no step;
    what follows works on that value."""
    m = _RESTATE.match(clause.strip())
    if m is None or not before or before[-1].kind == TASK:
        return False
    refs, text = resolve(m.group("x"), before)
    return refs == [before[-1].index] and not (words_of(re.sub(r"\bv\d+\b", " ", text)) - _GENERIC)


_ONE = re.compile(r"\b(?:the one|that|those|the ones)(?=\s+(?:in|for|from|of|on|at|under|with)\b)", re.I)


def one_anaphora(pair: list[str]) -> list[str]:
    """ "the unit price in the 2025 list and the one in the 2024 list": "the one" is the first lookup's
    thing ("the unit price"), in the second's setting."""
    if len(pair) != 2 or not _ONE.search(pair[1]):
        return pair
    head = re.match(
        r"^(?:what is |what's |what are )?(?P<np>.+?)\s+(?:in|for|from|on|at|under|with)\s", pair[0], re.I
    )
    if head is None:
        return pair
    return [pair[0], _ONE.sub(head.group("np"), pair[1], count=1)]


def operand_facts(clause: str, before: list[PlanStep]) -> tuple[list[PlanStep], str]:
    """(lookups and code runs for the operands ``clause`` names, the clause with a :data:`NEST_MARK` where
    each value goes; an arithmetic operand bracketed). Nothing when no operand is a fact or code."""
    body = _PURPOSE.sub("", clause.strip().rstrip(".?!"))
    if MARK_RE.search(body):
        return [], clause
    if LOOKUP_VERB.match(body) and not re.match(r"take\b", body, re.I):  # "look up X (adults over 12)"
        return [], clause
    for pattern in _OPERATIONS:
        m = pattern.match(body)
        if m is None:
            continue
        spans = tuple(m.group(g) for g in ("a", "b") if g in pattern.groupindex)
        if any(span.count("(") != span.count(")") for span in spans):
            continue
        if any(_names_step(span, before) for span in spans if _FACT_START.match(span)):
            return [], clause  # "add the deposit to 5 hours at the rate": earlier values by name
        found: list[PlanStep] = []
        out, given_only = body, False
        for span in spans:
            index = len(before) + len(found) + 1
            code = inline_code(span)
            if code is not None:
                found.append(PlanStep(index, CODE, "the number printed", code))
            elif _is_fact(span, before):
                question = _question(span, before)
                found.append(PlanStep(index, LOOKUP, question.rstrip("?"), question))
            else:
                if _arithmetic_only(span) and re.search(r"\d\s*[-+*/×x÷]\s*\d", span):
                    out = out.replace(span, f"({span})", 1)
                given = _STANDALONE.findall(span)
                if _GIVEN_VALUE.search(span) and len(given) == 1 and not re.search(r"%|per ?cent", span):
                    out = out.replace(span, given[0], 1)  # "the reorder level of 120": 120
                    given_only = True
                continue
            out = out.replace(span, NEST_MARK.format(index), 1)
        return (found, out) if found else ([], out if given_only else clause)
    return [], clause


_FROM_UNIT = re.compile(r"\bfrom\s+((?:[A-Za-z³²/]+ ?){1,2}?)\s+(?:to|into)\s+\w", re.I)


def source_unit(clause: str, before: list[PlanStep]) -> None:
    """ "Convert <an earlier value> from kWh to MJ": that value, stated without a unit, is in kWh (the
    step in ``before`` gets the unit)."""
    from ioa_p2p.planning.units import unit_phrase
    from ioa_p2p.planning.values import ALIASES

    m = _FROM_UNIT.search(clause)
    refs, _ = resolve(clause, before)
    unit = unit_phrase(m.group(1).strip(), ALIASES) if m else ""
    if unit and len(refs) == 1 and not before[refs[0] - 1].unit:
        before[refs[0] - 1] = replace(before[refs[0] - 1], unit=unit)


def conversion_question(clause: str, before: list[PlanStep]) -> PlanStep | None:
    """ "How many MJ is that?" over an earlier value with a unit: that value in the unit asked."""
    from ioa_p2p.planning.applied import asked_unit

    unit = asked_unit(clause)
    refs, text = resolve(clause, before)
    if not unit or len(refs) != 1 or not before[refs[0] - 1].unit:
        return None
    m = re.fullmatch(
        r"\s*how (?:many|much) \S+ (?:is|are|was|were|does|do) (?:v\d+)(?: (?:make|come to))?\s*[?.]?",
        text,
        re.I,
    )
    if m is None:
        return None
    source = before[refs[0] - 1].unit  # the value read from a printed line may carry no unit
    return PlanStep(len(before) + 1, CALC, clause, f"v{refs[0]}", (refs[0],), unit=unit, fmt=f"from:{source}")


__all__ = [
    "code_first",
    "join_code_parts",
    "code_inputs",
    "conversion_question",
    "code_of",
    "drop_hints",
    "explicit_operation",
    "one_anaphora",
    "restates",
    "source_unit",
    "hoist",
    "mask_brackets",
    "operand_facts",
    "split",
    "unmask",
]
