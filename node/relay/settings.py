"""The ``[relay]`` config table, parsed (no I/O); :mod:`ioa_p2p.node.relay.service` documents every key."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.node.net.relay_limits import HopLimits


@dataclass(frozen=True, slots=True)
class RelaySettings:
    """The parsed ``[relay]`` table (:mod:`ioa_p2p.node.relay.service` lists meanings and defaults)."""

    hop: bool = False
    auto_hop: bool = True
    client: bool = True
    hole_punching: bool = True
    reservations: int = setting(2, low=1, high=8)
    reserve: tuple[str, ...] = setting((), one_or_list=True, what="a relay multiaddr or a list of them")
    reserve_on_bootstrap: bool = False
    max_reservations: int = setting(128, low=1)
    max_reservations_per_ip: int = setting(8, low=1)
    max_circuits: int = setting(256, low=1)
    max_circuits_per_peer: int = setting(16, low=1)
    max_circuits_per_ip: int = setting(16, low=1)
    circuit_duration: int = setting(1800, low=0)
    circuit_bytes: int = setting(64 * 1024 * 1024, low=0)
    max_rate: int = setting(16 * 1024 * 1024, low=0, what="bytes per second (0 = no limit)")
    reservation_ttl: int = setting(600, low=10)

    @classmethod
    def from_section(cls, table: Mapping[str, Any], source: str = "") -> RelaySettings:
        """The parsed table; ``source`` (the config file) is named in messages."""
        return parse_section(cls, table, f"[relay] of {source}" if source else "[relay]")

    def limits(self) -> HopLimits:
        return HopLimits(
            max_reservations=self.max_reservations,
            max_reservations_per_ip=self.max_reservations_per_ip,
            reservation_ttl=self.reservation_ttl,
            max_circuits=self.max_circuits,
            max_circuits_per_peer=self.max_circuits_per_peer,
            max_circuits_per_ip=self.max_circuits_per_ip,
            circuit_duration=self.circuit_duration,
            circuit_bytes=self.circuit_bytes,
            max_rate=self.max_rate,
        )

    def reservation_targets(self, bootstrap: tuple[str, ...]) -> tuple[str, ...]:
        """Relay multiaddrs to hold a reservation on whatever the reachability, in order, no duplicates."""
        targets = list(self.reserve) + (list(bootstrap) if self.reserve_on_bootstrap else [])
        return tuple(dict.fromkeys(targets))


__all__ = ["RelaySettings"]
