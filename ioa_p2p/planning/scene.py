"""Statements that set the scene of a question (pure).

People state their situation and then ask ("I got back from the trip on 3 May. What's the last day I can
file my claim?"), or add a condition after the question ("How much will the flyers cost? Leave out
delivery."). Such a statement asks nothing by itself (its act is ``other``: no question, no instruction to
compute, run or transform) and is no step: it is the context of the question next to it, and it goes with
that question so that the lookup reads the situation (the row, the exception, the band it falls in) and the
calculation gets the quantities it states.

- :func:`join_scenes`: statements before a question join it, statements after the last question join
  that one, as ``"<question> (<statements>)"`` so the question's own words still lead;
- :func:`deadline_plan`: a question for a date ("the last day", "by when", "the deadline") about a
  situation that states one date: the period the documents allow, looked up, added to that date.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ioa_p2p.planning.answer_types import answer_type, request_act
from ioa_p2p.planning.types import DATE, LOOKUP, PlanStep
from ioa_p2p.planning.values import dates_in

_QUESTION = re.compile(
    r"^(?:(?:after|for|in|on|at|by|to|from|within|until|since|during) )?"
    r"(?:what|which|who|whom|when|where|how|is|are|does|do|did|can|could|will|would|should)\b",
    re.I,
)
#: Statements the planner reads in other ways: how a result is shown, a unit declared, a report asked for.
_NOT_SCENE = re.compile(
    r"\u27e6|```|\b(?:decimals?|decimal places|round(?:ed)?|significant figures|sub-?team|team)\b"
    r"|^(?:the )?(?:number|value|result|output|figure|answer)\b|^it (?:prints|gives|returns|outputs)\b",
    re.I,
)


def is_question(clause: str) -> bool:
    return bool(_QUESTION.match(clause.strip())) or clause.rstrip().endswith("?")


def is_statement(clause: str, codeish: Callable[[str], bool] = lambda _: False) -> bool:
    """A clause that asks for nothing: context for the question next to it."""
    c = clause.strip()
    return (
        bool(c)
        and request_act(c) == "other"
        and not is_question(c)
        and not codeish(c)
        and not _NOT_SCENE.search(c)
        and not _led_request(c)
    )


def _led_request(clause: str) -> bool:
    """ "Using the rate of X, estimate Y as ...": a request after a lead phrase asks for something itself."""
    m = _LEAD.match(clause)
    return m is not None and request_act(m.group("rest")) != "other"


def join_scenes(clauses: list[str], codeish: Callable[[str], bool] = lambda _: False) -> list[str]:
    """``clauses`` with every statement joined to the question it sets the scene of (see the module
    docstring); statements next to no question stay as they are."""
    if not any(is_question(c) for c in clauses):
        return clauses
    out: list[str] = []
    scene: list[str] = []
    for clause in clauses:
        if is_statement(clause, codeish):
            scene.append(clause.strip())
            continue
        if scene and is_question(clause):
            out.append(_with_scene(clause, scene))
        else:
            out.extend(scene)
            out.append(clause)
        scene = []
    if scene:  # after the last clause: conditions of the question before them, if it is one
        if out and is_question(out[-1]):
            out[-1] = _with_scene(out[-1], scene)
        else:
            out.extend(scene)
    return out


def _with_scene(question: str, scene: list[str]) -> str:
    said = " ".join(s.rstrip(" .") + "." for s in scene)
    q = question.strip()
    if q.endswith(")") and "(" in q:  # a question that already carries context: add to it
        return f"{q[:-1]}; {said})"
    return f"{q.rstrip(' ?')}? ({said})"


_DEADLINE = re.compile(
    r"\b(?:last|latest|final) (?:day|date)\b|\bdeadline\b|\bby when\b|\buntil when\b|\bdue\b"
    r"|\bno later than\b|\bwhen (?:must|should|do|does) [^?]*\bby\b",
    re.I,
)


_DEADLINE_ASK = re.compile(
    r"^(?:what(?:'s| is| was| will be)|when(?:'s| is)|tell me|give me)?\s*(?:the\s+)?"
    r"(?:(?:last|latest|final) (?:possible )?(?:day|date)|deadline|by when|until when)"
    r"(?:\s+(?:that|by which|on which|when|for|to))?\s*",
    re.I,
)


def deadline_plan(question: str) -> tuple[PlanStep, ...] | None:
    """ "What's the last day I can hand in my claim? (I got back on 17 March 2025.)": how long the documents
    allow for it, then that period added to the one date the situation states; None otherwise."""
    if not _DEADLINE.search(question) or answer_type(question).kind not in ("date", "number"):
        return None
    days = dates_in(question)
    if len(days) != 1:
        return None
    start, end, day = days[0]
    before = re.sub(r"\b(?:on|from|since|of|dated)\s*$", "", question[:start].rstrip())
    asked = re.sub(r"\s+", " ", f"{before} {question[end:].lstrip()}")
    asked = _DEADLINE_ASK.sub("", asked, count=1).strip()
    lookup = f"Within how many days: {asked}"
    return (
        PlanStep(1, LOOKUP, lookup, lookup, unit="days"),
        PlanStep(2, DATE, question, f"{day.isoformat()} + {{1}}", (1,)),
    )


_LEAD = re.compile(
    r"^(?P<lead>(?:according to|going by|based on|using|as per|from|in|under|on|for|at|within|regarding|"
    r"about|across|during|over) [^,?]{3,80}),"
    r"\s+(?P<rest>\S.*)$",
    re.I,
)


def lead_to_end(clause: str) -> str:
    """ "Going by Pellam's handbook, how many leave days ...?": the question first, where it looks
    (``"how many leave days ...? (Going by Pellam's handbook)"``), so the question's words lead."""
    m = _LEAD.match(clause.strip())
    if not m or not (is_question(m.group("rest")) or request_act(m.group("rest")) != "other"):
        return clause
    rest = m.group("rest").rstrip()
    end = "?" if rest.endswith("?") else ""
    return f"{rest.rstrip(' ?.')}{end} ({m.group('lead')})"


_USING = re.compile(
    r"^(?:using|with|taking|given|from) (?P<fact>(?:the|its) (?P<words>[^,?()]{3,80})),\s+(?P<rest>\S.*)$",
    re.I,
)


def led_lookup(clause: str, index: int) -> tuple[PlanStep, str] | None:
    """ "Using the peak failure rate of X, estimate failures as rate x 236,500 / 100": a calculation that
    names the value its lead phrase introduces by that value's head noun ("rate"). The value is looked up
    first (step ``index``) and the calculation (returned) works on it; ``None`` when the calculation does
    not name the lead's value."""
    m = _USING.match(clause.strip())
    if not m or request_act(m.group("rest")) != "compute":
        return None
    head = re.split(r"\s+(?:of|for|in|at|on)\s+", m.group("words"))[0].split()[-1]
    named = re.compile(rf"\b(?:the )?{re.escape(head)}\b", re.I)
    if len(head) < 3 or not named.search(m.group("rest")):
        return None
    fact = m.group("fact")
    lookup = PlanStep(index, LOOKUP, f"Look up {fact}", f"What is {fact}?")
    return lookup, named.sub("it", m.group("rest"), count=1)


_WORK_OUT = re.compile(
    r"^(?:please\s+)?(?:calculate|compute|work out|figure out|determine|estimate)\s+"
    r"(?=(?:what|how|which|when)\b)",
    re.I,
)
_REFERS = re.compile(
    r"\b(?:it|its|that|this|these|those|them|both|the result|the answer|the (?:first|second|third) "
    r"(?:value|number|result))\b",
    re.I,
)


def as_question(clause: str) -> str:
    """ "Calculate what 14 loaves cost at Dunmore": a question put as an instruction is that question
    (``"what 14 loaves cost at Dunmore"``), when it works on no earlier value."""
    m = _WORK_OUT.match(clause.strip())
    if not m or _REFERS.search(clause):
        return clause
    return clause.strip()[m.end() :]


def shifted(steps: tuple[PlanStep, ...], offset: int) -> list[PlanStep]:
    """Steps planned on their own, numbered after ``offset`` earlier steps (their references moved)."""

    def move(text: str) -> str:
        text = re.sub(r"\bv(\d+)\b", lambda m: f"v{int(m.group(1)) + offset}", text)
        return re.sub(r"\{(\d+)\}", lambda m: f"{{{int(m.group(1)) + offset}}}", text)

    return [
        replace(
            s,
            index=s.index + offset,
            template=move(s.template),
            needs=tuple(n + offset for n in s.needs),
            bindings=tuple((name, n + offset) for name, n in s.bindings),
        )
        for s in steps
    ]


__all__ = [
    "led_lookup",
    "as_question",
    "deadline_plan",
    "is_question",
    "is_statement",
    "join_scenes",
    "lead_to_end",
    "shifted",
]
