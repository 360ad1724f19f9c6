"""A derivation never works from a document about another subject than the question's (pure).

"I'm taking a half plot at Brookfield allotments ...": the retrieval may read its figure from another
folder's document (a marathon's entry fees) when that document's words fit better; every rate, band and
rule the derivation would then apply is that other subject's. When the question names its subject (a
proper name or an item code, never the first word of a sentence, a month, a weekday or a currency) and
the document the value was read from names none of those names, neither in its text nor in its path, the
derivation is refused: :func:`unnamed_subject` returns the :class:`~ioa_p2p.planning.missing.Missing`
facts, so the goal says what it lacks (exit 3) instead of answering from the wrong document.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.missing import Missing
from ioa_p2p.planning.values import MONTHS, Value, is_money

_WEEKDAYS = frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
_NAME = re.compile(
    r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{2,}(?:[A-Z][a-z]+)?)\b|\b([A-Z]{1,4}-?\d+[A-Za-z0-9]*)\b"
)
_COMMON = frozenset({"the", "what", "how", "which", "when", "where", "who", "why", "can", "please", "our"})


def subject_names(question: str) -> set[str]:
    """The proper names and item codes ``question`` names (lower case)."""
    names = set()
    for m in _NAME.finditer(question.strip()):
        name = (m.group(1) or m.group(2)).lower()
        if name in MONTHS or name in _WEEKDAYS or name in _COMMON or is_money(name.upper()):
            continue
        names.add(name)
    return names


def unnamed_subject(question: str, found: Value) -> Missing | None:
    """The facts of the question's subject, missing when the answer's document names none of its names;
    None when it names one, the question names none, or no document came with the value."""
    texts = list(found.evidence)
    path = found.records.path if found.records is not None else ""
    if not texts:
        return None
    names = subject_names(question)
    if not names:
        return None
    haystack = " ".join([*texts, path.replace("-", " "), path]).lower()
    if any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", haystack) or n in haystack for n in names):
        return None
    shown = ", ".join(sorted(names))
    return Missing(
        f"the facts about {shown}", "", f"the value found comes from a document that never names {shown}"
    )


__all__ = ["subject_names", "unnamed_subject"]
