"""A card's lifetime starts when it is signed (ioa_p2p/card/issuing.py ``clock``; node/discovery/own_card.py).

Issue 25 (d-n50f): a node read the time, then waited for its worker thread's turn (the GIL-bound jobs of
every node of the process take turns) and minted or reused the stamp, and only then signed a card whose
``issued_at`` / ``expires_at`` were the time read before. On a starved loop (four agents of one process at
~9 % of a core) that wait took 6-23 s, so cards with a 6 s TTL left their owner already expired and every
peer refused them (tests/test_discovery_net.py's stopping-agent test: the forecaster's card never reached
node 0). The stamp covers the card's content, not its times, so the times are read just before signing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.card import issue_card, parse_card
from ioa_p2p.dht.validators import check_stamp
from ioa_p2p.identity import Identity
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.testing.memagents import open_memory_agent
from ioa_p2p.testing.memcards import MemoryCards
from ioa_p2p.testing.memnet import MemoryNetwork

NOW = 1_700_000_000_000
ALICE = Identity(bytes(range(32)))


def issue(**overrides: Any) -> Any:
    fields: dict[str, Any] = {
        "name": "forecaster",
        "description": "weather forecasts",
        "model": "hashing/v1/8",
        "vector": np.linspace(-1, 1, 8),
        "version": NOW,
        "now_ms": NOW,
        "ttl_ms": 6000,
        "stamp_bits": 8,
    }
    fields.update(overrides)
    return issue_card(ALICE, **fields)


def test_a_card_signed_after_a_wait_lives_its_whole_ttl_from_the_signature() -> None:
    late = NOW + 8000  # the worker's turn came 8 s after the caller read the time
    card = issue(clock=lambda: late)
    assert card.card.issued_at == late and card.card.expires_at == late + 6000
    assert card.envelope.ts == late and card.version == NOW  # the version the caller chose
    parsed = parse_card(card.encoded, now_ms=late + 5999)  # live for the whole TTL after it was signed
    check_stamp(parsed, 8)  # the stamp covers the content, not the times: still valid
    # without a clock the lifetime starts at the time given (the pure form, unchanged)
    plain = issue()
    assert plain.card.issued_at == NOW and plain.card.expires_at == NOW + 6000
    # a clock behind the time given (a caller's clock stepped back) never shortens the lifetime
    assert issue(clock=lambda: NOW - 1000).card.issued_at == NOW
    # the stamp minted for the content is reused by the late card: same nonce, same bits
    assert getattr(card.card, "stamp", b"") == getattr(plain.card, "stamp", b"")


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


async def test_a_card_issued_while_the_workers_are_busy_is_not_born_expired(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """The real discovery service on the in-memory network: its worker jobs wait 8 s for their turn (a
    starved process); each new version it issues still has its whole 6 s TTL ahead when it is out."""
    net = MemoryNetwork()
    raw = {"agent": {"name": "forecaster", "description": "weather forecasts"}, "discovery": {"ttl": 6}}
    with trio.fail_after(600):
        async with open_memory_agent(net, MemoryCards(net), tmp_path / "a", raw) as (node, services):
            discovery = services.discovery
            assert isinstance(discovery, Discovery)
            await discovery.card_ready.wait()
            inline = node.run_sync

            async def busy_run_sync(fn: Any, *, gil_bound: bool = False) -> Any:
                await trio.sleep(8.0)  # the other jobs of the process go first
                return await inline(fn, gil_bound=gil_bound)

            node.run_sync = busy_run_sync  # type: ignore[method-assign]
            for _ in range(3):
                card = await discovery.republish()
                assert card is not None
                now = discovery.now_ms()
                assert not card.is_expired(now)
                assert card.card.expires_at - now >= 6000 - 50  # the whole TTL, from the signature
                assert discovery.card is card
