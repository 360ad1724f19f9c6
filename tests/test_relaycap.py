"""Past ``[discovery] relay_all`` the card topic carries only what is new (dht/relaycap.py, issue 25): which
announcements a relay forwards, which versions an owner announces, which held cards revalidation still
fetches, and when the capped mode is on."""

from __future__ import annotations

import pytest

from ioa_p2p.card import SignedCard, issue_card, issue_withdrawal
from ioa_p2p.dht.directory import Directory
from ioa_p2p.dht.relaycap import (
    NEED_WINDOW,
    ContentBook,
    Relay,
    RelayCap,
    announce_version,
    confirm_by_fetch,
    content_digest,
    relay_verdict,
)
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.errors import ConfigError, UsageError
from ioa_p2p.identity import Identity

NOW = 1_700_000_000_000
OWNER = Identity(bytes([7]) * 32)
OTHER = Identity(bytes([8]) * 32)


def card(
    version: int,
    *,
    who: Identity = OWNER,
    description: str = "draws charts",
    addrs: tuple[str, ...] = ("/ip4/10.0.0.1/tcp/4001",),
    now_ms: int = NOW,
) -> SignedCard:
    return issue_card(
        who,
        name="plotter",
        description=description,
        model="test/4",
        vector=[1.0, 0.0, 0.0, 0.0],
        addrs=addrs,
        version=version,
        now_ms=now_ms,
        ttl_ms=1_800_000,
    )


def test_a_renewal_says_the_same_and_any_other_field_changes_the_digest() -> None:
    first = card(1)
    assert content_digest(card(2, now_ms=NOW + 600_000)) == content_digest(first)  # new version, expiry
    assert content_digest(card(2, description="draws bar charts")) != content_digest(first)
    assert content_digest(card(2, addrs=("/ip4/10.0.0.2/tcp/4001",))) != content_digest(first)
    assert content_digest(card(1, who=OTHER)) != content_digest(first)


def test_below_the_line_every_announcement_is_forwarded_as_before() -> None:
    book = ContentBook()
    for version in (1, 2, 3):  # renewals of unchanged content
        assert relay_verdict(card(version), capped=False, held=None, book=book, now_ms=NOW) is Relay.FORWARD
    assert len(book) == 1  # the book is kept all the same: the line may be crossed later


def test_past_the_line_an_unchanged_renewal_is_applied_here_and_not_forwarded() -> None:
    book = ContentBook()
    verdict = relay_verdict(card(1), capped=True, held=None, book=book, now_ms=NOW)
    assert verdict is Relay.FORWARD  # a card new to this relay
    renewal = card(2, now_ms=NOW + 600_000)
    assert relay_verdict(renewal, capped=True, held=None, book=book, now_ms=NOW + 600_000) is Relay.LOCAL
    # the same version announced again (a re-announcement for newcomers): not forwarded either
    assert relay_verdict(renewal, capped=True, held=None, book=book, now_ms=NOW + 601_000) is Relay.LOCAL
    moved = card(3, addrs=("/ip4/10.0.0.9/tcp/4001",), now_ms=NOW + 700_000)
    assert relay_verdict(moved, capped=True, held=None, book=book, now_ms=NOW + 700_000) is Relay.FORWARD
    withdrawal = issue_withdrawal(OWNER, version=4, now_ms=NOW + 800_000)
    assert relay_verdict(withdrawal, capped=True, held=None, book=book, now_ms=NOW + 800_000) is Relay.FORWARD
    # the withdrawal made the book forget the publisher: a card after it is new again, and forwarded
    assert relay_verdict(card(5), capped=True, held=None, book=book, now_ms=NOW + 900_000) is Relay.FORWARD


def test_a_held_card_stands_in_for_the_book_only_when_it_is_older_than_the_announcement() -> None:
    held = card(1)
    renewal = card(2)
    assert relay_verdict(renewal, capped=True, held=held, book=ContentBook(), now_ms=NOW) is Relay.LOCAL
    # the same version held, fetched from the DHT ahead of its gossip: the neighbours may lack it
    assert relay_verdict(renewal, capped=True, held=renewal, book=ContentBook(), now_ms=NOW) is Relay.FORWARD
    changed = card(2, description="draws maps")
    assert relay_verdict(changed, capped=True, held=held, book=ContentBook(), now_ms=NOW) is Relay.FORWARD


def test_the_book_is_bounded_and_forgets_expired_cards() -> None:
    book = ContentBook(limit=1)
    book.note(card(1))
    book.note(card(1, who=OTHER))
    assert len(book) == 1 and book.digest_of(OWNER.peer_id, NOW) is None
    assert book.digest_of(OTHER.peer_id, NOW) == content_digest(card(1, who=OTHER))
    assert book.digest_of(OTHER.peer_id, NOW + 1_800_000) is None  # its card expired
    with pytest.raises(UsageError):
        ContentBook(limit=0)


def test_the_owner_announces_a_first_card_and_changed_content_only_past_the_line() -> None:
    first, renewal, changed = card(1), card(2), card(3, description="draws maps")
    assert announce_version(True, None, first)
    assert not announce_version(True, first, renewal)
    assert announce_version(True, renewal, changed)
    assert announce_version(False, first, renewal)  # below the line: every version, as before


def test_past_the_line_revalidation_fetches_only_the_cards_the_node_needs() -> None:
    period = 720_000
    assert confirm_by_fetch(capped=False, pinned=False, last_used_ms=None, now_ms=NOW, revalidate_ms=period)
    assert not confirm_by_fetch(
        capped=True, pinned=False, last_used_ms=None, now_ms=NOW, revalidate_ms=period
    )
    assert confirm_by_fetch(capped=True, pinned=True, last_used_ms=None, now_ms=NOW, revalidate_ms=period)
    recent = NOW - NEED_WINDOW * period
    assert confirm_by_fetch(capped=True, pinned=False, last_used_ms=recent, now_ms=NOW, revalidate_ms=period)
    assert not confirm_by_fetch(
        capped=True, pinned=False, last_used_ms=recent - 1, now_ms=NOW, revalidate_ms=period
    )


def test_the_directory_tells_when_a_card_was_last_used_and_forgets_it_with_the_card() -> None:
    directory = Directory("test/4", 4)
    held = card(1)
    directory.offer(held, NOW, "gossip")
    assert directory.last_used(OWNER.peer_id) is None
    directory.used([OWNER.peer_id], NOW + 5)
    assert directory.last_used(OWNER.peer_id) == NOW + 5
    directory.pin(frozenset({OWNER.peer_id}))
    assert directory.pinned(OWNER.peer_id) and not directory.pinned(OTHER.peer_id)
    directory.remove(OWNER.peer_id)
    assert directory.last_used(OWNER.peer_id) is None


def test_the_capped_mode_starts_at_the_line_and_ends_well_below_it() -> None:
    cap = RelayCap(1000)
    assert not cap.observe(999)
    assert cap.observe(1000)
    assert cap.observe(850)  # the estimate's noise near the line does not flip it
    assert not cap.observe(799)
    with pytest.raises(UsageError):
        RelayCap(0)


def test_relay_all_follows_keep_all_unless_set() -> None:
    assert DiscoverySettings.from_section({}).relay_all == 20_000
    assert DiscoverySettings.from_section({"keep_all": 500}).relay_all == 500
    assert DiscoverySettings.from_section({"keep_all": 500, "relay_all": 3000}).relay_all == 3000
    with pytest.raises(ConfigError):
        DiscoverySettings.from_section({"relay_all": 0})
