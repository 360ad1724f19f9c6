"""An order's total: each thing the user lists looked up, times its count, added (pure).

Issue 23, p-chain5. "Table for four at the Larch Cafe: two carrot cakes and three lemon drizzles. What's
the food total?", "What would Monday's 07:00 class and Friday's 18:00 class cost me together?": the user
lists the things (each with its count, one when none is given) and asks what they come to. One lookup of
the whole question reads one line's price; the plan is a lookup per thing (with the scene's words, which
name the place and who pays) and ``2 * v1 + 3 * v2``.

Only lists of things bought: a list of people or periods ("two adults and a child", "three nights") is a
party or a stay, priced on a document's rules elsewhere (planning/persons.py, planning/situated.py), and a
list with an amount of money in it is a calculation of its own.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.expr import WORD_NUMBERS
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep

MAX_ITEMS = 6
_TOTAL_ASKED = re.compile(
    r"(?:^|(?<=[.!?:] ))(?:what(?:'s|’s| is| are| does| do| would| will| did)|"
    r"how much (?:is|does|do|would|will))"
    r"\b[^.?]*?\b(?:total|come to|comes to|cost(?: me| us| them)? (?:together|altogether|in total|combined)|"
    r"altogether)\b[^.?]*\??\s*$",
    re.I,
)
_ASKED_ITEMS = re.compile(
    r"\bwhat (?:would|will|do|does|did) (?P<items>.+?) cost(?: me| us| them)? "
    r"(?:together|altogether|in total|combined)\b",
    re.I,
)
_PEOPLE_OR_TIME = re.compile(
    r"\b(?:adults?|child|children|kids?|persons?|people|guests?|seniors?|students?|members?|infants?|"
    r"nights?|days?|hours?|weeks?|months?|years?|minutes?|visitors?|players?|dogs?|cats?|"
    r"grown-ups?|teenagers?|pensioners?|us|we|i|me)\b",
    re.I,
)
_MONEY = re.compile(r"[£$€]\s?\d|\b\d+(?:\.\d+)?\s?(?:EUR|GBP|USD|CHF|NZD|euros?|pounds?|dollars?)\b", re.I)
_SPLIT = re.compile(r"\s*,\s*(?:and\s+|plus\s+)?|\s+and\s+|\s+plus\s+|\s*\+\s*", re.I)


def _item(phrase: str) -> tuple[int, str] | None:
    """(count, thing) of one listed phrase ("two braised beef shins" -> 2, "braised beef shin")."""
    words = phrase.strip(" .,:;").split()
    if not words:
        return None
    head = words[0].lower()
    count = int(head) if head.isdigit() else WORD_NUMBERS.get(head)
    if head in ("a", "an", "one"):
        count = 1
    if count is not None:
        words = words[1:]
    if not words or count == 0 or (count is not None and count > 50):
        return None
    if count is not None and count > 1:
        words[-1] = singular(words[-1])
    return (count or 1), " ".join(words)


def _listed(text: str) -> tuple[str, list[tuple[int, str]]] | None:
    """(the scene's words, the things listed) of a request that lists what it buys, else None."""
    asked = _TOTAL_ASKED.search(text)
    if asked is None:
        return None
    own = _ASKED_ITEMS.search(asked.group(0))
    scene = text[: asked.start()].strip()
    if own is not None:
        phrase = own.group("items")
    else:
        listed = re.search(r":\s*(?P<items>[^:.?]+)\.?\s*$", scene)
        if listed is None:
            return None
        phrase, scene = listed.group("items"), scene[: listed.start()].strip()
    if _PEOPLE_OR_TIME.search(phrase) or _MONEY.search(phrase):
        return None
    parts = [p for p in _SPLIT.split(phrase) if p.strip()]
    items = [i for i in (_item(p) for p in parts) if i is not None]
    if not 2 <= len(items) <= MAX_ITEMS or len(items) != len(parts):
        return None
    return _names(scene), items


def _names(scene: str) -> str:
    """The proper names of the scene ("Table for four at Saffron & Salt" -> "Saffron & Salt"): the place
    the lookups are about, without the words that would match another line."""
    names = []
    for m in re.finditer(r"\b[A-Z][\w'’-]*(?:\s+(?:&\s+|of\s+|the\s+)?[A-Z][\w'’-]*)*", scene):
        first = m.start() == 0 or re.search(r"[.!?:]\s*$", scene[: m.start()])
        if " " in m.group(0) or not first:
            names.append(m.group(0))
    return ", ".join(dict.fromkeys(names))


def basket_plan(request: str) -> tuple[PlanStep, ...] | None:
    """A lookup per thing listed, then ``N1 * v1 + N2 * v2 ...``; None when no order is listed."""
    found = _listed(re.sub(r"\s+", " ", request).strip())
    if found is None:
        return None
    scene, items = found
    steps: list[PlanStep] = []
    for i, (_, thing) in enumerate(items, start=1):
        named = thing if re.match(r"(?:the|a|an)\s|\w+['’]s\s", thing, re.I) else f"the {thing}"
        question = f"How much is {named}" + (f" at {scene}" if scene else "") + "?"
        steps.append(PlanStep(i, LOOKUP, question.rstrip("?"), question))
    terms = [f"{n} * v{i}" if n != 1 else f"v{i}" for i, (n, _) in enumerate(items, start=1)]
    needs = tuple(range(1, len(items) + 1))
    steps.append(PlanStep(len(items) + 1, CALC, request.strip(), " + ".join(terms), needs))
    return tuple(steps)
