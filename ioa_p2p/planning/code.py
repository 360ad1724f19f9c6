"""Code steps (pure): the block a clause runs, the variables it reads and the earlier values bound to them,
and Python written for an instruction that only names a value to print.

A clause's variables are bound by what it says ("with x set to the result", "where n is that number"), else
each name the code reads but never sets takes the next value the clause refers to (or the previous step's,
when the clause binds nothing itself). A name left without a value is reported (the step's ``fmt`` is
``missing:<names>``): code never runs with a variable missing.
"""

from __future__ import annotations

import ast
import re

from ioa_p2p.planning.binding import (
    NAMES_LEAD,
    bind_listed,
    commented_names,
    described_pairs,
    listed_names,
    matched_names,
    named_bindings,
    names_only,
    recent_bindings,
)
from ioa_p2p.planning.code_names import free_names
from ioa_p2p.planning.expr import names_in, normalise, to_expression
from ioa_p2p.planning.segment import looks_like_code, parses
from ioa_p2p.planning.types import CODE, TASK, PlanStep

#: Where a fenced code block was cut out of a request (its number in the request's blocks).
MARK = "\u27e6code{}\u27e7"
MARK_RE = re.compile(r"\u27e6code(\d+)\u27e7")
_INLINE = re.compile(r"\b(?:print|len|sum|sorted|max|min|int|str)\(")

_BIND = re.compile(
    r"(?:with|where|and)\s+`?([A-Za-z_]\w*)`?\s+(?:set to|being|=|is|equal to|as|bound to|equal)\s+"
    r"(v\d+(?: and v\d+)*)",
    re.I,
)
#: "with rate set to 0.25", "and n = 12": a constant given for a variable
_BIND_LITERAL = re.compile(
    r"(?:with|where|and|,)\s+`?([A-Za-z_]\w*)`?\s+(?:set to|being|=|is|equal to|as|equal)\s+"
    r"(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)(?!\.?\d|[\w%])",
    re.I,
)
#: "with a set to the deposit and b to the fee": the second binding's verb left out
_BIND_ELIDED = re.compile(r"(?:,|\band)\s+`?([A-Za-z_]\w*)`?\s+(?:to|as)\s+(v\d+)\b", re.I)
#: "plug the result into this script as cost", "pass v2 to the code as `annual`": the value, then its name
_BIND_AS = re.compile(
    r"\b(?:plug|pass|feed|put|hand|insert|supply|give|use)\s+(?:v\d+ and )*(v\d+)\b[^.;]*?"
    r"\b(?:as|called|named)\s+`?([A-Za-z_]\w*)`?(?!\s*(?:,|\band\b)\s*`?[A-Za-z_]\w*`?\s*(?:,|\band\b|to|into|in|bound|$))",
    re.I,
)  # "pass them as p" after a calculation from two values: the latest value, "them" being its plural
#: "Bind it to `tax`", "store the result as `total`", "call that x": the value named first, the name last
_BIND_TO = re.compile(
    r"\b(?:bind|assign|store|save|put|call|name)\s+(v\d+)\s+(?:(?:into|to|in|as)\b)?\s*`?([A-Za-z_]\w*)`?",
    re.I,
)


def code_step(
    index: int, clause: str, text: str, refs: list[int], before: list[PlanStep], block: str | None
) -> PlanStep:
    bindings: list[tuple[str, int]] = [
        (m.group(1), int(m.group(2)[1:].split()[0])) for m in _BIND.finditer(text)
    ]
    bindings += [(m.group(2), int(m.group(1)[1:])) for m in _BIND_TO.finditer(text)]
    bindings += [(m.group(2), int(m.group(1)[1:])) for m in _BIND_AS.finditer(text)]
    bindings += [b for b in named_bindings(text, before) if b[0] not in {n for n, _ in bindings}]
    explicit = bool(bindings)
    if bindings:  # "... and b to the cleaning fee" after a binding with its verb
        named = {b for b, _ in bindings}
        bindings += [
            (m.group(1), int(m.group(2)[1:])) for m in _BIND_ELIDED.finditer(text) if m.group(1) not in named
        ]
    if block is None:
        inline = inline_code(clause)
        if inline is not None:
            block = inline
    if block is not None:  # "and bac = 7200": a constant the clause gives, assigned before the code
        given = {m.group(1): m.group(2).replace(",", "") for m in _BIND_LITERAL.finditer(text)}
        given = {k: v for k, v in given.items() if k in free_names(block) and k not in dict(bindings)}
        block = "".join(f"{name} = {value}\n" for name, value in given.items()) + block
    if block is not None:
        listed = [
            n for n in listed_names(MARK_RE.sub(" ", text), free_names(block)) if n not in dict(bindings)
        ]
        got = bind_listed(listed, refs, before) if len(listed) > 1 else None
        if got:  # "take a and c and run <code>", "using the values above as a and b": in the sentence's order
            bindings, explicit = bindings + got, True
        said = [n for n in free_names(block) if n not in dict(bindings)]
        bindings += commented_names(said, block, before)  # "# a = adult fare, c = child fare"
        free = [n for n in free_names(block) if n not in {b for b, _ in bindings}]
        pool = [n for n in refs if n not in {v for _, v in bindings}] or (
            [before[-1].index] if before and not bindings else []
        )  # an explicit binding ("with x set to the result") binds only what it names
        by_words = (
            matched_names(free, [s for s in before if s.index in pool])
            if 1 < len(free) == len(set(pool)) == len(pool)
            else None
        )  # "run <code> with both": "rate" for the daily rate, "dep" for the deposit
        for name, ref in by_words or zip(free, pool, strict=False):
            bindings.append((name, ref))
        unbound = [n for n in free if n not in {b for b, _ in bindings}]
        if unbound and not explicit and len(refs) < len(free_names(block)):
            recent = recent_bindings(free_names(block), before)  # "take the A (a) and the B (b), run ..."
            if recent is not None:
                bindings = [b for b in bindings if b[0] not in dict(recent)] + recent
                unbound = []
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


def inline_code(clause: str) -> str | None:
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
                    return _with_statements_before(clause[: m.start()], piece)
    return None


_RUN_LEAD = re.compile(
    r"^.*?\b(?:run|execute|evaluate|try)\s+(?:this\s+|the\s+)?(?:code\s+|snippet\s+)?", re.I
)


def _with_statements_before(before: str, piece: str) -> str:
    """``piece`` with the statements joined to it by ';' before it ("a = 6; b = 7; print(a * b)")."""
    if not re.search(r";\s*$", before):
        return piece
    statements = before.rstrip().removesuffix(";").split(";")
    statements[0] = _RUN_LEAD.sub("", statements[0])
    taken: list[str] = []
    for statement in reversed(statements):
        candidate = statement.strip()
        if not candidate or not looks_like_code(candidate) or not parses(candidate):
            break
        taken.insert(0, candidate)
    return "; ".join([*taken, piece]) if taken else piece


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
        r",?\s*(?:rounded|to (?:one|two|three|\d+) decimal|with (?:a )?thousands"
        r"|(?:in|as) (?:binary|hex\w*|octal)).*$",
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
    elif re.search(r"\bhex(?:adecimal)?\b", low):
        shown = f"hex(int({value}))"
    elif re.search(r"\boctal\b", low):
        shown = f"oct(int({value}))"
    elif re.search(r"thousands? separator", low):
        shown = f'f"{{{value}:,}}"'
    else:
        shown = value
    needs = tuple(sorted({*names_in(expression)} or set(refs[:1])))
    return f"print({shown})", needs


def _short(text: str) -> str:
    return MARK_RE.sub("[code]", text).strip()


# --------------------------------------------------------------------------- code blocks in a request

RUN_CODE = re.compile(
    r"\b(run|execute|evaluate|try)\b.*\b(code|python|script|program|snippet)\b"
    r"|\b(run|execute|evaluate) (this|that|it|the following)\b|\bthis for me\b|\bcode\b.*\bbelow\b"
    r"|^(?:run|execute)\s*:?$"
    # "plug the result into this script as cost", "pass it to the following code as n", "feed it to this"
    r"|\b(?:plug|pass|feed|put|hand|insert|supply|substitute|give)\b.*\b(?:into|to|in|for)\b.*"
    r"\b(?:code|script|program|snippet|function|the following|this|below)\b",
    re.I,
)
_BIND_ONLY = re.compile(
    r"^(?:bind|assign|store|save|call|name)\s+(?:it|that|this|the result|the value|the number)\s+"
    r"(?:to|in|as|into)?\s*`?[A-Za-z_]\w*`?[.]?$",
    re.I,
)


def join_bindings(clauses: list[str], blocks: list[str] | None = None) -> list[str]:
    """ "Bind it to `tax` and run: <code>": the binding belongs to the code step that follows (with the
    request's ``blocks``, so do clauses that only name a value after the code's input: "plug it in as n")."""
    if blocks is not None:
        clauses = join_named_bindings(clauses, blocks)
    out: list[str] = []
    for clause in clauses:
        if out and _BIND_ONLY.match(out[-1].strip()) and (MARK_RE.search(clause) or _INLINE.search(clause)):
            out[-1] = f"{clause} and {out[-1]}"
            continue
        out.append(clause)
    return out


#: How a clause gives an earlier value a code variable's name ("plug it in as n", "call the sum total_kg",
#: "with q holding the converted figure", "put that into `cost`", "assign it to rise before executing").
_NAMING_LEAD = re.compile(
    r"^(?:and\s+|then\s+)?(?:plug|pass|feed|put|insert|supply|substitute|assign|store|save|bind|call|name|set|"
    r"let|use|hand|give|keep|hold|with|where|using|taking|letting|given)\b",
    re.I,
)
_NAMING_MAX_WORDS = 10


def join_named_bindings(clauses: list[str], blocks: list[str]) -> list[str]:
    """A short clause that only names an earlier value after an input of the code in the next clause
    ("... round it, and plug it in as per_customer:" / "<code>") is part of that code step, never a step
    of its own: it is appended to the code clause, whose bindings then read it."""
    out: list[str] = []
    pending: list[str] = []
    for clause in clauses:
        mark = MARK_RE.search(clause)
        code = blocks[int(mark.group(1))] if mark else inline_code(clause)
        if code is not None:
            names = set(free_names(code))
            joined = [
                p
                for p in pending
                if (
                    _NAMING_LEAD.match(p.strip())
                    and (_names_input(p, names) or described_pairs(p, list(names)))
                )
                or names_only(p, list(names))
            ]
            out.extend(p for p in pending if p not in joined)
            out.append(" and ".join([clause.rstrip(" .:"), *joined]) if joined else clause)
            pending = []
            continue
        out.extend(pending)
        pending = [clause] if _NAMING_LEAD.match(clause.strip()) or NAMES_LEAD.match(clause.strip()) else []
        if not pending:
            out.append(clause)
    return [*out, *pending]


def _names_input(clause: str, names: set[str]) -> bool:
    if re.search(r"(?<![\w.-])\d", clause):  # "set n to 12 % of 950": a value described, planned first
        return False
    words = re.findall(r"`?([A-Za-z_]\w*)`?", clause)
    return len(words) <= _NAMING_MAX_WORDS and any(w in names for w in words[1:])


def binds_input(clause: str, block: str) -> bool:
    """The clause sets a variable the block reads ("simulate it with needed set to that number")."""
    named = {m.group(1) or m.group(2) for m in _BINDS.finditer(clause)}
    return bool(named & set(free_names(block)))


_BINDS = re.compile(
    r"\b(?:with|where|and)\s+`?([A-Za-z_]\w*)`?\s+(?:set to|being|=|is|equal to|as|bound to)\b"
)


def attach_blocks(clauses: list[str], blocks: list[str] | None = None) -> list[str]:
    """A clause that asks to run code gets the next free block; blocks alone join such a clause."""
    out: list[str] = []
    for clause in clauses:
        only = MARK_RE.fullmatch(clause.strip())
        if only:
            block = blocks[int(only.group(1))] if blocks is not None else ""
            target = next(
                (
                    i
                    for i in range(len(out) - 1, -1, -1)
                    if (RUN_CODE.search(out[i]) or binds_input(out[i], block)) and not MARK_RE.search(out[i])
                ),
                None,
            )
            if target is not None:
                out[target] += " " + clause.strip()
                continue
        out.append(clause)
    return out


__all__ = [
    "MARK",
    "MARK_RE",
    "RUN_CODE",
    "attach_blocks",
    "code_step",
    "free_names",
    "generate_code",
    "inline_code",
    "join_bindings",
    "join_named_bindings",
]
