"""A goal's needs: the clauses it is made of, from its connectives and the content each part carries (pure).

No verb list: a goal is cut at every connective (sentence ends, ``;``, ``:``, commas, "and", "then", "and
then", "after that", "before", "also", "plus", line breaks and list marks), and a piece stays a need of its
own only when it carries enough content of its own (at least :data:`MIN_CONTENT` content words, i.e. an
action and its object, or an object and its qualifier); shorter pieces ("and 3", "Tom in Seattle" when
:data:`MIN_CONTENT` is 3) are glued back to the piece before them. Over-splitting is harmless by design:
:func:`~ioa_p2p.matching.team.choose_team` adds a member for a need only when no chosen member covers it
already, so "cut me out of this photo and put a white background behind me" still yields one member.

:func:`split_goal` returns the needs in goal order (at most ``max_needs``, the tail merged into the last).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import is_content, words

#: Content words a piece needs to stand as a need of its own.
MIN_CONTENT = 2
MAX_NEEDS = 6

_CONNECTIVES = (
    r"(?<=[.!?])\s+"  # sentence ends
    r"|\s*[;\n]+\s*"  # semicolons, line breaks
    r"|:\s+"  # a colon introducing the parts
    r"|,?\s+(?:and\s+then|and\s+also|after\s+that|afterwards|and\s+finally|then|before|also|plus|and)\s+"
    r"|,\s+"
)
_SPLIT = re.compile(f"({_CONNECTIVES})", re.IGNORECASE)
_LIST_MARK = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)]|step\s+\d+\s*[:.)-])\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Need:
    """One clause of a goal: its text and its position among the needs."""

    text: str
    index: int


def content_count(text: str) -> int:
    return sum(1 for w in words(text) if is_content(w))


def split_goal(goal: str, *, max_needs: int = MAX_NEEDS, min_content: int = MIN_CONTENT) -> tuple[Need, ...]:
    """The goal's needs in order; one need (the whole goal) when it has no separable parts."""
    text = goal.strip()
    if not text:
        return ()
    parts = _SPLIT.split(text)  # piece, connective, piece, connective, ...
    merged: list[str] = []
    joint = ""
    for i in range(0, len(parts), 2):
        piece = _LIST_MARK.sub("", parts[i]).strip()
        if piece.strip(" ,.;:!?"):
            if merged and min(content_count(piece), content_count(merged[-1])) < min_content:
                merged[-1] = f"{merged[-1]}{joint}{piece}"  # too little content: glue back, keep the words
            else:
                merged.append(piece)
        joint = parts[i + 1] if i + 1 < len(parts) else ""
    merged = [m.strip(" ,.;:!?") for m in merged if m.strip(" ,.;:!?")]
    if not merged:
        return (Need(text, 0),)
    if len(merged) > max_needs:
        merged = merged[: max_needs - 1] + [" ".join(merged[max_needs - 1 :])]
    return tuple(Need(piece, i) for i, piece in enumerate(merged))


__all__ = ["MAX_NEEDS", "MIN_CONTENT", "Need", "content_count", "split_goal"]
