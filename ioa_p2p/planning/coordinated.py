"""One request about two things: a lookup for each, and the relation it asks for between them (pure).

"the Zone 2 Express and Zone 2 Standard prices for a 4 kg parcel", "add up the list prices of the
AL-350 and AL-500 pumps", "the P-1 and the P-2 from Orvo: how much do they weigh together?", "the
difference between the visitors of the north hall and the visitors of the south hall": the request names
two things of one kind (two names or codes joined by "and", or two noun phrases after "between") and asks
one question of both. Each thing gets a lookup of its own (the request with the other thing left out and
the words of the relation dropped); the relation (sum, difference, average, ratio, a percentage of) is
read from what the request calls the result, the order from where each thing is named. A request that
names no relation gives the two lookups only: a later request combines them.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.ordered import percent_of, times_as
from ioa_p2p.planning.shared import shared_attribute
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep

_TOKEN = r"[A-Z0-9][\w&./-]*(?<![.])"
_NAME = rf"{_TOKEN}(?:\s+{_TOKEN})*"
_PAIR = re.compile(rf"(?<![:\w])(?P<a>{_NAME})\s+and\s+(?P<pb>(?:the|a|an)\s+)?(?P<b>{_NAME})(?![:\w])")
_BETWEEN = re.compile(
    r"\b(?:(?:the\s+)?(?:difference|gap|ratio|distance)\s+)?between\s+(?P<a>(?:the|a|an)\s+[^,;:?]+?)\s+and\s+(?P<b>(?:the|a|an)\s+[^,;:?]+?)\s*(?=[?.!]|$)",
    re.I,
)
#: "how many points separate A from B", "what separates A and B": two named things, their difference
_SEPARATE = re.compile(rf"\bseparat(?:e|es|ed)\s+(?P<a>{_NAME})\s+(?:from|and)\s+(?P<b>{_NAME})(?![:\w])")
_SUM = re.compile(
    r"\b(?:together|combined|in total|altogether|in all|add(?:ed)? up|sum(?: of)?|total of)\b", re.I
)
_DIFFERENCE = re.compile(
    r"\b(?:difference|by how much|how much (?:more|less|higher|lower|longer|shorter|heavier|lighter)"
    r"|how many (?:more|fewer)|exceeds?|gap|separat(?:e|es|ed))\b",
    re.I,
)
_AVERAGE = re.compile(r"\b(?:average|mean)\b", re.I)
_RELATION_WORDS = re.compile(
    rf"{_SUM.pattern}|\b(?:the )?(?:difference|gap) between\b|\bby how much\b|\b(?:the )?(?:average|mean)"
    r"(?: of)?\b|^(?:please\s+)?(?:add up|sum up|total up|add|sum|compare)\s+",
    re.I,
)
_PRONOUN = re.compile(r"\b(?:they|them|both|each)\b", re.I)
_ASKS = re.compile(r"^(?:what|how|which|when|who)\b", re.I)
_NOT_A_THING = re.compile(r"^(?:[A-Z][a-z]+day|January|February|March|April|May|June|July|August|September|"
                          r"October|November|December|Q[1-4])$")  # fmt: skip


def two_things(clause: str) -> tuple[str, str, str] | None:
    """The two things a request names as a pair and the request with a slot for one ("{}")."""
    m = _BETWEEN.search(clause)
    if m is not None:  # "between the X of A and B in C": both the X of ... in C (planning/shared.py)
        first, second = shared_attribute(m.group("a"), m.group("b"))
        return first, second, clause[: m.start()] + "{}" + clause[m.end() :]
    apart = _SEPARATE.search(clause)
    if apart is not None:  # "how many points separate A from B": the points of each, their difference
        return apart.group("a"), apart.group("b"), clause[: apart.start()] + "for {}" + clause[apart.end() :]
    for m in _PAIR.finditer(clause):
        a, b = m.group("a").split(), m.group("b").split()
        article = a[0] if a[0] in ("The", "A", "An") and len(a) > 1 else ""  # "The P-1 and the P-2 ..."
        a = a[1:] if article else a
        if len(a) > len(b):  # "Kestrel's Zone 2 Express and Zone 2 Standard": the pair is of one shape
            shared = a[: len(a) - len(b)]
            a = a[len(a) - len(b) :]
        else:
            shared = []
        if any(_NOT_A_THING.match(w) or w.isdigit() for w in (a[0], b[0])) or a == b:
            continue
        if any(w.endswith("'s") for w in a[:-1] + b[:-1]):
            continue
        lead = " ".join([article, *shared] if article else shared)
        start = m.start() + (len(lead) + 1 if lead else 0)
        slot = clause[:start] + "{}" + clause[m.end() :]
        return " ".join(a), ("" if article else m.group("pb") or "") + " ".join(b), slot
    return None


def coordinated(clause: str, index: int, related: bool = False) -> tuple[PlanStep, ...] | None:
    """Lookups of the two things ``clause`` asks one question of, and the relation asked for (if any;
    ``related``: only when it asks for one)."""
    found = two_things(clause)
    if found is None:
        return None
    a, b, slot = found
    owners = re.findall(r"\b([A-Z][\w&]*(?: (?:&|[A-Z][\w&]*))*)'s\b", clause)  # "Tallowmere's": both
    questions = [_question(slot.format(thing)) for thing in (a, b)]
    questions = [
        q[:-1] + "".join(f" ({o})" for o in owners if o.split(" ", 1)[-1] not in q) + "?" for q in questions
    ]
    first = PlanStep(index, LOOKUP, questions[0].rstrip("?"), questions[0])
    second = PlanStep(index + 1, LOOKUP, questions[1].rstrip("?"), questions[1])
    relation = _relation(clause, [first, second], index, index + 1)
    if relation is None:
        if related:
            return None
        if not _ASKS.match(clause.strip()) and not re.match(
            r"(?i)(?:look up|find|get|check)\b", clause.strip()
        ):
            return None  # a pair in a request that is no lookup ("compare ...", "translate ...")
        return first, second
    return first, second, PlanStep(index + 2, CALC, clause, relation, (index, index + 1))


def _relation(clause: str, steps: list[PlanStep], a: int, b: int) -> str | None:
    before = [PlanStep(0, LOOKUP, "", "")] * (a - 1) + steps
    ordered = percent_of(clause, before, a, b) or times_as(clause, before, a, b)
    if ordered is not None:
        return ordered
    if _DIFFERENCE.search(clause):
        return f"abs(v{a} - v{b})"
    if _AVERAGE.search(clause):
        return f"((v{a} + v{b}) / 2)"
    if _SUM.search(clause):
        return f"(v{a} + v{b})"
    return None


def _question(text: str) -> str:
    text = _PRONOUN.sub("it", _RELATION_WORDS.sub(" ", text))
    text = re.sub(r"\bdo it\b", "does it", text)
    text = re.sub(r"\s+", " ", text).strip(" ,.?")
    text = re.sub(r"^(?:look up|find out|find|get|check|give me|tell me)\s+", "", text, flags=re.I)
    if _ASKS.match(text) or ":" in text:
        return text[0].upper() + text[1:] + "?"
    return f"What is {text}?"


__all__ = ["coordinated", "two_things"]
