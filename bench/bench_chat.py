"""Chat figures: end-to-end latency and throughput, direct streams vs a central star relay.

Run: python bench/bench_chat.py [--sizes 2,4,8] [--latency N] [--burst M] [--mode inprocess|processes]

Direct: n in-process member nodes (real Noise + yamux over TCP on 127.0.0.1, real SQLite stores)
run the chat service. Latency of one message = from ``post()`` (sign, persist, queue) until the
sender holds the acknowledgements of every other member (each verified, checked and persisted it
before acking); one message in flight at a time. Throughput = every member posts M messages at
once; messages fully delivered (stored by all n members) per second.

Star: the same members, but every message goes through ONE central relay in a separate OS process
(like IoA's server): the member signs and persists it, sends it to the relay, which verifies and
persists it, forwards it to every other member (each verifies, persists, acks the relay) and acks
the sender once all did. Same latency and throughput definitions. Both modes run in the same run.
The relay and the star's members: bench/chat_star.py; the member and relay processes of
``--mode processes``: bench/chat_procs.py.

Each configuration first lets the nodes settle for 5 s (start-up DHT and discovery work) and sends
5 warm-up messages that are not counted. All members share one Python thread (in-process nodes),
so the direct figures include every member's verification and SQLite work on one core.

``--mode processes``: one OS process per member, as deployed (the timed member in the benchmark's
process, every other member its own ``bench_chat.py --member`` process, the relay its own process), so
neither mode pays for the others' members on its core. The same member processes serve both modes (each
is a member of the direct chat and of the relay's room), and the timed messages alternate between the
modes (direct, star, star, direct, ...) once every member process is quiet (its start-up work done):
both modes meet the same load of the machine, so their ratio says what the paths cost, not which mode's
minute the box was busier in. Each mode's CPU per timed message is printed too (the author, each other
member, the relay: ``/proc/PID/task/*/schedstat`` of each thread around each message; work left over
from one message counts for the next, whichever mode). Latency only (the throughput burst needs every
member to post at once: in-process mode).

SIGTERM or Ctrl-C stop every member and relay process; they are also told to end should the benchmark's
process die without cleaning up (Linux ``PR_SET_PDEATHSIG``).

Links: every process listens and dials on 127.0.0.1, so by default no link has any latency and the figures
are the CPU and scheduling cost of each path alone (``--latency`` is the number of timed messages, not a
delay). ``--link-delay MS`` runs the whole benchmark in a network namespace whose loopback holds every
packet MS ms (root): every link then costs MS each way in both modes, so a direct message and its acks
cross two links and a star message four, as on a network (``chat_procs.run_with_link_delay``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import trio
from chat_procs import (
    cpu_between,
    die_with_parent,
    open_member_processes,
    run_with_link_delay,
    stop_processes,
    thread_cpu,
    wait_quiet,
)
from chat_star import SUBMIT, Relay, StarMember, join_relay

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import IoAError
from ioa_p2p.history.bodies import make_genesis
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node import Node, open_node
from ioa_p2p.node.chats.service import Chats
from ioa_p2p.node.net.libp2p_patches import quiet_libp2p_logs
from ioa_p2p.wire.envelope import Envelope

FAST = {"sync_interval": 30.0, "retry_initial": 0.1, "retry_max": 0.5}
TEXT = "x" * 100
SETTLE = 5.0
WARMUP = 5


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@asynccontextmanager
async def open_members(root: Path, n: int) -> AsyncIterator[list[Node]]:
    async with AsyncExitStack() as stack:
        nodes = []
        for i in range(n):
            cfg = NodeConfig(home=root / f"m{i}", raw={"chats": FAST})
            nodes.append(
                await stack.enter_async_context(
                    open_node(cfg, identity=Identity.generate(), write_info=False)
                )
            )
        for i, a in enumerate(nodes):
            for b in nodes[i + 1 :]:
                await a.connect(b.listen_addrs()[0])
        await trio.sleep(SETTLE)  # let start-up work (DHT bootstrap, discovery dials) settle
        failure: BaseException | None = None
        try:
            yield nodes
        except BaseException as exc:  # open_node currently swallows the block's exception
            failure = exc
            raise
    if failure is not None:
        raise failure


# --------------------------------------------------------------------------- direct


async def bench_direct(root: Path, n: int, latency: int, burst: int) -> dict[str, float]:
    async with open_members(root / f"direct{n}", n) as nodes:
        chats: list[Chats] = [node.services.chats for node in nodes]
        handle = await chats[0].create_chat([node.peer_id for node in nodes[1:]], "bench")
        chat_id = handle.chat_id
        sender = chats[0]
        samples = []
        for i in range(WARMUP + latency):
            start = time.perf_counter()
            await sender.post(chat_id, "text", {"text": f"{TEXT} {i}"})
            await sender.wait_until(lambda: sender.store.outbox_size() == 0)
            if i >= WARMUP:
                samples.append(time.perf_counter() - start)
        target = WARMUP + latency + n * burst

        async def flood(c: Chats) -> None:
            for i in range(burst):
                await c.post(chat_id, "text", {"text": f"{TEXT} burst {i}"})

        start = time.perf_counter()
        async with trio.open_nursery() as nursery:
            for c in chats:
                nursery.start_soon(flood, c)
        for c in chats:
            await c.wait_until(lambda c=c: len(c.get(chat_id)) >= target)
        elapsed = time.perf_counter() - start
        exports = {c.export(chat_id) for c in chats}
        assert len(exports) == 1, "stores differ"
    return {
        "p50_ms": pct(samples, 0.5) * 1000,
        "p90_ms": pct(samples, 0.9) * 1000,
        "p95_ms": pct(samples, 0.95) * 1000,
        "msgs_per_s": n * burst / elapsed,
        "stored_per_node_per_s": n * burst / elapsed,
    }


# --------------------------------------------------------------------------- star relay


async def bench_star(root: Path, n: int, latency: int, burst: int, relay_addr: str) -> dict[str, float]:
    async with open_members(root / f"star{n}", n) as nodes:
        identities = [node.identity for node in nodes]
        genesis = make_genesis(
            identities[0], [i.peer_id for i in identities[1:]], "star", now_ms=1, nonce=bytes(16)
        )
        members = [StarMember(node, genesis) for node in nodes]
        streams = [await join_relay(node, relay_addr, genesis) for node in nodes]

        async def submit(k: int, text: str) -> None:
            member = members[k]
            env = member.history.compose(nodes[k].identity, "text", {"text": text}, now_ms=2)
            member.history.add(env, persist=member.persist)
            await streams[k].send(env.to_cbor())

        samples = []
        for i in range(WARMUP + latency):
            start = time.perf_counter()
            await submit(0, f"{TEXT} {i}")
            await streams[0].receive()  # the relay's ack: every member stored it
            if i >= WARMUP:
                samples.append(time.perf_counter() - start)
        target = WARMUP + latency + n * burst

        async def flood(k: int) -> None:
            # each member only sees its own messages echo back after the relay forwarded them,
            # so messages chain per author; others' arrive through the forward stream
            for i in range(burst):
                await submit(k, f"{TEXT} burst {i}")
            for _ in range(burst):
                await streams[k].receive()

        start = time.perf_counter()
        async with trio.open_nursery() as nursery:
            for k in range(n):
                nursery.start_soon(flood, k)
        for member in members:
            await member.wait_count(target)
        elapsed = time.perf_counter() - start
        for stream in streams:
            await stream.close()
        for member in members:
            member.store.close()
    return {
        "p50_ms": pct(samples, 0.5) * 1000,
        "p90_ms": pct(samples, 0.9) * 1000,
        "p95_ms": pct(samples, 0.95) * 1000,
        "msgs_per_s": n * burst / elapsed,
        "stored_per_node_per_s": n * burst / elapsed,
    }


# --------------------------------------------------------------------------- processes mode


async def member_server(home: Path, star: bool) -> None:
    """One member in its own process (``--member``): prints ``addr <multiaddr>``; a star member then
    reads ``<genesis hex> <relay addr>`` on stdin, joins the relay and prints ``joined``. It serves until
    stdin closes."""
    quiet()
    config = NodeConfig(home=home, raw={"chats": FAST})
    async with open_node(config, identity=Identity.generate(), write_info=False) as node:
        print(f"addr {node.listen_addrs()[0]}", flush=True)
        stdin = trio.wrap_file(sys.stdin)
        if star:
            genesis_hex, relay_addr = (await stdin.readline()).split()
            member = StarMember(node, Envelope.from_cbor(bytes.fromhex(genesis_hex)))
            await join_relay(node, relay_addr, member.history.genesis)
            print("joined", flush=True)
        while await stdin.readline():
            pass
        cpu = node.budgets.snapshot()["cpu"]  # how often this member paced the others' work
        print(f"member: stdin closed, stopping; cpu budget {json.dumps(cpu)}", file=sys.stderr, flush=True)


async def connect_retrying(node: Node, addr: str, tries: int = 3) -> PeerId:
    """``node.connect(addr)``, tried again on failure (member processes answer late on a loaded machine)."""
    for attempt in range(tries):
        try:
            return await node.connect(addr)
        except IoAError:
            if attempt == tries - 1:
                raise
    raise AssertionError("unreachable")


async def bench_processes(
    root: Path, n: int, latency: int, relay_addr: str, relay_pid: int
) -> dict[str, dict[str, float]]:
    """Direct and star over the same member processes, their timed messages interleaved (direct, star,
    star, direct, ...): both modes meet the same machine load, minute by minute, so their ratio says what
    the paths cost rather than which mode's minute the box was busier in."""
    base = root / f"p{n}"
    async with (
        open_member_processes(Path(__file__), base, n - 1, star=True) as members,
        open_members(base, 1) as nodes,
    ):
        leader = nodes[0]
        peers = [await connect_retrying(leader, addr) for _, addr in members]
        # the direct chat (every member process serves it) and the star room, joined by the same members
        sender: Chats = leader.services.chats
        handle = await sender.create_chat(peers, "bench")
        genesis = make_genesis(leader.identity, peers, "star", now_ms=1, nonce=bytes(16))
        for proc, _ in members:
            proc.stdin.write(f"{genesis.to_cbor().hex()} {relay_addr}\n")
            proc.stdin.flush()
        for proc, _ in members:
            line = await trio.to_thread.run_sync(proc.stdout.readline, abandon_on_cancel=True)
            if line.strip() != "joined":
                raise RuntimeError(f"a star member did not join the relay: {line!r}")
        member = StarMember(leader, genesis)
        await connect_retrying(leader, relay_addr)
        stream = await join_relay(leader, relay_addr, genesis)
        await trio.sleep(SETTLE)
        # the author's own process too: its node mints its stamps in a worker thread while the members start
        quiet_s = await wait_quiet([proc.pid for proc, _ in members] + [relay_pid, os.getpid()])

        async def direct(i: int) -> None:
            await sender.post(handle.chat_id, "text", {"text": f"{TEXT} {i}"})
            await sender.wait_until(lambda: sender.store.outbox_size() == 0)

        async def star(i: int) -> None:
            env = member.history.compose(leader.identity, "text", {"text": f"{TEXT} {i}"}, now_ms=2)
            member.history.add(env, persist=member.persist)
            await stream.send(env.to_cbor())
            await stream.receive()  # the relay's ack: every member stored it

        samples: dict[str, list[float]] = {"direct": [], "star": []}
        # CPU seconds each process spent during each mode's timed messages: author, members, relay
        pids = [os.getpid()] + [proc.pid for proc, _ in members] + [relay_pid]
        spent: dict[str, list[float]] = {"direct": [0.0] * len(pids), "star": [0.0] * len(pids)}
        for i in range(WARMUP + latency):
            order = (
                (("direct", direct), ("star", star)) if i % 2 == 0 else (("star", star), ("direct", direct))
            )
            for mode, one in order:
                cpu_before = [thread_cpu(pid) for pid in reversed(pids)][::-1]  # the author's own last
                start = time.perf_counter()
                await one(i)
                if i >= WARMUP:
                    samples[mode].append(time.perf_counter() - start)
                    cpu_after = [thread_cpu(pid) for pid in pids]  # the author's own first
                    for k, (b, a) in enumerate(zip(cpu_before, cpu_after, strict=True)):
                        spent[mode][k] += cpu_between(b, a)
        await stream.close()
        member.store.close()
    return {
        mode: {
            "p50_ms": pct(s, 0.5) * 1000,
            "p90_ms": pct(s, 0.9) * 1000,
            "p95_ms": pct(s, 0.95) * 1000,
            "msgs_per_s": 0.0,
            "quiet_s": quiet_s,
            # CPU ms per timed message: the author, each other member (mean and most), the relay
            "author_cpu_ms": spent[mode][0] / len(s) * 1000,
            "member_cpu_ms": sum(spent[mode][1:-1]) / (len(pids) - 2) / len(s) * 1000,
            "member_cpu_max_ms": max(spent[mode][1:-1]) / len(s) * 1000,
            "relay_cpu_ms": spent[mode][-1] / len(s) * 1000,
        }
        for mode, s in samples.items()
    }


async def relay_server(home: Path) -> None:
    quiet()
    async with open_node(NodeConfig(home=home), identity=Identity.generate(), write_info=False) as node:
        relay = Relay(node, home)
        node.set_stream_handler(SUBMIT, relay.handle_submit)
        print(node.listen_addrs()[0], flush=True)
        await trio.sleep_forever()


# --------------------------------------------------------------------------- main


async def run(
    sizes: list[int], latency: int, burst: int, root: Path, relay_addr: str, relay_pid: int, processes: bool
) -> None:
    quiet()
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_end_on_sigterm, signals, nursery.cancel_scope)
            await _run_sizes(sizes, latency, burst, root, relay_addr, relay_pid, processes)
            nursery.cancel_scope.cancel()


async def _end_on_sigterm(signals: Any, scope: trio.CancelScope) -> None:
    """SIGTERM ends the run as Ctrl-C does: every member process is stopped on the way out."""
    async for _ in signals:
        print("bench_chat: SIGTERM, stopping the member processes", file=sys.stderr, flush=True)
        scope.cancel()
        raise Terminated


class Terminated(Exception):
    """The benchmark was told to stop (SIGTERM)."""


async def _run_sizes(
    sizes: list[int], latency: int, burst: int, root: Path, relay_addr: str, relay_pid: int, processes: bool
) -> None:
    print(
        f"{'members':>7} {'mode':>6} {'p50 ms':>8} {'p90 ms':>8} {'p95 ms':>8} {'msgs/s':>8} "
        f"{'direct/star p50':>16}"
    )
    for n in sizes:
        p50 = 0.0
        if processes:
            both = await bench_processes(root, n, latency, relay_addr, relay_pid)
            print(
                f"# {n} members: member processes quiet after {both['direct']['quiet_s']:.1f} s", flush=True
            )
        for mode in ("direct", "star"):
            if processes:
                figures = both[mode]
            elif mode == "direct":
                figures = await bench_direct(root, n, latency, burst)
            else:
                figures = await bench_star(root, n, latency, burst, relay_addr)
            p50 = figures["p50_ms"] if mode == "direct" else p50
            ratio = f"{p50 / figures['p50_ms']:16.2f}" if mode == "star" else ""
            rate = f"{figures['msgs_per_s']:8.0f}" if figures["msgs_per_s"] else f"{'-':>8}"
            print(
                f"{n:>7} {mode:>6} {figures['p50_ms']:8.2f} {figures.get('p90_ms', 0.0):8.2f} "
                f"{figures['p95_ms']:8.2f} {rate} {ratio}",
                flush=True,
            )
        if processes:
            for mode in ("direct", "star"):
                f = both[mode]
                print(
                    f"# {n} members, {mode}: CPU ms per message: author {f['author_cpu_ms']:.2f}, each other "
                    f"member {f['member_cpu_ms']:.2f} (most {f['member_cpu_max_ms']:.2f}), "
                    f"relay {f['relay_cpu_ms']:.2f}",
                    flush=True,
                )


def quiet() -> None:
    quiet_libp2p_logs()
    logging.getLogger("libp2p").setLevel(logging.CRITICAL)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2,4,8")
    parser.add_argument("--latency", type=int, default=100, help="messages timed one by one")
    parser.add_argument("--burst", type=int, default=50, help="messages per member, all at once")
    parser.add_argument(
        "--mode",
        choices=("inprocess", "processes"),
        default="inprocess",
        help="members in one process or one each",
    )
    parser.add_argument(
        "--link-delay",
        type=float,
        default=0.0,
        help="ms every link holds each packet, each way (a network namespace; root)",
    )
    parser.add_argument("--inside-links", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--relay-server", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--member", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--star", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.relay_server:
        trio.run(relay_server, args.relay_server)
        return
    if args.member:
        trio.run(member_server, args.member, args.star)
        return
    if args.link_delay > 0 and not args.inside_links:
        signal.signal(signal.SIGTERM, _exit_on_sigterm)  # the namespace and its processes go on the way out
        sys.exit(
            run_with_link_delay([sys.executable, __file__, *sys.argv[1:], "--inside-links"], args.link_delay)
        )
    root = Path(tempfile.mkdtemp(prefix="bench-chat-"))
    (root / "relay").mkdir()
    signal.signal(signal.SIGTERM, _exit_on_sigterm)  # until trio runs (it takes SIGTERM over then)
    with (root / "relay.log").open("w") as log:
        relay = subprocess.Popen(
            [sys.executable, __file__, "--relay-server", str(root / "relay")],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            preexec_fn=die_with_parent,  # noqa: PLW1509 - no threads yet
        )
    try:
        assert relay.stdout is not None
        relay_addr = relay.stdout.readline().strip()
        sizes = [int(s) for s in args.sizes.split(",")]
        processes = args.mode == "processes"
        trio.run(run, sizes, args.latency, args.burst, root, relay_addr, relay.pid, processes)
    except* Terminated:
        sys.exit(128 + signal.SIGTERM)
    finally:
        stop_processes([relay])


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    main()
