"""Replay protection of direct messages (/ioa/msg): per-author seq strictly increasing, persisted."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import ReplayedMessage
from ioa_p2p.identity import Identity
from ioa_p2p.node import Node, open_node
from ioa_p2p.node.messaging.replay import ReplayGuard
from ioa_p2p.node.messaging.service import PROTOCOL_ID
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.text import Text

MINUTE = 60_000


class Clock:
    def __init__(self, now: int = 10**12) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def guard(tmp_path: Path, clock: Clock, **limits: int) -> ReplayGuard:
    return ReplayGuard.open(tmp_path, clock_ms=clock, **limits)


def refused(replay: ReplayGuard, author: Identity, seq: int, ts: int) -> str:
    with pytest.raises(ReplayedMessage) as caught:
        replay.admit(author.peer_id, seq, ts)
    return caught.value.code


def test_seq_must_strictly_increase_per_author_and_survives_a_reopen(tmp_path: Path) -> None:
    clock = Clock()
    a, b = Identity.generate(), Identity.generate()
    replay = guard(tmp_path, clock)
    replay.admit(a.peer_id, 5, clock.now)
    assert refused(replay, a, 5, clock.now) == "replay"  # the same message again
    assert refused(replay, a, 4, clock.now) == "replay"  # an older one
    replay.admit(b.peer_id, 1, clock.now)  # authors are independent
    replay.admit(a.peer_id, 2**64 - 1, clock.now)  # the whole uint64 range
    replay.close()
    again = guard(tmp_path, clock)
    assert again.last_seq(a.peer_id) == 2**64 - 1 and again.last_seq(b.peer_id) == 1
    assert refused(again, a, 6, clock.now) == "replay" and refused(again, b, 1, clock.now) == "replay"
    again.close()


def test_time_window_for_new_authors_and_clock_skew(tmp_path: Path) -> None:
    clock = Clock()
    replay = guard(tmp_path, clock, window_ms=15 * MINUTE, max_future_ms=5 * MINUTE)
    a, b = Identity.generate(), Identity.generate()
    assert refused(replay, a, 1, clock.now - 16 * MINUTE) == "stale"  # too old for an unknown author
    assert refused(replay, a, 1, clock.now + 6 * MINUTE) == "stale"  # from the future
    replay.admit(a.peer_id, 1, clock.now - 14 * MINUTE)
    replay.admit(b.peer_id, 1, clock.now + 4 * MINUTE)
    clock.now += 60 * MINUTE
    replay.admit(a.peer_id, 2, clock.now - 59 * MINUTE)  # a tracked author: only the seq counts
    replay.close()


def test_eviction_never_reopens_a_replay_and_a_full_table_refuses_newcomers(tmp_path: Path) -> None:
    clock = Clock()
    replay = guard(tmp_path, clock, max_authors=3, window_ms=15 * MINUTE)
    authors = [Identity.generate() for _ in range(5)]
    for who in authors[:3]:
        replay.admit(who.peer_id, 7, clock.now)
    # the table is full and nobody is older than the window: a newcomer waits, the others are served
    assert refused(replay, authors[3], 1, clock.now) == "busy"
    replay.admit(authors[0].peer_id, 8, clock.now)
    clock.now += 20 * MINUTE
    replay.admit(authors[0].peer_id, 9, clock.now)  # a0 is recent again; a1 and a2 are old
    replay.admit(authors[3].peer_id, 1, clock.now)  # room is made by evicting an old author
    assert len(replay) <= 3
    evicted = [who for who in authors[1:3] if replay.last_seq(who.peer_id) is None]
    assert evicted
    # the evicted author's old message (ts 20 minutes ago, any seq) cannot come back
    assert refused(replay, evicted[0], 7, clock.now - 20 * MINUTE) == "stale"
    assert refused(replay, evicted[0], 6, clock.now - 20 * MINUTE) == "stale"
    replay.close()


# --------------------------------------------------------------------------- over the network


async def send(probe: Node, target: Node, env: Envelope) -> dict[str, object]:
    stream = await probe.open_stream(target.peer_id, PROTOCOL_ID)
    async with stream:
        await stream.send_envelope(env)
        reply = await stream.receive_value()
    assert isinstance(reply, dict)
    return reply


@pytest.mark.slow
async def test_replayed_and_out_of_order_messages_are_refused_also_after_a_restart(tmp_path: Path) -> None:
    target_id, probe_id = Identity.generate(), Identity.generate()
    target_config = NodeConfig(home=tmp_path / "target")
    probe_config = NodeConfig(home=tmp_path / "probe")
    first = Envelope.create(probe_id, Text(text="one"), seq=10)
    older = Envelope.create(probe_id, Text(text="older"), seq=9)
    with trio.fail_after(60):
        async with (
            open_node(target_config, identity=target_id, write_info=False) as target,
            open_node(probe_config, identity=probe_id, write_info=False, control_api=False) as probe,
        ):
            await probe.connect(target.listen_addrs()[0])
            assert (await send(probe, target, first))["ok"] is True
            again = await send(probe, target, first)
            assert again["ok"] is False and again["code"] == "replay" and "seq 10" in str(again["error"])
            assert (await send(probe, target, older))["code"] == "replay"
            # the node's own sender keeps its sends to one peer in seq order, even concurrent ones
            async with trio.open_nursery() as nursery:
                for i in range(5):
                    nursery.start_soon(probe.services.messaging.send_text, target.peer_id, f"c{i}")
            assert [e.seq for e in target.services.messaging.inbox][0] == 10
            assert len(target.services.messaging.inbox) == 6
        async with (
            open_node(target_config, identity=target_id, write_info=False) as target,
            open_node(probe_config, identity=probe_id, write_info=False, control_api=False) as probe,
        ):
            await probe.connect(target.listen_addrs()[0])
            assert (await send(probe, target, first))["code"] == "replay"  # remembered across a restart
            newer = Envelope.create(probe_id, Text(text="newer"), seq=probe.services.messaging.next_seq())
            assert (await send(probe, target, newer))["ok"] is True
            # what was acknowledged before the restart is still in the inbox, the new one after it
            inbox = list(target.services.messaging.inbox)
            assert len(inbox) == 7 and inbox[0].seq == 10 and inbox[-1].hash == newer.hash
