"""Past ``[discovery] relay_all`` on real libp2p hosts (127.0.0.1, in-process; dht/relaycap.py, issue 25):
py-libp2p's GossipSub with the node's validator. Renewals of unchanged cards stay off the topic; one that
an owner announces all the same is applied by the receivers' validator, which refuses to pass it on; a
changed card and a withdrawal still reach every node; finds go to the DHT."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from tests.test_discovery_net import names, open_peers, wait_until

pytestmark = pytest.mark.slow


async def test_past_relay_all_real_gossip_carries_changes_and_withdrawals_but_not_renewals(
    tmp_path: Path,
) -> None:
    with trio.fail_after(120):
        async with open_peers(tmp_path, 3, {"relay_all": 2}) as peers:
            services = [s for _, s in peers]

            async def settled() -> bool:
                return all(len(s.directory) == 3 and s.relay_cap.capped for s in services)

            await wait_until(settled, "all cards everywhere and every node past relay_all", limit=60)
            (node, owner), others = peers[0], services[1:]
            topic = owner.gossip
            assert topic is not None
            published = topic.published  # type: ignore[attr-defined]
            renewal = await owner.republish()  # what republish_loop does every `republish` s
            assert renewal is not None and owner.stats["renewals_not_announced"] == 1
            assert topic.published == published  # type: ignore[attr-defined]

            # an owner of a previous release announces its renewal all the same: applied, not relayed
            await trio.sleep(0.2)  # (the flood guard refuses two versions within 100 ms)
            await topic.announce(renewal.encoded)

            async def applied() -> bool:
                return all(
                    s.directory.version_of(node.peer_id) == renewal.version and s.stats["gossip_not_relayed"]
                    for s in others
                )

            await wait_until(applied, "the renewal applied by the receivers' validator", limit=20)

            await trio.sleep(0.2)
            changed = await owner.set_agent(
                owner.agent.with_changes({"description": "bakes bread"}, node.peer_id)
            )

            async def spread() -> bool:
                return all(s.directory.version_of(node.peer_id) == changed.version for s in others)

            await wait_until(spread, "the changed card to reach every node by gossip", limit=20)
            assert names(await others[0].find("bake some bread", k=1)) == [changed.card.name]
            assert not others[0].last_find.get("dht_skipped")  # past relay_all the directory is partial

            await trio.sleep(0.2)
            withdrawal = await owner.withdraw("retired")

            async def gone() -> bool:
                return all(s.directory.version_of(node.peer_id) == withdrawal.version for s in others)

            await wait_until(gone, "the withdrawal to reach every node by gossip", limit=20)
            assert all(s.directory.get(node.peer_id) is None for s in others)
