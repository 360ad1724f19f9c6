"""Operations whose operands are named in words (pure).

- an **operand** of an operation ("multiply A by B", "divide A by B", "subtract A from B", "add A to B",
  "A times / plus / minus / divided by B") that is a noun phrase naming a fact ("the round-trip efficiency
  of the X7", "the number of stops on line 7") is looked up first, one that is code ("what print(2 ** 12)
  prints") is run first, and one that is itself arithmetic ("45 × 12") is kept in brackets
  (:func:`operand_facts`); an operation its verb names takes its operands as they are
  (:func:`explicit_operation`);
- a clause that only names an earlier value again is no step (:func:`restates`); "the one in ..." is the
  first lookup's thing (:func:`one_anaphora`); "convert it from kWh to MJ" gives an earlier value its unit
  (:func:`source_unit`); "how many MJ is that?" converts an earlier value (:func:`conversion_question`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ioa_p2p.planning.answer_types import LOOKUP_VERB
from ioa_p2p.planning.code import MARK_RE, inline_code
from ioa_p2p.planning.described import GENERIC
from ioa_p2p.planning.expr import normalise
from ioa_p2p.planning.lookups import words_of
from ioa_p2p.planning.operands import NEST_MARK, context_names
from ioa_p2p.planning.refs import resolve
from ioa_p2p.planning.types import CALC, CODE, LOOKUP, TASK, PlanStep
from ioa_p2p.planning.values import ALIASES


def _names_step(span: str, before: list[PlanStep]) -> bool:
    """The span is an earlier value: a reference only, or the words of an earlier step."""
    refs, text = resolve(span, before)
    if refs and not (words_of(re.sub(r"\bv\d+\b", " ", text)) - GENERIC):
        return True
    wanted = words_of(span) - GENERIC
    return any(wanted and wanted <= words_of(s.text) for s in before)


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
        return bool(words_of(span) - GENERIC)
    refs, text = resolve(span, before)
    return not refs and bool(words_of(text) - GENERIC)


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
    return refs == [before[-1].index] and not (words_of(re.sub(r"\bv\d+\b", " ", text)) - GENERIC)


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
    "conversion_question",
    "explicit_operation",
    "one_anaphora",
    "operand_facts",
    "restates",
    "source_unit",
]


_TIMES_CONST = re.compile(r"\(?\s*v(\d+)\s*\*\s*(\d+(?:\.\d+)?)\s*\)?")
_PER_BASE = re.compile(r"\bper (\d+(?:[.,]\d+)?)\s*([a-zµ°³²]+)\b", re.I)


def per_base(steps: tuple[PlanStep, ...]) -> tuple[PlanStep, ...]:
    """A rate looked up "per 100 mL" applied to "350 mL" is 3.5 times the rate, not 350: a calculation
    ``vK * M`` whose step states M in the unit the lookup's rate is per N of becomes ``vK * M / N``."""
    out = list(steps)
    for n, step in enumerate(steps):
        m = _TIMES_CONST.fullmatch(step.template.strip()) if step.kind == CALC else None
        source = steps[int(m.group(1)) - 1] if m and 0 < int(m.group(1)) <= len(steps) else None
        per = _PER_BASE.search(source.text) if source is not None and source.kind == LOOKUP else None
        if m is None or per is None:
            continue
        base, unit = float(per.group(1).replace(",", ".")), ALIASES.get(per.group(2).lower())
        amount = m.group(2)
        stated = re.search(rf"(?<![\d.]){re.escape(amount)}\s*([a-zµ°³²]+)\b", step.text, re.I)
        if base > 1 and unit and stated and ALIASES.get(stated.group(1).lower()) == unit:
            out[n] = replace(step, template=f"(v{m.group(1)} * {amount} / {per.group(1).replace(',', '.')})")
    return tuple(out)
