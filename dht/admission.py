"""Rate limits on what strangers may make this node store (pure: callers pass the time, in seconds).

Identities are free, so every limit holds per source *and* in total (:class:`~ioa_p2p.budget.RateBudget`:
one token bucket per key and one for everyone):

- :attr:`CardAdmission.new_cards`: cards (or withdrawals) of identities this node holds nothing of, in
  total per minute;
- :attr:`CardAdmission.updates`: new versions of one identity's record per hour (an honest node issues one
  per ``republish`` interval, 6 an hour by default), and in total;
- :attr:`CardAdmission.providers`: provider records (ADD_PROVIDER) stored for one provider per ten minutes
  (a card has 2 to 26 bucket keys, each sent once per refresh), and in total per minute.

**Per source, too.** Every limit above also holds per *source network* (:func:`source_of`): the /24 of a
public IPv4 address, the /48 of a public IPv6 address, or the relay a relayed connection comes through
(``relay:<peer id>``); one source takes at most :data:`SOURCE_SHARE` of each total. A thousand
identities behind one address (or one relay) share a quarter of what the node stores for strangers;
four networks are needed to exhaust a total. Addresses that are not public (loopback, private and
link-local ranges: a local testnet, a LAN) form no source group: there the limits per identity and in
total hold alone, unless ``[discovery] local_sources`` makes each such host (its whole address) a source
of its own. For DHT records the source is the connection the request came on (the node layer
sets :attr:`CardAdmission.source`); for gossip announcements, which arrive through forwarders, it is the
connection the announcement arrived on (:func:`observed_from`; only an announcement handed over inside the
process, unobserved, falls back to the network the card says its owner is reached at).

**At the first hop.** The share of new identities per source binds in the gossip topic validator, before
the announcement is forwarded (:meth:`CardAdmission.admit_first_hop`): a node whose neighbour (the
publisher itself, or whoever forwards for it) brings more new identities than its share rejects the rest,
so a flood from one source does not cross the mesh to spend the shares of the honest forwarders further
on; only what the first honest hop let through travels on. Such a refusal is *held back*
(:func:`hold_back`): not forwarded, and not remembered as invalid, so the same card arriving through
another neighbour with share left still passes. Renewals (new versions of identities the node holds)
are never held back: they pay the per-identity ``updates`` budget at delivery.

A node keeps one :class:`CardAdmission` for the DHT records it stores for others and one for the gossip
announcements it applies to its directory. What is refused is not stored; the sender (or the gossip
publisher) may try again later, and an honest card refused by gossip is still found through the DHT. The
node's own records are never limited. The limits come from ``[discovery]``
(:class:`~ioa_p2p.dht.settings.DiscoverySettings`): ``new_cards`` (per minute, default 120) and
``updates`` (per identity and hour, default 30).
"""

from __future__ import annotations

import contextlib
import contextvars
import ipaddress
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ioa_p2p.budget import RateBudget

#: Provider records of one provider per 10 minutes, and of everyone per minute.
PROVIDERS_PER_PEER = 64
PROVIDERS_TOTAL = 1200
#: The share of each total one source network may take.
SOURCE_SHARE = 0.25


def source_of(ip: str | None = None, relay: str | None = None, *, local: bool = False) -> str | None:
    """The source network of a connection from ``ip`` (through the relay ``relay``, a peer ID text, when
    it is relayed): ``relay:<id>``, ``a.b.c.0/24``, ``x:x:x::/48``; None for an address that is not
    public (or not an address): no source group. ``local``: an address that is not public is a source
    of its own (``127.0.0.2/32``: each host of a LAN or local testnet)."""
    if relay:
        return f"relay:{relay}"
    try:
        address = ipaddress.ip_address((ip or "").strip("[]"))
    except ValueError:
        return None
    if not address.is_global and not local:
        return None
    prefix = address.max_prefixlen if not address.is_global else 24 if address.version == 4 else 48
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


def source_of_addrs(addrs: Iterable[str]) -> str | None:
    """The source network a card's advertised multiaddrs name: its first relayed address's relay, else its
    first public IP address (None when it names neither)."""
    for addr in addrs:
        parts = str(addr).split("/")
        if "p2p-circuit" in parts:
            at = parts.index("p2p-circuit")
            if at >= 2 and parts[at - 2] == "p2p":
                return source_of(relay=parts[at - 1])
            continue
        for i, part in enumerate(parts[:-1]):
            if part in ("ip4", "ip6"):
                found = source_of(parts[i + 1])
                if found is not None:
                    return found
    return None


@dataclass(slots=True)
class Observation:
    """What the gossip layer observed of the announcement being validated or delivered: ``source``, the
    source network of the connection it arrived on (None: not known); ``held_back``, set by the validator
    (:func:`hold_back`) when it refuses the announcement for its source's share only."""

    source: str | None
    held_back: bool = False


_OBSERVED: contextvars.ContextVar[Observation | None] = contextvars.ContextVar(
    "ioa_observed_source", default=None
)


@contextlib.contextmanager
def observed_from(source: str | None) -> Iterator[Observation]:
    """Within the block, :func:`observed_source` is ``source``: the source network of the connection the
    announcement being validated or delivered arrived on (the gossip layer sets it around each)."""
    observation = Observation(source)
    token = _OBSERVED.set(observation)
    try:
        yield observation
    finally:
        _OBSERVED.reset(token)


def observed_source() -> str | None:
    """The observed source of the announcement being delivered (None: not known, outside a delivery)."""
    observation = _OBSERVED.get()
    return None if observation is None else observation.source


def hold_back() -> None:
    """Mark the announcement being validated as refused for its source's share only (the gossip layer
    neither forwards it nor remembers it as invalid); nothing outside :func:`observed_from`."""
    observation = _OBSERVED.get()
    if observation is not None:
        observation.held_back = True


class CardAdmission:
    """The rate limits of one node (see the module docstring)."""

    def __init__(self, *, new_cards: int = 120, updates: int = 30, me: Hashable | None = None) -> None:
        self.me = me
        self.new_cards = RateBudget("new cards", period=60.0, per_key=1, total=new_cards)
        self.updates = RateBudget(
            "card updates", period=3600.0, per_key=updates, total=max(updates, 60 * new_cards)
        )
        self.providers = RateBudget(
            "provider records", period=600.0, per_key=PROVIDERS_PER_PEER, total=10 * PROVIDERS_TOTAL
        )
        self.by_source = {
            budget.name: RateBudget(
                f"{budget.name} per source", period=budget.period, per_key=_share(budget.total), total=None
            )
            for budget in (self.new_cards, self.updates, self.providers)
        }
        #: the source network of the request being handled, when the caller names none (the node layer
        #: sets it: the connection a DHT request came on); None: no source group
        self.source: Callable[[], Hashable | None] = lambda: None

    def admit_card(
        self,
        peer: Hashable,
        *,
        known: bool,
        now: float,
        source: Hashable | None = None,
        source_paid: bool = False,
    ) -> bool:
        """May a record (card or withdrawal) of ``peer`` be stored? ``known``: we hold a record of it;
        ``source``: the source network it came from (default: :attr:`source`); ``source_paid``: its
        source's share was already taken (:meth:`admit_first_hop`)."""
        if peer == self.me:
            return True
        budget = self.updates if known else self.new_cards
        return self._take(budget, peer, now, None if source_paid else source, by_source=not source_paid)

    def admit_first_hop(self, source: Hashable | None, now: float) -> bool:
        """May one more new identity's announcement that arrived from ``source`` be accepted and forwarded
        (the gossip validator asks; its delivery then pays the per-identity and total limits with
        ``source_paid``)? Takes one unit of the source's share of :attr:`new_cards`; None: no group."""
        if source is None:
            return True
        return self.by_source[self.new_cards.name].take(source, 1, now)

    def admit_provider(self, peer: Hashable, now: float, source: Hashable | None = None) -> bool:
        """May one more provider record (or page entry) of ``peer`` be stored?"""
        return peer == self.me or self._take(self.providers, peer, now, source)

    def first_hop_open(self, source: Hashable | None, now: float) -> bool:
        """Has ``source`` a unit of its share of :attr:`new_cards` left (the validator asks before it
        spends a signature and stamp check on a new identity's announcement); None: no group, always."""
        return source is None or self.by_source[self.new_cards.name].available(source, now) >= 1

    def _take(
        self,
        budget: RateBudget,
        peer: Hashable,
        now: float,
        source: Hashable | None,
        *,
        by_source: bool = True,
    ) -> bool:
        group = None if not by_source else self.source() if source is None else source
        per_source = self.by_source[budget.name]
        if group is not None and per_source.available(group, now) < 1:
            per_source.refused += 1
            return False
        if not budget.take(peer, 1, now):
            return False
        if group is not None:
            per_source.take(group, 1, now)
        return True

    def snapshot(self) -> dict[str, Any]:
        return {
            "new_cards": self.new_cards.snapshot(),
            "updates": self.updates.snapshot(),
            "providers": self.providers.snapshot(),
            "per_source_refused": sum(b.refused for b in self.by_source.values()),
        }


def _share(total: int | None) -> int:
    return 1 if total is None else max(1, int(total * SOURCE_SHARE))


__all__ = [
    "PROVIDERS_PER_PEER",
    "PROVIDERS_TOTAL",
    "SOURCE_SHARE",
    "CardAdmission",
    "Observation",
    "hold_back",
    "observed_from",
    "observed_source",
    "source_of",
    "source_of_addrs",
]
