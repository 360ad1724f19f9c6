"""An adapter card made from what a remote agent says about itself, fitted into the signed card's limits.

Remote agent cards, tool lists and config can be long; the node's signed capability card has fixed limits
(:mod:`ioa_p2p.card`: name, description, at most 32 skills of 64 bytes). :func:`fit_card` keeps the first
skills (deduplicated, case-insensitively) and leaves room for the operator's own ``[agent] skills``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ioa_p2p.adapters.base import AdapterCard
from ioa_p2p.card import MAX_DESCRIPTION, MAX_NAME, MAX_TAG, MAX_TAGS

#: Skills an adapter may take from a remote card; the rest of MAX_TAGS is left for the operator's.
MAX_REMOTE_SKILLS = MAX_TAGS - 8


def cut_utf8(text: str, limit: int) -> str:
    """``text`` (whitespace collapsed) cut to at most ``limit`` UTF-8 bytes, on a character boundary."""
    text = " ".join(text.split())
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[: max(0, limit - 3)].decode("utf-8", "ignore").rstrip() + "..."


def fit_skills(skills: Iterable[str], limit: int = MAX_REMOTE_SKILLS) -> tuple[str, ...]:
    """Non-empty, unique (case-insensitively), each within MAX_TAG bytes, at most ``limit``."""
    out: list[str] = []
    seen: set[str] = set()
    for skill in skills:
        tag = cut_utf8(str(skill), MAX_TAG)
        if tag and tag.lower() not in seen:
            seen.add(tag.lower())
            out.append(tag)
        if len(out) >= limit:
            break
    return tuple(out)


def fit_card(
    *, name: str, description: str, skills: Iterable[str], kind: str, task_types: Iterable[str]
) -> AdapterCard:
    """An :class:`AdapterCard` within the signed card's limits."""
    return AdapterCard(
        name=cut_utf8(name, MAX_NAME) or kind,
        description=cut_utf8(description, MAX_DESCRIPTION),
        skills=fit_skills(skills),
        kind=kind,
        task_types=fit_skills(task_types, MAX_TAGS),
    )


__all__ = ["MAX_REMOTE_SKILLS", "cut_utf8", "fit_card", "fit_skills"]
