"""Revocation at scale in the simulator: how fast a withdrawal reaches the nodes holding the old card, and
whether any node still returns the old card 15 minutes later, with gossip, the DHT and churn together.

:func:`revoke_everywhere`: every node (online or not) holds the old cards of ``owners`` in its
:class:`~ioa_p2p.dht.directory.Directory` (the gossip layer's), each last confirmed at a random moment of
the last ``republish`` seconds (new versions arrive that often). Then each owner withdraws: it announces
the withdrawal by gossip (:mod:`~ioa_p2p.dht.sim.gossip`: online nodes apply it as ``on_gossip`` does) and
puts it in the DHT, and (``owners_leave``) goes offline as soon as the put is done: the worst case, only
the DHT has the withdrawal from then on. Every node runs the node's revalidation (``revalidate_loop``,
every :data:`LOOK` s while online): cards not confirmed for ``revalidate`` seconds are fetched again
(owner first, then the DHT: :class:`~ioa_p2p.dht.sim.search.FetchRun`); a withdrawal or newer version
found replaces the card; the same version confirms it only when its owner answered (a copy only the DHT
has does not: ``CardSearch.apply``); cards unconfirmed for ``revalidate + find_timeout`` are dropped.
``repair``: DHT reads put the newest record back at stale closest peers (:mod:`~ioa_p2p.dht.replicas`);
``dht_confirms``: the rule before 2026-11-27 (a DHT copy of the version held confirmed it), for comparison.
``rejoin``: a node back from a gap (a new session) notices it at its next read or revalidation pass and
treats every card it held as a suspect, returned by no read until confirmed again and revalidated at once
(:meth:`~ioa_p2p.dht.directory.Directory.rejoined`, as the node does since 2026-11-28); ``False``: the
rule before.

:func:`revoke_cards` (DHT only): owners withdraw their cards (a signed withdrawal with a higher version, put
in the DHT like a card; provider records stay, as py-libp2p cannot remove them); every node that holds the
old card revalidates it at its own moment of the revalidation period (owner first, then the DHT, as
``CardSearch.fetch`` does) and the time until it sees the withdrawal is recorded (:class:`Revocation`).

Every :data:`PROBE_EVERY` seconds, ``probes`` random online nodes that do not hold a card fetch it as a
``find`` would (owner first, then the DHT): a probe that gets the old card is a node that would return
it. :class:`RevocationRun` reports, per minute, the share of online nodes that hold an old card, the
share whose reads would return one (held and confirmed within ``revalidate + find_timeout``, as the
node's directory reads), and the share of probes that got one, and the times until 95 % and 100 % of
all holders dropped it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ioa_p2p.card import SignedCard, SignedWithdrawal
from ioa_p2p.dht.directory import Offer
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.dht.sim.gossip import GossipLayer, Message
from ioa_p2p.dht.sim.peer import SimNode
from ioa_p2p.dht.sim.publish import PutRun
from ioa_p2p.dht.sim.search import FetchRun, key_of
from ioa_p2p.dht.sim.world import World

#: Seconds between two runs of a node's revalidation loop (``REVALIDATE_INTERVAL``).
LOOK = 5.0
#: Seconds between two rounds of probe fetches.
PROBE_EVERY = 60.0


@dataclass
class RevocationRun:
    """What happened to the old cards (times in seconds after the withdrawals)."""

    owners: int
    holders: int
    dropped_at: list[float] = field(default_factory=list)  # when each (holder, card) pair was dropped
    by_gossip: int = 0
    by_fetch: int = 0
    by_expiry: int = 0
    put_ok: int = 0
    holding_online: dict[int, float] = field(default_factory=dict)  # minute -> share of online holding
    #: minute -> share of online nodes whose reads would return an old card (held and not stale:
    #: ``Directory.returnable``; a node back from offline holds it until its revalidation drops it)
    returning_online: dict[int, float] = field(default_factory=dict)
    probes_old: dict[int, float] = field(default_factory=dict)  # minute -> share of probe fetches: old
    repaired: int = 0
    #: (holder, card) pairs whose holder was online at some moment of the horizon: a holder offline
    #: throughout can learn nothing, and returns nothing either (it answers no one)
    reachable: int = 0

    def time_to(self, share: float, of: int | None = None) -> float:
        """Seconds until ``share`` of the holders (or of ``of`` of them) dropped their old card."""
        need = math.ceil(share * (self.holders if of is None else of))
        ordered = sorted(self.dropped_at)
        return ordered[need - 1] if 0 < need <= len(ordered) else math.inf


def revoke_everywhere(
    world: World,
    layer: GossipLayer,
    settings: DiscoverySettings,
    owners: Sequence[SimNode],
    rng: random.Random,
    *,
    owners_leave: bool = True,
    repair: bool = True,
    dht_confirms: bool = False,
    horizon: float = 900.0,
    probes: int = 20,
    rejoin: bool = True,
) -> RevocationRun:
    """Withdraw the cards of ``owners`` and follow every node's copy for ``horizon`` s (module docstring)."""
    cards = world.cards
    assert cards is not None
    now_ms = world.now_ms()
    owners = [o for o in owners if o.card is not None]
    old: dict[Any, SignedCard] = {o.identity.peer_id: o.card for o in owners if o.card is not None}
    holders = [n for n in world.nodes if n not in owners]
    result = RevocationRun(len(owners), len(holders) * len(owners))
    begin = world.loop.now
    held: dict[tuple[int, Any], None] = {}
    grace_ms = int((settings.revalidate + settings.find_timeout) * 1000)
    for node in holders:
        directory = layer._directory(node)
        directory.stale_after_ms = grace_ms  # as the node's (node/discovery/run.py)
        for peer, card in old.items():
            learned = max(card.card.issued_at, now_ms - int(rng.random() * settings.republish * 1000))
            directory.offer(card, learned, "gossip", wanted=True)
            held[(node.index, peer)] = None

    seen_online = {node.index for node in holders if node.online}  # holders online at some moment

    def dropped(node: SimNode, how: str) -> None:
        directory = layer._directory(node)
        for peer in old:
            if (node.index, peer) in held and directory.get(peer) is None:
                seen_online.add(node.index)  # it dropped it, so it was online (a gossip just after a gap)
                del held[(node.index, peer)]
                result.dropped_at.append(world.loop.now - begin)
                setattr(result, how, getattr(result, how) + 1)

    def on_delivered(node: SimNode, message: Message) -> None:
        dropped(node, "by_gossip")

    layer.on_delivered = on_delivered

    def put_done(owner: SimNode, run: PutRun) -> None:
        result.put_ok += run.ok
        if owners_leave:
            world.leave(owner, for_good=True)

    for owner in owners:
        current = owner.card
        assert current is not None
        withdrawal = cards.withdraw(owner.index, world.now_ms(), current.version + 1)
        owner.withdrawal = withdrawal
        owner.values[key_of(owner.peer)] = withdrawal.encoded
        layer.announce(owner, withdrawal)
        PutRun(
            world, owner, key_of(owner.peer), withdrawal.encoded, partial(put_done, owner), complete=True
        ).start()

    revalidate_ms = int(settings.revalidate * 1000)
    sessions = {node.index: node.session for node in holders}  # the session each loop last ran in

    def notice(node: SimNode) -> None:
        """A read or a revalidation pass of ``node``: back from a gap (a new session), the node's clocks
        tell it (``Discovery.note_clocks``) and every card it holds becomes a suspect."""
        if rejoin and node.index in sessions and sessions[node.index] != node.session:
            sessions[node.index] = node.session
            layer._directory(node).rejoined(world.now_ms())

    def look(node: SimNode) -> None:
        if world.loop.now - begin >= horizon or not _holds(node, held, old):
            return  # past the horizon, or nothing of ``old`` left here to revalidate (it stays dropped)
        world.loop.after(LOOK, look, node)
        if not node.online:
            return
        seen_online.add(node.index)
        directory = layer._directory(node)
        now = world.now_ms()
        notice(node)
        suspects = directory.suspects() if rejoin else []
        due = list(
            dict.fromkeys(p for p in [*suspects, *directory.unconfirmed(revalidate_ms, now)] if p in old)
        )
        if due:
            peers = [p.raw for p in due]
            run = FetchRun(world, node, peers, settings, lambda _: None, repair=repair)
            run.on_done = partial(fetched, node, run)
            run.withdrawals = {}
            run.start()
        if directory.drop_unconfirmed(grace_ms, now) or directory.expire(now):
            dropped(node, "by_expiry")

    def fetched(node: SimNode, run: FetchRun, found: dict[bytes, SignedCard]) -> None:
        result.repaired += run.repaired
        directory = layer._directory(node)
        now = world.now_ms()
        for peer, record in run.records.items():
            if isinstance(record, SignedWithdrawal):
                directory.withdraw(record, now)
            elif directory.offer(record, now, "dht") is Offer.UNCHANGED and (
                dht_confirms or peer in run.from_owner
            ):
                directory.touch(record.peer_id, now)
        dropped(node, "by_fetch")

    for node in holders:
        world.loop.after(rng.random() * LOOK, look, node)

    def probe() -> None:
        minute = round((world.loop.now - begin) / 60)
        online = [n for n in world.nodes if n.online and n not in owners]
        holding = sum(1 for n in online if any((n.index, p) in held for p in old))
        result.holding_online[minute] = holding / max(1, len(online))
        now = world.now_ms()
        for n in online:  # a read notices a gap first
            notice(n)
        returning = sum(1 for n in online if _returns(layer, n, held, old, now))
        result.returning_online[minute] = returning / max(1, len(online))
        got: list[bool] = []
        chosen = [n for n in rng.sample(online, min(len(online), 4 * probes)) if not _holds(n, held, old)]
        for node in chosen[:probes]:
            owner = owners[rng.randrange(len(owners))]

            def answered(_: dict[bytes, SignedCard], run: FetchRun) -> None:
                got.append(any(isinstance(r, SignedCard) for r in run.records.values()))
                result.probes_old[minute] = sum(got) / len(got)

            run = FetchRun(world, node, [owner.peer], settings, lambda _: None, repair=repair)
            run.on_done = partial(answered, run=run)
            run.start()

    t = PROBE_EVERY
    while t <= horizon:
        world.loop.at(begin + t, probe)
        t += PROBE_EVERY
    world.loop.run(begin + horizon + 2 * settings.find_timeout)
    layer.on_delivered = None
    result.reachable = len(seen_online) * len(old)
    return result


def _returns(
    layer: GossipLayer, node: SimNode, held: dict[tuple[int, Any], None], old: dict[Any, SignedCard], now: int
) -> bool:
    """Whether a read of ``node``'s directory would return one of the old cards now."""
    directory = layer._directory(node)
    for peer in old:
        if (node.index, peer) in held:
            entry = directory.entry(peer)
            if entry is not None and directory.returnable(entry, now):
                return True
    return False


def _holds(node: SimNode, held: dict[tuple[int, Any], None], old: dict[Any, SignedCard]) -> bool:
    return any((node.index, p) in held for p in old)


#: Seconds between two looks at a holder that was offline when its revalidation was due.
RETRY = 5.0


@dataclass
class Revocation:
    """When each holder of a withdrawn card saw the withdrawal (seconds after it was issued)."""

    withdrawn: int
    holders: int
    seen_after: list[float]
    put_ok: int

    def share_by(self, seconds: float) -> float:
        return sum(1 for s in self.seen_after if s <= seconds) / max(1, self.holders)

    def time_to(self, share: float) -> float:
        """Seconds until ``share`` of the holders saw a withdrawal (inf if they never did)."""
        need = math.ceil(share * self.holders)
        ordered = sorted(self.seen_after)
        return ordered[need - 1] if 0 < need <= len(ordered) else float("inf")


def revoke_cards(
    world: World,
    settings: DiscoverySettings,
    owners: Sequence[SimNode],
    holders: int,
    rng: random.Random,
    *,
    owners_leave: bool = False,
) -> Revocation:
    """``owners`` withdraw their cards now; ``holders`` random online nodes (not owners) hold each old
    card and revalidate it at a uniformly random moment of ``settings.revalidate``; a holder offline then
    revalidates once it is back (it is looked at every :data:`RETRY` s). ``owners_leave``: each owner goes
    offline right after its withdrawal was put (the holders must find it in the DHT). The run ends when
    every holder saw its withdrawal, or two periods later."""
    cards = world.cards
    assert cards is not None
    begin = world.loop.now
    result = Revocation(len(owners), 0, [], 0)

    def put_done(owner: SimNode, run: PutRun) -> None:
        result.put_ok += run.ok
        if owners_leave:
            world.leave(owner, for_good=True)

    def revalidate(node: SimNode, owner: SimNode, version: int) -> None:
        if not node.online:
            world.loop.after(RETRY, revalidate, node, owner, version)
            return

        def fetched(records: dict[bytes, SignedCard]) -> None:
            if owner.peer in withdrawals and withdrawals[owner.peer].version >= version:
                result.seen_after.append(world.loop.now - begin)

        withdrawals: dict[bytes, Any] = {}
        FetchRun(world, node, [owner.peer], settings, fetched, withdrawals=withdrawals).start()

    for owner in owners:
        if owner.card is None:
            continue
        version = owner.card.version + 1
        withdrawal = cards.withdraw(owner.index, world.now_ms(), version)
        owner.withdrawal = withdrawal
        PutRun(
            world, owner, key_of(owner.peer), withdrawal.encoded, partial(put_done, owner), complete=True
        ).start()
        online = [n for n in world.nodes if n.online and n not in owners]
        for node in rng.sample(online, min(holders, len(online))):
            result.holders += 1
            world.loop.at(begin + rng.random() * settings.revalidate, revalidate, node, owner, version)
    world.loop.run(begin + 2 * settings.revalidate, done=lambda: len(result.seen_after) >= result.holders)
    return result


__all__ = ["LOOK", "PROBE_EVERY", "RETRY", "Revocation", "RevocationRun", "revoke_cards", "revoke_everywhere"]
