"""A scene set before the lookups a piece of code needs is their context, not a task (pure; issue 23).

"One of ours was sent off for violent conduct and our treasurer only paid the fine five weeks later. Look
up that fine as f and run <code>": the first sentence says which fine, it asks for no work. Planned as a
task of its own, it is sent to an agent (whose answer then stands beside the code's in the conclusion)
while the lookup asks for "that fine" with nothing to say which. :func:`scene_as_context` takes such
statements out of a plan that runs code and gives them to the lookups after them: the whole statement to a
lookup that points back at it ("that fine", "what it costs") and to a lookup that names nothing when the
statement names nothing either and states no number ("Find what is left to pay"). Names alone are not
added: a name the answering passage does not repeat ("'Harbour at Dusk' is knocked down at £1,500. Find
the resale right percentage") turns a right lookup into a refusal (probe9 z-066, measured). A statement a
later step reads, or one that asks for work (an action verb, a question), stays; so do all of them when a
step other than a lookup or the code follows (work in words may need their numbers).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ioa_p2p.planning.clauses import ACTION
from ioa_p2p.planning.literal import names_in
from ioa_p2p.planning.scene import shifted
from ioa_p2p.planning.types import CODE, LOOKUP, TASK, Plan, PlanStep

_ACTS = re.compile(rf"\b(?:{'|'.join(ACTION)}|work|average|total|compute)\b", re.I)
_POINTS_BACK = re.compile(r"\b(?:it|its|that|this|those|these|them|they|there)\b", re.I)
_MAX_CONTEXT = 240


def _statement(step: PlanStep) -> bool:
    text = step.text.strip()
    return step.kind == TASK and not text.endswith("?") and not _ACTS.search(text)


def _with_context(step: PlanStep, scene: str, names: list[str]) -> PlanStep:
    """``step`` with ``scene`` as its context where it points back at it or names nothing (nor does the
    scene, which states no number either)."""
    question = step.template.rstrip()
    mark = "?" if question.endswith("?") else ""
    body = question.rstrip("?. ")
    if _POINTS_BACK.search(body):
        added = scene[:_MAX_CONTEXT].rstrip(" .")
    elif not names_in(body) and not names and not re.search(r"\d", scene):
        added = scene[:_MAX_CONTEXT].rstrip(" .")  # "Find what is left to pay": the scene says of what
    else:
        return step
    return replace(step, template=f"{body} ({added}){mark}") if added else step


def scene_as_context(plan: Plan) -> Plan:
    """``plan`` with its leading scene statements given to its lookups (see the module docstring);
    unchanged when it runs no code, has no such statement or no lookup after it."""
    steps = plan.steps
    if plan.unplanned or not any(s.kind == CODE for s in steps):
        return plan
    lead = 0
    while lead < len(steps) and _statement(steps[lead]):
        lead += 1
    if not lead or lead == len(steps):
        return plan
    scene_ids = {s.index for s in steps[:lead]}
    rest = steps[lead:]
    if any(set(s.needs) & scene_ids or {i for _, i in s.bindings} & scene_ids for s in rest):
        return plan  # a later step reads it
    if not any(s.kind == LOOKUP for s in rest) or plan.answer_step <= lead:
        return plan
    if any(s.kind not in (LOOKUP, CODE) for s in rest):
        return plan  # work in words after it ("compute the number of groups") may need what it says
    scene = " ".join(s.text.strip() for s in steps[:lead])
    names = names_in(scene)
    given = [_with_context(s, scene, names) if s.kind == LOOKUP else s for s in rest]
    moved = tuple(shifted(tuple(given), -lead))
    return replace(plan, steps=moved, answer_step=plan.answer_step - lead)


__all__ = ["scene_as_context"]
