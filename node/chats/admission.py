"""Who may invite this node into a chat: the ``[chats]`` invitation policy, rate limits and budgets.

:mod:`~ioa_p2p.node.chats.invites` checks every invitation in this order (protocol.md §10.3); the first
rule that fails gives the reply's reason code (reason text ``"<code>: <explanation>"``):

1. ``not-named`` / ``inviter-not-member``  without ``added_by``, the genesis must name this node and
   the inviter (a chat already joined is then accepted at once: ``already-member``);
2. ``denied``        the inviter is on ``invite_denylist``;
3. ``rate-limited``  the inviter sent more than ``invite_burst`` invitations, refilled at
   ``invite_rate`` per second (transient);
4. ``busy``          another invitation to the same chat, or ``MAX_CONCURRENT_CHECKS`` others, are
   being checked (transient);
5. ``not-allowed``   ``invite_policy = "allowlist"`` and the inviter is not on ``invite_allowlist``;
   ``not-known``     ``invite_policy = "known"`` and the inviter has no valid card in this node's
   directory (one DHT lookup of at most ``LOOKUP_TIMEOUT`` is tried); allowlisted peers pass both;
6. ``over-budget``   this node already holds ``max_chats_per_inviter`` chats joined by this inviter's
   invitations, or ``max_invited_chats`` joined by anyone's (chats it left do not count), or the
   inviter is not a partner (:mod:`~ioa_p2p.node.chats.partners`: a peer this node worked with)
   and ``max_stranger_chats`` chats are held or being checked for the invitations of non-partners,
   all together (identities are free: a cap per inviter alone bounds nothing): the newcomer is
   refused; everything already held is kept and served;
7. ``bad-added-by``  ``added_by`` is not a ``member.add`` of this node in the inviter's history
   (:mod:`~ioa_p2p.node.chats.verify`);
8. ``declined``      the application policy said no (or did not answer within ``invite_timeout``).

A frame that is not a valid invitation (not a signed ``chat.invite`` of the stream's peer with a
valid genesis) is answered ``invalid``: its chat ID is the SHA-256 of the genesis bytes when the
frame is an invitation, else 32 zero bytes. Only an ``accepted`` invitation is stored. A
*transient* refusal tells the inviter "not now": it keeps this node as a member and invites it
again later instead of treating it as a decline.

``invite_policy`` is ``open`` unless set; a node whose adapter executes code (its kind declares
``AdapterNeeds(executes_code=True)`` as ``NEEDS``, as the ``python`` adapter does) defaults to ``known``.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import trio

from ioa_p2p.errors import InvalidPeerId
from ioa_p2p.identity import PeerId
from ioa_p2p.node.chats.store import ChatStore

if TYPE_CHECKING:
    from ioa_p2p.node.ports import DiscoveryPort

log = logging.getLogger("ioa_p2p.chats")

POLICY_OPEN = "open"
POLICY_KNOWN = "known"
POLICY_ALLOWLIST = "allowlist"
POLICIES = (POLICY_OPEN, POLICY_KNOWN, POLICY_ALLOWLIST)

#: Inviters whose rate is tracked at once; the least recently seen one is forgotten first (its next
#: invitation starts from a full bucket, as a new inviter's would).
MAX_TRACKED_INVITERS = 4096
#: Bound on the DHT lookup of an unknown inviter's card under ``invite_policy = "known"``.
LOOKUP_TIMEOUT = 5.0

# Reply reason codes (the reason text is "<code>: <explanation>").
ACCEPTED = "accepted"
ALREADY_MEMBER = "already-member"
DECLINED = "declined"
NOT_NAMED = "not-named"
INVITER_NOT_MEMBER = "inviter-not-member"
BAD_ADDED_BY = "bad-added-by"
DENIED = "denied"
RATE_LIMITED = "rate-limited"
NOT_ALLOWED = "not-allowed"
NOT_KNOWN = "not-known"
OVER_BUDGET = "over-budget"
BUSY = "busy"
INVALID = "invalid"
#: Refusals that say "not now" rather than "no": the inviter keeps the member and invites again later.
TRANSIENT = frozenset({RATE_LIMITED, BUSY})


def peer_ids_problem(peers: tuple[str, ...]) -> str | None:
    """What is wrong with a list of peer ID strings (``invite_allowlist`` / ``invite_denylist``), or None."""
    for text in peers:
        try:
            PeerId.from_string(text)
        except InvalidPeerId as exc:
            return str(exc)
    return None


@dataclass(frozen=True, slots=True)
class InviteRules:
    """The parsed invitation settings of one node."""

    policy: str = POLICY_OPEN
    allow: frozenset[PeerId] = frozenset()
    deny: frozenset[PeerId] = frozenset()
    rate: float = 0.5
    burst: int = 20
    max_per_inviter: int = 500
    max_total: int = 2000
    max_strangers: int = 200


class RateLimiter:
    """Token buckets per inviter (``burst`` tokens, ``rate`` per second), bounded LRU."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float], *, max_keys: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._clock = clock
        self.max_keys = max_keys
        self._buckets: OrderedDict[PeerId, tuple[float, float]] = OrderedDict()  # (tokens, at)

    def take(self, key: PeerId) -> bool:
        """Spend one token of ``key``; False when its bucket is empty."""
        now = self._clock()
        tokens, at = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        allowed = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return allowed


class PeerDirectory(Protocol):
    """What the ``known`` policy needs from discovery."""

    def knows(self, peer: PeerId) -> bool: ...

    async def lookup(self, peer: PeerId) -> bool: ...


class DiscoveryDirectory:
    """:class:`PeerDirectory` over the node's discovery service, found by ``current`` at each call
    (discovery starts after chats; none running: nobody is known). ``clock``: the node's wall clock (card
    expiry is read against it)."""

    def __init__(
        self, current: Callable[[], DiscoveryPort | None], clock: Callable[[], float] = time.time
    ) -> None:
        self.current = current
        self.clock = clock

    def knows(self, peer: PeerId) -> bool:
        discovery = self.current()
        return discovery is not None and discovery.directory.get(peer, int(self.clock() * 1000)) is not None

    async def lookup(self, peer: PeerId) -> bool:
        """Fetch ``peer``'s card from the DHT (bounded); True when a valid card is now held."""
        discovery = self.current()
        if discovery is None:
            return False
        with trio.move_on_after(LOOKUP_TIMEOUT):
            await discovery.fetch_card(peer)
        return self.knows(peer)


@dataclass(frozen=True, slots=True)
class Refusal:
    code: str
    text: str

    @property
    def reason(self) -> str:
        return f"{self.code}: {self.text}"


class Admission:
    """Applies :class:`InviteRules` to one inviter (see the module docstring for the order)."""

    def __init__(
        self,
        rules: InviteRules,
        store: ChatStore,
        directory: PeerDirectory,
        clock: Callable[[], float],
        *,
        is_partner: Callable[[PeerId], bool] = lambda peer: False,
    ) -> None:
        self.rules = rules
        self.store = store
        self.directory = directory
        self.is_partner = is_partner
        #: invitations of non-partners being checked now (they count against ``max_strangers``)
        self.checking_strangers = 0
        self.limiter = RateLimiter(rules.rate, rules.burst, clock, max_keys=MAX_TRACKED_INVITERS)
        #: Refusals by code, for `ioa chats` / tests.
        self.refused: dict[str, int] = {}

    def refuse(self, code: str, text: str) -> Refusal:
        self.refused[code] = self.refused.get(code, 0) + 1
        return Refusal(code, text)

    def check_rate(self, inviter: PeerId) -> Refusal | None:
        """Rules 1 and 2 (no I/O)."""
        if inviter in self.rules.deny:
            return self.refuse(DENIED, "the inviter is on this node's invite_denylist")
        if not self.limiter.take(inviter):
            return self.refuse(
                RATE_LIMITED,
                f"more than {self.rules.burst} invitations from this peer "
                f"(at most {self.rules.rate:g} per second after that); ask again later",
            )
        return None

    async def check_policy(self, inviter: PeerId) -> Refusal | None:
        """Rules 3 and 4 (``known`` may look the inviter's card up in the DHT)."""
        rules = self.rules
        if inviter not in rules.allow:
            if rules.policy == POLICY_ALLOWLIST:
                return self.refuse(
                    NOT_ALLOWED, "this node accepts invitations from its invite_allowlist only"
                )
            if rules.policy == POLICY_KNOWN and not (
                self.directory.knows(inviter) or await self.directory.lookup(inviter)
            ):
                return self.refuse(
                    NOT_KNOWN, "this node accepts invitations only from peers with a card in its directory"
                )
        return self.check_budget(inviter)

    def check_budget(self, inviter: PeerId) -> Refusal | None:
        held = self.store.count_invited(inviter)
        if held >= self.rules.max_per_inviter:
            return self.refuse(
                OVER_BUDGET, f"this node already holds {held} chats this peer invited it to (the limit)"
            )
        total = self.store.count_invited()
        if total >= self.rules.max_total:
            return self.refuse(OVER_BUDGET, f"this node already holds {total} invited chats (the limit)")
        if not self.is_partner(inviter):
            # the others being checked now (this invitation is itself one of them)
            strangers = self.store.count_stranger_chats() + max(0, self.checking_strangers - 1)
            if strangers >= self.rules.max_strangers:
                return self.refuse(
                    OVER_BUDGET,
                    f"this node already holds {strangers} chats invited by peers it never worked with "
                    "(the limit for all of them together)",
                )
        return None


__all__ = [
    "POLICIES",
    "TRANSIENT",
    "Admission",
    "DiscoveryDirectory",
    "InviteRules",
    "PeerDirectory",
    "RateLimiter",
    "Refusal",
    "peer_ids_problem",
]
