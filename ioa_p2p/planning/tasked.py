"""A scene's task sentences as the questions they ask (pure; issue 23, p-bind).

"Two adults and three children are booking the family afternoon. Total the tickets, then run <code>":
"Total the tickets" is no task for an agent but the question "What do the tickets cost in total?", asked
in the scene the sentences before it set (its words in brackets, as :mod:`~ioa_p2p.planning.scene` joins
them). So are "add up the fees", "work out the total before VAT" and "find the total for the group". A
sentence that names two values ("total the A and the B") is two lookups and their sum
(:func:`~ioa_p2p.planning.lookups_added.added_lookups`), not this.
"""

from __future__ import annotations

import re

_TOTAL_THE = re.compile(
    r"^(?:then\s+|now\s+|first\s+)?(?:total(?: up)?|tot up|add up|sum up)\s+"
    r"(?P<what>(?:the|their|our|your|its|his|her|all the)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
    r"(?P<scene>\s*\([^()]*\))?\s*[.!]?$",
    re.I,
)
_WORK_OUT_TOTAL = re.compile(
    r"^(?:then\s+|now\s+|first\s+)?(?:work out|calculate|compute|figure out|find|get)\s+"
    r"(?P<what>the (?:total|overall|full|whole) (?:cost|price|charge|amount|bill|fee)?\b[^()]*?)"
    r"(?P<scene>\s*\([^()]*\))?\s*[.!]?$",
    re.I,
)


def task_question(clause: str) -> str | None:
    """The question a task sentence asks ("Total the tickets (scene)" -> "What do the tickets cost in
    total? (scene)"), or None when the clause is no such sentence (it names two values, refers to an
    earlier value, or is no total)."""
    text = clause.strip()
    m = _TOTAL_THE.match(text)
    if (
        m is not None
        and " and " not in m.group("what")
        and not re.search(r"\b(?:it|them|that)\b", text[: m.end("what")])
    ):
        what = re.sub(r"^(?:all the|their|our|your|its|his|her)\b", "the", m.group("what"), flags=re.I)
        return f"What do {what} cost in total?{m.group('scene') or ''}"
    m = _WORK_OUT_TOTAL.match(text)
    if m is not None and " and " not in m.group("what"):
        return f"What is {m.group('what').strip()}?{m.group('scene') or ''}"
    return None


__all__ = ["task_question"]
