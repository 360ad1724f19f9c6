"""Publishing rounds in a network that stopped growing (issue 26, l-idle9).

``PublishPolicy`` placed our records again each time the routing table grew by a tenth and then kept its
size for 20 s (``regrown``), or doubled (``grew_enough``): a round that went out while the network formed
reached closest peers that later joiners may have displaced (issue 25). In a network of 101 nodes that
stopped growing, a node's table still grows for many minutes (it learns, lookup by lookup, peers that were
there all along), so every node kept putting and providing again ~13 Kademlia requests a minute 10 minutes
after the start. The rounds' lookups found the closest peers of the whole network, not of the table: a
table that grows while the network's estimated size does not only learns peers that were there. So a
growth round now needs the estimate to have grown by a tenth too."""

from __future__ import annotations

from ioa_p2p.dht.pacing import SETTLE, SETTLED_REPLACE, PublishPolicy


def _placed(size: int, estimate: float) -> PublishPolicy:
    policy = PublishPolicy()
    policy.observe(size, 0.0, estimate)
    assert policy.put_reason(1, 0.0) == "version" and policy.provide_reason((b"k",), 0.0) == "keys"
    policy.put_done(1, 0.0)
    policy.provide_started((b"k",), 0.0)
    policy.provide_finished(10, 10, 1.0)
    return policy


def test_a_table_that_learns_the_same_network_places_nothing_again() -> None:
    policy = _placed(20, 101.0)
    now = 0.0
    for size in range(21, 56):  # one more peer every 30 s (within the 1,800 s refresh), estimate ~101
        now += 30.0
        policy.observe(size, now, 101.0 + (size % 3 - 1) * 5)
        assert policy.put_reason(1, now + SETTLED_REPLACE) is None, size  # before: "regrown"
        assert policy.provide_reason((b"k",), now + SETTLED_REPLACE) is None, size
    policy.observe(200, now + 30, 101.0)  # a table that more than doubled: still the same network
    assert policy.put_reason(1, now + 30 + SETTLE + 1) is None


def test_a_network_that_grew_gets_the_records_placed_again() -> None:
    policy = _placed(20, 50.0)
    policy.observe(24, 10.0, 56.0)  # a tenth more known, the network a tenth larger: joiners
    assert policy.put_reason(1, 10.0 + SETTLED_REPLACE) == "regrown"
    assert policy.provide_reason((b"k",), 10.0 + SETTLED_REPLACE) == "regrown"
    policy.observe(40, 40.0, 100.0)
    assert policy.provide_reason((b"k",), 40.0 + SETTLE) == "grown"


def test_without_an_estimate_the_table_is_the_estimate() -> None:
    """The simulator and issue 25's rule: ``observe(size, now)`` alone works as before."""
    policy = PublishPolicy()
    policy.observe(26, 0.0)
    policy.provide_started((b"k",), 0.0)
    policy.provide_finished(10, 10, 1.0)
    policy.observe(49, 5.0)
    assert policy.provide_reason((b"k",), 5.0 + SETTLED_REPLACE) == "regrown"
