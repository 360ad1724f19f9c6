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
- instructions in brackets ("(look it up)", "(calculate it first)") say how, not what: they are no
  request and are dropped; other brackets ("(kWh)", "(aged 5-15)") stay, and clause splitting never
  cuts inside them.

- a clause that **names the inputs it looks up** ("the charge for a classic bike (c) and an e-bike (e)",
  "the soprano and alto counts as s and a") loses the names, and each value it is planned into is bound
  to its name in order (:func:`input_marks`, :func:`bind_marks`);
- a **leading question** that the clauses after it gather values for (a lookup verb, no reference back)
  and answer with code is the request's purpose, no lookup of its own (:func:`purpose_dropped`).

Operands of operations named in words (looked up or run first) are :mod:`~ioa_p2p.planning.operations`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ioa_p2p.planning.code import MARK_RE, free_names, inline_code
from ioa_p2p.planning.literal import names_in
from ioa_p2p.planning.lookups import words_of
from ioa_p2p.planning.refs import resolve
from ioa_p2p.planning.types import TASK, Plan, PlanStep

#: A verb that opens an instruction in brackets: how to work something out, not a request of its own.
_HINT_VERBS = r"look|find|get|calculate|compute|work|check|use|see|read|take|then|multiply|add|divide"
_HINT = re.compile(rf"\s*\((?:{_HINT_VERBS})\b[^()\u27e6]*\)", re.I)
_PAREN = re.compile(r"\((?:[^()\u27e6]|\([^()\u27e6]*\))*\)")
_MASK = {" ": "\ue000", "\n": "\ue001", ";": "\ue002"}
_UNMASK = {v: k for k, v in _MASK.items()}

_BINDING_VERB = r"(?:set to|set equal to|being|=|is|equals|equal to|equal|as|bound to|to)"
_DESCRIBED = re.compile(
    rf"(?:\bwith|\bwhere|\band|,)\s+(?:(?i:let|set|make)\s+)?`?(?P<name>[A-Za-z_]\w*)`?\s+(?:{_BINDING_VERB}|be)\s+"
    r"(?P<desc>[^:\u27e6]+?)"
    rf"(?=\s*(?::|\u27e6|$)|\s*[,;]?\s+(?:and|with)\s+`?[A-Za-z_]\w*`?\s+{_BINDING_VERB}\s)",
    re.I,
)
_DECLARE = re.compile(
    rf"^(?:now\s+|then\s+)?(?:(?:set|let|make|define|assign|bind|give)\s+`?(?P<name>[A-Za-z_]\w*)`?\s+"
    rf"(?:{_BINDING_VERB}|be|the value(?: of)?)|`?(?P<bare>[A-Za-z_]\w*)`?\s*:?=)\s+(?P<desc>.+?)[.!]?$",
    re.I,
)  # "Set x to ...", "let rate be ...", "x = the fee for a lost card."
_CALLED = re.compile(
    r"^(?:and\s+|then\s+)?(?:call|name|label|store|save|keep|remember)\s+"
    r"(?P<what>it|that|this|the result|that value|this value|the value)\s+(?:as\s+|in\s+)?"
    r"`?(?P<name>[A-Za-z_]\w*)`?[.!]?$",
    re.I,
)  # "Call it a.", "store that as rent"
#: Descriptions that only name an earlier value (no words of their own to plan).
GENERIC = frozenset(
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


#: "the difference k", "that total t": a value described, then the name of the code input it goes to
_NAMED_VALUE = re.compile(
    r"^(?:and\s+)?((?:the|that|this|its|their)\s+[a-z][\w -]{2,40}?)\s+`?([A-Za-z_]\w*)`?[.]?$"
)
_INPUT_ONLY = re.compile(rf"^(?:with|where|and)?\s*`?(?P<name>[A-Za-z_]\w*)`?\s+{_BINDING_VERB}\s+\S", re.I)
_RUN_ONLY = re.compile(r"^(?:please\s+)?(?:run|execute|evaluate|try)\b[^\u27e6]*$", re.I)


def join_code_parts(clauses: list[str], blocks: list[str]) -> list[str]:
    """A run instruction and the block after it ("Run this projection:" / "<code> with r being ..."), and
    a clause that only binds an input of the code before it ("<code>" / "n being 12 % of 950"), as one."""
    inputs = code_inputs(clauses, blocks)
    out: list[str] = []
    for clause in clauses:
        c = re.sub(r"^\((.*)\)[.!]?$", r"\1", clause.strip())  # "<code> (d is the sum)."
        code = code_of(c, blocks)
        if (
            out
            and code is not None
            and (m := _NAMED_VALUE.match(out[-1].strip()))
            and m.group(2) in free_names(code)
        ):
            # "the difference k" / "goes into <code>": the value named, then the code it goes to
            out[-1] = f"{c.rstrip(' .')} with {m.group(2)} set to {m.group(1)}"
            continue
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


def _names_earlier(desc: str, before: list[PlanStep]) -> bool:
    """The description is an earlier value: a reference, a number, or the words of an earlier step."""
    refs, text = resolve(desc, before)
    if not before:  # nothing is found yet: "x = the fee for a lost card" is a value to look up
        return False
    words = words_of(re.sub(r"\bv\d+\b", " ", text)) - GENERIC
    if refs and not words:
        return True
    if not re.search(r"\d|\b[A-Z][a-z]", desc):  # names nothing of its own: "the quarterly figure"
        return True
    if re.fullmatch(r"\s*-?[\d.,]+\s*", desc):
        return True
    wanted = words_of(desc) - GENERIC
    return any(wanted and wanted <= words_of(s.text) for s in before)


def _as_request(desc: str) -> str:
    desc = desc.strip().rstrip(".?!")
    if re.match(r"^(?:the |an? )?(?:number|count|time|date|day|minutes|hours|days|cost|price|total)\b", desc):
        return f"What is {desc}?"
    if re.search(r"\d|\b(?:times|plus|minus|divided|multiplied|percent)\b", desc):
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


_AS_NAMES = re.compile(
    r",?\s+as\s+`?([A-Za-z_]\w*)`?((?:\s*(?:,|\band\b)\s*`?[A-Za-z_]\w*`?)*)"
    r"(?=\s*(?:\([^()]*\))?\s*[.;,]?\s*$)"  # "... as s and a", "... as s and a (Pinefold)"
)
_PAREN_NAME = re.compile(r"\s*\(`?([A-Za-z_]\w*)`?\)")


def input_marks(clause: str, inputs: set[str]) -> tuple[str, list[str]]:
    """(``clause`` without the names it gives its values, those names in order) for a clause that names
    the code inputs it looks up: "the classic bike's charge (c) and the e-bike's (e)", "take the soprano
    and alto counts as s and a". Each value the clause is planned into is then bound to its name, in order;
    a clause naming no input, or code, is returned as it is."""
    if MARK_RE.search(clause) or not inputs:
        return clause, []
    marks = [m.group(1) for m in _PAREN_NAME.finditer(clause)]
    if marks and all(n in inputs for n in marks) and len(set(marks)) == len(marks):
        return _PAREN_NAME.sub("", clause), marks
    tail = _AS_NAMES.search(clause)
    if tail is not None:
        names = [tail.group(1), *re.findall(r"[A-Za-z_]\w*", re.sub(r"\band\b", " ", tail.group(2)))]
        if len(names) > 1 and all(n in inputs for n in names) and len(set(names)) == len(names):
            return clause[: tail.start()] + clause[tail.end() :], names
    return clause, []


_GATHERS = re.compile(r"^(?:then\s+)?(?:take|look up|find|get|read|fetch|pull|use)\b", re.I)
_BACK = re.compile(r"\b(?:it|that|this|these|those|them|the (?:answer|result))\b", re.I)


def purpose_dropped(clauses: list[str], blocks: list[str]) -> list[str]:
    """``clauses`` without a leading question that the clauses after it say how to answer: they gather its
    values (a lookup verb, no reference back) and end in code that reads inputs ("What share of the choir
    are sopranos? Take the soprano and alto counts as s and a and run <code>"). The question is the
    purpose, not a value of its own: looked up, it would fetch a neighbour of what the code computes."""
    if len(clauses) < 2 or not clauses[0].rstrip().endswith("?") or code_of(clauses[0], blocks) is not None:
        return clauses
    rest = clauses[1:]
    if not _GATHERS.match(rest[0].strip()) or _BACK.search(MARK_RE.sub(" ", rest[0])):
        return clauses
    code = code_of(rest[-1], blocks)
    if code is None or not free_names(code) or any(code_of(c, blocks) for c in rest[:-1]):
        return clauses
    names = [n for n in names_in(clauses[0]) if n not in MARK_RE.sub(" ", " ".join(rest))]
    if names:  # "... to the Ashcombe AGM?": what the gathered values are about
        rest[0] = f"{rest[0].rstrip(' .,')} ({', '.join(names)})"
    return rest


def bind_marks(marks: list[str], new: list[PlanStep], declared: dict[str, int]) -> None:
    """The names :func:`input_marks` took from a clause bound, in order, to the values it was planned into
    (``declared`` updated); nothing bound when the counts differ (the code then says which is missing)."""
    values = [s for s in new if s.kind != TASK]
    if marks and len(values) == len(marks):
        declared.update({name: step.index for name, step in zip(marks, values, strict=True)})


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
    called = _CALLED.match(clause.strip())  # "Call it a.": the value just found has that name
    if called and called.group("name") in inputs and before and code_of(clause, blocks) is None:
        refs, _ = resolve(called.group("what"), before)
        declared[called.group("name")] = refs[-1] if refs else before[-1].index
        return [], None
    declaration = _DECLARE.match(clause.strip())
    name = (declaration.group("name") or declaration.group("bare")) if declaration else ""
    if declaration and name in inputs and code_of(clause, blocks) is None:
        desc = declaration.group("desc")
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


__all__ = [
    "GENERIC",
    "code_first",
    "join_code_parts",
    "code_inputs",
    "code_of",
    "drop_hints",
    "hoist",
    "bind_marks",
    "purpose_dropped",
    "input_marks",
    "mask_brackets",
    "split",
    "unmask",
]
