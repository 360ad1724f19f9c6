"""Operands a calculation names and requests that only point at a value (pure).

- **Operands to look up**: "add the weekend surcharge to it", "subtract the member discount from it",
  "multiply it by the number of months in the minimum term": an operand that is neither a number nor a
  reference to an earlier value is a fact of the documents, so it becomes a lookup of its own (with the
  names the earlier steps use, e.g. the company) and its value takes the operand's place.
- **Amounts at a rate**: "add the deposit to 5 hours at the rate": "5 hours at vN" is ``(5 * vN)``.
- **Questions in one sentence**: "How many credits is the course, and what is the rate per credit?" are
  two lookups; the second gets the names the first uses.
- **Lookups that name nothing** ("then find the cleaning fee") are about what the earlier lookups name.
- **Two facts combined in one question**: "What is the basic fee plus the activation charge?", "By how
  much does A exceed B?", "the difference between A and B": two lookups and the combination.
- **A statement and "find it"**: "The depot pays a mileage rate per km. Find it and ...": the statement is
  what to look up.
- **A statement with a quantity before a calculation**: "A 4.6 m trailer pays for every metre or part of
  one; work out its fare": the statement is the calculation's situation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ioa_p2p.planning.answer_types import request_act
from ioa_p2p.planning.literal import names_in
from ioa_p2p.planning.quantities import stated_quantities
from ioa_p2p.planning.shared import shared_attribute
from ioa_p2p.planning.types import CALC, CODE, LOOKUP, TASK, PlanStep

#: Where a looked-up operand's value goes in a clause (parse.make_step replaces it by ``vN``).
NEST_MARK = "\u27e8n{}\u27e9"

_NP = r"(the (?!(?:result|answer|total|sum|product|value|figure|output|difference|quotient|"
_NP += r"(?:number|amount)(?! of)|previous|first|second|third|last|same|two|three|rest|remainder)\b)"
_NP += r"[a-z][\w'-]*(?: [\w'-]+){0,7}?)"
_END = r"(?=\s*$|\s*[,.;?!]|\s+(?:and|then|before|after|to get|to give|giving)\b)"
_OPERAND = (
    re.compile(rf"\b(?:add|plus)\s+{_NP}\s+(?:to|onto|on top of)\s+v\d+", re.I),
    re.compile(rf"\badd\s+v\d+\s+(?:to|onto)\s+{_NP}{_END}", re.I),
    re.compile(rf"\b(?:subtract|deduct|take away|take off|remove)\s+{_NP}\s+from\s+v\d+", re.I),
    re.compile(rf"\b(?:multiply|divide)\s+v\d+\s+by\s+{_NP}{_END}", re.I),
    re.compile(rf"\bv\d+\s+(?:plus|minus|times|multiplied by|divided by|over)\s+{_NP}{_END}", re.I),
)
_REFERENCE = re.compile(r"\bv\d+\b")
#: "add the microchip price that applies when ...", "and add the booking fee": an amount added to the value
#: just found, the target implied
_ADD_IMPLIED = re.compile(
    r"^(?:and\s+|then\s+)?(?:add|plus)\s+((?:the |(?!(?:it|them|that|this|these|those|one|up|on|in|to|"
    r"the|an?|its|their|his|her|my|our|your|each|every|some|any|another|together|all|both|vat|tax|\d)\b)"
    r"(?=[a-z]))(?!(?:result|answer|total|sum|product|values?|figures?|"
    r"outputs?|numbers?|amounts?|results|previous|first|second|third|last|same|two|three|both|rest|"
    r"remainder)\b)"
    r"[a-z][\w'-]*(?: [\w'-]+){0,3}?"
    r"(?: (?:that|which) appl(?:y|ies)\b(?: [\w'-]+){0,10})?)(?=\s*[.!]?\s*$)",
    re.I,
)


def operand_lookups(clause: str, text: str, index: int, before: list[PlanStep]) -> tuple[list[PlanStep], str]:
    """Lookups for the operands ``clause`` names (``text`` is the clause with references as ``vN``), and
    the clause with a :data:`NEST_MARK` where each value goes."""
    implied = _ADD_IMPLIED.match(clause.strip()) if before else None
    if not _REFERENCE.search(text) and implied is None:
        return [], clause
    context = context_names(before)
    found: list[PlanStep] = []
    if implied is not None and not re.search(r"\d", implied.group(1).split(" appl")[0]):
        phrase = implied.group(1).strip()
        about = [n for n in context if n.lower() not in phrase.lower()]
        question = f"What is {phrase}" + (f" ({', '.join(about)})" if about else "") + "?"
        found.append(PlanStep(index, LOOKUP, question.rstrip("?"), question))
        target = f"v{before[-1].index}"
        return found, f"add {NEST_MARK.format(index)} to {target}"
    for pattern in _OPERAND:
        for m in pattern.finditer(text):
            phrase = m.group(1).strip()
            given = re.match(r",?\s*(?:which is |i\.e\. |=\s*)?\(?(\d+(?:\.\d+)?)\)?", text[m.end(1) :])
            if given and phrase in clause:  # "divide it by the number of carriages, 8": the value is given
                clause = re.sub(
                    rf"{re.escape(phrase)},?\s*(?:which is |i\.e\. |=\s*)?\(?", "", clause, count=1
                )
                continue
            if phrase not in clause or re.search(r"\d", phrase):
                continue
            about = [n for n in context if n.lower() not in phrase.lower()]
            question = f"What is {phrase}" + (f" ({', '.join(about)})" if about else "") + "?"
            found.append(PlanStep(index + len(found), LOOKUP, question.rstrip("?"), question))
            clause = clause.replace(phrase, NEST_MARK.format(found[-1].index), 1)
    return found, clause


_NO_NAME = frozenset(["for", "from", "in", "at", "on", "with", "by", "of", "the", "a", "an", "to"])


def context_names(before: list[PlanStep]) -> list[str]:
    """The names the earlier lookups use (the company, the product), at most two."""
    names: list[str] = []
    for step in before:
        if step.kind == LOOKUP:  # "(For the X workshop)": the capital of a sentence's first word is no name
            names += [n for n in names_in(step.text) if n not in names and n.lower() not in _NO_NAME]
    return names[:2]


_AT_RATE = re.compile(r"\b(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){1,2}at\s+(?:the |that |this )?(v\d+)\b", re.I)


def with_context(step: PlanStep, before: list[PlanStep]) -> PlanStep:
    """A lookup that names nothing ("then find the cleaning fee") is about what the earlier lookups name
    (the company, the venue): their names are added to its question."""
    if step.kind != LOOKUP or names_in(step.template):
        return step
    context = context_names(before)
    if not context:
        return step
    question = f"{step.template.strip().rstrip('.?')} ({', '.join(context)})?"
    return PlanStep(step.index, LOOKUP, step.text, question, step.needs, step.bindings, step.unit, step.fmt)


def amounts_at_rate(text: str) -> str:
    """ "add v1 to 5 hours at v2" -> ``add v1 to (5 * v2)``: only beside another value (alone, "how many
    minutes 20,000 litres take at v1" is the quantity over the rate, which :mod:`applied` works out)."""
    if len(set(_REFERENCE.findall(text))) < 2:
        return text
    return _AT_RATE.sub(lambda m: f"({m.group(1)} * {m.group(2)})", text)


_SECOND_QUESTION = re.compile(r",?\s+and\s+(?=(?:what|how|which|who|when|where)\b)", re.I)
_POINTS_BACK = re.compile(r"\b(?:there|then|it|that|them|they|those|this)\b", re.I)


def split_questions(clause: str) -> list[str] | None:
    """ "How many credits is X, and what is the rate for Y?" -> two questions, the second with the names the
    first uses; None for one question, or when the second points back at the first ("and how many were
    there?": one lookup of two values)."""
    context = re.search(r"\?\s*(\([^()]*\))\s*$", clause)  # "... and what was Y? (In the X report)"
    if context is not None:
        inner = split_questions(clause[: context.start() + 1])
        return [f"{q.rstrip(' ?')} {context.group(1)}?" for q in inner] if inner else None
    if not clause.rstrip().endswith("?"):
        return None
    parts = _SECOND_QUESTION.split(clause.strip(), maxsplit=1)
    if len(parts) != 2 or len(parts[0].split()) < 3 or len(parts[1].split()) < 4:
        return None
    first, second = parts[0].rstrip(" ,?") + "?", parts[1].strip()
    if _POINTS_BACK.search(second) or request_act(first) != "question":
        return None
    names = [n for n in names_in(first) if n not in second]
    if names:
        second = f"{second.rstrip(' ?')} ({', '.join(names)})?"
    return [first, second[0].upper() + second[1:]]


_LOOKUP_LEAD = (
    r"(?:what (?:is|are|was|were|'s)|what's|how much (?:is|are|does|do)|tell me|give me|find|look up|get)"
)
_MORE = r"(?:more|higher|greater|larger|bigger|longer|heavier|dearer)"
_ARITH = r"plus|minus|times|multiplied by|divided by|added to"
_COMBINED = (
    (re.compile(rf"^{_LOOKUP_LEAD}\s+(?:the )?(?:difference|gap) between\s+(.+?)\s+and\s+(.+?)[?.!]?$", re.I),
     "abs(v1 - v2)"),
    (re.compile(rf"^by how much (?:does|do|is|are|did|was)\s+(.+?)\s+(?:exceed|beat|top|outweigh|"
                rf"(?:is |are )?{_MORE} than)\s+(.+?)[?.!]?$", re.I), "(v1 - v2)"),
    (re.compile(rf"^how much {_MORE} (?:is|are|was|were)\s+(.+?)\s+than\s+(.+?)[?.!]?$", re.I), "(v1 - v2)"),
    (re.compile(rf"^{_LOOKUP_LEAD}\s+(.+?)\s+({_ARITH})\s+(.+?)[?.!]?$", re.I), ""),
)  # fmt: skip
_OPS = {"plus": "+", "added to": "+", "minus": "-", "times": "*", "multiplied by": "*", "divided by": "/"}


def combined_question(clause: str) -> tuple[PlanStep, ...] | None:
    """ "What is the basic plan fee plus the activation charge?", "By how much does A exceed B?", "the
    difference between A and B": a lookup for each value (the second with the names the first uses) and
    their combination; None when the parts state numbers (a calculation) or are not facts to look up."""
    text = clause.strip()
    for pattern, expression in _COMBINED:
        m = pattern.match(text)
        if m is None:
            continue
        a, b = m.group(1), m.group(m.lastindex or 2)
        if expression == "":
            expression = f"(v1 {_OPS[m.group(2).lower()]} v2)"
        if re.search(r"\d", a + b) or not names_in(text) or len(a.split()) < 2 or len(b.split()) < 2:
            return None
        if expression == "(v1 + v2)" and re.match(r"(?:every|each|all|any)\b", b, re.I):
            return None  # "the chip-timing fee added to every entry": what the fee applies to, no sum
        a, b = shared_attribute(a, b)  # "the scores of the Kenya lot and the Brazil lot": both scores
        about = [n for n in names_in(a) if n not in b]
        second = b + (f" ({', '.join(about)})" if about else "")
        first = PlanStep(1, LOOKUP, f"What is {a}", f"What is {a}?")
        other = PlanStep(2, LOOKUP, f"What is {second}", f"What is {second}?")
        return first, other, PlanStep(3, CALC, clause, expression, (1, 2))
    return None


_FIND_IT = re.compile(
    r"^(?:find|look up|get|check|retrieve|fetch|read)\s+(?:it|that|this|that (?:rate|value|figure|price))"
    r"(?:\s+(?:out|up))?[.!]?$"
    r"|^look (?:it|that) up[.!]?$",
    re.I,
)


def found_statement(clause: str, steps: list[PlanStep]) -> bool:
    """ "Find it" after a statement that was planned as a task ("The depot pays a mileage rate per km"):
    the statement becomes the lookup (True; ``steps[-1]`` is replaced)."""
    if not steps or steps[-1].kind != TASK or not _FIND_IT.match(clause.strip()):
        return False
    said = steps[-1].text.strip().rstrip(".")
    question = f"What is the value stated here: {said}?"
    steps[-1] = PlanStep(steps[-1].index, LOOKUP, said, question)
    return True


_CALC_VERB = re.compile(r"^(?:compute|calculate|work out|evaluate|what (?:is|are)|find|give me)\s+", re.I)
_OP_WORDS = r"plus|minus|times|divided by|multiplied by|squared|cubed|factorial|of|to the power of|mod|x"


def split_calculations(clauses: list[str]) -> list[str]:
    """ "Compute 15 * 4 and 9 * 7": two calculations, each a request of its own (never one dropped)."""
    out: list[str] = []
    for clause in clauses:
        verb = _CALC_VERB.match(clause.strip())
        parts = re.split(r"\s+and\s+", clause.strip()[verb.end() :].rstrip(" .?")) if verb else []
        if len(parts) >= 2 and all(_arithmetic(p) for p in parts):
            out += [f"{verb.group(0).strip()} {p}" for p in parts]  # type: ignore[union-attr]
            continue
        out.append(clause)
    return out


def _arithmetic(part: str) -> bool:
    words = re.sub(rf"\b(?:{_OP_WORDS})\b", " ", part.lower())
    return len(re.findall(r"\d+", part)) >= 2 and not re.search(r"[a-z]", words)


_FIRST = re.compile(r",?\s+(?:first|beforehand|before (?:that|anything else|you start))[.!]?$", re.I)


def first_things_first(clauses: list[str]) -> list[str]:
    """A request that says it comes first ("Look up the member rate per minute first.") goes before the
    clauses written ahead of it (without the word)."""
    for i, clause in enumerate(clauses):
        if i and _FIRST.search(clause) and request_act(clause) == "question":
            moved = _FIRST.sub("", clause)
            names = [n for c in clauses[:i] for n in names_in(c) if n not in moved]
            if names:  # what the clauses it jumps ahead of name (the company, the machine) goes with it
                moved = f"{moved.rstrip(' .')} ({', '.join(dict.fromkeys(names))})"
            return [moved, *clauses[:i], *clauses[i + 1 :]]
    return clauses


def join_statements(clauses: list[str], codeish: Callable[[str], bool] | None = None) -> list[str]:
    """A statement with a quantity right before a calculation ("A 4.6 m trailer pays for every metre or part
    of one; work out its fare") is that calculation's situation: ``"<calculation> (<statement>)"``. Code
    (``codeish``: "print(sum(range(10)))") is a step of its own, never a situation."""
    out: list[str] = []
    for clause in clauses:
        is_code = codeish is not None and bool(out) and codeish(out[-1])
        if out and not is_code and _situation(out[-1]) and request_act(clause) == "compute":
            out[-1] = f"{clause.rstrip(' .')} ({out[-1].rstrip(' .')})"
            continue
        out.append(clause)
    return out


def _situation(clause: str) -> bool:
    if request_act(clause) != "other" or clause.rstrip().endswith("?") or "\u27e6" in clause:
        return False
    return any(q.dimension for q in stated_quantities(clause))


_BASE_ASKED = re.compile(r"\b(?:in|as|into|to)\s+(?:a\s+)?(binary|hex(?:adecimal)?|octal)\b", re.I)
_BASE_SHOWN = {"binary": ("bin", "bin(int({v}))[2:]"), "octal": ("oct", "oct(int({v}))")}
_PLAIN_PRINT = re.compile(r"print\(\(?(v\d+)\)?\)")


def shown_in_base(steps: tuple[PlanStep, ...]) -> tuple[PlanStep, ...]:
    """A number base asked inside a calculation ("What is 18 x 47 in binary?") shows its result in that
    base: a later code step that only prints the value prints it so; a last calculation gets a code step."""
    out = list(steps)
    for step in steps:
        asked = _BASE_ASKED.search(step.text) if step.kind == CALC else None
        if asked is None:
            continue
        word = asked.group(1).lower()
        fmt, shown = _BASE_SHOWN.get(word, ("hex", "hex(int({v}))"))
        users = [s for s in out if s.index > step.index and step.index in s.needs]
        if any(s.kind == CODE and s.fmt for s in users) or any(s.kind != CODE for s in users):
            continue  # shown already, or the value feeds another calculation
        plain = [s for s in users if _PLAIN_PRINT.fullmatch(s.template.strip())]
        if plain:
            var = _PLAIN_PRINT.fullmatch(plain[0].template.strip()).group(1)  # type: ignore[union-attr]
            out[plain[0].index - 1] = replace(plain[0], template=f"print({shown.format(v=var)})", fmt=fmt)
        elif not users and step.index == len(out):
            template = f"print({shown.format(v=f'v{step.index}')})"
            text = f"show the result in {word}"
            out.append(
                PlanStep(
                    step.index + 1,
                    CODE,
                    text,
                    template,
                    (step.index,),
                    ((f"v{step.index}", step.index),),
                    fmt=fmt,
                )
            )
    return tuple(out)


__all__ = [
    "context_names",
    "NEST_MARK",
    "amounts_at_rate",
    "combined_question",
    "first_things_first",
    "found_statement",
    "join_statements",
    "operand_lookups",
    "split_calculations",
    "shown_in_base",
    "split_questions",
    "with_context",
]
