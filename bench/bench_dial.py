"""Round trips of a dial and its first request, measured through a delay line (issue 25).

    nice -n 10 .venv/bin/python bench/bench_dial.py [--delay 0.05] [--rounds 10]

Two py-libp2p hosts built as the node builds them (Noise with Ed25519 peers, yamux, the node's patches)
talk through a TCP relay on 127.0.0.1 that holds every chunk ``--delay`` seconds in each direction (so a
round trip costs ``2 x delay`` more than on loopback; the relay's own TCP connect to the listener is not
delayed, so a real link's TCP handshake, one more round trip, is not in these figures). Per round a fresh
dialer opens a stream to the listener and sends one request:

- ``py-libp2p``: ``host.connect`` then ``host.new_stream`` (py-libp2p's own negotiation of the stream);
- ``lazy dial``: the node's dial before the request (``connect``, waiting for the muxer's answer), then
  the stream negotiated with the request (:mod:`ioa_p2p.node.net.lazy_select`);
- ``pipelined``: what :func:`ioa_p2p.node.net.kad_io.exchange` does now: the stream opened inside
  :func:`~ioa_p2p.node.net.lazy_upgrade.pipelined_dials`, so the request rides with Noise's last message;
- ``open connection``: a second request on the connection the round opened.

It prints, per way, the median time and the round trips it amounts to (``(time - the same on loopback)
/ (2 x delay)``, rounded to a tenth), so the simulator's ``--dial-rtts`` can be read off a measurement.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import trio
from libp2p.peer.peerinfo import PeerInfo
from multiaddr import Multiaddr

from ioa_p2p.identity import Identity
from ioa_p2p.node.net.host import new_noise_host
from ioa_p2p.node.net.lazy_select import open_lazy_stream
from ioa_p2p.node.net.lazy_upgrade import pipelined_dials
from ioa_p2p.node.net.libp2p_patches import quiet_libp2p_logs
from ioa_p2p.node.net.network import close_host

PROTO = "/ioa/bench/echo/1.0.0"
WAYS = ("py-libp2p", "lazy dial", "pipelined", "open connection")


async def relay(listener_port: int, delay: float, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """Accept on 127.0.0.1 and forward to ``listener_port``, every chunk held ``delay`` s each way."""

    async def pump(src: trio.SocketStream, dst: trio.SocketStream) -> None:
        send, receive = trio.open_memory_channel[tuple[float, bytes]](1024)

        async def deliver() -> None:
            try:
                async for due, chunk in receive:
                    await trio.sleep_until(due)
                    await dst.send_all(chunk)
                await dst.send_eof()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass

        async with trio.open_nursery() as nursery:
            nursery.start_soon(deliver)
            try:
                while chunk := await src.receive_some(65536):
                    await send.send((trio.current_time() + delay, chunk))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
            await send.aclose()

    async def serve(client: trio.SocketStream) -> None:
        try:
            upstream = await trio.open_tcp_stream("127.0.0.1", listener_port)
        except OSError:
            await client.aclose()
            return
        async with client, upstream, trio.open_nursery() as nursery:
            nursery.start_soon(pump, client, upstream)
            nursery.start_soon(pump, upstream, client)

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(serve, listeners)


async def ask(dialer: Any, peer: Any, opener: Callable[[], Awaitable[Any]]) -> None:
    stream = await opener()
    await stream.write(b"ping")
    got = b""
    while len(got) < 9:
        chunk = await stream.read(64)
        if not chunk:
            raise EOFError("the listener closed the stream")
        got += chunk
    await stream.close()


async def one_round(listener: Any, port: int, way: str) -> float:
    """Seconds from a fresh dialer's start to the reply of its first request (``way``: see WAYS)."""
    dialer = new_noise_host(Identity.generate())
    peer = listener.get_id()
    address = Multiaddr(f"/ip4/127.0.0.1/tcp/{port}")
    async with dialer.run(listen_addrs=[Multiaddr("/ip4/127.0.0.1/tcp/0")]):
        try:
            dialer.get_peerstore().add_addrs(peer, [address], 600)
            if way == "open connection":
                await dialer.connect(PeerInfo(peer, [address]))
                await ask(dialer, peer, lambda: open_lazy_stream(dialer, peer, PROTO))
            began = time.perf_counter()
            if way == "py-libp2p":
                await dialer.connect(PeerInfo(peer, [address]))
                await ask(dialer, peer, lambda: dialer.new_stream(peer, [PROTO]))
            elif way == "lazy dial":
                await dialer.connect(PeerInfo(peer, [address]))
                await ask(dialer, peer, lambda: open_lazy_stream(dialer, peer, PROTO))
            else:
                with pipelined_dials():
                    await ask(dialer, peer, lambda: open_lazy_stream(dialer, peer, PROTO))
            return time.perf_counter() - began
        finally:
            await close_host(dialer)


async def measure(delay: float, rounds: int) -> dict[str, float]:
    async def echo(stream: Any) -> None:
        await stream.write(b"echo:" + await stream.read(64))
        await stream.close()

    listener = new_noise_host(Identity.generate())
    listener.set_stream_handler(PROTO, echo)
    medians = {}
    async with listener.run(listen_addrs=[Multiaddr("/ip4/127.0.0.1/tcp/0")]), trio.open_nursery() as nursery:
        target = int(str(listener.get_addrs()[0]).split("/tcp/")[1].split("/")[0])
        port = await nursery.start(relay, target, delay)
        for way in WAYS:
            times = []
            for _ in range(rounds):
                with trio.fail_after(60):
                    times.append(await one_round(listener, port, way))
            medians[way] = statistics.median(times)
        await close_host(listener)
        nursery.cancel_scope.cancel()
    return medians


async def main(delay: float, rounds: int) -> None:
    quiet_libp2p_logs()
    base = await measure(0.0, rounds)
    delayed = await measure(delay, rounds)
    print(f"delay {delay * 1000:.0f} ms each way, {rounds} rounds per way (medians)")
    print(f"{'way':<18} {'loopback':>10} {'delayed':>10} {'round trips':>12}")
    for way in WAYS:
        rtts = (delayed[way] - base[way]) / (2 * delay)
        print(f"{way:<18} {base[way] * 1000:>8.1f} ms {delayed[way] * 1000:>7.1f} ms {rtts:>12.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=0.05, help="seconds each chunk is held, each way")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    trio.run(main, args.delay, args.rounds)
