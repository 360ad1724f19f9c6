"""What a circuit relay (HOP) allows, and who holds what: :class:`RelayLedger` (pure accounting, no I/O).

Circuit relay v2 lets a relay limit reservations and relayed connections ("circuits"); libp2p relays (go,
rust) apply per-peer and per-IP limits on top of the spec's per-circuit ``duration`` and ``data``. Since
identities are free, every limit that matters also holds per IP address and in total:

- reservations: one per peer (a new RESERVE refreshes it), at most ``max_reservations`` in total and
  ``max_reservations_per_ip`` per IP address; a reservation ends at its expiry (``reservation_ttl``) or
  when its holder's connection to the relay closes;
- circuits (concurrent relayed connections): at most ``max_circuits`` in total, ``max_circuits_per_peer``
  to one reserved peer, ``max_circuits_per_ip`` from one source IP address;
- one circuit: at most ``circuit_duration`` seconds and ``circuit_bytes`` bytes (both directions together;
  0 = no limit), then the relay resets it;
- all circuits together: at most ``max_rate`` bytes per second (a token bucket; 0 = no limit): a relay is
  never a bandwidth sink beyond that, whoever asks.

A refusal says which limit, as the circuit relay status it is answered with (``RESERVATION_REFUSED``,
``RESOURCE_LIMIT_EXCEEDED``, ``NO_RESERVATION``); :meth:`RelayLedger.snapshot` counts usage and refusals
for ``ioa relay status``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

#: Circuit relay v2 status codes (the spec's values).
OK = 100
RESERVATION_REFUSED = 200
RESOURCE_LIMIT_EXCEEDED = 201
PERMISSION_DENIED = 202
CONNECTION_FAILED = 203
NO_RESERVATION = 204
MALFORMED_MESSAGE = 400
UNEXPECTED_MESSAGE = 401


@dataclass(frozen=True, slots=True)
class HopLimits:
    max_reservations: int = 128
    max_reservations_per_ip: int = 8
    reservation_ttl: int = 600
    max_circuits: int = 256
    max_circuits_per_peer: int = 16
    max_circuits_per_ip: int = 16
    circuit_duration: int = 1800
    circuit_bytes: int = 64 * 1024 * 1024
    max_rate: int = 16 * 1024 * 1024


@dataclass(slots=True)
class HeldReservation:
    peer: str
    ip: str
    expires: float


@dataclass(frozen=True, slots=True)
class Circuit:
    """One granted circuit: ``source`` (from ``source_ip``) to the reserved ``target``."""

    id: int
    source: str
    source_ip: str
    target: str


class Refused(Exception):
    """A limit refused the request: ``status`` is the circuit relay status code to answer with."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(slots=True)
class RelayLedger:
    limits: HopLimits = field(default_factory=HopLimits)
    reservations: dict[str, HeldReservation] = field(default_factory=dict)
    circuits: dict[int, Circuit] = field(default_factory=dict)
    refusals: Counter[str] = field(default_factory=Counter)
    relayed_bytes: int = 0
    circuits_opened: int = 0
    circuits_cut: Counter[str] = field(default_factory=Counter)
    _next_id: int = 0
    _tokens: float = 0.0
    _tokens_at: float | None = None

    # ------------------------------------------------------------------ reservations

    def reserve(self, peer: str, ip: str, now: float) -> float:
        """Grant or refresh ``peer``'s reservation; its expiry (unix seconds). Raises :class:`Refused`."""
        self.expire(now)
        held = self.reservations.get(peer)
        if held is None:
            if len(self.reservations) >= self.limits.max_reservations:
                raise self._refuse(
                    "reservations", RESERVATION_REFUSED, "the relay holds its maximum of reservations"
                )
            per_ip = sum(1 for r in self.reservations.values() if r.ip == ip)
            if per_ip >= self.limits.max_reservations_per_ip:
                raise self._refuse(
                    "reservations_per_ip", RESERVATION_REFUSED, f"{ip} already holds {per_ip} reservations"
                )
        expires = now + self.limits.reservation_ttl
        self.reservations[peer] = HeldReservation(peer, ip, expires)
        return expires

    def drop_reservation(self, peer: str) -> None:
        """``peer`` disconnected from the relay: its reservation ends."""
        self.reservations.pop(peer, None)

    def expire(self, now: float) -> None:
        for peer in [p for p, r in self.reservations.items() if r.expires <= now]:
            del self.reservations[peer]

    def has_reservation(self, peer: str, now: float) -> bool:
        held = self.reservations.get(peer)
        return held is not None and held.expires > now

    # ------------------------------------------------------------------ circuits

    def open_circuit(self, source: str, source_ip: str, target: str, now: float) -> Circuit:
        """A circuit slot from ``source`` to ``target``; raises :class:`Refused`."""
        if not self.has_reservation(target, now):
            raise self._refuse(
                "no_reservation", NO_RESERVATION, f"{target} holds no reservation on this relay"
            )
        if len(self.circuits) >= self.limits.max_circuits:
            raise self._refuse(
                "circuits", RESOURCE_LIMIT_EXCEEDED, "the relay carries its maximum of circuits"
            )
        to_target = sum(1 for c in self.circuits.values() if c.target == target)
        if to_target >= self.limits.max_circuits_per_peer:
            raise self._refuse(
                "circuits_per_peer",
                RESOURCE_LIMIT_EXCEEDED,
                f"{target} already has {to_target} relayed connections",
            )
        from_ip = sum(1 for c in self.circuits.values() if c.source_ip == source_ip)
        if from_ip >= self.limits.max_circuits_per_ip:
            raise self._refuse(
                "circuits_per_ip",
                RESOURCE_LIMIT_EXCEEDED,
                f"{source_ip} already has {from_ip} relayed connections",
            )
        self._next_id += 1
        circuit = Circuit(self._next_id, source, source_ip, target)
        self.circuits[circuit.id] = circuit
        self.circuits_opened += 1
        return circuit

    def close_circuit(self, circuit: Circuit, cut: str = "") -> None:
        """The circuit ended; ``cut`` names the limit that ended it (``duration``, ``bytes``), if any."""
        self.circuits.pop(circuit.id, None)
        if cut:
            self.circuits_cut[cut] += 1

    def grant_bytes(self, wanted: int, now: float) -> tuple[int, float]:
        """Bytes the relay may forward now under ``max_rate`` (all circuits together) and, when that is
        fewer than ``wanted``, the seconds to wait before asking again."""
        rate = self.limits.max_rate
        if rate <= 0:
            return wanted, 0.0
        if self._tokens_at is None:
            self._tokens, self._tokens_at = float(rate), now
        self._tokens = min(float(rate), self._tokens + (now - self._tokens_at) * rate)
        self._tokens_at = now
        granted = min(wanted, int(self._tokens))
        self._tokens -= granted
        wait = 0.0 if granted >= wanted else (wanted - granted) / rate
        return granted, min(wait, 1.0)

    def count_bytes(self, n: int) -> None:
        self.relayed_bytes += n

    # ------------------------------------------------------------------ status

    def _refuse(self, limit: str, status: int, reason: str) -> Refused:
        self.refusals[limit] += 1
        return Refused(status, reason)

    def snapshot(self, now: float) -> dict[str, object]:
        self.expire(now)
        per_ip = Counter(r.ip for r in self.reservations.values())
        return {
            "reservations": len(self.reservations),
            "reservations_by_ip_max": max(per_ip.values(), default=0),
            "circuits": len(self.circuits),
            "circuits_opened": self.circuits_opened,
            "circuits_cut": dict(self.circuits_cut),
            "relayed_bytes": self.relayed_bytes,
            "refusals": dict(self.refusals),
        }


__all__ = [
    "CONNECTION_FAILED",
    "MALFORMED_MESSAGE",
    "NO_RESERVATION",
    "OK",
    "PERMISSION_DENIED",
    "RESERVATION_REFUSED",
    "RESOURCE_LIMIT_EXCEEDED",
    "UNEXPECTED_MESSAGE",
    "Circuit",
    "HeldReservation",
    "HopLimits",
    "RelayLedger",
    "Refused",
]
