"""``find`` latency (p50/p95) and recall@5 at N nodes, DHT only and gossip + DHT.

    .venv/bin/python bench/bench_find.py [--sizes 10,25,50] [--queries 30] [--modes dht,gossip]
                                         [--mode processes|inprocess] [--settle 60] [--json]
                                         [--pages on|off] [--keep-all N] [--profile DIR] [--watch S]
                                         [--misses]

Two ways to run the N nodes (real libp2p hosts on 127.0.0.1: TCP, Noise, yamux, the real DHT and gossip):

- ``processes`` (default): N - 1 agent nodes are OS processes (``open_testnet``: plus a bootstrap node, which
  holds no card), and the asking node runs in this benchmark's process (so its directory can be emptied
  before each query). Every process shares the machine's cores; run the benchmark niced
  (``nice -n 10``): the node processes inherit it.
- ``inprocess``: all N nodes in ONE process (one event loop, one core): every figure includes the other
  N - 1 nodes' work (pessimistic).

Modes:

- ``dht``: gossip off on every node, and the asking node's directory emptied before every query (cold): the
  answer comes only from the DHT: bucket pages (the sketches they list) and card records (``--pages on``,
  the default), or LSH provider records and card records (``--pages off``).
- ``dht-warm``: gossip off, the directory emptied before the first query only: a node that keeps the cards
  its earlier finds fetched (the directory is a find's card cache, by version: a card held fresh is not
  fetched again unless a page's sketch names a newer version), as a node without gossip runs.
- ``gossip``: the default configuration (gossip + DHT); queries start once the asking node's directory is
  complete (or after the settle time).

Agents get distinct descriptions: the agents of ``teaming-dev-hard.json`` (160) from the shared data, then
generated ones; queries are that set's goals (generated tasks when the file is absent: said on stderr).

Recall@5 is reported against two exact answers over all N cards: ``recall@5`` = the node's own ranking (the
offline matcher) applied to every card, i.e. what the node would answer had it every card (the loss due
to discovery alone); ``cos@5`` = the exact top 5 by cosine similarity of the card vectors.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio
from find_misses import MissProbe
from find_nets import BenchNet, cpu_seconds, open_inprocess, open_processes, wait_all_cards
from find_netstate import network_state
from find_probes import Profiles, RequestCount
from find_row import IDLE_WINDOW, Measured, find_row
from find_split import set_arm
from find_world import Truth, agents_and_goals
from traffic_census import rates

ROWS: list[dict[str, Any]] = []


async def measure(
    n: int,
    mode: str,
    where: str,
    n_queries: int,
    settle: float,
    pages: bool = True,
    keep_all: int = 0,
    profile: str = "",
    ab: str = "",
    watch: float = 0.0,
    misses: bool = False,
) -> None:
    """Measure one configuration and print its row (before the nodes are torn down)."""
    discovery: dict[str, Any] = {"gossip": mode == "gossip", "pages": pages}
    if keep_all:
        discovery["keep_all"] = keep_all
    root = Path(tempfile.mkdtemp(prefix=f"ioa-bench-find-{os.getpid()}-"))
    opener = open_processes if where == "processes" else open_inprocess
    m = Measured(n, mode, where, n_queries, pages, keep_all, profile, ab)
    m.misses = misses
    async with opener(n, discovery, root) as net:
        await settle_and_idle(net, m, settle, watch)
        await run_queries(net, m)
        if where == "processes":
            m.states["end"] = await network_state(net.node, net.remotes, n)
            m.states["end"].pop("counters")
        print(json.dumps(find_row(m, net)), flush=True)


async def settle_and_idle(net: BenchNet, m: Measured, settle: float, watch: float = 0.0) -> None:
    """Let the network settle (in gossip mode: until the asking node holds every card, at most ``settle``
    seconds; never less), then measure the idle network's CPU over ``IDLE_WINDOW``. ``watch`` > 0: every
    ``watch`` seconds of the settle, a line on stderr says how many cores the node processes used (does
    the network settle, and when)."""
    started = time.monotonic()
    async with trio.open_nursery() as nursery:
        if watch > 0:
            nursery.start_soon(watch_cores, net, watch)
        m.cards_before = await wait_all_cards(net, m.n, settle) if m.mode == "gossip" else 0
        held = m.cards_before or len(net.service.directory)
        progress(f"asker holds {held} cards after {time.monotonic() - started:.0f} s")
        await trio.sleep(max(0.0, settle - (time.monotonic() - started)))
        nursery.cancel_scope.cancel()
    idle_profiles = Profiles(Path(m.profile) / "idle", net.roles) if m.profile else None
    if idle_profiles is not None:  # where the idle network's CPU goes, over the idle window
        idle_profiles.start()
        await trio.sleep(2)  # py-spy attaches
    processes = m.where == "processes"
    m.states["settled"] = await network_state(net.node, net.remotes, m.n) if processes else None
    progress("settled; idle window")
    idle0 = cpu_seconds(net.pids)
    await trio.sleep(IDLE_WINDOW)
    m.idle = (cpu_seconds(net.pids) - idle0) / IDLE_WINDOW
    m.states["idle"] = await network_state(net.node, net.remotes, m.n) if processes else None
    if processes:  # the agents' messages by kind per minute, from before to after the idle window
        counted = [m.states[k].pop("counters") for k in ("settled", "idle")]
        m.states["per_node_per_minute"] = rates(*counted)
    m.pids = len(net.pids)
    if idle_profiles is not None:
        idle_profiles.stop()


async def watch_cores(net: BenchNet, every: float) -> None:
    """Every ``every`` seconds, the cores the network's processes used since the last line (stderr)."""
    started, last, cpu = time.monotonic(), time.monotonic(), cpu_seconds(net.pids)
    while True:
        await trio.sleep(every)
        now, used = time.monotonic(), cpu_seconds(net.pids)
        progress(f"+{now - started:.0f} s: the network used {(used - cpu) / (now - last):.2f} cores")
        last, cpu = now, used


async def run_queries(net: BenchNet, m: Measured) -> None:
    """The finds, timed, with the CPU and requests they cost; scored after the CPU figures are taken (the
    exact answers are not a find's work)."""
    _, goals = agents_and_goals(m.n)
    sent = RequestCount()  # the asking node's KAD streams and requests
    truth = Truth(net.summaries, net.service)
    me = net.node.peer_id
    m.load = os.getloadavg()[0]
    answers: list[tuple[str, set[str]]] = []
    fetched0 = net.service.stats["dht_fetched"]
    m.connected.append(len(net.node.connected_peers()))
    cpu0, wall0 = cpu_seconds(net.pids), time.monotonic()
    own0, sent0 = cpu_seconds([os.getpid()]), sent.snapshot()
    profiles = Profiles(Path(m.profile) / "find", net.roles) if m.profile else None
    if profiles is not None:
        profiles.start()
        await trio.sleep(2)  # py-spy attaches
        cpu0, wall0, own0 = cpu_seconds(net.pids), time.monotonic(), cpu_seconds([os.getpid()])
    probe = MissProbe() if m.misses else None
    for q in range(m.n_queries):
        goal = goals[q % len(goals)]
        if m.mode == "dht" or (m.mode == "dht-warm" and q == 0):
            for entry in list(net.service.directory):
                if entry.card.peer_id != me:
                    net.service.directory.remove(entry.card.peer_id)
        m.arms.append(set_arm(m.ab, q % 2 == 0))
        if probe is not None:
            probe.reset()
        t0 = time.perf_counter()
        matches = await net.service.find(goal, k=5)
        m.latencies.append((time.perf_counter() - t0) * 1000)
        progress(f"find {q + 1}/{m.n_queries}: {m.latencies[-1]:.0f} ms")
        m.phases.append(dict(net.service.last_find))
        answers.append((goal, {str(match.card.peer_id) for match in matches}))
        if probe is not None:  # why each exact top-5 card the find did not return was missed
            m.phases[-1]["misses"] = await probe.explain(net, truth.ranked(goal), answers[-1][1])
            progress(f"  misses: {json.dumps(m.phases[-1]['misses']['missed'])}")
    m.cpu, m.wall = cpu_seconds(net.pids) - cpu0, time.monotonic() - wall0
    m.own = cpu_seconds([os.getpid()]) - own0
    m.streams, m.requests = (b - a for a, b in zip(sent0, sent.snapshot(), strict=True))
    if profiles is not None:
        profiles.stop()
    for goal, got in answers:
        m.recalls.append(len(got & truth.ranked(goal)) / 5)
        m.cosines.append(len(got & truth.cosine(goal)) / 5)
    m.fetched = net.service.stats["dht_fetched"] - fetched0
    m.connected.append(len(net.node.connected_peers()))


def progress(what: str) -> None:
    """A line on stderr (a run its time bound ends still says how far it got)."""
    print(f"# {time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f}: {what}", file=sys.stderr, flush=True)


HEADER = (
    f"{'N':>3} {'mode':<7} {'where':<10} {'p50 ms':>8} {'p95 ms':>8} {'recall@5':>9} {'cos@5':>6} {'load':>5}"
)


def describe(row: dict[str, Any]) -> str:
    return (
        f"{row['n']:>3} {row['mode']:<7} {row['where']:<10} {row['p50_ms']:>8.1f} {row['p95_ms']:>8.1f} "
        f"{row['recall@5']:>9.3f} {row['cos@5']:>6.3f} {row['load']:>5.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,25,50")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--modes", default="dht,gossip")
    parser.add_argument("--mode", dest="where", choices=("processes", "inprocess"), default="processes")
    parser.add_argument(
        "--settle", type=float, default=60.0, help="seconds to let the network settle (+1 s per node)"
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON lines")
    parser.add_argument(
        "--pages",
        choices=("on", "off"),
        default="on",
        help="[discovery] pages on every node: on (sketch pages, the default) or off (provider records only)",
    )
    parser.add_argument(
        "--keep-all",
        type=int,
        default=0,
        help="[discovery] keep_all on every node: past this many cards a directory keeps only the cards "
        "its node needs and finds rely on the DHT for the rest (0: the default, keep every card)",
    )
    parser.add_argument(
        "--profile",
        default="",
        help="py-spy the asking, bootstrap and 6 agent nodes during the queries into "
        "this folder (per configuration: DIR/N-MODE; needs py-spy in the venv); the row's 'profile' sums it",
    )
    parser.add_argument(
        "--ab",
        choices=("", "prefetch", "grace", "fallback", "all"),
        default="",
        help="alternate the finds between the code as it is and the code without this part of the find's "
        "design (prefetch, grace, fallback, all): both arms see the same network and load; the row's 'ab' "
        "splits them",
    )
    parser.add_argument(
        "--watch",
        type=float,
        default=0.0,
        help="every WATCH seconds of the settle, print (stderr) the cores the node processes used",
    )
    parser.add_argument(
        "--misses",
        action="store_true",
        help="after each find, say why each exact top-5 card it did not return was missed "
        "(bench/find_misses.py; asks every node for the listed pages after a find whose listing missed "
        "a publisher: the CPU figures include it)",
    )
    parser.add_argument("--one", nargs=2, metavar=("N", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    for name in ("libp2p", "ioa_p2p", "multiaddr"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if args.one:
        n, mode = int(args.one[0]), args.one[1]
        profile = str(Path(args.profile) / f"{n}-{mode}") if args.profile else ""
        trio.run(
            measure,
            n,
            mode,
            args.where,
            args.queries,
            args.settle + n,
            args.pages == "on",
            args.keep_all,
            profile,
            args.ab,
            args.watch,
            args.misses,
        )
        return
    print(
        f"# load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, nice {os.nice(0)}",
        flush=True,
    )
    # One process per configuration: a fresh event loop each time (and, in process, a crash while tearing
    # down many nodes, seen with py-libp2p 0.8.1 at N >= 25, cannot lose the other rows).
    if not args.json:
        print(f"{HEADER}   (queries={args.queries})", flush=True)
    for n in args.sizes.split(","):
        for mode in args.modes.split(","):
            argv = [
                "--one",
                n,
                mode,
                "--queries",
                str(args.queries),
                "--settle",
                str(args.settle),
                "--pages",
                args.pages,
                "--keep-all",
                str(args.keep_all),
                "--mode",
                args.where,
                "--profile",
                args.profile,
                "--ab",
                args.ab,
                "--watch",
                str(args.watch),
                *(["--misses"] if args.misses else []),
            ]
            row = run_one(__file__, argv)
            if row is None:
                print(f"{n} {mode}: failed", flush=True)
            else:
                ROWS.append(row)
                print(json.dumps(row) if args.json else describe(row), flush=True)
                if not args.json:
                    print(
                        f"      medians: {row['phases']}, DHT part timed out: {row['dht_timeouts']}; "
                        f"CPU per query (all nodes): {row['cpu_s_per_query']} s; our processes used "
                        f"{row['cores_busy']} cores meanwhile ({row['cores_idle']} idle)",
                        flush=True,
                    )


def run_one(script: str, argv: list[str]) -> dict[str, Any] | None:
    child = subprocess.Popen([sys.executable, script, *argv], stdout=subprocess.PIPE, text=True)
    try:
        out, _ = child.communicate(timeout=5400)
    finally:
        child.kill()
        reap_orphans(child.pid)
        for home in Path(tempfile.gettempdir()).glob(f"ioa-bench-find-{child.pid}-*"):
            shutil.rmtree(home, ignore_errors=True)  # the configuration's node homes
    done = subprocess.CompletedProcess(child.args, child.returncode, out)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            row: dict[str, Any] = json.loads(line)
            return row
    return None


def reap_orphans(parent: int) -> None:
    """SIGKILL the node processes a configuration started (their IOA_PARENT_PID is its pid) that are still
    alive: py-libp2p can end the configuration's process with an internal error while its testnet stops."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"IOA_PARENT_PID={parent}".encode() in environ:
            with contextlib.suppress(OSError):
                os.kill(int(proc.name), signal.SIGKILL)


if __name__ == "__main__":
    main()
