"""Arithmetic asked in words over the values found before it (pure; issue 23, p-words2).

After lookups a request often names the work by a verb or a noun alone, its operands only pointed at
("them", "both", "the two") or left out: "average them", "take the mean of the three", "compute the
percentage", "use the larger of the two", "get the mean rain per rain day". :func:`worded_step` makes
such a clause a calculation bound to the values found and not used yet (the last ones, as many as the
clause counts), instead of a task no agent does:

- **mean**: ``(v1 + v2 + ...) / n``; "the mean X per Y" after a total and a count: ``vX / vY`` (the step
  whose words name Y is the count);
- **percentage / share / proportion** of two values: the one whose words name a whole ("total", "bill",
  "overall", "in all") is the base, else the second; ``v1 / v2 * 100``, unit ``%``;
- **larger / smaller** ("the larger of the two", "whichever is lower"): ``max(...)`` / ``min(...)``;
- **sum** of more than two ("add them all up", "total the three"): ``v1 + v2 + v3``.

:func:`fact_steps` reads what was planned as a task before: an operation whose operand is a fact named in
words ("multiply by the grams in a standard packet", "add the deposit X takes for it to the first month's
fee", "take the voucher off it"): the fact looked up ("it" in it made the value's own subject) unless an
earlier value is it, then the operation on the value found before.

A clause that names something of its own (a lookup's subject, a number) is no such step: None, and the
planner's other rules read it.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.followups import names_new_thing, unused
from ioa_p2p.planning.lookups import words_of
from ioa_p2p.planning.types import CALC, CODE, LOOKUP, TASK, PlanStep

_LEAD = r"^(?:(?:then|and|now|next|so|please|finally|first)\s+)*"
_DO = r"(?:take|find|get|work out|compute|calculate|give|give me|tell me|use|keep|pick|choose|report|show)"
_COUNTS = {"both": 2, "two": 2, "three": 3, "four": 4, "five": 5, "all three": 3, "all four": 4}
_POINTER = (
    r"(?:them(?: all)?|these|those|both(?: of them)?|all of them|the (?:two|three|four|five)"
    r"(?: [a-z-]+s)?|all (?:three|four)(?: [a-z-]+s)?|the (?:values|figures|numbers|results|readings|"
    r"amounts|prices|totals))"
)
_END = r"\s*[.!?]?\s*$"
_MEAN = re.compile(
    _LEAD + rf"(?:(?:average|mean)\s+{_POINTER}(?:\s+out)?|{_DO}\s+(?:the|their)\s+(?:average|mean)"
    rf"(?:\s+(?:of|across|over)\s+{_POINTER})?|what(?:'s| is)\s+(?:the|their)\s+(?:average|mean)"
    rf"(?:\s+of\s+{_POINTER})?){_END}",
    re.I,
)
_MEAN_PER = re.compile(
    _LEAD
    + rf"(?:{_DO}|what(?:'s| is))\s+the\s+(?:average|mean)\s+(?P<what>[\w -]+?)\s+(?:per|a|an|for each)\s+"
    rf"(?P<per>[\w -]+?){_END}",
    re.I,
)
_PERCENT = re.compile(
    _LEAD + rf"(?:{_DO}|express\s+(?:it|that|them))\s+(?:(?:the|that|it|this)\s+)?(?:as\s+an?\s+)?"
    rf"(?:percentage|per ?cent|share|proportion)(?:\s+(?:of\s+)?{_POINTER})?{_END}",
    re.I,
)
_EXTREME = re.compile(
    _LEAD + rf"(?:{_DO}\s+)?(?:the|whichever (?:is|of {_POINTER} is))\s+(?P<which>larger|largest|higher|"
    r"highest|greater|greatest|bigger|biggest|longer|longest|more expensive|dearer|smaller|smallest|lower|"
    r"lowest|lesser|less|cheaper|cheapest|shorter|shortest)(?:\s+(?:one|value|figure|amount|number|price))?"
    rf"(?:\s+(?:of|among)\s+{_POINTER})?{_END}",
    re.I,
)
_SUM = re.compile(
    _LEAD + rf"(?:(?:add|sum|total)\s+{_POINTER}(?:\s+(?:up|together))?|add up\s+{_POINTER}|"
    rf"{_DO}\s+(?:the|their)\s+(?:sum|total)(?:\s+of\s+{_POINTER})?){_END}",
    re.I,
)
_WHOLE = re.compile(r"\b(?:total|whole|overall|in all|altogether|bill|entire|full|combined|all)\b", re.I)
_MAX_WORDS = frozenset(
    "larger largest higher highest greater greatest bigger biggest longer longest more dearer".split()  # noqa: SIM905
)


def _operands(before: list[PlanStep], pointer: str | None, least: int) -> list[int] | None:
    """The values found and not used yet that the clause (``pointer``) points at: the last ``n`` of them
    where it counts them ("the two", "all three"), else all of them (two to five); None when too few."""
    pending = [n for n in unused(before) if before[n - 1].kind not in (TASK, CODE)]
    said = f" {(pointer or '').lower()} "
    count = next(
        (v for k, v in sorted(_COUNTS.items(), key=lambda kv: -len(kv[0])) if f" {k} " in said), None
    )
    if count is not None:
        return pending[-count:] if len(pending) >= count else None
    if len(pending) < least or len(pending) > 5:
        return None
    return pending


def _step(index: int, clause: str, expression: str, needs: list[int], unit: str = "") -> PlanStep:
    return PlanStep(index, CALC, clause, expression, tuple(needs), unit=unit)


def _unit(before: list[PlanStep], needs: list[int]) -> str:
    units = {before[n - 1].unit for n in needs}
    return units.pop() if len(units) == 1 else ""


def _base(before: list[PlanStep], pair: list[int]) -> tuple[int, int]:
    """(part, whole) of two values: the one whose words name a whole is the base, else the second."""
    wholes = [n for n in pair if _WHOLE.search(before[n - 1].text)]
    if len(wholes) == 1:
        return next(n for n in pair if n != wholes[0]), wholes[0]
    return pair[0], pair[1]


def _per(before: list[PlanStep], pair: list[int], per: str) -> tuple[int, int] | None:
    """(amount, count) for "the mean X per Y": the step whose words name Y (the rain days) is the count."""
    said = {w.rstrip("s") for w in words_of(per)}
    named = [n for n in pair if said and said <= {w.rstrip("s") for w in words_of(before[n - 1].text)}]
    if len(named) != 1:
        return None
    return next(n for n in pair if n != named[0]), named[0]


_FACT = r"(?:the|a|an|its|their)\s+[^,;]+?"
_BY_FACT = (
    re.compile(
        _LEAD
        + rf"(?P<op>multiply|divide)\s+(?:(?:it|that|this|the result|the value)\s+)?by\s+(?P<fact>{_FACT})"
        rf"{_END}",
        re.I,
    ),
    re.compile(
        _LEAD
        + rf"(?P<op>add)\s+(?P<fact>{_FACT})\s+(?:to|onto)\s+(?P<to>it|that|this|the result|{_FACT}){_END}",
        re.I,
    ),
    re.compile(
        _LEAD + rf"(?P<op>subtract|deduct|take off|take away)\s+(?P<fact>{_FACT})\s+from\s+"
        rf"(?P<to>it|that|this|the result|{_FACT}){_END}",
        re.I,
    ),
)
_OPS = {"multiply": "*", "divide": "/", "add": "+"}
_NAME = r"\b[A-Z][\w&'-]+(?:\s+[A-Z][\w&'-]+)*"


def _named_step(phrase: str, before: list[PlanStep]) -> int | None:
    """The one earlier value whose words hold every word of ``phrase`` ("the monthly fee")."""
    own = words_of(phrase) - {"the", "a", "an", "its", "their", "it", "that", "this"}
    hits = [s.index for s in before if s.kind not in (TASK, CODE) and own and own <= words_of(s.text)]
    return hits[-1] if len(hits) == 1 else None


def fact_steps(index: int, clause: str, before: list[PlanStep]) -> list[PlanStep] | None:
    """ "multiply by the grams in a standard packet", "add the deposit to it", "take the voucher off the
    fee" after a value found: the fact looked up (unless an earlier value is it) and the operation on the
    earlier value; None for other clauses."""
    text = clause.strip()
    m = next((p.match(text) for p in _BY_FACT if p.match(text)), None)
    pending = [n for n in unused(before) if before[n - 1].kind not in (TASK, CODE)]
    if m is None or not pending or re.search(r"\d", text):
        return None
    fact = m.group("fact").strip()
    to = (m.groupdict().get("to") or "it").strip()
    target = _named_step(to, before) if not re.fullmatch(r"(?i)it|that|this|the result", to) else None
    target = target or pending[-1]
    known = _named_step(fact, before)
    steps: list[PlanStep] = []
    if known is None or known == target:
        own = re.findall(_NAME, before[target - 1].text[1:])
        if own:  # "the deposit Loomhall takes for it": it is what the value operated on is about
            fact = re.sub(r"(?i)\b(for|of|on|with|at) (?:it|that)\b", rf"\1 the {own[0]}", fact)
        names = own or [n for s in before for n in re.findall(_NAME, s.text[1:])]
        context = f" ({', '.join(names[:2])})" if names and not re.search(r"[A-Z]", fact) else ""
        question = f"What is {fact}{context}?"
        steps.append(PlanStep(index, LOOKUP, question.rstrip("?"), question))
        known = index
    sign = _OPS.get(m.group("op").lower(), "-")  # subtract, deduct, take off
    expression = f"(v{target} {sign} v{known})"
    steps.append(_step(index + len(steps), clause, expression, [target, known]))
    return steps


def worded_step(index: int, clause: str, before: list[PlanStep]) -> PlanStep | None:
    """The calculation a clause asks for in words over the values found before it (see the module
    docstring), or None."""
    text = clause.strip()
    if not before or re.search(r"\d", text) or names_new_thing(text, before):
        return None
    m = _MEAN_PER.match(text)
    if m is not None:
        pair = _operands(before, None, 2)
        found = _per(before, pair, m.group("per")) if pair is not None and len(pair) == 2 else None
        return _step(index, clause, f"(v{found[0]} / v{found[1]})", list(found)) if found else None
    m = _MEAN.match(text)
    if m is not None:
        ns = _operands(before, text, 2)
        if ns is None:
            return None
        total = " + ".join(f"v{n}" for n in ns)
        return _step(index, clause, f"(({total}) / {len(ns)})", ns, _unit(before, ns))
    m = _PERCENT.match(text)
    if m is not None:
        ns = _operands(before, text, 2)
        if ns is None or len(ns) != 2:
            return None
        part, whole = _base(before, ns)
        return _step(index, clause, f"(v{part} / v{whole} * 100)", [part, whole], "%")
    m = _EXTREME.match(text)
    if m is not None:
        ns = _operands(before, text, 2)
        if ns is None:
            return None
        fn = "max" if m.group("which").lower().split()[0] in _MAX_WORDS else "min"
        return _step(index, clause, f"{fn}({', '.join(f'v{n}' for n in ns)})", ns, _unit(before, ns))
    m = _SUM.match(text)
    if m is not None:
        ns = _operands(before, text, 3)
        if ns is None or len(ns) < 3:  # two values added: the follow-up rules' sum
            return None
        return _step(index, clause, "(" + " + ".join(f"v{n}" for n in ns) + ")", ns, _unit(before, ns))
    return None


__all__ = ["fact_steps", "worded_step"]
