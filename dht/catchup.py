"""When the discovery catch-up asks again for a card it could not get (pure; times in seconds).

The catch-up loop (:func:`~ioa_p2p.node.discovery.loops.catch_up_loop`) fetches the cards of the card
publishers a node knows and holds no card of: the owner first, then the DHT. It is anti-entropy, not a
find: nobody waits for it, so it must not be what keeps a forming network busy. Before this module it
asked again every 30 s for every card still missing, and a card is missing exactly when the network is
too busy to answer (the owner's request timed out, the DHT lookup's holders did not answer in time): at
N = 50 processes on the 2-core box (issue 25, d-n50e) every node asked again for its ~30 missing cards
every 30 s, each ask an owner request and a DHT lookup, and that load kept the next asks failing.

:class:`CatchUpPacer` asks for a card at once the first time, then waits :data:`RETRY` seconds after each
of the first two failed asks (as before: a card lost to one busy moment comes 30 s later), doubling after
each further failure of the same peer up to :data:`RETRY_MAX` (0, 30, 60, 120, 240, 480, 960 s: a busy
network's retries fall off geometrically instead of staying constant), and at most :data:`BATCH` peers per
round. A
peer whose card arrived (by gossip, a census, a find) is forgotten: it starts over if it goes missing
again (a new version dropped, an expiry). Memory is bounded by :data:`REMEMBER`.

:class:`QuietScan` is when the loop looks for missing cards at all: every tick while some are missing,
at once when what it looks at changed (topic peers, routing table, cards held, dropped versions), and
otherwise after a wait that doubles up to :data:`QUIET_MAX` while the scans find nothing (each scan lists
every card publisher the node knows: ~100 peers at N = 101, every 2 s of every agent, issue 26, l-idle9).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

#: Seconds before the first retry of a peer whose card the catch-up could not get, the ceiling the
#: doubling stops at, peers asked per round at most, and peers remembered at most.
RETRY = 30.0
RETRY_MAX = 480.0
BATCH = 32
REMEMBER = 4096

#: Longest wait between two catch-up scans while they find nothing missing and nothing changed.
QUIET_MAX = 30.0

K = TypeVar("K", bound=Hashable)


class QuietScan:
    """When the catch-up loop scans for missing cards (see the module docstring): ``base`` is its tick."""

    def __init__(self, base: float, most: float = QUIET_MAX) -> None:
        self.base, self.most = base, max(base, most)
        self.gap = base
        self.next_at = -math.inf
        self.mark: Hashable = None

    def due(self, now: float, mark: Hashable) -> bool:
        """A scan is due: ``mark`` (what the scan looks at, in short) changed, or the wait passed."""
        return mark != self.mark or now >= self.next_at

    def scanned(self, now: float, mark: Hashable, idle: bool) -> None:
        """A scan at ``now`` found nothing missing (``idle``: the wait doubles) or something (it resets)."""
        self.mark = mark
        self.gap = min(self.gap * 2, self.most) if idle else self.base
        self.next_at = now + self.gap


class CatchUpPacer(Generic[K]):
    """Which missing peers a catch-up round asks (see the module docstring)."""

    def __init__(
        self, retry: float = RETRY, retry_max: float = RETRY_MAX, batch: int = BATCH, remember: int = REMEMBER
    ) -> None:
        if not 0 < retry <= retry_max or batch < 1 or remember < batch:
            raise ValueError("CatchUpPacer needs 0 < retry <= retry_max, batch >= 1, remember >= batch")
        self.retry, self.retry_max, self.batch, self.remember = retry, retry_max, batch, remember
        #: peer -> (when it was last asked, asks in a row that did not get its card)
        self._asked: dict[K, tuple[float, int]] = {}

    def due(self, missing: Iterable[K], now: float, held: Callable[[K], bool] | None = None) -> list[K]:
        """The peers of ``missing`` (in order; duplicates once) to ask now, :data:`BATCH` at most. The peers
        remembered whose cards arrived are forgotten: those not in ``missing``, or, with ``held``, those
        ``held(peer)`` says are held. A pace shared by several askers (the agents of one process: each
        lists the peers *it* knows) passes ``held``: a peer absent from one asker's list is no card
        arrived, and forgetting it wiped the pace of the others (l-spread: a missing card asked for ~200
        times in 20 minutes instead of 7)."""
        wanted = list(dict.fromkeys(missing))
        present = set(wanted)
        arrived = held if held is not None else (lambda peer: peer not in present)
        for peer in [p for p in self._asked if arrived(p)]:
            del self._asked[peer]
        out: list[K] = []
        for peer in wanted:
            if len(out) >= self.batch:
                break
            last = self._asked.get(peer)
            if last is None or now - last[0] >= self.wait(last[1]):
                out.append(peer)
        return out

    def wait(self, failures: int) -> float:
        """Seconds after an ask before the next, when ``failures`` asks in a row got nothing."""
        return min(self.retry * 2.0 ** min(max(failures - 2, 0), 16), self.retry_max)

    def asked(self, peers: Iterable[K], now: float) -> None:
        """``peers`` are being asked at ``now`` (each counts as a failure until its card arrives)."""
        for peer in peers:
            failures = self._asked.pop(peer, (now, 0))[1]
            self._asked[peer] = (now, failures + 1)
        while len(self._asked) > self.remember:
            del self._asked[next(iter(self._asked))]

    def failures(self, peer: K) -> int:
        return self._asked.get(peer, (0.0, 0))[1]


__all__ = ["BATCH", "QUIET_MAX", "REMEMBER", "RETRY", "RETRY_MAX", "CatchUpPacer", "QuietScan"]
