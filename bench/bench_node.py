"""Node-level figures: connect time, direct-message round trip, framed throughput on one stream.

Run: python bench/bench_node.py [--rounds N]
Two in-process nodes on 127.0.0.1 (real Noise + yamux over TCP). Prints p50/p95 and rates.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.identity import Identity
from ioa_p2p.node import open_node
from ioa_p2p.node.net.libp2p_patches import quiet_libp2p_logs
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.text import Text

BENCH_PROTOCOL = "/ioa/bench/sink/1.0.0"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(rounds: int) -> None:
    quiet_libp2p_logs()
    root = Path(tempfile.mkdtemp())
    cfg = lambda name: NodeConfig(home=root / name)  # noqa: E731
    async with (
        open_node(cfg("a"), identity=Identity.generate(), write_info=False) as a,
        open_node(cfg("b"), identity=Identity.generate(), write_info=False) as b,
    ):
        connects = []
        for _ in range(5):
            start = time.perf_counter()
            await b.connect(a.listen_addrs()[0])
            connects.append(time.perf_counter() - start)
            await b.net.host.get_network().close_peer(a.net.host.get_id())
            await trio.sleep(0.05)
        print(f"connect (Noise+yamux, dial patch on): median {statistics.median(connects) * 1000:.1f} ms")

        messaging = b.services.messaging
        rtts = []
        for i in range(rounds):
            start = time.perf_counter()
            await messaging.send_text(a.peer_id, f"m{i}")
            rtts.append(time.perf_counter() - start)
        print(
            f"direct message, new stream each (sign, send, verify, ack): "
            f"p50 {pct(rtts, 0.5) * 1000:.2f} ms  p95 {pct(rtts, 0.95) * 1000:.2f} ms  n={rounds}"
        )

        received = 0
        done = trio.Event()

        async def sink(stream):
            nonlocal received
            while True:
                data = await stream.receive()
                Envelope.from_cbor(data)
                received += 1
                if received == rounds * 10:
                    done.set()
                    await stream.send(b"done")

        a.set_stream_handler(BENCH_PROTOCOL, sink)
        count = rounds * 10
        envs = [Envelope.create(b.identity, Text(text="x" * 200), seq=i).to_cbor() for i in range(count)]
        stream = await b.open_stream(a.peer_id, BENCH_PROTOCOL)
        start = time.perf_counter()
        for i in range(0, len(envs), 32):
            await stream.send_many(envs[i : i + 32])
        await stream.receive()
        elapsed = time.perf_counter() - start
        print(
            f"one stream, batches of 32, verify each: {len(envs) / elapsed:,.0f} msg/s "
            f"({len(envs)} envelopes of {len(envs[0])} B)"
        )
        await stream.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    trio.run(main, parser.parse_args().rounds)
