"""Chat membership rules (pure): who may add, remove or leave, and the membership after a change.

Membership at a message is computed from the membership messages in its causal past only
(:mod:`ioa_p2p.history.dag`), so every holder of the same messages reaches the same verdicts.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar  # noqa: F401  (Body's ClassVar hints)

from ioa_p2p.errors import HistoryViolation
from ioa_p2p.history.bodies import (
    KIND_MEMBER_ADD,
    KIND_MEMBER_LEAVE,
    KIND_MEMBER_REMOVE,
    MAX_MEMBERS,
    member_of,
)
from ioa_p2p.identity import PeerId


def check_membership_change(
    members: frozenset[PeerId], creator: PeerId, author: PeerId, kind: str, content: dict[str, Any]
) -> None:
    """Raise HistoryViolation (code ``unauthorized``) unless ``author`` may make this change.

    ``members`` is the membership in the message's causal past; the author is one of them.
    Rules: any member may add a non-member (up to MAX_MEMBERS); a member may leave (only
    itself); only the creator may remove, and only another current member.
    """
    if kind == KIND_MEMBER_ADD:
        target = member_of(content)
        if target in members:
            raise HistoryViolation(f"member.add of {target}, who is already a member", code="unauthorized")
        if len(members) >= MAX_MEMBERS:
            raise HistoryViolation(f"member.add over the limit of {MAX_MEMBERS} members", code="unauthorized")
    elif kind == KIND_MEMBER_REMOVE:
        target = member_of(content)
        if author != creator:
            raise HistoryViolation(
                f"member.remove by {author}, but only the chat creator {creator} may remove",
                code="unauthorized",
            )
        if target == author:
            raise HistoryViolation("the creator cannot remove itself; use member.leave", code="unauthorized")
        if target not in members:
            raise HistoryViolation(f"member.remove of {target}, who is not a member", code="unauthorized")


def apply_membership(
    members: frozenset[PeerId], author: PeerId, kind: str, content: dict[str, Any]
) -> frozenset[PeerId]:
    """Membership after a (valid) membership message."""
    if kind == KIND_MEMBER_ADD:
        return members | {member_of(content)}
    if kind == KIND_MEMBER_REMOVE:
        return members - {member_of(content)}
    if kind == KIND_MEMBER_LEAVE:
        return members - {author}
    return members


__all__ = [
    "apply_membership",
    "check_membership_change",
]
