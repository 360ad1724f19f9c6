"""Lazy multistream-select (node/net/lazy_select.py): the negotiation rides with the first request."""

from __future__ import annotations

import pytest
import trio

from ioa_p2p.errors import ProtocolViolation
from ioa_p2p.node.net.lazy_select import MAX_LINE, LazyStream, negotiation_lines, open_lazy_stream
from tests.raw_hosts import run_raw_host

from .conftest import open_test_nodes

PROTO = "/test/lazy/1"


class Recorder:
    """A stream that records what is written and answers reads from a script."""

    def __init__(self, replies: list[bytes]) -> None:
        self.writes: list[bytes] = []
        self.replies = replies
        self.reads_before_first_write = 0
        self.protocol: str | None = None

    def set_protocol(self, protocol: str) -> None:
        self.protocol = protocol

    async def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    async def read(self, n: int | None = None) -> bytes:
        if not self.writes:
            self.reads_before_first_write += 1
        if not self.replies:
            return b""
        head = self.replies.pop(0)
        if n is not None and 0 <= n < len(head):  # up to n bytes, the rest at the next read
            head, rest = head[:n], head[n:]
            self.replies.insert(0, rest)
        return head


def _line(text: bytes) -> bytes:
    return bytes([len(text) + 1]) + text + b"\n"


async def test_the_first_write_carries_the_negotiation_and_the_request() -> None:
    raw = Recorder([_line(b"/multistream/1.0.0") + _line(PROTO.encode()) + b"rep", b"ly"])
    stream = LazyStream(raw, PROTO)
    await stream.write(b"request")
    assert raw.writes == [negotiation_lines(PROTO) + b"request"]
    assert raw.protocol == PROTO
    assert await stream.read(2) == b"re"  # reply bytes that came with the echo are kept, in order
    assert await stream.read() == b"p"
    assert await stream.read() == b"ly"
    await stream.write(b"more")  # later writes are plain
    assert raw.writes[-1] == b"more"
    assert raw.reads_before_first_write == 0


async def test_echo_lines_split_across_reads_are_reassembled() -> None:
    whole = _line(b"/multistream/1.0.0") + _line(PROTO.encode()) + b"x"
    raw = Recorder([whole[i : i + 3] for i in range(0, len(whole), 3)])
    stream = LazyStream(raw, PROTO)
    await stream.write(b"q")
    assert await stream.read() == b"x"


@pytest.mark.parametrize(
    ("replies", "says"),
    [
        ([_line(b"/multistream/1.0.0") + _line(b"na")], "does not serve"),
        ([_line(b"/multistream/2.0.0") + _line(PROTO.encode())], "instead of the multistream-select header"),
        ([_line(b"/multistream/1.0.0") + _line(b"/other/1")], "when asked for"),
        ([_line(b"/multistream/1.0.0")], "closed during negotiation"),
        ([b"\xff\xff\x03"], "negotiation line of"),
        ([b"\x05abcde"], "not ended by a newline"),
    ],
)
async def test_a_refusal_or_a_bad_answer_is_a_protocol_violation(replies: list[bytes], says: str) -> None:
    stream = LazyStream(Recorder(replies), PROTO)
    await stream.write(b"q")
    with pytest.raises(ProtocolViolation, match=says):
        await stream.read()


async def test_a_read_before_any_write_sends_the_negotiation_first() -> None:
    raw = Recorder([_line(b"/multistream/1.0.0") + _line(PROTO.encode()) + b"hello"])
    stream = LazyStream(raw, PROTO)
    assert await stream.read() == b"hello"
    assert raw.writes == [negotiation_lines(PROTO)]
    assert MAX_LINE >= 64


async def test_a_real_py_libp2p_listener_serves_a_lazy_stream_and_refuses_an_unknown_protocol() -> None:
    from libp2p.peer.peerinfo import PeerInfo

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host

    async def echo(stream) -> None:
        data = await stream.read(1024)
        await stream.write(b"echo:" + data)
        await stream.close()

    server = new_noise_host(Identity.generate())
    client = new_noise_host(Identity.generate())
    server.set_stream_handler(PROTO, echo)
    with trio.fail_after(30):
        async with run_raw_host(server), run_raw_host(client):
            await client.connect(PeerInfo(server.get_id(), server.get_addrs()))
            stream = await open_lazy_stream(client, server.get_id(), PROTO)
            await stream.write(b"ping")
            got = b""
            while len(got) < len(b"echo:ping"):
                chunk = await stream.read(1024)
                assert chunk
                got += chunk
            assert got == b"echo:ping"
            assert stream.get_protocol() == PROTO
            await stream.close()

            refused = await open_lazy_stream(client, server.get_id(), "/test/nobody/1")
            await refused.write(b"ping")
            with pytest.raises(ProtocolViolation, match="does not serve /test/nobody/1"):
                await refused.read(1024)
            await refused.reset()


async def test_kad_exchange_with_a_node_is_lazy_and_gets_its_replies(tmp_path) -> None:
    from libp2p.kad_dht.pb.kademlia_pb2 import Message

    from ioa_p2p.node.net.host import to_libp2p_id
    from ioa_p2p.node.net.kad_io import exchange

    async with open_test_nodes(tmp_path, 2) as (a, b):
        with trio.fail_after(20):
            requests = [Message(type=Message.MessageType.FIND_NODE, key=bytes([i]) * 32) for i in range(3)]
            replies = await exchange(b.net.host, to_libp2p_id(a.peer_id), requests)
        assert [r.type for r in replies] == [Message.MessageType.FIND_NODE] * 3


# ---------------------------------------------------------------------- dialing (node/net/lazy_upgrade.py)


def test_the_upgrade_selector_still_has_the_shape_the_lazy_patch_assumes() -> None:
    import inspect

    from libp2p.protocol_muxer.generic_selector import GenericMultistreamSelector
    from libp2p.security.security_multistream import SecurityMultistream
    from libp2p.stream_muxer.muxer_multistream import MuxerMultistream

    from ioa_p2p.node.net import libp2p_patches

    libp2p_patches.apply_patches()
    assert getattr(GenericMultistreamSelector.select, "ioa_lazy", False)
    for cls in (SecurityMultistream, MuxerMultistream):  # both upgrade steps negotiate through it
        assert "_selector.select(" in inspect.getsource(cls)


async def test_the_dialer_writes_its_single_protocol_and_reads_the_echo_with_the_next_message() -> None:
    from libp2p.protocol_muxer.exceptions import MultiselectClientError
    from libp2p.protocol_muxer.generic_selector import GenericMultistreamSelector

    from ioa_p2p.node.net import libp2p_patches

    libp2p_patches.apply_patches()
    selector: GenericMultistreamSelector[str] = GenericMultistreamSelector()
    selector.add_handler("/noise", "the transport")
    raw = Recorder([_line(b"/multistream/1.0.0") + _line(b"/noise") + b"noise msg2"])
    assert await selector.select(raw, True) == ("/noise", "the transport")
    assert raw.writes == [negotiation_lines("/noise")] and raw.replies  # nothing read yet
    await raw.write(b"noise msg1")  # the handshake goes on at once
    assert await raw.read(5) == b"noise"  # the echo is taken off the first read
    assert await raw.read(100) == b" msg2"
    assert "read" not in vars(raw)  # the connection's own read again

    refused = Recorder([_line(b"/multistream/1.0.0") + _line(b"na")])
    await selector.select(refused, True)
    with pytest.raises(MultiselectClientError, match="does not support /noise"):
        await refused.read(10)


async def test_the_muxer_lines_go_together_and_the_dialer_waits_for_the_answer() -> None:
    from libp2p.abc import ISecureConn
    from libp2p.protocol_muxer.exceptions import MultiselectClientError
    from libp2p.protocol_muxer.generic_selector import GenericMultistreamSelector

    from ioa_p2p.node.net import libp2p_patches

    class SecureRecorder(Recorder):
        pass

    ISecureConn.register(SecureRecorder)  # a secured connection: the muxer step
    libp2p_patches.apply_patches()
    selector: GenericMultistreamSelector[str] = GenericMultistreamSelector()
    selector.add_handler("/yamux/1.0.0", "yamux")
    conn = SecureRecorder([_line(b"/multistream/1.0.0") + _line(b"/yamux/1.0.0") + b"frames"])
    assert await selector.select(conn, True) == ("/yamux/1.0.0", "yamux")
    assert conn.writes == [negotiation_lines("/yamux/1.0.0")]  # one write: header and protocol together
    assert await conn.read(100) == b"frames"  # the answer was read before select returned, nothing more
    refused = SecureRecorder([_line(b"/multistream/1.0.0") + _line(b"na")])
    with pytest.raises(MultiselectClientError, match="does not support /yamux/1.0.0"):
        await selector.select(refused, True)  # a listener that refused our key closes: select fails


async def test_two_nodes_dial_each_other_lazily_and_talk() -> None:
    from libp2p.peer.peerinfo import PeerInfo

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host

    async def echo(stream) -> None:
        await stream.write(b"echo:" + await stream.read(1024))
        await stream.close()

    a, b = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    a.set_stream_handler(PROTO, echo)
    b.set_stream_handler(PROTO, echo)
    with trio.fail_after(30):
        async with run_raw_host(a), run_raw_host(b):
            for dialer, listener in ((a, b), (b, a)):
                await dialer.connect(PeerInfo(listener.get_id(), listener.get_addrs()))
                for lazy in (True, False):  # our lazy stream and py-libp2p's own on the lazy connection
                    if lazy:
                        stream = await open_lazy_stream(dialer, listener.get_id(), PROTO)
                    else:
                        stream = await dialer.new_stream(listener.get_id(), [PROTO])
                    await stream.write(b"hi")
                    got = b""
                    while len(got) < 7:
                        chunk = await stream.read(1024)
                        assert chunk
                        got += chunk
                    assert got == b"echo:hi"
                    await stream.close()


# ------------------------------------------------- a dial made for a request (lazy_upgrade.pipelined_dials)


async def test_a_dial_for_a_request_does_not_wait_for_the_muxer_answer() -> None:
    from libp2p.abc import ISecureConn
    from libp2p.protocol_muxer.exceptions import MultiselectClientError
    from libp2p.protocol_muxer.generic_selector import GenericMultistreamSelector

    from ioa_p2p.node.net import libp2p_patches
    from ioa_p2p.node.net.lazy_upgrade import pipelined_dials

    class SecureRecorder(Recorder):
        pass

    ISecureConn.register(SecureRecorder)
    libp2p_patches.apply_patches()
    selector: GenericMultistreamSelector[str] = GenericMultistreamSelector()
    selector.add_handler("/yamux/1.0.0", "yamux")
    conn = SecureRecorder([_line(b"/multistream/1.0.0") + _line(b"/yamux/1.0.0") + b"frames"])
    with pipelined_dials():
        assert await selector.select(conn, True, 5) == ("/yamux/1.0.0", "yamux")
    assert conn.writes == [negotiation_lines("/yamux/1.0.0")] and conn.replies  # nothing read yet
    await conn.write(b"SYN + request")  # the first stream goes at once
    assert await conn.read(100) == b"frames"  # the muxer's first read took the answer off first
    assert "read" not in vars(conn)

    refused = SecureRecorder([_line(b"/multistream/1.0.0") + _line(b"na")])
    with pipelined_dials():
        await selector.select(refused, True, 5)
    with pytest.raises(MultiselectClientError, match="does not support /yamux/1.0.0"):
        await refused.read(12)  # a refusal fails the muxer's read (and so the request), not the dial

    closed = SecureRecorder([])  # a listener that refused our key closes the connection
    with pipelined_dials():
        await selector.select(closed, True, 5)
    with pytest.raises(MultiselectClientError, match="closed during the negotiation"):
        await closed.read(12)

    outside = SecureRecorder([_line(b"/multistream/1.0.0") + _line(b"/yamux/1.0.0")])
    await selector.select(outside, True, 5)  # outside the block a dial waits for the answer, as before
    assert not outside.replies


async def test_a_pipelined_dial_to_a_silent_listener_fails_its_read_within_the_negotiation_timeout() -> None:
    from libp2p.abc import ISecureConn
    from libp2p.protocol_muxer.exceptions import MultiselectClientError
    from libp2p.protocol_muxer.generic_selector import GenericMultistreamSelector

    from ioa_p2p.node.net import libp2p_patches
    from ioa_p2p.node.net.lazy_upgrade import pipelined_dials

    class Silent(Recorder):
        async def read(self, n: int | None = None) -> bytes:
            await trio.sleep_forever()
            raise AssertionError("unreachable")

    ISecureConn.register(Silent)
    libp2p_patches.apply_patches()
    selector: GenericMultistreamSelector[str] = GenericMultistreamSelector()
    selector.add_handler("/yamux/1.0.0", "yamux")
    silent = Silent([])
    with pipelined_dials():
        await selector.select(silent, True, 0.2)
    with trio.fail_after(10), pytest.raises(MultiselectClientError, match="no answer to /yamux/1.0.0"):
        await silent.read(12)  # the muxer's read loop ends, and with it the connection


async def test_requests_ride_with_the_dial_between_real_hosts() -> None:
    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host
    from ioa_p2p.node.net.lazy_upgrade import pipelined_dials

    async def echo(stream) -> None:
        await stream.write(b"echo:" + await stream.read(1024))
        await stream.close()

    a, b, c = (new_noise_host(Identity.generate()) for _ in range(3))
    for host in (a, b, c):
        host.set_stream_handler(PROTO, echo)
    with trio.fail_after(30):
        async with run_raw_host(a), run_raw_host(b), run_raw_host(c):
            for dialer, listener in ((a, b), (c, a)):
                dialer.get_peerstore().add_addrs(listener.get_id(), listener.get_addrs(), 600)
                assert not dialer.get_network().get_connections(listener.get_id())
                for attempt in range(2):  # the first dials (pipelined), the second reuses the connection
                    with pipelined_dials():
                        stream = await open_lazy_stream(dialer, listener.get_id(), PROTO)
                    await stream.write(b"hi%d" % attempt)
                    got = b""
                    while len(got) < 8:
                        chunk = await stream.read(1024)
                        assert chunk
                        got += chunk
                    assert got == b"echo:hi%d" % attempt
                    await stream.close()
                # py-libp2p's own negotiation on the pipelined connection, and the listener's way back
                stream = await dialer.new_stream(listener.get_id(), [PROTO])
                await stream.write(b"ok")
                assert await stream.read(1024) == b"echo:ok"
                await stream.close()


async def test_a_refused_dialer_fails_its_pipelined_request_and_the_listener_still_serves() -> None:
    from libp2p import new_host
    from libp2p.crypto.secp256k1 import create_new_key_pair as new_secp256k1_key_pair
    from libp2p.crypto.x25519 import create_new_key_pair as new_x25519_key_pair
    from libp2p.security.noise.transport import PROTOCOL_ID as NOISE_PROTOCOL_ID
    from libp2p.security.noise.transport import Transport as NoiseTransport
    from libp2p.stream_muxer.yamux.yamux import PROTOCOL_ID as YAMUX_PROTOCOL_ID
    from libp2p.stream_muxer.yamux.yamux import Yamux

    from ioa_p2p.identity import Identity
    from ioa_p2p.node.net.host import new_noise_host
    from ioa_p2p.node.net.lazy_upgrade import pipelined_dials

    served = 0

    async def echo(stream) -> None:
        nonlocal served
        served += 1
        await stream.write(b"echo:" + await stream.read(1024))
        await stream.close()

    key_pair = new_secp256k1_key_pair()  # the node's Noise accepts Ed25519 peers only
    noise = NoiseTransport(key_pair, noise_privkey=new_x25519_key_pair().private_key)
    foreign = new_host(
        key_pair=key_pair, sec_opt={NOISE_PROTOCOL_ID: noise}, muxer_opt={YAMUX_PROTOCOL_ID: Yamux}
    )
    listener, good = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    listener.set_stream_handler(PROTO, echo)
    with trio.fail_after(60):
        async with run_raw_host(listener), run_raw_host(foreign), run_raw_host(good):
            foreign.get_peerstore().add_addrs(listener.get_id(), listener.get_addrs(), 600)
            with pytest.raises(Exception):  # noqa: B017 - refused: whatever the stream or the swarm raises
                with pipelined_dials():
                    stream = await open_lazy_stream(foreign, listener.get_id(), PROTO)
                await stream.write(b"hi")
                if not await stream.read(1024):  # a clean end of the stream is a refusal too
                    raise EOFError("refused")
            assert served == 0
            good.get_peerstore().add_addrs(listener.get_id(), listener.get_addrs(), 600)
            with pipelined_dials():
                stream = await open_lazy_stream(good, listener.get_id(), PROTO)
            await stream.write(b"hi")
            assert await stream.read(1024) == b"echo:hi"
