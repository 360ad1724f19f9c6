"""Conversation fuzzing: the content of every ``conv.*`` kind, valid or mutated (swapped types, wrapped
lists, huge numbers, odd task-index suffixes), parses or raises only InvalidContent, and the conversation
state machine takes any script of such messages, from members and an outsider, without raising. The
strategies for arbitrary values are tests/test_fuzz_decoders.py's."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.machine import Conversation
from ioa_p2p.conversation.types import Incoming, SpeakToken

from .test_fuzz_decoders import FUZZ, hostile_scalar, junk, only_our_errors

# --------------------------------------------------------------------------- conv.* content

NAMES = ("A", "B", "C")
START = cm.ConvStart.create("a goal", initiator="A", members=NAMES, now=0.0, timeout=1000)
TEMPLATES: dict[str, dict[str, Any]] = {
    cm.START: START.to_content(),
    cm.DISCUSSION: cm.Turn(cm.DISCUSSION, "S", 0, "hi", next=("B",)).to_content(),
    cm.TASK_SYNC: cm.Turn(cm.TASK_SYNC, "S", 0, "t", tasks=(cm.TaskAssignment("B", "t", "d"),)).to_content(),
    cm.TASK_ASYNC: cm.Turn(
        cm.TASK_ASYNC, "S", 0, "t", tasks=(cm.TaskAssignment("A", "t", "d"),), next=("A",)
    ).to_content(),
    cm.PAUSE: cm.Turn(cm.PAUSE, "S", 1, "p", triggers=("S#0",)).to_content(),
    cm.CONCLUSION: cm.Turn(cm.CONCLUSION, "S", 0, "c", forced=True).to_content(),
    cm.PROGRESS: cm.TaskProgress("S#0", "half", 0.5).to_content(),
    cm.RESULT: cm.TaskOutcome("S#0", True, "ok", {"a": [1, 2.5]}, {"f.txt": b"x"}, None).to_content(),
}
REF_FIELDS = ("prev", "task_id")
REF_LISTS = ("triggers", "fail_tasks", "next")
SUFFIXES = ["", "#0", "#1", "#31", "#32", "#\u00b2", "#\u0663", "#-1", "#+1", "# 1", "##0", "#" + "9" * 30]


def mutate(draw: Any, value: Any) -> Any:
    """A hostile variant of a valid content value: swapped types, wrapped lists, huge numbers, extra or
    dropped keys, long lists."""
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(hostile_scalar)
    if choice == 1:
        return [value]
    if choice == 2 and isinstance(value, int) and not isinstance(value, bool):
        return draw(st.sampled_from([-1, 2**53, 2**53 + 1, 2**63, 10**30, True, 1.5]))
    if isinstance(value, dict):
        out = {k: mutate(draw, v) for k, v in value.items() if draw(st.integers(0, 12))}
        if not draw(st.integers(0, 6)):
            out[draw(st.text(max_size=5) | st.integers(0, 2))] = draw(junk)
        return out
    if isinstance(value, list):
        return [mutate(draw, v) for v in value] * draw(st.sampled_from([1, 1, 1, 0, 40]))
    return value


@st.composite
def conv_messages(draw: Any, refs: tuple[str, ...] = ("S",)) -> tuple[str, Any]:
    """A ``conv.*`` message: a valid one whose references point at ``refs`` (plus odd suffixes), or a
    mutated one, or one of a kind that does not exist."""
    kind = draw(st.sampled_from(sorted(TEMPLATES)) | st.sampled_from(["conv.x", "conv.task.Result"]))
    content = dict(TEMPLATES.get(kind, {"text": "?"}))
    for name in REF_FIELDS:
        if name in content:
            content[name] = draw(st.sampled_from(refs)) + draw(st.sampled_from(SUFFIXES))
    for name in REF_LISTS:
        if name in content and draw(st.booleans()):
            content[name] = [draw(st.sampled_from(refs + NAMES)) + draw(st.sampled_from(SUFFIXES))]
    if draw(st.booleans()):
        content = mutate(draw, content)
    return kind, content


@FUZZ
@given(message=conv_messages())
def test_conv_content_of_every_kind_raises_only_invalid_content(message: tuple[str, Any]) -> None:
    kind, content = message
    parsed = only_our_errors(cm.parse, kind, content)
    if parsed is not None:  # what parses re-encodes to the same content
        assert cm.parse(kind, parsed.to_content()) == parsed


@st.composite
def conversation_scripts(draw: Any) -> list[tuple[str, str, str, Any]]:
    """Messages (id, author, kind, content) that reference earlier ones, from members and an outsider."""
    script = []
    ids: tuple[str, ...] = ("S",)
    for i in range(draw(st.integers(1, 10))):
        kind, content = draw(conv_messages(ids))
        msg_id = draw(st.sampled_from(ids)) if not draw(st.integers(0, 9)) else f"m{i}"  # some duplicates
        script.append((msg_id, draw(st.sampled_from((*NAMES, "Z"))), kind, content))
        ids = (*ids, msg_id)
    return script


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(script=conversation_scripts(), me=st.sampled_from(NAMES))
def test_a_conversation_takes_any_messages_without_raising(
    script: list[tuple[str, str, str, Any]], me: str
) -> None:
    conv = Conversation(START, me=me, start_id="S", now=1.0)
    now = 1.0
    for msg_id, author, kind, content in script:
        now += 7.0
        conv.on_message(Incoming(msg_id, author, kind, content), now)
        conv.on_tick(now)
        conv.on_member_left("Z", now)
    view = conv.view()
    if view.floor is not None:  # composing on whatever state the messages produced also works
        conv.compose_turn(SpeakToken(conv.view().turns[-1].msg_id if view.turns else "S", 0, 0), None, now)


def test_a_result_naming_a_non_ascii_digit_task_index_is_an_unknown_task() -> None:
    """Regression: ``"²".isdigit()`` is true but ``int("²")`` raises ValueError."""
    conv = Conversation(START, me="B", start_id="S", now=1.0)
    conv.on_message(Incoming("T", "A", cm.TASK_ASYNC, TEMPLATES[cm.TASK_ASYNC]), 2.0)
    for index in ("\u00b2", "\u0663", "\u2460", "\uff11"):
        result = dict(TEMPLATES[cm.RESULT], task_id=f"T#{index}")
        assert conv.on_message(Incoming(f"R{index}", "B", cm.RESULT, result), 3.0) == []
