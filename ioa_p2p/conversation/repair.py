"""A brain's draft made into a turn the floor's rules accept (pure): :func:`repair_turn`.

What a brain proposes is clipped and checked against the round before it is signed: the kind must be a turn
kind (else a discussion), a due conclusion is forced, texts and lists are cut to the message limits, next
speakers and assignees must be members, a pause waits only for running tasks, a task turn without a task or
a pause without a trigger becomes a discussion. ``draft=None`` (the brain failed or timed out) is the
rule-based pass: a conclusion from the task results when one is due, else a discussion handing the floor on.
A conclusion always ends with the round's cost table. docs/conversation.md, "The floor" and "Limits".
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.messages import TaskAssignment, Turn
from ioa_p2p.conversation.types import ConversationView, Speak, TurnDraft, append_costs, compose_conclusion

#: The text of the rule-based pass that hands the floor on.
PASS_TEXT = "(passing the floor)"


def repair_turn(
    draft: TurnDraft | None,
    speak: Speak,
    *,
    prev: str,
    height: int,
    level: int,
    members: Collection[str],
    running: Collection[str],
    view: Callable[[], ConversationView],
    names: Mapping[str, str],
) -> Turn:
    """The turn to post at ``height`` after ``prev`` for ``draft`` (see the module docstring); ``running``
    are the round's running task ids, ``view`` the round as it stands (asked for only to conclude),
    ``names`` the members' card names the conclusion and its cost table use."""
    if draft is None:
        kind = cm.CONCLUSION if speak.must_conclude else cm.DISCUSSION
        text = compose_conclusion(view(), (), names) if speak.must_conclude else PASS_TEXT
        draft = TurnDraft(kind, text)
    kind = draft.kind if draft.kind in cm.TURN_KINDS else cm.DISCUSSION
    forced = False
    if speak.must_conclude and kind != cm.CONCLUSION:
        kind, forced = cm.CONCLUSION, True
    text = str(draft.text)[: cm.MAX_TEXT].strip()
    if kind == cm.CONCLUSION and (forced or not text):
        text = (text + "\n\n" if text else "") + compose_conclusion(view(), (), names)
    if kind == cm.CONCLUSION:
        text = append_costs(text, view(), names)
    next_ = tuple(dict.fromkeys(n for n in draft.next if n in members))[: cm.MAX_ITEMS]
    tasks = tuple(
        TaskAssignment(t.assignee, str(t.title)[: cm.MAX_TITLE], str(t.description)[: cm.MAX_DESCRIPTION])
        for t in draft.tasks
        if t.assignee in members and str(t.description).strip()
    )[: cm.MAX_ITEMS]
    triggers = tuple(dict.fromkeys(t for t in draft.triggers if t in running))[: cm.MAX_ITEMS]
    if kind in cm.TASK_KINDS and not tasks or kind == cm.PAUSE and not triggers:
        kind = cm.DISCUSSION
    return Turn(
        kind=kind,
        prev=prev,
        height=height,
        text=text or "(no text)",
        level=level,
        reason=speak.reason,
        fail_tasks=speak.fail_tasks,
        next=next_ if kind in (cm.DISCUSSION, cm.TASK_ASYNC) else (),
        tasks=tasks if kind in cm.TASK_KINDS else (),
        triggers=triggers if kind == cm.PAUSE else (),
        forced=(forced or speak.reason in ("wrap-up", "max-turns")) and kind == cm.CONCLUSION,
    )


__all__ = ["PASS_TEXT", "repair_turn"]
