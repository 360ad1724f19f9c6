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
