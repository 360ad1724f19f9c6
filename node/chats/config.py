"""The ``[chats]`` configuration table (docs/protocol.md §10.9; invitation keys: docs/security.md).

Keys and defaults: ``sync_interval`` (s, 10), ``retry_initial`` (0.5), ``retry_max`` (30),
``invite_timeout`` (10), ``stream_timeout`` (10), ``fsync`` (false), ``max_pending`` (10000), and who
may invite this node (:mod:`~ioa_p2p.node.chats.admission`): ``invite_policy`` ("open" | "known" |
"allowlist"; default "open", "known" when the adapter executes code), ``invite_allowlist`` ([]),
``invite_denylist`` ([]), ``invite_rate`` (0.5 invitations per second per inviter), ``invite_burst``
(20), ``max_chats_per_inviter`` (500), ``max_invited_chats`` (2000), ``max_stranger_chats`` (200:
chats joined, or being checked, by the invitations of peers this node never worked with, all
together), ``invite_idle_expiry`` (3600 s: an invited chat that got no message by then is forgotten).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.admission import InviteRules, peer_ids_problem


def _positive(default: float) -> Any:
    return setting(default, above=0)


def _peers() -> Any:
    return setting((), check=peer_ids_problem, what="a list of peer ID strings (12D3KooW...)")


@dataclass(frozen=True, slots=True)
class ChatsConfig:
    sync_interval: float = _positive(10.0)
    retry_initial: float = _positive(0.5)
    retry_max: float = _positive(30.0)
    invite_timeout: float = _positive(10.0)
    stream_timeout: float = _positive(10.0)
    fsync: bool = False
    max_pending: int = _positive(10_000)
    #: "": "open", or "known" when the adapter executes code
    invite_policy: Literal["", "open", "known", "allowlist"] = ""
    invite_allowlist: tuple[str, ...] = _peers()
    invite_denylist: tuple[str, ...] = _peers()
    invite_rate: float = _positive(0.5)
    invite_burst: int = _positive(20)
    max_chats_per_inviter: int = _positive(500)
    max_invited_chats: int = _positive(2000)
    max_stranger_chats: int = _positive(200)
    invite_idle_expiry: float = _positive(3600.0)

    @classmethod
    def from_section(cls, section: dict[str, Any]) -> ChatsConfig:
        return parse_section(cls, section, "[chats]")

    def invite_rules(self, default_policy: str) -> InviteRules:
        return InviteRules(
            policy=self.invite_policy or default_policy,
            allow=frozenset(PeerId.from_string(p) for p in self.invite_allowlist),
            deny=frozenset(PeerId.from_string(p) for p in self.invite_denylist),
            rate=self.invite_rate,
            burst=self.invite_burst,
            max_per_inviter=self.max_chats_per_inviter,
            max_total=self.max_invited_chats,
            max_strangers=self.max_stranger_chats,
        )


__all__ = ["ChatsConfig"]
