"""References to earlier values in a clause (pure): "it", "that", "the result", "that number" -> the previous
step; "that price" -> the latest lookup about a price; "its output", "the printed number" -> the latest code
step; "both", "the two numbers", "all three results" -> the last two / three steps; "the first value",
"the second" -> by position. :func:`resolve` replaces each by ``vN``.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.types import CODE, LOOKUP, PlanStep

_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3}
_COUNT = {"two": 2, "both": 2, "three": 3, "four": 4}
_MULTI = re.compile(
    r"\b(?:(?:the|all|both|these|those)\s+)?(two|three|four|both)\s+(?:numbers|results|values|figures|answers)\b"
    r"|\ball (?:the )?(?:results|values|numbers)\b|\bboth\b|\bthem\b|\bthey\b",
    re.I,
)
_ORDINAL = re.compile(
    r"\bthe (first|second|third|fourth)(?: (?:value|number|result|one|step))?\b(?!\s*\d)", re.I
)
_CODE_REF = re.compile(
    r"\b(?:its output|the output|(?:what|whatever) it print(?:s|ed)|"
    r"the printed (?:number|value|result|output)|"
    r"what (?:the code|the program|the script) print(?:s|ed)|"
    r"the (?:code|program|script|snippet)(?:'s|s')? (?:output|result|printed (?:number|value))|"
    r"the (?:output|result) of the (?:code|program|script|snippet))\b",
    re.I,
)
_NOUN_REF = re.compile(
    r"\b(?:that|this|the|those|these) (?!result\b|answer\b|number\b|value\b|[a-z]+ed\b)([a-z][a-z-]{2,})\b",
    re.I,
)
_PLAIN_REF = re.compile(
    r"\b(?:that|this) (?:result|answer|number|value|product|sum|total|amount|figure|percentage|difference|"
    r"quotient|date|count)\b|\b(?:the|your|my) (?:result|answer|previous result|number|value|amount)\b(?! of)"
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
            else (2 if m.group(0).lower() in ("both", "them", "they") else len(before))
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


def resolve_code_refs(clause: str, before: list[PlanStep]) -> tuple[list[int], str]:
    """(the code step referred to, the clause with "the code's output" / "what it printed" as its vN)."""
    if not any(s.kind == CODE for s in before):
        return [], clause
    n = _last(before, CODE)
    text, count = _CODE_REF.subn(f"v{n}", clause)
    return ([n] if count else []), text


def _last(before: list[PlanStep], kind: str) -> int:
    return next((s.index for s in reversed(before) if s.kind == kind), before[-1].index)


__all__ = ["resolve", "resolve_code_refs"]
