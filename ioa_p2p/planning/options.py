"""Two ways of buying the same thing compared, at least one of them counted (pure).

Issue 23, p-chain5. "How much cheaper is a crate of Cox apples than the same twelve bags bought one at a
time?", "At the juice bar, how much do you save buying a litre jug rather than five cups?": each way is a
count of one thing, looked up once; the saving is the dearer way less the cheaper one
(``12 * v2 - v1``), "how much more" the first less the second. A way with no count is one of its thing. A
plain comparison of two things (no count above one) is left to natural.py's comparisons.

The second way often names its thing only by what it is made of ("the same twelve bags"): the first
way's "of ..." words go with it ("bags of Cox apples"), and the question's lead place ("at the juice bar")
goes with both lookups.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.expr import WORD_NUMBERS
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep

_LESS = ("cheaper", "less", "less expensive")
_COMPARED = re.compile(
    r"^(?:(?:at|in|from) (?P<ctx>[^,]{3,60}),\s*)?how much "
    r"(?P<dir>cheaper|less expensive|less|more expensive|more|dearer) (?:is|are|would|will|does|do) "
    r"(?P<a>.+?) (?:be |cost |come to )?than (?P<b>.+)$",
    re.I,
)
_SAVED = re.compile(
    r"^(?:(?:at|in|from) (?P<ctx>[^,]{3,60}),\s*)?how much (?:do|does|would|will|can|could) (?:you|i|we|they|"
    r"one|an? [\w-]+) save (?:by )?(?:buying|getting|taking|choosing|booking|ordering|paying for) (?P<a>.+?) "
    r"(?:rather than|instead of|over|compared (?:with|to)) (?P<b>.+)$",
    re.I,
)
_VERBS = r"(?:buying|getting|taking|ordering|booking|paying for)\s+"
_ONE_BY_ONE = r"\s+(?:one at a time|one by one|separately|individually|singly|each|on their own)$"


def _way(phrase: str) -> tuple[int, str, bool] | None:
    """(count, thing, "the same") of one way of buying ("the same six 9cm pots one at a time")."""
    text = re.sub(_ONE_BY_ONE, "", phrase.strip(" ,.?"), flags=re.I)
    text = re.sub(rf"^{_VERBS}", "", text, flags=re.I)
    same = re.match(r"the same\s+", text, re.I) is not None
    text = re.sub(r"^the same\s+", "", text, flags=re.I)
    words = text.split()
    if not words:
        return None
    head = words[0].lower()
    count = int(head) if head.isdigit() else WORD_NUMBERS.get(head)
    if head in ("a", "an", "one", "the"):
        count, words = 1, words[1:]
    elif count is not None:
        words = words[1:]
    if not words or (count is not None and not 0 < count <= 100):
        return None
    if count is not None and count > 1:
        words[-1] = singular(words[-1])
    return (count or 1), " ".join(words), same


def options_plan(question: str) -> tuple[PlanStep, ...] | None:
    """Each way's thing looked up, then the saving (or the extra) of the counted ways; None otherwise."""
    q = re.sub(r"\s+", " ", question).strip().rstrip("?.! ")
    m = _COMPARED.match(q) or _SAVED.match(q)
    if m is None:
        return None
    a, b = _way(m.group("a")), _way(m.group("b"))
    if a is None or b is None or max(a[0], b[0]) < 2 or re.search(r"\d+(?:\.\d+)?\s?%|[£$€]\d", q):
        return None
    made_of = re.search(r"\bof (.+)$", a[1])
    b_thing = f"{b[1]} of {made_of.group(1)}" if made_of and (b[2] or " of " not in b[1]) else b[1]
    place = f" {m.group('ctx')}" if m.group("ctx") else ""
    place = f" at{place}" if place and not re.match(r" (?:at|in|from)\b", place) else place
    steps = []
    for i, thing in enumerate((a[1], b_thing), start=1):
        text = f"How much is a {thing}{place}?"
        steps.append(PlanStep(i, LOOKUP, text.rstrip("?"), text))
    first, second = (f"{n} * v{i}" if n != 1 else f"v{i}" for i, n in ((1, a[0]), (2, b[0])))
    less = m.groupdict().get("dir") is None or m.group("dir").lower() in _LESS
    expression = f"{second} - {first}" if less else f"{first} - {second}"
    steps.append(PlanStep(3, CALC, question.strip(), expression, (1, 2)))
    return tuple(steps)
