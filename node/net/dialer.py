"""The one dial path: every connection this node opens to a peer goes through :meth:`Dialer.dial`.

Our own services call it (messages, invitations, chat delivery and sync, ``POST /connect``), and so does
py-libp2p: :func:`~ioa_p2p.node.net.libp2p_patches.route_dials` makes the swarm's ``dial_peer`` (used by
the DHT, GossipSub, identify, any ``new_stream`` to a peer not connected) call it too. One attempt:

1. a live connection to the peer is reused (a direct one before a relayed one);
2. the candidate addresses (explicit ones, else the peerstore's, which identify keeps current, and the
   addresses of the peer's latest signed card) are ordered and filtered by
   :func:`~ioa_p2p.node.net.addrs.plan_dial`;
3. direct addresses are dialed one after another, each starting :data:`STAGGER` s after the previous one
   (at once when it failed), every one bounded by :data:`ADDRESS_TIMEOUT` (a peer with a single address:
   by the whole attempt's bound, as there is nothing to move on to; a handshake abandoned at 5 s on a busy
   machine was work thrown away on both sides, then done again: issue 26); each dial goes to exactly that
   address (py-libp2p's own ``dial_peer`` would try only the first TCP address it knows, and refuses a
   peer for 60 s after a failure);
4. relayed (``/p2p-circuit``) addresses start once every direct dial failed, or :data:`RELAY_GRACE` s after
   the first one started (a NAT drops packets: a dead direct address hangs instead of failing);
5. the first connection that opens wins; the others are cancelled.

The whole attempt ends before the caller's deadline (``trio.current_effective_deadline()``, at most
``timeout``), and a failure is one :class:`~ioa_p2p.errors.DialFailed` naming each address tried and why
it failed, and what was left out. Background dials (``deliberate=False``: the library's) skip a peer whose
same addresses failed within the last backoff (1 s doubling to 30 s); a new address set is tried at once.

**A background dial outlives its caller** (issue 25). The library dials for a request (a Kademlia query,
a card fetch, a GossipSub stream) under that request's deadline, often a second or two. On a loaded
machine the handshake of a peer waiting for a CPU takes longer; cancelling it threw away the Noise
handshake both sides had paid for (the peer had often registered the connection already), and the next
request dialed again: at 50 node processes on 2 cores, hundreds of abandoned connections per minute.
Once the network runs (:attr:`Dialer.nursery`), such a dial (``deliberate=False``, no explicit address)
runs in the network's nursery with its own bound, :data:`OUTLIVING_TIMEOUT` (for the whole dial and for
each address: nobody waits on it, and a loaded peer's handshake is still worth finishing); the caller
waits for it until its own deadline and then fails as before, while the dial goes on and its connection
serves the next request.
Callers asking for the same peer meanwhile wait for that one dial. At most :data:`MAX_OUTLIVING` such
dials run at once (beyond, a dial is the caller's, as before).
"""

from __future__ import annotations

import copy
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import trio
from libp2p.peer.id import ID
from multiaddr import Multiaddr

from ioa_p2p.errors import DialFailed, IoAError, PeerUnreachable
from ioa_p2p.node.net.addrs import DialPlan, LocalView, is_circuit, plan_dial, strip_peer
from ioa_p2p.node.net.libp2p_patches import dial_one_address, live_connections

log = logging.getLogger("ioa_p2p.dial")

DIAL_TIMEOUT = 10.0
ADDRESS_TIMEOUT = 5.0
STAGGER = 0.25
RELAY_GRACE = 1.0
#: Seconds before the caller's deadline at which the attempt gives up (to raise DialFailed in time).
DEADLINE_MARGIN = 0.05
BACKOFF = 1.0
BACKOFF_MAX = 30.0
ADDR_TTL = 600
#: Background dials that may outlive their callers at once, and the bound of each, for the whole dial and
#: for each address (module docstring): the listener's own upgrade bound (py-libp2p's
#: ``inbound_upgrade_timeout``, 10 s) ends a longer handshake anyway.
MAX_OUTLIVING = 32
OUTLIVING_TIMEOUT = DIAL_TIMEOUT

#: ``circuit(addr)``: a relayed connection through a ``/p2p-circuit`` address (the caller bounds it).
CircuitDial = Callable[[str], Awaitable[Any]]


@dataclass(slots=True)
class _Pending:
    """A dial that outlives its callers: its connection or its error, once ``done``."""

    done: trio.Event
    conn: Any = None
    error: Exception | None = None


@dataclass(slots=True)
class _Failure:
    key: frozenset[str]
    until: float
    backoff: float


class Dialer:
    """Dials peers for one host. ``local()``: this machine's interfaces and own addresses;
    ``circuit(addr)``: a relayed connection through a ``/p2p-circuit`` address (None: no relay client);
    ``hints(peer)``: more addresses to try (the peer's signed card)."""

    def __init__(
        self,
        host: Any,
        local: Callable[[], LocalView],
        *,
        circuit: CircuitDial | None = None,
        hints: Callable[[ID], list[str]] | None = None,
    ) -> None:
        self.host = host
        self.local = local
        self.circuit = circuit
        self.hints = hints
        self._locks: dict[ID, trio.Lock] = {}
        self._failures: dict[ID, _Failure] = {}
        #: The network's nursery, once it runs: background dials finish there (module docstring).
        self.nursery: trio.Nursery | None = None
        self._pending: dict[ID, _Pending] = {}

    # ------------------------------------------------------------------ what we know

    def connection(self, peer: ID) -> Any | None:
        """The best live connection to ``peer``: direct before relayed, then the one with most streams."""
        conns = live_connections(self.host, peer)
        if not conns:
            return None
        return max(conns, key=lambda c: (not _relayed(c), len(c.get_streams())))

    def known_addrs(self, peer: ID) -> list[str]:
        try:
            out = [str(a) for a in self.host.get_peerstore().addrs(peer)]
        except Exception:  # the peerstore raises PeerStoreError for an unknown peer
            out = []
        if self.hints is not None:
            out += self.hints(peer)
        return list(dict.fromkeys(_normal(a, peer) for a in out))

    # ------------------------------------------------------------------ dialing

    async def dial(
        self,
        peer: ID,
        addrs: Sequence[str] | None = None,
        *,
        deliberate: bool = True,
    ) -> Any:
        """A connection to ``peer`` (module docstring). ``addrs``: dial exactly these (an explicit
        request: no scope filter). Raises :class:`DialFailed` (or PeerUnreachable without any address)."""
        conn = self.connection(peer)
        if conn is not None:
            return conn
        if addrs is None and not deliberate and self.nursery is not None:
            return await self._dial_outliving(peer)
        return await self._dial_now(peer, addrs, deliberate)

    async def _dial_now(
        self,
        peer: ID,
        addrs: Sequence[str] | None,
        deliberate: bool,
        bound: float = DIAL_TIMEOUT,
        per_address: float = ADDRESS_TIMEOUT,
    ) -> Any:
        """One attempt, bounded by the caller's deadline (and ``bound``; each address by ``per_address``)."""
        deadline = min(trio.current_time() + bound, trio.current_effective_deadline()) - DEADLINE_MARGIN
        lock = self._locks.setdefault(peer, trio.Lock())
        try:
            with trio.move_on_at(deadline) as waited:
                await lock.acquire()
            if waited.cancelled_caught:
                raise PeerUnreachable(f"cannot reach {peer}: another dial to it did not finish in time")
            try:
                conn = self.connection(peer)
                if conn is not None:
                    return conn
                return await self._dial_locked(peer, addrs, deliberate, deadline, per_address)
            finally:
                lock.release()
        finally:
            if not lock.locked() and not lock.statistics().tasks_waiting:
                self._locks.pop(peer, None)

    async def _dial_outliving(self, peer: ID) -> Any:
        """Wait, until the caller's deadline, for the one background dial to ``peer`` (started here when
        none runs); the dial goes on when the caller gives up."""
        pending = self._pending.get(peer)
        if pending is None:
            if len(self._pending) >= MAX_OUTLIVING or self.nursery is None:
                return await self._dial_now(peer, None, False)
            pending = self._pending[peer] = _Pending(trio.Event())
            self.nursery.start_soon(self._finish, peer, pending)
        with trio.move_on_at(trio.current_effective_deadline() - DEADLINE_MARGIN):
            await pending.done.wait()
        if pending.conn is not None:
            return pending.conn
        if pending.error is not None:
            raise copy.copy(pending.error)
        raise DialFailed(
            f"cannot reach {peer} within this request's deadline: the dial goes on, and a connection it "
            "opens serves the next request"
        )

    async def _finish(self, peer: ID, pending: _Pending) -> None:
        """A background dial (its own bound: :data:`OUTLIVING_TIMEOUT`); never raises but Cancelled."""
        try:
            pending.conn = await self._dial_now(peer, None, False, OUTLIVING_TIMEOUT, OUTLIVING_TIMEOUT)
        except IoAError as exc:  # DialFailed, PeerUnreachable: the waiters raise a copy
            pending.error = exc
        except Exception as exc:  # anything else py-libp2p raises: one failed dial, said once
            pending.error = DialFailed(f"cannot reach {peer}: {_reason(exc, 0.0)}")
        finally:
            self._pending.pop(peer, None)
            pending.done.set()

    async def _dial_locked(
        self,
        peer: ID,
        addrs: Sequence[str] | None,
        deliberate: bool,
        deadline: float,
        per_address: float = ADDRESS_TIMEOUT,
    ) -> Any:
        explicit = addrs is not None
        candidates = [_normal(a, peer) for a in (addrs or self.known_addrs(peer))]
        plan = plan_dial(candidates, self.local(), explicit=explicit)
        if plan.relayed and self.circuit is None:
            plan = DialPlan(
                plan.direct, (), (*plan.skipped, *((a, "relay client is off") for a in plan.relayed))
            )
        if plan.empty:
            raise PeerUnreachable(_no_address(peer, plan))
        key = frozenset(plan.direct + plan.relayed)
        now = trio.current_time()
        failure = self._failures.get(peer)
        if not deliberate and failure is not None and failure.key == key and now < failure.until:
            raise DialFailed(f"cannot reach {peer}: its addresses failed {failure.backoff:.0f} s ago or less")
        attempts: list[tuple[str, str]] = []
        if len(plan.direct) + len(plan.relayed) == 1:  # no other address to move on to: the whole bound
            per_address = max(per_address, deadline - now)
        conn = await _Race(self, peer, plan, attempts, deadline, per_address).run()
        if conn is not None:
            self._failures.pop(peer, None)
            return conn
        backoff = min(failure.backoff * 2, BACKOFF_MAX) if failure and failure.key == key else BACKOFF
        self._failures[peer] = _Failure(key, trio.current_time() + backoff, backoff)
        while len(self._failures) > 10_000:
            del self._failures[next(iter(self._failures))]
        raise DialFailed(_failed(peer, plan, attempts), tuple(attempts))

    async def dial_direct(self, peer: ID, addr: str, bound: float = ADDRESS_TIMEOUT) -> Any:
        """One direct dial to exactly ``addr`` (bounded by the caller and ``bound`` seconds)."""
        with trio.fail_after(bound):
            conn = await dial_one_address(self.host, Multiaddr(addr), peer)
        try:
            self.host.get_peerstore().add_addrs(peer, [Multiaddr(addr)], ADDR_TTL)
        except Exception as exc:  # an address py-libp2p cannot store: the connection still stands
            log.debug("could not remember %s for %s: %s", addr, peer, exc)
        return conn


class _Race:
    """Direct addresses staggered, relayed ones after them (or after the grace); first connection wins."""

    def __init__(
        self,
        dialer: Dialer,
        peer: ID,
        plan: DialPlan,
        attempts: list[tuple[str, str]],
        deadline: float,
        per_address: float = ADDRESS_TIMEOUT,
    ):
        self.dialer, self.peer, self.plan, self.attempts, self.deadline = (
            dialer,
            peer,
            plan,
            attempts,
            deadline,
        )
        self.per_address = per_address
        self.winner: Any = None
        self.direct_done = trio.Event()

    async def run(self) -> Any:
        with trio.move_on_at(self.deadline):
            async with trio.open_nursery() as nursery:
                self.scope = nursery.cancel_scope
                nursery.start_soon(self._direct_all)
                nursery.start_soon(self._relayed_all)
        tried = {a for a, _ in self.attempts}
        for addr in (*self.plan.direct, *self.plan.relayed):
            if addr not in tried and self.winner is None:
                self.attempts.append((addr, "not tried: the deadline came first"))
        return self.winner

    async def _direct_all(self) -> None:
        try:
            async with trio.open_nursery() as nursery:
                for addr in self.plan.direct:
                    failed = trio.Event()
                    nursery.start_soon(self._one, addr, self._direct, failed)
                    with trio.move_on_after(STAGGER):
                        await failed.wait()
        finally:
            self.direct_done.set()

    async def _direct(self, peer: ID, addr: str) -> Any:
        return await self.dialer.dial_direct(peer, addr, self.per_address)

    async def _relayed_all(self) -> None:
        if not self.plan.relayed:
            return
        if self.plan.direct:
            with trio.move_on_after(RELAY_GRACE):
                await self.direct_done.wait()
        circuit = self.dialer.circuit
        assert circuit is not None  # the plan has no relayed address without a relay client
        for addr in self.plan.relayed:
            await self._one(addr, lambda _peer, a: circuit(a), trio.Event())

    async def _one(self, addr: str, dial: Callable[[ID, str], Awaitable[Any]], failed: trio.Event) -> None:
        started = trio.current_time()
        try:
            conn = await dial(self.peer, addr)
        except (Exception, trio.TooSlowError) as exc:  # every dial error is one failed attempt
            self.attempts.append((addr, _reason(exc, trio.current_time() - started)))
            failed.set()
            return
        if self.winner is None:
            self.winner = conn
            self.scope.cancel()


def _normal(addr: str, peer: ID) -> str:
    """A direct address without ``/p2p/<id>``; a circuit address ending in ``/p2p-circuit/p2p/<peer>``
    (identify and peer records carry it without the target)."""
    if not is_circuit(addr):
        return strip_peer(addr)
    return f"{addr}/p2p/{peer}" if addr.endswith("/p2p-circuit") else addr


def _relayed(conn: Any) -> bool:
    try:
        return any("/p2p-circuit" in str(a) for a in conn.get_transport_addresses())
    except Exception:  # a connection whose addresses cannot be read: treat as direct
        return False


def _reason(exc: BaseException, took: float) -> str:
    """Why one dial failed, in a few words (the socket error when there is one)."""
    if isinstance(exc, trio.TooSlowError):
        return f"no answer within {took:.1f} s"
    if isinstance(exc, IoAError):
        return str(exc)
    errno = _socket_errno(exc)
    if errno is not None:
        return os.strerror(errno).lower()
    texts = []
    for cause in _causes(exc):
        text = str(cause).strip()
        if text and text not in texts:
            texts.append(text)
    reason = ": ".join(texts) or type(exc).__name__
    if "mismatch" in reason.lower():
        return "another peer answers at this address"
    if "handshake" in reason.lower() or "security" in reason.lower():
        return "closed during the Noise handshake (a firewall, a NAT, or not a libp2p node)"
    return reason.replace("\n", " ")[:200]


def _causes(exc: BaseException, depth: int = 0) -> list[BaseException]:
    """``exc``, its causes and contexts, and the exceptions of groups among them (depth-bounded)."""
    if depth > 6:
        return []
    out = [exc]
    for inner in (exc.__cause__, exc.__context__):
        if inner is not None:
            out += _causes(inner, depth + 1)
    for inner in getattr(exc, "exceptions", ()) or ():
        if isinstance(inner, BaseException):
            out += _causes(inner, depth + 1)
    return out


def _socket_errno(exc: BaseException) -> int | None:
    for cause in _causes(exc):
        if isinstance(cause, OSError) and cause.errno:
            return int(cause.errno)
    return None


def _skipped_text(plan: DialPlan) -> str:
    if not plan.skipped:
        return ""
    return "; left out: " + "; ".join(f"{a} ({why})" for a, why in plan.skipped[:8])


def _no_address(peer: ID, plan: DialPlan) -> str:
    return (
        f"cannot reach {peer}: no address to dial{_skipped_text(plan)}. Connect to it by multiaddr, or "
        "let discovery find its card (a peer behind NAT needs a relay reservation)"
    )


def _failed(peer: ID, plan: DialPlan, attempts: list[tuple[str, str]]) -> str:
    direct = [f"{a} ({why})" for a, why in attempts if not is_circuit(a)]
    relayed = [f"{a} ({why})" for a, why in attempts if is_circuit(a)]
    parts = []
    if direct:
        parts.append("direct: " + "; ".join(direct))
    if relayed:
        parts.append("through relays: " + "; ".join(relayed))
    elif not plan.relayed:
        parts.append(
            "no relay address known (a peer behind NAT advertises /p2p-circuit addresses once it "
            "holds a relay reservation)"
        )
    return f"cannot reach {peer}: " + ". ".join(parts) + _skipped_text(plan)


__all__ = [
    "ADDRESS_TIMEOUT",
    "DIAL_TIMEOUT",
    "MAX_OUTLIVING",
    "OUTLIVING_TIMEOUT",
    "RELAY_GRACE",
    "STAGGER",
    "CircuitDial",
    "Dialer",
]
