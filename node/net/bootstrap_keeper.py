"""Keeping in touch with the bootstrap peers: each dialled until connected, re-dialled when dropped.

:func:`keep_bootstrap_connected` runs one keeper per configured bootstrap multiaddr (started by
:func:`~ioa_p2p.node.net.routing.start_routing`); :class:`BootstrapState` is what ``GET /net`` shows of them
and says once, clearly, when none is reachable. Between failed dials a keeper waits as the pure
:class:`~ioa_p2p.dht.rejoin.JoinBackoff` decides (jittered, longer once the node knows other peers), and a
dial that only timed out is worth a warning only after :data:`JOIN_PATIENCE` s: a bootstrap node that
many joiners reach at once answers late (issue 26, docs/performance.md "Joining a busy bootstrap node").
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import trio

from ioa_p2p.dht.rejoin import JoinBackoff
from ioa_p2p.errors import IoAError
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.host import from_libp2p_id, peer_info_from_addr

log = logging.getLogger("ioa_p2p.routing")

#: Seconds one bootstrap dial may take (its single address gets all of it: ``dialer``).
DIAL_TIMEOUT = 10.0
#: Seconds between checks (no I/O) that a bootstrap connection is still up; a dropped one is dialled
#: again this long after at most. Kept at 1 s: 5 s was tried (issue 26, one wake-up a second less per
#: bootstrap peer, ~0.004 % of a core) and tests/test_node.py's meeting through a bootstrap node, whose
#: connections drop and are re-dialled under load, failed once at load 62.
CONNECTED_CHECK = 1.0
#: Seconds of timed-out bootstrap dials before a node that never joined warns (:class:`JoinBackoff`).
JOIN_PATIENCE = 60.0
#: The longest wait between bootstrap dials once the node knows other peers (it is in the network).
SEEDED_BACKOFF_MAX = 120.0


@dataclass(slots=True)
class _BootstrapPeer:
    addr: str
    connected: bool = False
    attempts: int = 0
    last_error: str = ""
    joined_at: float | None = None


class BootstrapState:
    """The bootstrap peers and how dialing each goes (``GET /net``); says once, clearly, when none is
    reachable, and when the node joined."""

    def __init__(self, addrs: Sequence[str]) -> None:
        self.peers = {addr: _BootstrapPeer(addr) for addr in addrs}
        self._warned = False
        self.joined = False

    def connected(self, addr: str, now: float) -> None:
        peer = self.peers[addr]
        peer.connected, peer.last_error = True, ""
        peer.joined_at = peer.joined_at or now
        if not self.joined or self._warned:  # said loudly only after the warning that none answered
            log.log(
                logging.WARNING if self._warned else logging.INFO,
                "%s the network through bootstrap peer %s",
                "joined" if not self.joined else "back in touch with",
                addr,
            )
            self.joined = True
        self._warned = False

    def failed(self, addr: str, error: str, retry_in: float, *, quiet: bool = False) -> None:
        """A dial of ``addr`` failed; ``quiet``: not (yet) worth a warning (:class:`JoinBackoff`)."""
        peer = self.peers[addr]
        peer.connected, peer.last_error = False, error
        peer.attempts += 1
        if any(p.connected for p in self.peers.values()) or quiet:
            log.info("bootstrap %s not reachable (%s); retrying in %.1f s", addr, error, retry_in)
            return
        if all(p.attempts for p in self.peers.values()) and not self._warned:
            self._warned = True
            tried = "; ".join(f"{p.addr}: {p.last_error}" for p in self.peers.values())
            after = " (the node keeps working with the peers it knows)" if self.joined else ""
            log.warning(
                "no bootstrap peer is reachable%s: %s. Retrying with backoff up to %s; peers can still "
                "dial this node",
                after,
                tried,
                "30 s" if retry_in <= 30 else f"{retry_in:.0f} s",
            )
        else:
            log.info("bootstrap %s not reachable (%s); retrying in %.1f s", addr, error, retry_in)

    def dropped(self, addr: str) -> None:
        self.peers[addr].connected = False

    def view(self) -> list[dict[str, Any]]:
        return [
            {"addr": p.addr, "connected": p.connected, "attempts": p.attempts, "last_error": p.last_error}
            for p in self.peers.values()
        ]


async def keep_bootstrap_connected(
    connect: Callable[[str], Any],
    is_connected: Callable[[PeerId], bool],
    addr: str,
    *,
    backoff: float,
    backoff_max: float,
    on_connected: Callable[[PeerId], Any],
    state: BootstrapState | None = None,
    knows_others: Callable[[], bool] | None = None,
    patience: float = JOIN_PATIENCE,
    rng: random.Random | None = None,
) -> None:
    """Dial ``addr`` until connected; re-dial when dropped. Between failed dials it waits as
    :class:`~ioa_p2p.dht.rejoin.JoinBackoff` decides (``backoff`` growing to ``backoff_max`` with jitter,
    so joiners that failed together do not retry together; longer once ``knows_others()``: the node met
    other peers, through which it is in the network anyway). A dial that timed out is said as a warning
    only after ``patience`` s of trying (a bootstrap node busy with other joiners answers late); one that
    was refused or failed otherwise, at once."""
    state = state or BootstrapState([addr])
    seeded_cap = max(backoff_max, SEEDED_BACKOFF_MAX)
    policy = JoinBackoff(base=backoff, cap=backoff_max, seeded_cap=seeded_cap, patience=patience)
    rng = rng or random.Random()
    target = from_libp2p_id(peer_info_from_addr(addr).peer_id)
    started = trio.current_time()
    delay = 0.0
    while True:
        if is_connected(target):
            delay = 0.0
            await trio.sleep(max(backoff, CONNECTED_CHECK))
            if not is_connected(target):
                state.dropped(addr)
            continue
        try:
            with trio.fail_after(DIAL_TIMEOUT):
                await connect(addr)
        except (IoAError, trio.TooSlowError) as exc:
            timed_out = isinstance(exc, trio.TooSlowError) or _timed_out(exc)
            reason = str(exc) if isinstance(exc, IoAError) else f"no answer within {DIAL_TIMEOUT:.0f} s"
            seeded = knows_others() if knows_others is not None else False
            delay = policy.next_delay(delay, rng, seeded=seeded)
            tried_for = trio.current_time() - started if timed_out else policy.patience
            warn = policy.should_warn(tried_for=tried_for, joined=state.joined, seeded=seeded)
            state.failed(addr, reason, delay, quiet=not warn)
            await trio.sleep(delay)
            continue
        state.connected(addr, trio.current_time())
        await on_connected(target)


def _timed_out(exc: IoAError) -> bool:
    """Whether a failed dial only timed out (the peer may be busy), rather than being refused."""
    attempts = getattr(exc, "attempts", ())
    reasons = [why for _, why in attempts] or [str(exc)]
    slow = ("no answer within", "did not finish in time", "deadline came first")
    return all(any(word in why for word in slow) for why in reasons)


__all__ = [
    "CONNECTED_CHECK",
    "DIAL_TIMEOUT",
    "JOIN_PATIENCE",
    "SEEDED_BACKOFF_MAX",
    "BootstrapState",
    "keep_bootstrap_connected",
]
