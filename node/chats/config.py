"""The ``[chats]`` configuration table (docs/protocol.md §10.9; invitation keys: docs/security.md).

Keys and defaults: ``sync_interval`` (s, 10), ``retry_initial`` (0.5), ``retry_max`` (30),
``invite_timeout`` (10), ``stream_timeout`` (10), ``fsync`` (false), ``max_pending`` (10000), and who
may invite this node (:mod:`~ioa_p2p.node.chats.admission`): ``invite_policy`` ("open" | "known" |
"allowlist"; default "open", "known" when the adapter executes code), ``invite_allowlist`` ([]),
``invite_denylist`` ([]), ``invite_rate`` (0.5 invitations per second per inviter), ``invite_burst``
(20), ``max_chats_per_inviter`` (500), ``max_invited_chats`` (2000).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ioa_p2p.errors import ConfigError
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.admission import InviteRules, parse_peers, parse_policy


@dataclass(frozen=True, slots=True)
class ChatsConfig:
    sync_interval: float = 10.0
    retry_initial: float = 0.5
    retry_max: float = 30.0
    invite_timeout: float = 10.0
    stream_timeout: float = 10.0
    fsync: bool = False
    max_pending: int = 10_000
    invite_policy: str = ""  # "": "open", or "known" when the adapter executes code
    invite_allowlist: tuple[str, ...] = ()
    invite_denylist: tuple[str, ...] = ()
    invite_rate: float = 0.5
    invite_burst: int = 20
    max_chats_per_inviter: int = 500
    max_invited_chats: int = 2000

    @classmethod
    def from_section(cls, section: dict[str, Any]) -> ChatsConfig:
        fields = cls.__dataclass_fields__
        unknown = sorted(set(section) - set(fields))
        if unknown:
            raise ConfigError(f"unknown keys in [chats]: {unknown} (known: {sorted(fields)})")
        values: dict[str, Any] = {}
        for name, value in section.items():
            default = getattr(cls(), name)
            if name == "invite_policy":
                values[name] = parse_policy(value)
            elif isinstance(default, tuple):
                values[name] = parse_peers(name, value)
            elif isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ConfigError(f"[chats].{name} must be true or false")
                values[name] = value
            elif isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ConfigError(f"[chats].{name} must be a positive number")
            else:
                values[name] = type(default)(value)
        return cls(**values)

    def invite_rules(self, default_policy: str) -> InviteRules:
        return InviteRules(
            policy=self.invite_policy or default_policy,
            allow=frozenset(PeerId.from_string(p) for p in self.invite_allowlist),
            deny=frozenset(PeerId.from_string(p) for p in self.invite_denylist),
            rate=self.invite_rate,
            burst=self.invite_burst,
            max_per_inviter=self.max_chats_per_inviter,
            max_total=self.max_invited_chats,
        )


__all__ = ["ChatsConfig"]
