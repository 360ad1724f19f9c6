"""Lazy multistream-select (node/net/lazy_select.py): the negotiation rides with the first request."""

from __future__ import annotations

import multiaddr
import pytest
import trio

from ioa_p2p.errors import ProtocolViolation
from ioa_p2p.node.net.lazy_select import MAX_LINE, LazyStream, negotiation_lines, open_lazy_stream

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
        return self.replies.pop(0) if self.replies else b""


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
    here = [multiaddr.Multiaddr("/ip4/127.0.0.1/tcp/0")]
    with trio.fail_after(30):
        async with server.run(listen_addrs=here), client.run(listen_addrs=here):
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
