"""The attackers of tests/test_hostile_load.py: raw py-libp2p hosts with fresh identities.

Run as ``python -m tests.hostile_attacks SCENARIO VICTIM_ADDR VICTIM_ID GOOD_ID HOME SECONDS`` from
the repository root; prints one JSON line of what the attack did. The process lowers its own CPU
priority first (``nice`` 10): on a small test machine a co-located attacker would otherwise measure
how the operating system shares the CPU, where a real attacker runs on its own machine.
``IOA_ATTACK_NICE`` sets that increment (e.g. ``0`` when the whole run is already under ``nice`` on a
machine that other ``nice``'d jobs load: a starved attacker opens no stream and measures nothing).
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.history.bodies import make_message
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node import open_node
from ioa_p2p.node.chats.delivery import PROTO_DELIVER
from ioa_p2p.node.messaging.service import PROTOCOL_ID
from ioa_p2p.node.net.framing import encode_varint, frame
from ioa_p2p.node.net.host import new_noise_host, peer_info_from_addr, to_libp2p_id
from ioa_p2p.node.net.libp2p_patches import live_connections, quiet_libp2p_logs, unblock_peer
from tests.raw_hosts import run_raw_host

IDENTITIES = 4
ANNOUNCED = (1 << 20) - 64  # a frame announced at ~1 MiB (the /ioa/msg limit)
FIRST_PART = 768 * 1024  # sent at once; the rest trickles one byte at a time
REOPEN_AFTER = 1.0  # seconds before a stream the victim ended is opened again
NEGOTIATE_TIMEOUT = 120  # seconds an attacker's stream waits for protocol negotiation
ORPHAN_SIZE = 300 * 1024
ORPHAN_CHATS = 5
ORPHANS_PER_CHAT = 200


@dataclass(frozen=True)
class Target:
    addr: str
    peer: PeerId
    good: PeerId
    home: Path
    seconds: float
    identities: int = IDENTITIES


@asynccontextmanager
async def raw_hosts(target: Target, count: int | None = None) -> AsyncIterator[list[Any]]:
    """``count`` (default ``target.identities``) bare py-libp2p hosts with fresh identities,
    connected to the victim. Each host runs in a task of its own (hundreds of hosts nested in one
    exit stack would exhaust Python's recursion limit when they close)."""
    count = target.identities if count is None else count

    async def run_host(task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        host = new_noise_host(Identity.generate())
        # a persistent attacker waits for its streams' negotiation as long as the victim paces it
        # (py-libp2p gives up after 10 s, and a starved attacker would then only retry for ever)
        host.negotiate_timeout = NEGOTIATE_TIMEOUT
        config = getattr(host.get_network(), "connection_config", None)
        if config is not None and hasattr(config, "outbound_stream_protocol_negotiation_timeout"):
            config.outbound_stream_protocol_negotiation_timeout = NEGOTIATE_TIMEOUT
        async with run_raw_host(host):
            info = peer_info_from_addr(target.addr)
            for _ in range(5):  # a flooded victim may fail a handshake: try again
                try:
                    with trio.fail_after(30):
                        await host.connect(info)
                    break
                except Exception:
                    unblock_peer(host, info.peer_id)
                    await trio.sleep(1.0)
            else:
                task_status.started(None)  # the victim refused this identity: attack with the others
                return
            task_status.started(host)
            await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        limiter = trio.Semaphore(16)  # handshakes at once
        hosts: list[Any] = []

        async def start_one() -> None:
            async with limiter:
                host = await nursery.start(run_host)
            if host is not None:
                hosts.append(host)

        async with trio.open_nursery() as starting:
            for _ in range(count):
                starting.start_soon(start_one)
        print(json.dumps({"connected": len(hosts)}), flush=True)  # the test starts timing now
        yield hosts
        nursery.cancel_scope.cancel()


async def on_every_stream(
    target: Target, per_host: int, work: Callable[[Any, int], Awaitable[None]]
) -> dict[str, int]:
    """Keep ``per_host`` streams to the victim open on each host for ``target.seconds``, each running
    ``work(stream, index)``; a stream that ends (reset, refused) is opened again after a pause."""
    tally = {"opened": 0, "ended": 0}
    async with raw_hosts(target) as hosts, trio.open_nursery() as nursery:

        async def one(host: Any, index: int) -> None:
            while True:
                try:
                    stream = await host.new_stream(to_libp2p_id(target.peer), [PROTOCOL_ID])
                    tally["opened"] += 1
                    await work(stream, index)
                except Exception as exc:
                    tally["ended"] += 1
                    if os.environ.get("IOA_ATTACK_DEBUG"):
                        print(repr(exc)[:300], repr(exc.__cause__)[:300], file=sys.stderr)
                await trio.sleep(REOPEN_AFTER)
                await reconnect(host, target)

        for host in hosts:
            for index in range(per_host):
                nursery.start_soon(one, host, index)
        await hold_attack(target, tally)
        nursery.cancel_scope.cancel()
    return tally


async def reconnect(host: Any, target: Target) -> None:
    """Connect ``host`` to the victim again if its connection is gone (a starved attacker's
    cancelled write can break one), as a persistent attacker would; one try at a time."""
    victim = to_libp2p_id(target.peer)
    if live_connections(host, victim):
        return
    lock = _RECONNECTING.setdefault(id(host), trio.Lock())
    async with lock:
        if live_connections(host, victim):
            return
        unblock_peer(host, victim)
        with trio.move_on_after(30):
            try:
                await host.connect(peer_info_from_addr(target.addr))
            except Exception as exc:
                if os.environ.get("IOA_ATTACK_DEBUG"):
                    print("reconnect:", repr(exc)[:300], file=sys.stderr)


_RECONNECTING: dict[int, trio.Lock] = {}


#: How long an attack goes on past ``seconds`` at most, waiting for its stdin to close.
HOLD_MAX = 360.0
#: How often a held attack prints its tally so far (``{"progress": {...}}`` lines).
PROGRESS_EVERY = 0.5


async def hold_attack(target: Target, tally: dict[str, Any] | None = None) -> None:
    """Let the attack run for ``target.seconds``, then, when ``IOA_ATTACK_HOLD`` is set, until this
    process's stdin closes (the test closes it once it has measured what it measures under attack,
    however long a loaded machine made that take), at most :data:`HOLD_MAX` more seconds. A held
    attack prints ``tally`` every :data:`PROGRESS_EVERY` seconds, so that a test waits for what
    the attack did (streams opened), not for a time a loaded machine may stretch."""
    held = bool(os.environ.get("IOA_ATTACK_HOLD"))
    async with trio.open_nursery() as nursery:
        if held and tally is not None:
            nursery.start_soon(_print_progress, tally)
        await trio.sleep(target.seconds)
        if held:
            with trio.move_on_after(HOLD_MAX):
                async with trio.lowlevel.FdStream(os.dup(0)) as stdin:
                    while await stdin.receive_some():
                        pass
        nursery.cancel_scope.cancel()


async def _print_progress(tally: dict[str, Any]) -> None:
    while True:
        print(json.dumps({"progress": tally}), flush=True)
        await trio.sleep(PROGRESS_EVERY)


def streams_per_identity(target: Target) -> int:
    """250 streams per identity up to 16 identities, then ~4,000 streams in all (at least 16 each)."""
    return 250 if target.identities <= 16 else max(16, 4000 // target.identities)


async def half_sent_frames(target: Target) -> dict[str, Any]:
    """1,000 streams (250 per identity), each announcing a ~1 MiB frame, sending 768 KiB of it at
    once, then one more byte per second."""

    async def trickle(stream: Any, index: int) -> None:
        await stream.write(encode_varint(ANNOUNCED) + secrets.token_bytes(FIRST_PART))
        while True:
            await trio.sleep(1.0)
            await stream.write(b"\x00")

    return await on_every_stream(target, 250, trickle)


async def pushy_frames(target: Target) -> dict[str, Any]:
    """Like :func:`half_sent_frames`, from a sender that ignores yamux flow control: it sends the
    768 KiB without waiting for window updates, then 64 KiB more every second on the same stream
    as raw yamux DATA frames, whether or not the victim reset the stream."""
    import struct

    async def push(stream: Any, index: int) -> None:
        muxed = stream.muxed_stream
        muxed.send_window = 1 << 40  # never wait for the victim's window updates
        await stream.write(encode_varint(ANNOUNCED) + secrets.token_bytes(FIRST_PART))
        chunk = secrets.token_bytes(64 * 1024 - 12)
        header = struct.pack("!BBHII", 0, 0, 0, muxed.stream_id, len(chunk))
        while True:
            await trio.sleep(1.0)
            await muxed.conn._write_frame(header + chunk)  # raw: the stream's reset is ignored

    return await on_every_stream(target, streams_per_identity(target), push)


async def idle_and_garbage_streams(target: Target) -> dict[str, Any]:
    """600 streams (150 per identity): a quarter silent (slowloris), a quarter garbage, a quarter
    oversize length prefixes, a quarter valid frames of junk; each kept open as long as it lasts."""

    async def misbehave(stream: Any, index: int) -> None:
        if index % 4 == 1:
            await stream.write(secrets.token_bytes(64))
        elif index % 4 == 2:
            await stream.write(encode_varint((1 << 20) + 1) + b"x" * 100)
        elif index % 4 == 3:
            await stream.write(frame(secrets.token_bytes(300)))
        await trio.sleep_forever()

    return await on_every_stream(target, 150, misbehave)


async def orphan_flood(target: Target) -> dict[str, Any]:
    """A node creates five chats inviting the victim and the good node (so it is a legitimate
    member), then sends 1,000 messages of 300 KiB whose parents do not exist."""
    quiet_libp2p_logs()
    config = NodeConfig(home=target.home / "attacker")
    acks: dict[str, int] = {}
    async with open_node(config, identity=Identity.generate(), write_info=False, control_api=False) as evil:
        with trio.fail_after(30):
            await evil.connect(target.addr)
            # the good node is learnt through the victim's DHT; under load that takes a while, and an
            # invitee not reachable yet would only be re-invited later: wait (bounded) until it is known
            for _ in range(150):  # polling a peerstore: there is no event to wait for
                if evil.peer_addrs(target.good):
                    break
                await trio.sleep(0.2)
            chats = evil.services.chats
            handles = [
                await chats.create_chat([target.peer, target.good], f"orphans {i}")
                for i in range(ORPHAN_CHATS)
            ]
        accepted = all(set(h.accepted) == {target.peer, target.good} for h in handles)
        print(json.dumps({"connected": 1}), flush=True)  # the flood starts now

        async def send_orphans() -> None:
            stream = await evil.open_stream(target.peer, PROTO_DELIVER)
            filler = "x" * ORPHAN_SIZE
            for seq in range(2, ORPHANS_PER_CHAT + 2):
                for handle in handles:
                    parents = (secrets.token_bytes(32),)  # made up: never to arrive
                    env = make_message(
                        evil.identity,
                        handle.chat_id,
                        parents,
                        "text",
                        {"text": filler},
                        seq=seq,
                        now_ms=_now(),
                    )
                    await stream.send(env.to_cbor())
                    status = (await stream.receive_value())["b"]["status"]
                    acks[status] = acks.get(status, 0) + 1
            await stream.close()

        async with trio.open_nursery() as nursery:  # the flood runs (then idles) as long as it is held
            nursery.start_soon(send_orphans)
            await hold_attack(target, {"acks": acks})
            nursery.cancel_scope.cancel()
    return {"acks": acks, "accepted": accepted, "chats": [h.chat_id.hex() for h in handles]}


def _now() -> int:
    return int(time.time() * 1000)


async def pipelined_frames(target: Target) -> dict[str, Any]:
    """Streams opened straight on the yamux connection, each sending at once, without waiting for
    protocol negotiation or window updates: the multistream-select header, ``/ioa/msg/1.0.0``, a
    length prefix announcing ~1 MiB and 768 KiB of it; then 64 KiB more per second as raw yamux
    DATA frames on the same stream id, whether or not the victim refused or reset the stream."""
    import struct

    def delimited(text: str) -> bytes:
        data = text.encode() + b"\n"
        return encode_varint(len(data)) + data

    opening = delimited("/multistream/1.0.0") + delimited(PROTOCOL_ID)
    payload = opening + encode_varint(ANNOUNCED) + secrets.token_bytes(FIRST_PART)
    chunk = secrets.token_bytes(64 * 1024 - 12)
    per_host = streams_per_identity(target)
    tally = {"opened": 0, "ended": 0}
    async with raw_hosts(target) as hosts, trio.open_nursery() as nursery:

        async def one(host: Any) -> None:
            while True:
                try:
                    conns = host.get_network().connections.get(to_libp2p_id(target.peer)) or []
                    if not conns:
                        await host.connect(peer_info_from_addr(target.addr))
                        continue
                    muxed = await conns[0].muxed_conn.open_stream()
                    muxed.send_window = 1 << 40  # flow control ignored
                    tally["opened"] += 1
                    await muxed.write(payload)
                    header = struct.pack("!BBHII", 0, 0, 0, muxed.stream_id, len(chunk))
                    for _ in range(int(target.seconds)):
                        await trio.sleep(1.0)
                        await muxed.conn._write_frame(header + chunk)
                except Exception:
                    tally["ended"] += 1
                await trio.sleep(REOPEN_AFTER)

        for host in hosts:
            for _ in range(per_host):
                nursery.start_soon(one, host)
        await hold_attack(target, tally)
        nursery.cancel_scope.cancel()
    return tally


async def negotiation_flood(target: Target) -> dict[str, Any]:
    """Streams that never finish protocol negotiation: each opens with the multistream-select header,
    then announces a protocol line of 50 MB and pushes 64 KiB raw yamux DATA frames into it as fast
    as the connection takes them, ignoring flow control and resets (per stream at most 16 MiB)."""
    import struct

    def delimited(text: str) -> bytes:
        data = text.encode() + b"\n"
        return encode_varint(len(data)) + data

    opening = delimited("/multistream/1.0.0") + encode_varint(50_000_000)
    chunk = secrets.token_bytes(64 * 1024 - 12)
    tally = {"opened": 0, "ended": 0, "sent_mb": 0}
    async with raw_hosts(target) as hosts, trio.open_nursery() as nursery:

        async def one(host: Any) -> None:
            while True:
                try:
                    conns = host.get_network().connections.get(to_libp2p_id(target.peer)) or []
                    if not conns:
                        await host.connect(peer_info_from_addr(target.addr))
                        continue
                    muxed = await conns[0].muxed_conn.open_stream()
                    muxed.send_window = 1 << 40
                    tally["opened"] += 1
                    await muxed.write(opening)
                    header = struct.pack("!BBHII", 0, 0, 0, muxed.stream_id, len(chunk))
                    for _ in range(256):
                        await muxed.conn._write_frame(header + chunk)
                        tally["sent_mb"] += len(chunk) / 1e6
                        await trio.sleep(0.01)
                except Exception:
                    tally["ended"] += 1
                await trio.sleep(REOPEN_AFTER)

        for host in hosts:
            for _ in range(32):
                nursery.start_soon(one, host)
        await hold_attack(target, tally)
        nursery.cancel_scope.cancel()
    tally["sent_mb"] = round(tally["sent_mb"])
    return tally


async def invalid_frames(target: Target) -> dict[str, Any]:
    """Each identity keeps 4 ``/ioa/msg`` streams writing invalid 2-byte frames (64 KiB at a time)
    as fast as the victim takes them, never reading an answer; a stream the victim resets is opened
    again after a pause."""
    chunk = frame(b"\xff") * (32 * 1024)

    async def write_forever(stream: Any, index: int) -> None:
        while True:
            await stream.write(chunk)

    return await on_every_stream(target, 4, write_forever)


async def mixed_flood(target: Target) -> dict[str, Any]:
    """Every flood at once from ``target.identities`` identities, streams spread over four kinds:
    half-sent ~1 MiB frames trickled one byte per second; the same pushed past the yamux window
    and on after a reset; negotiation lines announced at 50 MB and pushed; invalid 2-byte frames
    written without ever reading the answers."""
    import struct

    def delimited(text: str) -> bytes:
        data = text.encode() + b"\n"
        return encode_varint(len(data)) + data

    opening = delimited("/multistream/1.0.0")
    chunk = secrets.token_bytes(64 * 1024 - 12)
    garbage = frame(b"\xff") * 4096
    tally = {"opened": 0, "ended": 0}

    async def half_sent(stream: Any) -> None:
        await stream.write(encode_varint(ANNOUNCED) + secrets.token_bytes(FIRST_PART))
        while True:
            await trio.sleep(1.0)
            await stream.write(b"\x00")

    async def pushy(stream: Any) -> None:
        muxed = stream.muxed_stream
        muxed.send_window = 1 << 40
        await stream.write(encode_varint(ANNOUNCED) + secrets.token_bytes(FIRST_PART))
        header = struct.pack("!BBHII", 0, 0, 0, muxed.stream_id, len(chunk))
        while True:
            await trio.sleep(1.0)
            await muxed.conn._write_frame(header + chunk)

    async def invalid_frames(stream: Any) -> None:
        while True:  # never reads the answers
            await stream.write(garbage)
            await trio.sleep(0.5)

    async def negotiation(host: Any) -> None:
        conns = host.get_network().connections.get(to_libp2p_id(target.peer)) or []
        muxed = await conns[0].muxed_conn.open_stream()
        muxed.send_window = 1 << 40
        tally["opened"] += 1
        await muxed.write(opening + encode_varint(50_000_000))
        header = struct.pack("!BBHII", 0, 0, 0, muxed.stream_id, len(chunk))
        for _ in range(64):
            await muxed.conn._write_frame(header + chunk)
            await trio.sleep(0.05)

    kinds = [half_sent, pushy, invalid_frames]
    per_host = streams_per_identity(target)
    async with raw_hosts(target) as hosts, trio.open_nursery() as nursery:

        async def one(host: Any, index: int) -> None:
            while True:
                try:
                    if index % 4 == 3:
                        await negotiation(host)
                    else:
                        stream = await host.new_stream(to_libp2p_id(target.peer), [PROTOCOL_ID])
                        tally["opened"] += 1
                        await kinds[index % 4](stream)
                except Exception:
                    tally["ended"] += 1
                await trio.sleep(REOPEN_AFTER)

        for host in hosts:
            for index in range(per_host):
                nursery.start_soon(one, host, index)
        await hold_attack(target, tally)
        nursery.cancel_scope.cancel()
    tally["identities"] = len(hosts)
    return tally


SCENARIOS: dict[str, Callable[[Target], Awaitable[dict[str, Any]]]] = {
    "half_sent_frames": half_sent_frames,
    "pushy_frames": pushy_frames,
    "pipelined_frames": pipelined_frames,
    "negotiation_flood": negotiation_flood,
    "mixed_flood": mixed_flood,
    "invalid_frames": invalid_frames,
    "idle_and_garbage_streams": idle_and_garbage_streams,
    "orphan_flood": orphan_flood,
}


def main(argv: list[str]) -> None:
    scenario, addr, victim, good, home, seconds, *rest = argv
    os.nice(int(os.environ.get("IOA_ATTACK_NICE", "10")))
    identities = int(rest[0]) if rest else IDENTITIES
    target = Target(
        addr, PeerId.from_string(victim), PeerId.from_string(good), Path(home), float(seconds), identities
    )
    result = trio.run(SCENARIOS[scenario], target)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
