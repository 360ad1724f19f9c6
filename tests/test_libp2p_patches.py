"""Tell when upstream py-libp2p changes make a workaround in ioa_p2p.node.net.libp2p_patches stale or
wrong."""

from __future__ import annotations

import libp2p.network.swarm as swarm
import pytest
import trio

from ioa_p2p.node.net import libp2p_patches, stream_caps
from tests.raw_hosts import run_raw_host

from .conftest import open_test_nodes


def test_patches_target_the_version_they_were_written_for() -> None:
    assert libp2p_patches.libp2p_version() == libp2p_patches.PATCHED_FOR_VERSION, (
        "py-libp2p changed version: re-check every patch in ioa_p2p/node/libp2p_patches.py"
    )


def test_happy_eyeballs_constant_still_exists_with_upstream_value() -> None:
    assert libp2p_patches.upstream_happy_eyeballs_delay() == libp2p_patches.UPSTREAM_HAPPY_EYEBALLS_DELAY, (
        "upstream removed or changed _HAPPY_EYEBALLS_DELAY: the dial-delay patch may be unnecessary"
    )
    libp2p_patches.apply_patches()
    assert swarm._HAPPY_EYEBALLS_DELAY == 0


async def test_running_nodes_have_the_patch_applied(tmp_path) -> None:
    async with open_test_nodes(tmp_path, 2, connect="none") as (a, b):
        assert swarm._HAPPY_EYEBALLS_DELAY == 0
        with trio.fail_after(10):
            assert await b.connect(a.listen_addrs()[0]) == a.peer_id


def test_kademlia_speaks_the_ioa_protocol_id(tmp_path) -> None:
    import importlib

    libp2p_patches.apply_patches()
    for name in libp2p_patches.KAD_MODULES:
        assert importlib.import_module(name).PROTOCOL_ID == libp2p_patches.IOA_KAD_PROTOCOL


async def test_the_node_dht_serves_only_the_ioa_protocol(tmp_path) -> None:
    async with open_test_nodes(tmp_path, 1) as (node,):
        handlers = {str(p) for p in node.net.host.get_mux().handlers}
        assert libp2p_patches.IOA_KAD_PROTOCOL in handlers
        assert libp2p_patches.UPSTREAM_KAD_PROTOCOL not in handlers


def test_connection_manager_defaults_still_overdial_and_the_patch_switches_them_off() -> None:
    import libp2p.network.config as netconfig

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host

    # Upstream aims for (100 + 300) / 2 connections: were these lower, the patch might be unnecessary.
    assert (netconfig.LOW_WATERMARK, netconfig.HIGH_WATERMARK, netconfig.MIN_CONNECTIONS) == (100, 300, 50)
    host = new_noise_host(Identity.generate())
    connector = host.get_network().auto_connector
    assert connector.maybe_connect.__qualname__.startswith("disable_auto_connector")


def _rpc_with_record(host) -> object:
    from libp2p.peer.peerstore import env_to_send_in_RPC
    from libp2p.pubsub.pb import rpc_pb2

    rpc = rpc_pb2.RPC()
    rpc.senderRecord = env_to_send_in_RPC(host)[0]
    return rpc


def test_pubsub_peer_records_are_verified_once_and_forgeries_still_refused(monkeypatch) -> None:
    import libp2p.pubsub.pubsub as pubsub_module
    import libp2p.pubsub.utils as utils

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host

    libp2p_patches.apply_patches()
    calls = []
    real = utils.consume_envelope
    monkeypatch.setattr(utils, "consume_envelope", lambda *a, **k: calls.append(1) or real(*a, **k))
    sender, receiver, other = (new_noise_host(Identity.generate()) for _ in range(3))
    consume = pubsub_module.maybe_consume_signed_record
    rpc = _rpc_with_record(sender)
    assert consume(rpc, receiver, sender.get_id())
    assert consume(rpc, receiver, sender.get_id())
    assert len(calls) == 1  # identical bytes from the same peer: verified once
    # Another host of the same process (agents of one process) verifies and stores it in its own peerstore.
    second = new_noise_host(Identity.generate())
    stored = []
    store = second.get_peerstore()
    real_store = store.consume_peer_record
    monkeypatch.setattr(store, "consume_peer_record", lambda *a: stored.append(1) or real_store(*a))
    assert consume(rpc, second, sender.get_id())
    assert len(calls) == 2 and stored == [1]  # stored in its own peerstore too
    # The same (valid) record presented as another peer's is refused, every time.
    assert not consume(rpc, receiver, other.get_id())
    assert not consume(rpc, receiver, other.get_id())
    # Tampered bytes are verified (and refused), not matched against the cache.
    tampered = _rpc_with_record(sender)
    raw = bytearray(tampered.senderRecord)
    raw[-1] ^= 0x01
    tampered.senderRecord = bytes(raw)
    assert not consume(tampered, receiver, sender.get_id())


async def _dies_of_a_raising_handler(host, dialer) -> bool:
    """Run ``host`` with a handler that raises and make ``dialer`` open a stream to it: did ``host`` stop
    running within 3 s?"""
    from libp2p.peer.peerinfo import PeerInfo

    ended = trio.Event()

    async def boom(stream) -> None:
        raise ValueError("a handler bug, or input its decoder did not foresee")

    async def run(task_status=trio.TASK_STATUS_IGNORED) -> None:
        try:
            async with run_raw_host(host):
                task_status.started()
                await trio.sleep_forever()
        except Exception:  # the host died of the handler's exception (raised out of host.run)
            pass
        finally:
            ended.set()

    host.set_stream_handler("/test/boom/1", boom)
    async with trio.open_nursery() as nursery:
        await nursery.start(run)
        await dialer.connect(PeerInfo(host.get_id(), host.get_addrs()))
        try:
            stream = await dialer.new_stream(host.get_id(), ["/test/boom/1"])
            await stream.write(b"x")
        except Exception:  # the host may already be gone
            pass
        with trio.move_on_after(3):
            await ended.wait()
        died = ended.is_set()
        nursery.cancel_scope.cancel()
    return died


async def test_an_unpatched_host_still_dies_of_a_raising_handler_and_a_contained_one_does_not() -> None:
    from libp2p import new_host

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import libp2p_key_pair, new_noise_host

    dialer = new_noise_host(Identity.generate())
    async with run_raw_host(dialer):
        upstream = new_host(key_pair=libp2p_key_pair(Identity.generate()))
        with trio.fail_after(30):
            died = await _dies_of_a_raising_handler(upstream, dialer)
        assert died, "upstream now survives a raising stream handler: patch 8 may be unnecessary"
        faults: list[tuple[str, object, BaseException]] = []
        contained = new_noise_host(Identity.generate(), on_fault=lambda *f: faults.append(f))
        with trio.fail_after(30):
            died = await _dies_of_a_raising_handler(contained, dialer)
        assert not died
        assert [(w, type(e)) for w, _, e in faults] == [("libp2p stream /test/boom/1", ValueError)]


def test_upstream_pubsub_signature_check_still_raises_on_a_garbage_key() -> None:
    from google.protobuf.message import DecodeError
    from libp2p.pubsub.pb import rpc_pb2
    from libp2p.pubsub.validators import signature_validator

    msg = rpc_pb2.Message(from_id=b"\x01\x02x", seqno=b"\x00" * 8, signature=b"s", key=b"\xff\x01", data=b"x")
    with pytest.raises(DecodeError):  # patch 9 (contain_pubsub_messages) keeps this from failing Pubsub
        signature_validator(msg)


def test_inbound_stream_cap_wraps_the_resource_manager() -> None:
    from libp2p.rcmgr import Direction

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host

    host = new_noise_host(Identity.generate())
    refused: list[str] = []
    stream_caps.cap_inbound_streams(host, 2, refused.append)
    manager = host.get_network()._resource_manager
    peer = str(Identity.generate().peer_id)
    assert manager.acquire_stream(peer, Direction.INBOUND)
    assert manager.acquire_stream(peer, Direction.INBOUND)
    assert not manager.acquire_stream(peer, Direction.INBOUND)  # a third at once: refused
    assert manager.acquire_stream(str(Identity.generate().peer_id), Direction.INBOUND)  # others are not
    assert manager.acquire_stream(peer, Direction.OUTBOUND)  # streams we open are not capped
    manager.release_stream(peer, Direction.INBOUND)
    assert manager.acquire_stream(peer, Direction.INBOUND)
    assert refused == [peer]


def test_upstream_negotiation_still_reads_lines_of_any_length() -> None:
    """Patch 17's sentinel: multistream-select reads a line with no size limit upstream (so the
    inbound meter bounds it); if upstream adds a limit, the meter's negotiation check can go."""
    import inspect

    from libp2p.utils import varint

    source = inspect.getsource(varint.read_delim)
    assert "read_varint_prefixed_bytes(reader)" in source  # the unlimited reader


async def test_the_inbound_meter_refuses_an_over_long_negotiation_line() -> None:
    from ioa_p2p.config.limits import Limits
    from ioa_p2p.errors import OverBudget
    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.budgets import NodeBudgets
    from ioa_p2p.node.net.framing import encode_varint
    from ioa_p2p.node.net.inbound_meter import MAX_NEGOTIATION_LINE, MessageMeter

    class Stream:
        def __init__(self, data: bytes) -> None:
            self.data, self.protocol = data, None

        def get_protocol(self) -> None:
            return self.protocol

        async def read(self, n: int | None = None) -> bytes:
            chunk, self.data = self.data[: n or 1], self.data[n or 1 :]
            return chunk

    budgets = NodeBudgets(Limits())
    ok = Stream(encode_varint(19) + b"/multistream/1.0.0\n")
    MessageMeter(ok, Identity.generate().peer_id, budgets).install()
    assert await ok.read(1) == b"\x13"
    assert len(await ok.read(19)) == 19 and budgets.frames.held_total == 0  # held while incomplete only
    long = Stream(encode_varint(MAX_NEGOTIATION_LINE + 1) + b"x")
    MessageMeter(long, Identity.generate().peer_id, budgets).install()
    with pytest.raises(OverBudget, match="negotiation line"):
        await long.read(3)


def test_yamux_windows_grow_to_at_most_1_mib() -> None:
    """Patch 19: the constant still exists, and our hosts cap it."""
    import libp2p.stream_muxer.yamux.yamux as yamux

    from ioa_p2p.node.net import guard

    guard.cap_yamux_window()
    assert yamux.MAX_WINDOW_SIZE == guard.MAX_YAMUX_WINDOW == 1024 * 1024


def test_upstream_yamux_close_still_sleeps_and_the_swarm_closes_one_by_one() -> None:
    """Patch 20's sentinel: while each close sleeps 0.1 s and the swarm closes connections in turn,
    a node with many connections must close them concurrently to shut down in time."""
    import inspect

    from libp2p.network.swarm import Swarm
    from libp2p.stream_muxer.yamux.yamux import Yamux

    assert "trio.sleep(0.1)" in inspect.getsource(Yamux.close)
    assert "await conn.close()" in inspect.getsource(Swarm.close)


async def test_relay_streams_are_metered_for_their_handshake_only() -> None:
    """A hop or stop stream pipes a relayed connection after one handshake message: those raw
    bytes are not parsed as messages (they once broke relayed connections)."""
    from libp2p.relay.circuit_v2.protocol import PROTOCOL_ID, STOP_PROTOCOL_ID

    from ioa_p2p.config.limits import Limits
    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.budgets import NodeBudgets
    from ioa_p2p.node.net.framing import encode_varint
    from ioa_p2p.node.net.inbound_meter import HANDSHAKE_PROTOCOLS, MessageMeter

    assert {str(PROTOCOL_ID), str(STOP_PROTOCOL_ID)} == HANDSHAKE_PROTOCOLS

    class Stream:
        def __init__(self, data: bytes) -> None:
            self.data = data

        def get_protocol(self) -> str:
            return str(STOP_PROTOCOL_ID)

        async def read(self, n: int | None = None) -> bytes:
            chunk, self.data = self.data[: n or 1], self.data[n or 1 :]
            return chunk

    raw = b"\xff" * 8 + encode_varint(50_000_000)  # an over-long prefix, then a huge one, if parsed
    stream = Stream(encode_varint(3) + b"abc" + raw)
    MessageMeter(stream, Identity.generate().peer_id, NodeBudgets(Limits())).install()
    assert await stream.read(4) == encode_varint(3) + b"abc"
    assert await stream.read(100) == raw
