"""Putting a record at a peer that already holds it (``kad.store_at``, ``kad.put_value``) on real in-process
nodes: py-libp2p refuses (resets) a PUT_VALUE of the record it holds, and every re-put of an unchanged
card used to count as failed at every peer, so the DHT publishing loop re-put it every second for good
(docs/performance.md, "Idle CPU and the N = 100 spread, fourth round")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.dht.validators import card_key
from ioa_p2p.node.net import kad
from ioa_p2p.node.net.libp2p_patches import IOA_KAD_PROTOCOL

from .conftest import open_test_nodes


@pytest.mark.slow
async def test_a_put_of_the_record_a_peer_already_holds_counts_as_stored(tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with open_test_nodes(tmp_path, 3) as (writer, holder, refuser):
            await writer.services.discovery.card_ready.wait()
            key = card_key(writer.peer_id)
            record = writer.services.discovery.dht_record()
            assert record is not None
            writer.net.dht.value_store.put(key.encode(), record[1])  # as put_value does first
            put = kad.put_request(writer.net.dht, key.encode())
            target = holder.net.host.get_id().to_bytes()
            assert await kad.store_at(writer.net.dht, target, put)  # stored now, or by the node's own put
            held = holder.net.dht.value_store.get(key.encode())
            assert held is not None and bytes(held.value) == record[1]
            # the same record again: the library resets the stream; the peer holds it, so it is stored
            assert await kad.store_at(writer.net.dht, target, put), (
                "a re-put of a held record counted as failed"
            )
            assert await kad.put_value(writer.net.dht, key, record[1])

            async def refuse(stream: Any) -> None:  # a peer that stores nothing and resets every stream
                await stream.reset()

            refuser.net.host.set_stream_handler(IOA_KAD_PROTOCOL, refuse)
            assert not await kad.store_at(writer.net.dht, refuser.net.host.get_id().to_bytes(), put)
