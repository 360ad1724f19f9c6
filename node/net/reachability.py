"""Is this node reachable from the internet? AutoNAT verdicts aggregated into one status (pure, no I/O).

Each AutoNAT server we ask dials us back at the addresses we name and answers OK (it reached us) or an error
(it could not). :class:`ReachabilityTracker` keeps the latest verdict of each server (at most
:data:`MAX_SERVERS`, verdicts older than ``max_age`` forgotten) and decides:

- ``public``  once ``needed`` distinct servers reached us;
- ``private`` once ``needed`` distinct servers failed to and none reached us;
- otherwise the status stays what it was (``unknown`` at start).

``needed`` is ``confirmations`` (default 3), or fewer when fewer distinct servers are known at all (never
less than 1): a network with one public bootstrap node must still learn that a node behind NAT is private.
Refusals (a server that will not dial the addresses, e.g. none of them has the IP it sees us at) count
neither way. When the node's dialable addresses change, :meth:`ReachabilityTracker.addresses_changed` drops
every verdict (they were about other addresses) but keeps the status until new verdicts overturn it.

``[node] reachability = "public"`` or ``"private"`` fixes the status and nothing is asked;
``"auto"`` (the default) runs AutoNAT. A node with no direct address at all is private without asking.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ioa_p2p.node.net.addrs import Reachability

Mode = Literal["auto", "public", "private"]
DEFAULT_CONFIRMATIONS = 3
MAX_SERVERS = 32
#: Seconds a verdict counts.
DEFAULT_MAX_AGE = 1800.0


@dataclass(slots=True)
class ReachabilityTracker:
    mode: Mode = "auto"
    confirmations: int = DEFAULT_CONFIRMATIONS
    max_age: float = DEFAULT_MAX_AGE
    status: Reachability = "unknown"
    #: server -> (reached us?, when)
    verdicts: dict[str, tuple[bool, float]] = field(default_factory=dict)
    #: When the status last changed (None: never).
    changed_at: float | None = None

    def __post_init__(self) -> None:
        if self.mode != "auto":
            self.status = self.mode

    def record(self, server: str, reached: bool, now: float, known_servers: int) -> bool:
        """One server's verdict; True when the status changed."""
        if self.mode != "auto":
            return False
        self.verdicts.pop(server, None)
        self.verdicts[server] = (reached, now)
        while len(self.verdicts) > MAX_SERVERS:
            del self.verdicts[next(iter(self.verdicts))]
        return self.decide(now, known_servers)

    def decide(self, now: float, known_servers: int) -> bool:
        """Re-decide from the fresh verdicts; True when the status changed."""
        if self.mode != "auto":
            return False
        fresh = [ok for ok, at in self.verdicts.values() if now - at <= self.max_age]
        needed = max(1, min(self.confirmations, known_servers))
        reached = sum(fresh)
        failed = len(fresh) - reached
        status = self.status
        if reached >= needed:
            status = "public"
        elif failed >= needed and reached == 0:
            status = "private"
        return self._set(status, now)

    def no_direct_address(self, now: float) -> bool:
        """The node has no address anyone could dial: private (in ``auto`` mode)."""
        if self.mode != "auto":
            return False
        self.verdicts.clear()
        return self._set("private", now)

    def addresses_changed(self) -> None:
        """The verdicts were about addresses we no longer have: ask again (the status stays for now)."""
        self.verdicts.clear()

    def _set(self, status: Reachability, now: float) -> bool:
        if status == self.status:
            return False
        self.status = status
        self.changed_at = now
        return True

    def summary(self) -> dict[str, object]:
        reached = sum(ok for ok, _ in self.verdicts.values())
        return {
            "mode": self.mode,
            "status": self.status,
            "confirmations": self.confirmations,
            "reached": reached,
            "failed": len(self.verdicts) - reached,
            "changed_at": self.changed_at,
        }


__all__ = ["DEFAULT_CONFIRMATIONS", "Mode", "ReachabilityTracker"]
