"""The value whose bracketed label the question's asker fits (pure): "£265 (members) or £320 (non-members)",
"£420 (local) or £560 (others)", "EUR 9 (adults), EUR 5 (under 16)".

A fact that states two or more values, each right followed by a bracket of a few words (its label), is a
choice between them. The value chosen is the one whose label

- the question names (its words, IDF-weighted, as the fact scorer weighs them: "under 16" for "an
  under-16"), a label that negates a word the question does not negate ("non-members" for "a member")
  counting against;
- or, when the asker says they are outside a group ("we don't live in the parish", "not a member",
  "non-resident", "visitors") and no label is named, the one label of the outsiders ("others",
  "non-residents", "visitors", "everyone else") beside a label of the insiders ("local", "members").

None when the fact has fewer than two labelled values or no label is chosen over the others: the caller
reads the fact as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from ioa_p2p.adapters.retrieval.facts import Scorer, terms

T = TypeVar("T")

#: a value's label: a bracket right after it, perhaps after what it is per ("£8 per night (members)")
_LABEL = re.compile(r"\s*(?:(?:per|a|an)\s+[a-z]+\s*)?\(([^()]{1,40})\)", re.I)
_OUTSIDERS = re.compile(
    r"^\s*(?:all\s+|everyone\s+|any\s*)?(?:others?|else|non[-\s]?\w+|visitors?|guests?|public|outsiders?|"
    r"external|out[-\s]of[-\s]\w+|not\s+\w+)\b",
    re.I,
)
_INSIDERS = re.compile(
    r"^\s*(?:members?|locals?|local|residents?|parishioners?|in[-\s]\w+|villagers?|staff|students?|"
    r"club\s+members?|season[-\s]ticket\s+holders?)\s*$",
    re.I,
)
#: the asker outside a group: "we don't live in the parish", "I'm not a member", "as a non-resident"
_ASKER_OUTSIDE = re.compile(
    r"\b(?:(?:do|does|did)\s*n[o']t|don't|doesn't|aren't|isn't|am\s+not|are\s+not|is\s+not|not)\s+"
    r"(?:a\s+|an\s+|yet\s+a\s+)?(?:live|living|member|members|resident|residents|local|locals|from)\b"
    r"|\bnon[-\s]?(?:members?|residents?|locals?)\b|\bvisitors?\b|\bfrom\s+outside\b|\bout[-\s]of[-\s]\w+\b",
    re.I,
)
_NEGATING = re.compile(r"\b(?:non|not|no|without)\b[\s-]*([a-z]+)", re.I)


def labels_of(spans: Sequence[tuple[int, int, T]], text: str) -> list[tuple[str, T]]:
    """(label, value) for each value of ``spans`` that a bracket right after it labels."""
    out = []
    starts = [s[0] for s in spans]
    for _start, end, value in sorted(spans, key=lambda s: s[0]):
        m = _LABEL.match(text, end)
        if m and not re.match(r"\d", m.group(1)) and not any(m.start() <= s < m.end() for s in starts):
            out.append((m.group(1).strip(), value))  # (a bracket holding a value is its item, no label)
    return out


def labelled_item(spans: Sequence[tuple[int, int, T]], text: str, question: str, scorer: Scorer) -> T | None:
    """The value whose label the question chooses (module doc); None when there is no such choice."""
    labelled = labels_of(spans, text)
    if len(labelled) < 2:
        return None
    scored = sorted(
        ((_named(label, question, scorer), i) for i, (label, _) in enumerate(labelled)), reverse=True
    )
    if scored[0][0] > 0 and scored[0][0] > scored[1][0] + 1e-9:
        return labelled[scored[0][1]][1]
    if all(s <= 0 for s, _ in scored) and _ASKER_OUTSIDE.search(question):
        outsiders = [v for label, v in labelled if _OUTSIDERS.match(label)]
        insiders = [v for label, v in labelled if _INSIDERS.match(label)]
        if len(outsiders) == 1 and insiders:
            return outsiders[0]
    return None


def _named(label: str, question: str, scorer: Scorer) -> float:
    """How much the question names ``label``: the IDF of its words the question uses, less when the label
    negates a word the question does not negate."""
    words = terms(label)
    got = sum(scorer.idf.get(t, 0.0) for t in sorted(words))
    low = question.lower()
    for m in _NEGATING.finditer(label):
        negated = m.group(1).lower()
        if not re.search(rf"\b(?:non|not|no|without)\b[\s-]*(?:a\s+|an\s+)?{re.escape(negated[:4])}", low):
            got -= 2 * scorer.idf.get(next(iter(terms(negated)), negated), 0.5)
    return got


__all__ = ["labelled_item", "labels_of"]
