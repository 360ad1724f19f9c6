"""Hostile load against real `ioa node start` processes, from raw py-libp2p hosts.

Each scenario starts a victim node and a good node (both OS processes; the good one bootstraps from
the victim), measures the good node's direct-message round trip to the victim (``POST /send`` on its
control API: a new ``/ioa/msg`` stream, a signed message, the victim's ack; timed in a process of its
own), then attacks with fresh identities (:mod:`tests.hostile_attacks`, in a process of its own at
low CPU priority, standing in for a remote machine: four identities, or 16, 64 and 256 one after the
other for the many-identity floods, ``IOA_TEST_FLOODS`` overriding the counts) while sampling the
victim's RSS (``/proc/<pid>/status``). Bounds asserted, as the issues demand: the victim stays up and
answers the good peer, and its RSS stays under :data:`RSS_BUDGET_MB` (docs/security.md, "Resource
budgets"), whatever the budgets held. The round trips and the victim's CPU are printed (``-s``); the
round trip's ratio to its quiet baseline is a speed figure, measured by
``bench/bench_hostile_rtt.py``, never asserted here. The tests wait for what an attack did (the
attacker's progress lines, the victim's budgets), not for a time a loaded machine stretches, and
each is bounded as a whole by ``trio.fail_after``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.control_client import ControlClient

from . import hostile_attacks
from .conftest import NodeProcess, ioa_init_all, stop_all
from .test_chats_process import free_port

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
#: The documented ceiling for a node under these attacks (docs/security.md, "Resource budgets").
RSS_BUDGET_MB = 300.0


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for pid {pid}")


@dataclass
class Victim:
    node: NodeProcess
    good: NodeProcess
    victim_id: str
    good_id: str
    peaks: list[float] = field(default_factory=list)
    rss_before: float = 0.0
    cpu_percent: float = 0.0

    @property
    def pid(self) -> int:
        return self.node.proc.pid

    def control(self, which: NodeProcess) -> ControlClient:
        return ControlClient(which.home, timeout=30)

    def assert_up(self) -> None:
        assert self.node.proc.poll() is None, self.node.output()[-3000:]
        assert self.control(self.node).call("GET", "/peers") is not None

    def budgets(self) -> dict[str, Any]:
        result: dict[str, Any] = self.control(self.node).call("GET", "/budgets")
        return result


@pytest.fixture
def victim(tmp_path: Path) -> Iterator[Victim]:
    victim_id, good_id = ioa_init_all([tmp_path / "victim", tmp_path / "good"])
    # The matcher's model (~190 MB, fixed) stays cold: the RSS then shows what the attacks grow (security.md).
    with open(tmp_path / "victim" / "config.toml", "a") as f:
        f.write("\n[discovery]\nwarm = false\n")
    # For showing that these tests fail without the budgets, e.g.
    # IOA_TEST_VICTIM_LIMITS="pending_bytes_per_chat = 9000000000; pending_bytes_total = 9000000000"
    if os.environ.get("IOA_TEST_VICTIM_LIMITS"):
        with open(tmp_path / "victim" / "config.toml", "a") as f:
            f.write("\n[limits]\n" + os.environ["IOA_TEST_VICTIM_LIMITS"].replace(";", "\n") + "\n")
    # the victim's address is known before it starts: both start at once (the good one retries its dial)
    addr = f"/ip4/127.0.0.1/tcp/{free_port()}/p2p/{victim_id}"
    node = NodeProcess(tmp_path / "victim", "--listen", addr.split("/p2p/")[0])
    procs = [node]
    try:
        good = NodeProcess(tmp_path / "good", "--bootstrap", addr)
        procs.append(good)
        assert addr in node.wait_listening()
        good.wait_listening()
        yield Victim(node, good, victim_id, good_id)
    finally:
        # a flooded victim shuts down in a second or two; at load 40 it took over the default 15 s (then -9)
        codes = stop_all(procs, timeout=60)
    assert codes == [0] * len(procs), [p.output()[-3000:] for p in procs]


#: Times ``count`` good direct messages in a process of its own (nothing else in it competes).
_ROUND_TRIPS = """
import json, sys, time
from pathlib import Path
from ioa_p2p.control_client import ControlClient
client = ControlClient(Path(sys.argv[1]), timeout=30)
out = []
for i in range(int(sys.argv[3])):
    start = time.perf_counter()
    reply = client.call("POST", "/send", {"peer": sys.argv[2], "text": f"good {i}"})
    assert reply["acked"] is True
    out.append(time.perf_counter() - start)
    time.sleep(0.1)
print(json.dumps(out))
"""


async def round_trips(v: Victim, count: int) -> list[float]:
    """``count`` good direct messages from the good node to the victim, each timed from request to
    acknowledgement (a new /ioa/msg stream, a signed message, the victim's ack)."""
    args = [sys.executable, "-c", _ROUND_TRIPS, str(v.good.home), v.victim_id, str(count)]
    done = await trio.run_process(args, capture_stdout=True, capture_stderr=True, check=False)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    timings: list[float] = json.loads(done.stdout)
    return timings


async def baseline_rtt(v: Victim) -> float:
    with trio.fail_after(60):
        while True:  # the good node reaches the victim once bootstrap is done
            try:
                await round_trips(v, 1)
                break
            except AssertionError:
                await trio.sleep(0.3)
        await round_trips(v, 3)  # warm up
        median = statistics.median(await round_trips(v, 15))
        v.rss_before = rss_mb(v.pid)
        return median


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def watch_rss(v: Victim, stop: trio.Event) -> None:
    peak = rss_mb(v.pid)
    t0, c0 = time.monotonic(), cpu_s(v.pid)
    while not stop.is_set():
        peak = max(peak, rss_mb(v.pid))
        with trio.move_on_after(0.2):
            await stop.wait()
    v.cpu_percent = 100 * (cpu_s(v.pid) - c0) / (time.monotonic() - t0)
    v.peaks.append(peak)


@dataclass
class Attack:
    """What one attack did: the attacker's own tally, the good round trip during it (median) and
    the victim's RSS peak."""

    result: dict[str, Any]
    rtt: float
    peak: float
    #: the victim's ``GET /budgets`` right after the round trips, the attack still running
    budgets: dict[str, Any]


async def during_attack(
    v: Victim,
    scenario: str,
    tmp_path: Path,
    *,
    seconds: float,
    ramp: float,
    rounds: int = 15,
    identities: int = hostile_attacks.IDENTITIES,
    ready: Callable[[dict[str, Any], Victim], bool] | None = None,
) -> Attack:
    """Run ``scenario`` of :mod:`tests.hostile_attacks` with ``identities`` identities for ``seconds``
    (counted once they are all connected), and on until the round trips are timed (a loaded machine
    stretches them), while sampling the victim's RSS; ``ramp`` s into it, and once ``ready(progress,
    victim)`` holds (``progress``: the attacker's tally so far; asked every 0.2 s, in a thread),
    time ``rounds`` good round trips."""
    args = [
        sys.executable,
        "-m",
        "tests.hostile_attacks",
        scenario,
        v.node.addrs[0],
        v.victim_id,
        v.good_id,
        str(tmp_path),
        str(seconds),
        str(identities),
    ]
    stop = trio.Event()
    connected = trio.Event()
    lines: list[str] = []
    progress: dict[str, Any] = {}
    codes: list[int] = []
    measured = trio.Event()  # the attacker's stdin is closed once this is set: the attack may end

    async def attacker() -> None:
        # the attacker's stderr (with IOA_ATTACK_DEBUG=1: why each stream ended) is kept beside the homes
        with (tmp_path / f"attacker-{scenario}-{identities}.err").open("wb") as err:  # noqa: ASYNC230
            proc = await trio.lowlevel.open_process(
                args,
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env={**os.environ, "IOA_ATTACK_HOLD": "1"},
            )
        try:
            assert proc.stdout is not None and proc.stdin is not None

            async def release() -> None:
                await measured.wait()
                await proc.stdin.aclose()  # type: ignore[union-attr]

            nursery.start_soon(release)
            buffer = b""
            async for chunk in proc.stdout:
                buffer += chunk
                *done, buffer = buffer.split(b"\n")
                for line in done:
                    if line.startswith(b'{"progress"'):
                        progress.update(json.loads(line)["progress"])
                        continue
                    lines.append(line.decode())
                    if line.startswith(b'{"connected"'):
                        connected.set()
            codes.append(await proc.wait())
        finally:
            if proc.returncode is None:  # the test failed or was cancelled: end the attacker
                proc.kill()
                with trio.CancelScope(shield=True):
                    await proc.wait()
            connected.set()
            stop.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(attacker)
        await connected.wait()  # the identities' handshakes done: the attack starts
        nursery.start_soon(watch_rss, v, stop)
        await trio.sleep(ramp)
        while ready is not None and not await trio.to_thread.run_sync(ready, dict(progress), v):
            assert not stop.is_set(), f"the attack ended before it was ready: {lines[-3:]}"
            await trio.sleep(0.2)
        v.assert_up()
        rtts = await round_trips(v, rounds)
        budgets = await trio.to_thread.run_sync(v.budgets)
        assert not stop.is_set(), "the attack ended before the round trips were timed"
        measured.set()
    assert codes == [0], lines[-5:]
    result = json.loads(lines[-1])
    return Attack(result, statistics.median(rtts), v.peaks[-1], budgets)


def report(v: Victim, name: str, base: float, attack: Attack, extra: str = "") -> None:
    print(
        f"\n[{name}] good round trip: baseline {base * 1000:.1f} ms, under attack {attack.rtt * 1000:.1f} ms "
        f"({attack.rtt / base:.2f}x); victim RSS {v.rss_before:.0f} MB before, peak {attack.peak:.0f} MB, "
        f"CPU {v.cpu_percent:.0f}% during the attack; attacker: {json.dumps(attack.result)} {extra}"
    )


@pytest.mark.parametrize("identities", [4, pytest.param(16, marks=pytest.mark.long)])
async def test_half_sent_frames_from_4_and_16_identities(
    victim: Victim, tmp_path: Path, identities: int
) -> None:
    """250 streams per identity, each announcing a ~1 MiB frame, sending 768 KiB of it, then trickling
    one byte per second (re-opened when reset): 1,000 streams from 4 identities; 4,000 from 16 (before
    issue 20 these took a node to 723-788 MB: the budgets per identity held, the total did not)."""
    v = victim
    streams = identities * 128  # about half the 250 each identity keeps opening

    def ready(progress: dict[str, Any], v: Victim) -> bool:
        """The attack did what is asserted below, however long a loaded machine made that take:
        512 streams opened and frames refused from their length prefix (4 identities), or 2,048
        streams at least tried (16 may find their pool spent and wait, paced)."""
        if identities > 4:
            return progress.get("opened", 0) + progress.get("ended", 0) >= streams
        return progress.get("opened", 0) >= streams and v.budgets()["partial_frame_bytes"]["refused"] > 0

    with trio.fail_after(400):  # a bound, not a speed target: the test waits for conditions
        base = await baseline_rtt(v)
        attack = await during_attack(
            v, "half_sent_frames", tmp_path, seconds=5.0, ramp=0.0, identities=identities, ready=ready
        )
        v.assert_up()
    budgets = attack.budgets
    report(v, f"half-sent frames, {identities} identities", base, attack)
    print(json.dumps({k: budgets[k] for k in ("partial_frame_bytes", "streams", "inbound_streams", "cpu")}))
    frames, limits = budgets["partial_frame_bytes"], budgets["limits"]
    assert attack.result["opened"] + attack.result["ended"] >= streams  # the attack really ran
    assert frames["top_holder"] <= limits["partial_frame_bytes_per_peer"]
    assert frames["held"] <= limits["partial_frame_bytes_total"]  # the total holds, whatever the count
    assert frames["held_by_strangers"] <= frames["total"] - frames["reserved_for_trusted"]
    assert attack.peak < RSS_BUDGET_MB
    if identities == 4:  # (16 fresh identities may find the strangers' pool spent: all paced)
        assert attack.result["opened"] >= streams and frames["refused"] > 0


async def test_six_hundred_concurrent_streams_slowloris_and_garbage(victim: Victim, tmp_path: Path) -> None:
    v = victim

    def ready(progress: dict[str, Any], v: Victim) -> bool:
        """600 streams opened, and some refused before negotiation (what is asserted below)."""
        opened = progress.get("opened", 0) >= 600
        return opened and v.budgets()["streams"]["refused_before_negotiation"] > 0

    with trio.fail_after(240):  # a bound: at load 50 the 600 streams took ~90 s to open
        base = await baseline_rtt(v)
        attack = await during_attack(
            v, "idle_and_garbage_streams", tmp_path, seconds=1.0, ramp=0.0, ready=ready
        )
        v.assert_up()
    budgets = attack.budgets
    report(v, "600 streams", base, attack)
    print(json.dumps(budgets["streams"]))
    assert attack.result["opened"] >= 600
    streams, limits = budgets["streams"], budgets["limits"]
    assert streams["refused_before_negotiation"] > 0  # 150 per identity, 128 allowed
    assert 0 < streams["top_holder"] <= limits["streams_per_peer"]
    assert attack.peak < RSS_BUDGET_MB


async def test_orphan_flood_from_a_chat_member(victim: Victim, tmp_path: Path) -> None:
    """A member of five chats (it created them, inviting the victim and the good node) sends 1,000
    messages of 300 KiB whose parents do not exist; the good member's chat keeps working."""
    v = victim

    def ready(progress: dict[str, Any], v: Victim) -> bool:
        """500 orphans acknowledged, and the victim refused pending bytes and sync pulls (asserted below)."""
        if sum(progress.get("acks", {}).values()) < 500:
            return False
        budgets = v.budgets()
        return budgets["pending_bytes"]["refused"] > 0 and budgets["sync_pulls"]["refused"] > 0

    with trio.fail_after(400):  # a bound, not a speed target: at load 40 the 500 acks took over 170 s
        base = await baseline_rtt(v)
        attack = await during_attack(v, "orphan_flood", tmp_path, seconds=1.0, ramp=0.0, ready=ready)
        listing = await trio.to_thread.run_sync(lambda: v.control(v.node).call("GET", "/chats"))
        budgets = await trio.to_thread.run_sync(v.budgets)
        # the good member's chat still works: a post from the good node reaches the victim
        chat_hex = attack.result["chats"][0]
        good_client = v.control(v.good)
        await trio.to_thread.run_sync(
            lambda: good_client.call("POST", "/chats/post", {"chat": chat_hex, "text": "still here"})
        )
        await wait_history(v, chat_hex, "still here")
        v.assert_up()
    mine = [c for c in listing if c["chat_id"] in set(attack.result["chats"])]
    pending = budgets["pending_bytes"]
    report(v, "orphan flood", base, attack, f"pending bytes per chat {[c['pending_bytes'] for c in mine]}")
    print(json.dumps(pending))
    acks = attack.result["acks"]
    assert attack.result["accepted"] and len(mine) == hostile_attacks.ORPHAN_CHATS
    assert sum(acks.values()) >= 500 and set(acks) == {"missing"}  # never `stored`
    limits = budgets["limits"]
    assert all(c["pending_bytes"] <= limits["pending_bytes_per_chat"] for c in mine)
    assert 0 < pending["held"] <= limits["pending_bytes_total"] and pending["refused"] > 0
    assert sum(c["pending_refused"] for c in mine) > 0
    assert budgets["sync_pulls"]["refused"] > 0  # pulls the orphans asked for were rate-limited
    assert attack.peak < RSS_BUDGET_MB


async def wait_history(v: Victim, chat_hex: str, text: str) -> None:
    client = v.control(v.node)
    with trio.fail_after(30):
        while True:
            history = await trio.to_thread.run_sync(
                lambda: client.call("GET", f"/chats/history?chat={chat_hex}")
            )
            if any(m["content"].get("text") == text for m in history["messages"]):
                return
            await trio.sleep(0.3)


#: Identities of the many-identity floods (``IOA_TEST_FLOODS`` overrides), each lasting this long once
#: they are all connected.
FLOODS = tuple(int(n) for n in os.environ.get("IOA_TEST_FLOODS", "16,64,256").split(","))
FLOOD_SECONDS = 10.0


@pytest.mark.long
async def test_every_flood_at_once_from_16_64_and_256_identities(victim: Victim, tmp_path: Path) -> None:
    """Identities are free. On one victim, one after the other: one identity writing invalid 2-byte
    frames on 4 streams as fast as the victim takes them, never reading an answer (before: a reply
    per frame, ~95 % of a core, the good round trip 4.7x); then every flood of
    :func:`tests.hostile_attacks.mixed_flood` at once (half-sent ~1 MiB frames, the same pushed past
    the yamux window, 50 MB negotiation lines, invalid 2-byte frames never read) from 16, then 64,
    then 256 fresh identities. Asserted: the victim stays up within its RSS budget and answers the
    good peer, a stream of garbage is cut after 16 answers, what a peer costs is charged to it, the
    strangers' share of the totals holds; printed: the good round trip against its quiet baseline,
    the victim's CPU, what its budgets held and refused."""
    v = victim
    with trio.fail_after(330):
        base = await baseline_rtt(v)
        garbage = await during_attack(
            v, "invalid_frames", tmp_path, seconds=FLOOD_SECONDS, ramp=3.0, identities=1
        )
        v.assert_up()
        faults = await trio.to_thread.run_sync(lambda: v.control(v.node).call("GET", "/faults"))
        report(v, "invalid 2-byte frames, 1 identity", base, garbage, f"faults {faults['counts']}")
        assert garbage.result["opened"] >= 1
        # streams cut after 16 refused frames, not answered frame after frame for ever
        assert faults["counts"].get("stream /ioa/msg/1.0.0:ProtocolViolation", 0) >= 1
        assert garbage.budgets["cpu"]["charged_s_by_trust"]["stranger"] > 0
        assert garbage.peak < RSS_BUDGET_MB
        for identities in FLOODS:
            attack = await during_attack(
                v, "mixed_flood", tmp_path, seconds=FLOOD_SECONDS, ramp=3.0, identities=identities
            )
            v.assert_up()
            budgets = attack.budgets
            report(v, f"every flood, {identities} identities", base, attack)
            shown = ("partial_frame_bytes", "unread_bytes", "inbound_streams", "cpu")
            print(json.dumps({k: budgets[k] for k in shown}))
            assert attack.result["identities"] >= identities // 2  # the attack really ran (a loaded
            # victim may fail some handshakes, and py-libp2p accepts at most ~250 connections)
            assert attack.result["opened"] + attack.result["ended"] > 0
            assert attack.peak < RSS_BUDGET_MB
            held = budgets["partial_frame_bytes"]
            assert held["held"] <= budgets["limits"]["partial_frame_bytes_total"]
            inbound = budgets["inbound_streams"]
            assert inbound["held_by_strangers"] <= inbound["total"] - inbound["reserved_for_trusted"]


def test_rss_budget_is_the_documented_one() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "security.md").read_text()
    assert f"{RSS_BUDGET_MB:.0f} MB" in doc
    assert os.path.exists("/proc/self/status")
