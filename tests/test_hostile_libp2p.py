"""Nothing a peer sends through py-libp2p's own protocols, or who it is, can end a node.

Each test is the regression test of one remote crash found by sending hostile input from a real libp2p host
on 127.0.0.1 to a full node (every service), which must outlive it (see :mod:`tests.hostile`):

- a GossipSub frame that is not protobuf: ``DecodeError`` escaped py-libp2p's pubsub stream handler and the
  swarm service, ending the host and, silently, the node (libp2p_patches patch 8);
- a GossipSub message whose ``key`` is not a protobuf key: ``DecodeError`` from the signature check failed
  the Pubsub service (patch 9);
- a peer with a secp256k1 identity: ``Node.connected_peers`` raised ``InvalidPeerId`` in the chat service's
  connection watch (the Noise handshake now refuses non-Ed25519 peers);
- a Kademlia answer naming a non-Ed25519 closer peer: ``InvalidPeerId`` in the peer-discovery loop;
- a relay answering a reservation with a status code the protocol does not define: ``ValueError`` in the
  reservation keeper.

A burst of random GossipSub RPCs (control messages with peer exchange, publishes with random fields) and
the same attack on an ``ioa node start`` process complete the picture.
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import multiaddr
import pytest
import trio
from libp2p import create_yamux_muxer_option, new_host
from libp2p.crypto.secp256k1 import create_new_key_pair as new_secp256k1_key_pair
from libp2p.crypto.x25519 import create_new_key_pair as new_x25519_key_pair
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.peer.id import ID
from libp2p.peer.peerinfo import PeerInfo, info_from_p2p_addr
from libp2p.pubsub.pb import rpc_pb2
from libp2p.relay.circuit_v2.pb.circuit_pb2 import HopMessage
from libp2p.relay.circuit_v2.utils import read_delimited_msg, write_delimited_msg
from libp2p.security.noise.transport import PROTOCOL_ID as NOISE_PROTOCOL_ID
from libp2p.security.noise.transport import Transport as NoiseTransport

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import Node, open_node
from ioa_p2p.node.control.server import ControlRequest
from ioa_p2p.node.net.gossip import TOPIC
from ioa_p2p.node.net.host import to_libp2p_id
from ioa_p2p.node.net.libp2p_patches import IOA_KAD_PROTOCOL
from ioa_p2p.node.relay import HOP_PROTOCOL
from tests.raw_hosts import run_raw_host

from .conftest import NodeProcess, ioa_init
from .hostile import Watch, send_raw, uvarint_frame, watch_victim

pytestmark = pytest.mark.slow

PUBSUB = "/meshsub/1.1.0"


@asynccontextmanager
async def attacker_node(home: Path) -> AsyncIterator[Node]:
    """A plain node (messaging, no discovery) that the tests turn hostile."""
    config = NodeConfig(home=home, raw={"discovery": {"enabled": False}})
    async with open_node(config, identity=Identity.generate(), write_info=False) as node:
        yield node


async def wait_fault(victim: Watch, key: str) -> None:
    while victim.node.faults.counts[key] == 0:  # noqa: ASYNC110 - no event to wait on
        await trio.sleep(0.05)


async def still_serves(victim: Watch, peer: Node) -> None:
    """The victim still answers a signed direct message (a new stream, a full round trip)."""
    digest = await peer.services.messaging.send_text(victim.node.peer_id, "still there?")
    assert len(digest) == 32


def publish_rpc(**fields: bytes) -> bytes:
    rpc = rpc_pb2.RPC()
    msg = rpc.publish.add()
    msg.topicIDs.append(TOPIC)
    for name, value in fields.items():
        setattr(msg, name, value)
    return uvarint_frame(rpc.SerializeToString())


async def test_a_pubsub_frame_that_is_not_protobuf_resets_only_its_stream(tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with watch_victim(tmp_path / "v") as victim, attacker_node(tmp_path / "a") as attacker:
            await victim.node.services_ready.wait()
            await attacker.connect(victim.node.listen_addrs()[0])
            await send_raw(attacker, victim.node, PUBSUB, uvarint_frame(b"\xff" * 5))
            await wait_fault(victim, f"libp2p stream {PUBSUB}:DecodeError")
            await still_serves(victim, attacker)
            get_faults = victim.node.control.routes[("GET", "/faults")]
            faults = await get_faults(ControlRequest("GET", "/faults", {}, None))
            assert faults == {"total": 1, "counts": {f"libp2p stream {PUBSUB}:DecodeError": 1}}
            victim.done()


async def test_a_pubsub_message_with_a_garbage_key_is_dropped(tmp_path: Path) -> None:
    with trio.fail_after(90):
        async with watch_victim(tmp_path / "v") as victim, attacker_node(tmp_path / "a") as attacker:
            await victim.node.services_ready.wait()
            await attacker.connect(victim.node.listen_addrs()[0])
            garbage_key = {"key": b"\xff\x01", "signature": b"s", "from_id": b"\x01\x02x"}
            rpc = publish_rpc(seqno=b"\x00" * 8, data=b"x", **garbage_key)
            await send_raw(attacker, victim.node, PUBSUB, rpc)
            await wait_fault(victim, "pubsub message:DecodeError")
            await still_serves(victim, attacker)
            victim.done()


async def test_a_peer_with_a_secp256k1_key_is_refused_at_the_handshake(tmp_path: Path) -> None:
    key_pair = new_secp256k1_key_pair()
    noise = NoiseTransport(key_pair, noise_privkey=new_x25519_key_pair().private_key)
    muxers = {k: v for k, v in create_yamux_muxer_option().items() if "yamux" in str(k)}
    foreign = new_host(key_pair=key_pair, sec_opt={NOISE_PROTOCOL_ID: noise}, muxer_opt=muxers)
    with trio.fail_after(90):
        async with (
            watch_victim(tmp_path / "v") as victim,
            attacker_node(tmp_path / "a") as good,
            run_raw_host(foreign),
        ):
            info = info_from_p2p_addr(multiaddr.Multiaddr(victim.node.listen_addrs()[0]))
            with pytest.raises(Exception):  # noqa: B017 - py-libp2p's swarm raises its own dial errors
                await foreign.connect(info)
            await trio.sleep(1.0)  # the chat service's connection watch runs every 0.5 s
            assert victim.node.connected_peers() == []
            await good.connect(victim.node.listen_addrs()[0])
            await still_serves(victim, good)
            victim.done()


async def test_a_kademlia_answer_naming_a_non_ed25519_peer_is_harmless(tmp_path: Path) -> None:
    foreign_id = ID.from_pubkey(new_secp256k1_key_pair().public_key)
    answered = 0

    async def evil_kad(stream) -> None:  # answers every request with the foreign peer as closest
        nonlocal answered
        reply = Message(type=Message.MessageType.FIND_NODE)
        peer = reply.closerPeers.add()
        peer.id = foreign_id.to_bytes()
        peer.addrs.append(multiaddr.Multiaddr("/ip4/127.0.0.1/tcp/9").to_bytes())
        try:
            while await read_delimited_msg(stream, Message) is not None:
                await stream.write(uvarint_frame(reply.SerializeToString()))
                answered += 1
        except Exception:
            return

    with trio.fail_after(90):
        async with attacker_node(tmp_path / "a") as attacker:
            attacker.net.host.set_stream_handler(IOA_KAD_PROTOCOL, evil_kad)
            async with watch_victim(tmp_path / "v", bootstrap=(attacker.listen_addrs()[0],)) as victim:
                while not answered:  # noqa: ASYNC110 - the victim's lookups read the evil answer
                    await trio.sleep(0.1)
                # Our lookup driver does not table a named peer it could not reach (the foreign one is
                # at a dead address); py-libp2p's code paths might, so the table is given one directly:
                # the node must survive both the answers and a table holding a non-Ed25519 peer.
                table = victim.node.net.dht.routing_table
                if foreign_id not in table.get_peer_ids():
                    await table.add_peer(PeerInfo(foreign_id, [multiaddr.Multiaddr("/ip4/127.0.0.1/tcp/9")]))
                assert foreign_id in table.get_peer_ids()
                await trio.sleep(2.0)  # a few peer-discovery rounds with the foreign ID in the table
                await still_serves(victim, attacker)
                victim.done()


async def test_a_relay_answering_an_undefined_status_code_is_retried_not_fatal(tmp_path: Path) -> None:
    asked = 0

    async def evil_hop(stream) -> None:
        nonlocal asked
        await read_delimited_msg(stream, HopMessage)
        asked += 1
        reply = HopMessage(type=HopMessage.STATUS)
        reply.MergeFromString(b"\x28\xe7\x07")  # field 5 (status) = 999, not a StatusCode
        await write_delimited_msg(stream, reply)
        await stream.close()

    with trio.fail_after(90):
        async with attacker_node(tmp_path / "a") as relay:
            relay.net.host.set_stream_handler(HOP_PROTOCOL, evil_hop)
            raw = {"relay": {"reserve": [relay.listen_addrs()[0]]}, "discovery": {"enabled": False}}
            async with watch_victim(tmp_path / "v", raw=raw) as victim:
                while asked < 2:  # noqa: ASYNC110 - the keeper asks again after a refusal
                    await trio.sleep(0.05)
                assert victim.node.services.relay.reservations == {}
                await still_serves(victim, relay)
                victim.done()


def test_a_node_process_outlives_a_hostile_pubsub_frame_and_reports_it(tmp_path: Path) -> None:
    """The same attack on an ``ioa node start`` process: it keeps running, ``ioa faults`` shows the fault,
    and it stops cleanly (exit 0)."""
    ioa_init(tmp_path / "v")
    victim = NodeProcess(tmp_path / "v", "--listen", "/ip4/127.0.0.1/tcp/0")
    try:
        addr = victim.wait_listening()[0]
        trio.run(_send_garbage_pubsub_frame, tmp_path / "a", addr)
        key = f"libp2p stream {PUBSUB}:DecodeError"
        deadline = time.monotonic() + 20
        while True:
            out = victim.ioa("faults", "--json")
            assert out.returncode == 0, out.stderr
            report = json.loads(out.stdout)
            if report["counts"].get(key) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert report["counts"].get(key) == 1 and report["total"] >= 1, report
        text = victim.ioa("faults")
        assert "faults stopped at task boundaries:" in text.stdout and key in text.stdout
        assert victim.proc.poll() is None
    finally:
        code = victim.stop()
    assert code == 0, victim.output()


async def _send_garbage_pubsub_frame(home: Path, addr: str) -> None:
    with trio.fail_after(60):
        async with attacker_node(home) as attacker:
            peer = await attacker.connect(addr)
            # the node's pubsub starts with its discovery service; retry until the protocol is served
            for _ in range(100):
                try:
                    stream = await attacker.net.host.new_stream(to_libp2p_id(peer), [PUBSUB])
                    break
                except Exception:
                    await trio.sleep(0.2)
            await stream.write(uvarint_frame(b"\xff" * 5))
            await trio.sleep(0.5)
            with contextlib.suppress(Exception):
                await stream.reset()


def random_pubsub_rpc(rng: random.Random, own_id: bytes) -> bytes:
    """An RPC with random subscriptions, control messages (IHAVE, IWANT, GRAFT, PRUNE with peer exchange,
    IDONTWANT) and publishes with random origin, seqno, signature and key fields."""

    def blob(size: int | None = None) -> bytes:
        return rng.randbytes(rng.randint(0, 40) if size is None else size)

    topics = [TOPIC, "", "x" * 300, "\u2603"]
    rpc = rpc_pb2.RPC()
    for _ in range(rng.randint(0, 3)):
        sub = rpc.subscriptions.add()
        sub.subscribe, sub.topicid = rng.random() < 0.7, rng.choice(topics)
    control = rpc.control
    for _ in range(rng.randint(0, 3)):
        kind = rng.randint(0, 4)
        if kind == 0:
            ihave = control.ihave.add()
            ihave.topicID = rng.choice(topics)
            ihave.messageIDs.extend(blob() for _ in range(rng.randint(0, 5)))
        elif kind == 1:
            control.iwant.add().messageIDs.extend(blob() for _ in range(rng.randint(0, 5)))
        elif kind == 2:
            control.graft.add().topicID = rng.choice(topics)
        elif kind == 3:
            prune = control.prune.add()
            prune.topicID, prune.backoff = rng.choice(topics), rng.choice([0, 10, 2**63, 2**64 - 1])
            for _ in range(rng.randint(0, 3)):
                peer = prune.peers.add()
                peer.peerID = rng.choice([blob(), own_id, blob(38)])
                if rng.random() < 0.5:
                    peer.signedPeerRecord = blob()
        else:
            control.idontwant.add().messageIDs.extend(blob() for _ in range(rng.randint(0, 5)))
    for _ in range(rng.randint(0, 2)):
        msg = rpc.publish.add()
        msg.topicIDs.append(rng.choice(topics))
        msg.from_id, msg.seqno, msg.data = rng.choice([blob(), own_id, b""]), blob(rng.choice([0, 8])), blob()
        if rng.random() < 0.5:
            msg.signature = blob(64)
        if rng.random() < 0.3:
            msg.key = blob()
    return uvarint_frame(rpc.SerializeToString())


async def test_a_burst_of_random_pubsub_rpcs_ends_nothing(tmp_path: Path) -> None:
    rng = random.Random(20261123)
    with trio.fail_after(120):
        async with watch_victim(tmp_path / "v") as victim, attacker_node(tmp_path / "a") as attacker:
            await victim.node.services_ready.wait()
            await attacker.connect(victim.node.listen_addrs()[0])
            own_id = attacker.net.host.get_id().to_bytes()
            for _ in range(60):
                stream = await attacker.net.host.new_stream(to_libp2p_id(victim.node.peer_id), [PUBSUB])
                with contextlib.suppress(Exception):  # the victim resets a stream it cannot parse
                    for _ in range(5):
                        await stream.write(random_pubsub_rpc(rng, own_id))
                    await stream.close()
            await trio.sleep(3.0)  # a few GossipSub heartbeats over whatever state the RPCs left
            assert victim.node.faults.total > 0  # the burst did reach the boundaries
            await still_serves(victim, attacker)
            victim.done()
