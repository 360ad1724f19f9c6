"""A real node process flooded with 1,000 unsolicited invitations restarts in under 5 s (issue 9).

The attacker has nothing but libp2p keys: four identities in this test process invite the node
(``ioa node start``, default ``open`` policy) to 1,000 well-formed chats as fast as the node answers.
The per-inviter rate limit refuses most of them, so little is stored; the node is then stopped and
started again, and must be listening with its control API up within 5 s, answering ``GET /chats`` at
once. The figures are printed (``-s``) for docs/security.md.

Most of a start-up is Python importing py-libp2p (2-3 s on an idle 2-core machine), which other
processes on a loaded machine can stretch past 5 s by themselves. So the test also starts a node with
an empty store right before the restart: if even that one needs more than 4 s, the machine is too
loaded for the absolute bound, and the restart must instead cost at most 1 s more than the empty
start (what the stored invitations add).
"""

from __future__ import annotations

import secrets
import time
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.control_client import ControlClient
from ioa_p2p.history.bodies import make_genesis
from ioa_p2p.history.frames import ChatInvite, ChatInviteReply
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node import Node, open_node
from ioa_p2p.node.chats.invites import PROTO_INVITE
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import build

from .conftest import NodeProcess, ioa_init
from .test_chats_process import free_port

pytestmark = pytest.mark.slow

INVITATIONS = 1000
IDENTITIES = 4
CONCURRENCY = 16
#: Defaults of [chats] invite_burst and invite_rate (the node under test runs with the defaults).
BURST, RATE = 20, 0.5


async def invite_once(attacker: Node, victim: PeerId, topic: str) -> str:
    now = int(time.time() * 1000)
    genesis = make_genesis(attacker.identity, [victim], topic, now_ms=now, nonce=secrets.token_bytes(16))
    invite = Envelope.create(
        attacker.identity, build(ChatInvite, genesis=genesis.to_cbor(), added_by=None), seq=0
    )
    stream = await attacker.open_stream(victim, PROTO_INVITE)
    async with stream:
        await stream.send(invite.to_cbor())
        reply = await stream.receive_envelope()
    assert isinstance(reply.body, ChatInviteReply) and reply.body.chat_id == genesis.hash
    return reply.body.reason.split(":", 1)[0]


async def flood(tmp_path: Path, target: str) -> tuple[Counter[str], float]:
    """Send INVITATIONS invitations from IDENTITIES attackers; reason codes and seconds taken."""
    codes: Counter[str] = Counter()
    async with AsyncExitStack() as stack:
        attackers = []
        for i in range(IDENTITIES):
            config = NodeConfig(home=tmp_path / f"attacker{i}")
            node = await stack.enter_async_context(
                open_node(
                    config, identity=Identity.generate(), write_info=False, control_api=False, services=False
                )
            )
            victim = await node.connect(target)
            attackers.append(node)
        limiter = trio.Semaphore(CONCURRENCY)
        started = time.monotonic()

        async def one(i: int) -> None:
            async with limiter:
                codes[await invite_once(attackers[i % IDENTITIES], victim, f"spam {i}")] += 1

        with trio.fail_after(300):
            async with trio.open_nursery() as nursery:
                for i in range(INVITATIONS):
                    nursery.start_soon(one, i)
        return codes, time.monotonic() - started


def test_a_restart_after_1000_unsolicited_invitations_takes_under_5_s(tmp_path: Path) -> None:
    home = tmp_path / "victim"
    ioa_init(home)
    listen = ("--listen", f"/ip4/127.0.0.1/tcp/{free_port()}")
    node = NodeProcess(home, *listen)
    try:
        target = node.wait_listening()[0]
        codes, took = trio.run(flood, tmp_path, target)
        listing = ControlClient(home, timeout=30).call("GET", "/chats")
    finally:
        assert node.stop() == 0, node.output()
    accepted = codes["accepted"]
    assert sum(codes.values()) == INVITATIONS and set(codes) <= {"accepted", "rate-limited", "busy"}
    assert accepted <= IDENTITIES * (BURST + RATE * took + 1)  # the rate limit held
    assert codes["rate-limited"] > INVITATIONS * 3 // 4  # most were refused ...
    assert len(listing) == accepted  # ... and only accepted ones were stored

    empty_home = tmp_path / "empty"
    ioa_init(empty_home)
    empty = timed_start(empty_home, listen)
    restarted = NodeProcess(home, *listen)
    try:
        began = time.monotonic()
        restarted.wait_listening(timeout=60)
        startup = time.monotonic() - began
        asked = time.monotonic()
        listing = ControlClient(home, timeout=30).call("GET", "/chats")
        listed = time.monotonic() - asked
    finally:
        assert restarted.stop() == 0, restarted.output()
    print(
        f"\nflood: {dict(codes)} in {took:.1f} s; store {(home / 'chats.sqlite3').stat().st_size} bytes; "
        f"restart to listening {startup:.2f} s (empty node: {empty:.2f} s); "
        f"GET /chats ({len(listing)} chats) {listed * 1000:.0f} ms"
    )
    assert len(listing) == accepted
    if empty <= 4.0:
        assert startup < 5.0, f"restart took {startup:.2f} s (an empty node: {empty:.2f} s)"
    else:  # a loaded machine: what the stored invitations add
        assert startup < empty + 1.0, f"restart took {startup:.2f} s, an empty node {empty:.2f} s"
    assert listed < 1.0, f"GET /chats took {listed:.2f} s"


def timed_start(home: Path, listen: tuple[str, ...]) -> float:
    """Seconds from spawning ``ioa node start`` to listening with its control API up."""
    node = NodeProcess(home, *listen)
    try:
        began = time.monotonic()
        node.wait_listening(timeout=60)
        return time.monotonic() - began
    finally:
        assert node.stop() == 0, node.output()
