"""Card announcements arriving by gossip: the topic validator and the delivery (docs/protocol.md §9.2).

:class:`GossipIntake` is what :class:`~ioa_p2p.node.discovery.service.Discovery` runs for every announcement
on the card topic:

- :meth:`GossipIntake.check` (the topic validator): a valid, live, stamped card or withdrawal of the
  publisher itself, not older than what the directory holds; a flood guard rejects a *new* version closer
  than :data:`GOSSIP_UPDATE_INTERVAL_MS` to the previous one of the same publisher, and remembers it so the
  catch-up loop fetches it from the DHT (:meth:`GossipIntake.stale_due`): an honest update that came too
  soon is late, never lost; the share of new identities of the announcement's first-hop source (the
  connection it arrived on, :func:`~ioa_p2p.dht.admission.observed_source`: the publisher's own, or its
  forwarder's) is checked here too (:meth:`~ioa_p2p.dht.admission.CardAdmission.admit_first_hop`): past it
  the announcement is *held back* (not forwarded, not remembered as invalid; a source with no share left is
  told before the signature and stamp are checked, so a flood costs its first hop no verification past the
  share), so a flood from one source stops at the first honest hop instead of crossing the mesh; renewals of
  identities held are never held back; past ``[discovery] relay_all`` a renewal of unchanged content is
  applied here and not forwarded (:func:`~ioa_p2p.dht.relaycap.relay_verdict`: the topic then carries new
  and changed cards and withdrawals only);
- :meth:`GossipIntake.deliver`: the rate limits of new identities and versions
  (:class:`~ioa_p2p.dht.admission.CardAdmission`, per identity, in total and per source network; a new
  identity's source share was paid by the validator; a publisher the arrival book already knows counts as
  known though its card lapsed from the directory), the publisher's first arrival and its source noted
  (:class:`~ioa_p2p.dht.arrival.ArrivalBook`: a page search's evidence of floods of new identities), then
  the directory (through :meth:`~ioa_p2p.node.discovery.search.CardSearch.apply`).

Rejecting costs the forwarder GossipSub score (where scoring is weighted), so only provably bad
announcements are rejected: a re-announcement of the version held is accepted (and ignored on delivery),
one over the per-identity or total limits is dropped on delivery, and one over its source's share is held
back.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ioa_p2p.card import SignedCard, parse_record
from ioa_p2p.dht.admission import CardAdmission, hold_back, observed_source, source_of_addrs
from ioa_p2p.dht.directory import Directory
from ioa_p2p.dht.relaycap import ContentBook, Relay, RelayCap, relay_verdict
from ioa_p2p.dht.validators import check_announcement
from ioa_p2p.errors import InvalidMessage
from ioa_p2p.identity import PeerId
from ioa_p2p.node.discovery.search import CardSearch

log = logging.getLogger("ioa_p2p.discovery")

#: Publishers whose new version the flood guard dropped are fetched from the DHT at the next catch-up
#: ticks (up to this many tries, until the directory holds that version), so an honest update that came
#: too soon after the previous one is late, never lost. At most STALE_MAX publishers are remembered.
STALE_TRIES = 5
STALE_MAX = 4096
#: Flood guard: new card versions of one peer closer together than this are rejected.
GOSSIP_UPDATE_INTERVAL_MS = 100
#: Publishers whose last version time the flood guard remembers before it forgets the old ones.
LAST_UPDATE_MAX = 10_000
#: Announcements (publisher, version) whose source share the validator took, waiting for their delivery
#: (the oldest forgotten first: such a delivery pays the share again).
PAID_MAX = 4096


class GossipIntake:
    """The validator and delivery of card announcements for one node's discovery service."""

    def __init__(
        self,
        me: PeerId,
        directory: Directory,
        search: CardSearch,
        admission: CardAdmission,
        min_stamp_bits: int,
        now_ms: Callable[[], int],
        stats: dict[str, Any],
        relay: RelayCap | None = None,
    ) -> None:
        self.me = me
        #: past ``[discovery] relay_all``: unchanged renewals are applied, not forwarded (dht/relaycap.py)
        self.relay = relay
        self.book = ContentBook()
        self.directory = directory
        self.search = search
        self.admission = admission
        self.min_stamp_bits = min_stamp_bits
        self.now_ms = now_ms
        self.stats = stats
        self._last_update: dict[PeerId, int] = {}
        #: publisher -> (version the flood guard dropped, DHT fetches left)
        self._stale: dict[PeerId, tuple[int, int]] = {}
        #: new identities' announcements whose first-hop source share the validator took
        self._paid: OrderedDict[tuple[PeerId, int], None] = OrderedDict()

    def check(self, publisher: PeerId, data: bytes) -> bool:
        """Topic validator: True to accept (and forward) the announcement ``data`` of ``publisher``."""
        now = self.now_ms()
        known = self.directory.version_of(publisher)
        # new: neither in the directory nor admitted before (a card that lapsed here is no new identity)
        new = known is None and publisher != self.me and self.search.arrivals.first_seen(publisher) is None
        if new and not self.admission.first_hop_open(observed_source(), now / 1000):
            return self._hold_back(publisher)  # no share left: not worth a signature and stamp check
        try:
            card = check_announcement(
                data,
                publisher=publisher,
                known_version=known,
                now_ms=now,
                min_stamp_bits=self.min_stamp_bits,
            )
        except InvalidMessage as exc:
            log.debug("dropped a card announcement from %s: %s", publisher, exc)
            return False
        if publisher != self.me and card.version != known:
            last = self._last_update.get(publisher)
            if last is not None and now - last < GOSSIP_UPDATE_INTERVAL_MS:
                log.debug("dropped a card announcement from %s: new versions too frequent", publisher)
                if publisher in self._stale or len(self._stale) < STALE_MAX:
                    self._stale[publisher] = (card.version, STALE_TRIES)
                return False
            if len(self._last_update) > LAST_UPDATE_MAX:
                self._last_update = {
                    p: t for p, t in self._last_update.items() if now - t < GOSSIP_UPDATE_INTERVAL_MS
                }
            self._last_update[publisher] = now
        if new:
            accepted = self._first_hop(publisher, card.version, now)
            if accepted and isinstance(card, SignedCard):
                self.book.note(card)  # its later renewals are judged against it
            return accepted
        return self._relay(publisher, card, data, now)

    def _relay(self, publisher: PeerId, record: Any, data: bytes, now: int) -> bool:
        """Past ``relay_all`` an unchanged renewal is delivered here (it confirms the card held) and not
        forwarded (:func:`~ioa_p2p.dht.relaycap.relay_verdict`; the refusal costs no score: weights 0)."""
        if publisher == self.me or self.relay is None:
            return True
        held = self.directory.get(publisher)
        verdict = relay_verdict(
            record,
            capped=self.relay.capped,
            held=held if isinstance(held, SignedCard) else None,
            book=self.book,
            now_ms=now,
        )
        if verdict is Relay.FORWARD:
            return True
        self.stats["gossip_not_relayed"] += 1
        self.deliver(publisher, data)
        return False

    def _first_hop(self, publisher: PeerId, version: int, now: int) -> bool:
        """A new identity's announcement within its first-hop source's share (taken now), else held back."""
        if not self.admission.admit_first_hop(observed_source(), now / 1000):
            return self._hold_back(publisher)
        if observed_source() is not None:
            self._paid[(publisher, version)] = None
            while len(self._paid) > PAID_MAX:
                self._paid.popitem(last=False)
        return True

    def _hold_back(self, publisher: PeerId) -> bool:
        log.debug("held back a new identity's card from %s: its source is over its share", publisher)
        self.stats["gossip_held_back"] += 1
        hold_back()
        return False

    def deliver(self, publisher: PeerId, data: bytes) -> None:
        """Apply a validated announcement within the rate limits (over them: dropped, counted in
        ``stats["gossip_over_limit"]``; the card is still found through the DHT)."""
        now = self.now_ms()
        try:
            record = parse_record(data, now_ms=now, peer=publisher)
        except InvalidMessage:
            return
        known = self.directory.version_of(publisher)
        observed = source = observed_source()  # the connection it arrived on (set by the gossip layer)
        if source is None:  # handed over in the process: the network the card's addresses name
            source = source_of_addrs(getattr(getattr(record, "card", None), "addrs", ()))
        # a publisher whose card this node admitted before is no new identity, though its card lapsed here
        # (it came late on a loaded node): its versions are charged as updates, not one new card a minute
        seen = known is not None or self.search.arrivals.first_seen(publisher) is not None
        paid = (publisher, record.version) in self._paid  # the source's share, taken by the validator
        self._paid.pop((publisher, record.version), None)
        if record.version != known and not self.admission.admit_card(
            publisher, known=seen, now=now / 1000, source=source, source_paid=paid
        ):
            self.stats["gossip_over_limit"] += 1
            return
        if publisher != self.me:  # when and whence it came is evidence (dht/arrival.py); admitted only, so
            # that forgetting a flood takes 65,536 admissions (9 h); the observed source only, never a claim
            self.search.arrivals.note(publisher, now, observed)
        if self.search.apply(record, now, "gossip", wanted=False).changed:
            self.stats["gossip_accepted"] += 1

    def stale_pending(self) -> int:
        """Publishers whose dropped new version is remembered (:meth:`stale_due` asks for them)."""
        return len(self._stale)

    def stale_due(self) -> list[PeerId]:
        """Publishers whose dropped new version the directory still lacks (one try used per call)."""
        due = []
        for peer, (version, tries) in list(self._stale.items()):
            held = self.directory.version_of(peer)
            if (held is not None and held >= version) or tries <= 0:
                del self._stale[peer]
                continue
            self._stale[peer] = (version, tries - 1)
            due.append(peer)
        return due


__all__ = ["GOSSIP_UPDATE_INTERVAL_MS", "STALE_MAX", "STALE_TRIES", "GossipIntake"]
