"""Bad cards on real libp2p hosts (127.0.0.1, in-process): a replayed older version, a forged, a tampered,
a re-versioned and an expired card are refused by the DHT's record validator (stored directly, or served
by a storer that bypassed its own) and by the card topic's gossip validator."""

from __future__ import annotations

from pathlib import Path

import trio

from ioa_p2p.card import SignedCard, issue_card
from ioa_p2p.dht.validators import card_key
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.net.gossip import TOPIC
from ioa_p2p.node.net.host import to_libp2p_id
from ioa_p2p.wire import canonical
from ioa_p2p.wire.envelope import Envelope

from .test_discovery_net import kad_now, open_peers, wait_until


def bad_cards(victim: Identity, genuine: SignedCard, attacker: Identity) -> dict[str, bytes]:
    body = genuine.card
    forged = Envelope.create(attacker, body, seq=body.version + 5, ts=body.issued_at).to_cbor()
    tampered = canonical.decode(genuine.to_bytes())
    tampered["b"]["vector"] = bytes(reversed(tampered["b"]["vector"]))
    bumped = canonical.decode(genuine.to_bytes())
    bumped["b"]["version"] = bumped["seq"] = body.version + 1000
    expired = issue_card(
        victim,
        name=body.name,
        description="expired copy",
        model=body.model,
        vector=body.embedding(),
        version=body.version + 2000,
        now_ms=kad_now() - 120_000,
        ttl_ms=60_000,
        stamp_bits=16,  # stamped enough: refused for what the test is about, not for a weak stamp
    )
    older = issue_card(  # genuine signature, live, but older than what everyone holds: a replay
        victim,
        name=body.name,
        description="an older version",
        model=body.model,
        vector=body.embedding(),
        version=body.version - 1,
        now_ms=kad_now(),
        ttl_ms=60_000,
        stamp_bits=16,
    )
    return {
        "replayed-older-version": older.to_bytes(),
        "forged": forged,
        "tampered": canonical.encode(tampered),
        "higher-version-bad-signature": canonical.encode(bumped),
        "expired": expired.to_bytes(),
    }


async def ask_value(service: Discovery, peer: PeerId, key: str) -> list[bytes]:
    """The values ``peer`` serves under ``key`` (a KAD GET_VALUE to it alone; a request lost under load is
    sent again, at most 3 times)."""
    for _ in range(3):
        found = await service.net.ask_values({peer: [key]}, per_peer=20.0)
        if found.get(key):
            return found[key]
    return []


async def test_bad_cards_are_rejected_by_the_dht_and_the_gossip_validators(tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with open_peers(tmp_path, 3) as peers:
            (victim_node, victim), (attacker_node, attacker), (observer_node, observer) = peers

            async def settled() -> bool:
                return all(len(s.directory) == 3 for _, s in peers)

            await wait_until(settled, "all cards everywhere")
            genuine = victim.card
            assert genuine is not None
            bad = bad_cards(victim_node.identity, genuine, attacker_node.identity)
            key = card_key(victim_node.peer_id)

            async def observer_stores_the_genuine_card() -> bool:
                record = observer_node.net.dht.value_store.get(key.encode())
                return record is not None and record.value == genuine.to_bytes()

            await wait_until(observer_stores_the_genuine_card, "the victim's card stored at the observer")
            # DHT: the attacker stores each bad card at the observer directly (PUT_VALUE).
            observer_id = to_libp2p_id(observer_node.peer_id)
            for name, value in bad.items():
                stored = await attacker_node.net.dht.value_store._store_at_peer(
                    observer_id, key.encode(), value
                )
                assert not stored, name
            record = observer_node.net.dht.value_store.get(key.encode())
            assert record is None or record.value == genuine.to_bytes()
            # A storer that serves a bad card (bypassing its own validation) is not believed, whether the
            # owner is asked first (the default) or only the DHT is.
            for name, value in bad.items():
                attacker_node.net.dht.value_store.put(key.encode(), value)
                fetched = await observer.fetch_card(victim_node.peer_id)
                assert fetched is not None and fetched.to_bytes() == genuine.to_bytes(), name
                await observer.search.fetch([victim_node.peer_id], direct=False)
                fetched = observer.directory.get(victim_node.peer_id)
                assert fetched is not None and fetched.to_bytes() == genuine.to_bytes(), name
                # That lookup may end on the victim's copy before the attacker answers (fewer candidates
                # than `ask`: one answer is enough, a hedged slow peer is not waited for), so the
                # attacker's own answer is asked of it directly and goes through the same checks.
                rejected = observer.stats["dht_rejected"]
                served = await ask_value(observer, attacker_node.peer_id, key)
                assert served == [value], name
                observer.search.store_fetched([victim_node.peer_id], {key: served}, confirms=False)
                fetched = observer.directory.get(victim_node.peer_id)
                assert fetched is not None and fetched.to_bytes() == genuine.to_bytes(), name
                valid_but_old = name == "replayed-older-version"
                assert observer.stats["dht_rejected"] == rejected + (0 if valid_but_old else 1), name
            invalid = [
                name for name in bad if name != "replayed-older-version"
            ]  # the replay is valid, just old
            assert observer.stats["dht_rejected"] >= len(invalid)

            # Gossip: the attacker publishes each bad card, bypassing its own topic validator.
            assert attacker.gossip is not None and observer.gossip is not None
            attacker.gossip.pubsub.remove_topic_validator(TOPIC)
            rejected_before = observer.gossip.rejected
            for value in bad.values():
                await attacker.gossip.pubsub.publish(TOPIC, value)

            async def all_rejected() -> bool:
                return observer.gossip.rejected - rejected_before >= len(bad)  # type: ignore[union-attr]

            await wait_until(all_rejected, "the observer to reject every bad announcement", limit=15)
            entry = observer.directory.entry(victim_node.peer_id)
            assert entry is not None and entry.card.to_bytes() == genuine.to_bytes()
            matches = await observer.find(genuine.card.description, k=3)
            for match in matches:
                if match.card.peer_id == victim_node.peer_id:
                    assert match.card.to_bytes() == genuine.to_bytes()
