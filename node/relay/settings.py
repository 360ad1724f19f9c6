"""The ``[relay]`` config table, parsed (no I/O); :mod:`ioa_p2p.node.relay.service` documents every key."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ioa_p2p.errors import ConfigError
from ioa_p2p.node.net.relay import CircuitLimits


@dataclass(frozen=True, slots=True)
class RelaySettings:
    """The parsed ``[relay]`` table (:mod:`ioa_p2p.node.relay.service` lists meanings and defaults)."""

    hop: bool = False
    client: bool = True
    reserve: tuple[str, ...] = ()
    reserve_on_bootstrap: bool = False
    max_reservations: int = 128
    max_circuits_per_peer: int = 16
    circuit_duration: int = 1800
    circuit_bytes: int = 64 * 1024 * 1024
    reservation_ttl: int = 600

    @classmethod
    def from_section(cls, table: Mapping[str, Any], source: str = "config") -> RelaySettings:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(table) - known)
        if unknown:
            raise ConfigError(f"unknown keys in [relay] of {source}: {unknown} (known: {sorted(known)})")
        values: dict[str, Any] = {}
        for key in ("hop", "client", "reserve_on_bootstrap"):
            if key in table:
                if not isinstance(table[key], bool):
                    raise ConfigError(f"[relay].{key} in {source} must be true or false")
                values[key] = table[key]
        if "reserve" in table:
            reserve = table["reserve"]
            if isinstance(reserve, str):
                reserve = [reserve]
            if not isinstance(reserve, list) or not all(isinstance(a, str) for a in reserve):
                raise ConfigError(f"[relay].reserve in {source} must be a list of relay multiaddrs")
            values["reserve"] = tuple(reserve)
        minimum = {"max_reservations": 1, "max_circuits_per_peer": 1, "reservation_ttl": 10}
        for key in (
            "max_reservations",
            "max_circuits_per_peer",
            "circuit_duration",
            "circuit_bytes",
            "reservation_ttl",
        ):
            if key in table:
                value = table[key]
                low = minimum.get(key, 0)
                if isinstance(value, bool) or not isinstance(value, int) or value < low:
                    raise ConfigError(f"[relay].{key} in {source} must be an integer >= {low}")
                values[key] = value
        return cls(**values)

    def limits(self) -> CircuitLimits:
        return CircuitLimits(
            duration=self.circuit_duration,
            data=self.circuit_bytes,
            max_circuit_conns=self.max_circuits_per_peer,
            max_reservations=self.max_reservations,
            reservation_ttl=self.reservation_ttl,
        )

    def reservation_targets(self, bootstrap: tuple[str, ...]) -> tuple[str, ...]:
        """Relay multiaddrs to hold a reservation on, in order, without duplicates."""
        targets = list(self.reserve) + (list(bootstrap) if self.reserve_on_bootstrap else [])
        return tuple(dict.fromkeys(targets))


__all__ = ["RelaySettings"]
