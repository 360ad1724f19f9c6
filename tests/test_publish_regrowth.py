"""Issue 25: a record placed while the network around a node was still forming is placed again once it
stops growing (``PublishPolicy``, :func:`~ioa_p2p.dht.pacing.regrown`), not only when the routing table
doubles: a node whose page round went out at a table of 26 in a network of 50 was never placed again
(the doubling rule waited for 52), and the peers that joined later, the closest to some of its page keys,
did not hold its entry: the two copies a listing reads lacked it."""

from __future__ import annotations

import hashlib
import random

from ioa_p2p.dht.keyspace import K, closest, position
from ioa_p2p.dht.pacing import SETTLE, SETTLED_REPLACE, PublishPolicy, grew_enough, regrown


def test_regrown_needs_a_tenth_more_peers_and_at_least_one() -> None:
    assert regrown(49, 26) and not grew_enough(49, 26)
    assert regrown(11, 10) and not regrown(10, 10) and not regrown(48, 44)
    assert regrown(2, 1) and not regrown(1, 1) and regrown(1, 0)


def test_a_round_placed_at_a_smaller_table_goes_out_again_once_the_table_settles_long() -> None:
    keys = (b"a", b"b")
    policy = PublishPolicy()
    policy.observe(26, 0.0)
    assert policy.provide_due(keys, 0.0)
    policy.provide_started(keys, 0.0)
    policy.provide_finished(40, 10, 1.0)
    policy.observe(49, 5.0)  # the rest of the network joined: 49 < 2 x 26
    assert not policy.provide_due(keys, 5.0 + SETTLE + 1)  # the doubling rule: never
    assert not policy.provide_due(keys, 5.0 + SETTLED_REPLACE - 0.5)  # still forming, maybe
    assert policy.provide_due(keys, 5.0 + SETTLED_REPLACE)
    policy.provide_started(keys, 30.0)
    policy.provide_finished(40, 10, 31.0)
    policy.observe(48, 40.0)  # churn around the high-water mark re-triggers nothing
    policy.observe(49, 50.0)
    assert not policy.provide_due(keys, 50.0 + 10 * SETTLED_REPLACE)


def test_the_card_record_is_put_again_by_the_same_rule() -> None:
    policy = PublishPolicy()
    policy.observe(30, 0.0)
    assert policy.put_due(1, 0.0)
    policy.put_done(1, 0.0)
    policy.observe(49, 2.0)
    assert not policy.put_due(1, 2.0 + SETTLE + 1)
    assert policy.put_due(1, 2.0 + SETTLED_REPLACE)
    policy.put_done(1, 2.0 + SETTLED_REPLACE)
    assert not policy.put_due(1, 1000.0)


def _peer(i: int) -> bytes:
    return hashlib.sha256(b"peer %d" % i).digest()


def _readers_miss(holders: dict[bytes, set[bytes]], peers: list[bytes], keys: list[bytes]) -> int:
    """Keys whose two closest peers (the copies a listing reads with ``ask = 2``) both lack the entry."""
    return sum(not holders[key] & set(closest(position(key), peers, 2)) for key in keys)


def test_a_page_placed_while_the_network_formed_reaches_the_closest_peers_after_it_settled() -> None:
    """26 peers, then 24 more join (one every 0.5 s); each of 3 publishers places its 16 keys at the 20
    closest peers it knows when its policy says so (every publisher knows every peer here). With the
    doubling rule alone the first round is the last, and readers asking the two closest of the 50 miss
    entries; with the regrowth rule every entry is at the two closest once the network settled."""
    rng = random.Random(25)
    peers = [_peer(i) for i in range(50)]
    missed_before = missed_after = 0
    for _ in range(3):
        keys = [rng.randbytes(16) for _key in range(16)]
        policy = PublishPolicy()
        holders: dict[bytes, set[bytes]] = {key: set() for key in keys}
        first_round: dict[bytes, set[bytes]] = {}
        now, known = 0.0, 26
        while now < 120.0:
            if known < 50 and now >= 1.0:
                known += 1
            policy.observe(known - 1, now)  # the table holds the others
            marker = tuple(keys)
            if policy.provide_due(marker, now):
                policy.provide_started(marker, now)
                for key in keys:
                    holders[key] |= set(closest(position(key), peers[:known], K))
                policy.provide_finished(len(keys) * K, len(keys) * 5, now)
                first_round = first_round or {key: set(h) for key, h in holders.items()}
            now += 0.5
        missed_before += _readers_miss(first_round, peers, keys)
        missed_after += _readers_miss(holders, peers, keys)
        assert not grew_enough(49, 25)  # the doubling rule would not have placed it again
    assert missed_before > 0  # what the listing saw: entries absent from both copies it read
    assert missed_after == 0


def test_each_round_says_why_it_goes_out() -> None:
    """``put_reason`` / ``provide_reason`` name the rule that made a round due (the publishing loop
    counts each round's Kademlia requests under it: ``publish.pages.regrown.PUT_VALUE``, issue 26)."""
    policy = PublishPolicy()
    policy.observe(30, 0.0)
    assert policy.put_reason(1, 0.0) == "version" and policy.provide_reason((b"a",), 0.0) == "keys"
    policy.put_done(1, 0.0)
    policy.provide_started((b"a",), 0.0)
    policy.provide_finished(1, 10, 1.0)  # under half acknowledged
    assert policy.put_reason(1, 5.0) is None and policy.provide_reason((b"a",), 5.0) is None
    assert policy.provide_reason((b"a",), 11.0) == "retry"
    policy.observe(60, 12.0)
    assert policy.provide_reason((b"a",), 12.0 + SETTLE) == "grown"
    assert policy.put_reason(1, 12.0 + SETTLE) == "grown"
    policy.observe(34, 20.0)
    policy.put_done(1, 20.0)
    policy.observe(66, 30.0)  # a tenth more than the 60 placed at: once settled long
    assert policy.put_reason(1, 30.0 + SETTLED_REPLACE) == "regrown"
    assert policy.provide_reason((b"b",), 30.0) == "keys"
