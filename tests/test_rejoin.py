"""Joining a busy bootstrap node: jittered back-off, patience before the warning, peers already known
(``ioa_p2p.dht.rejoin`` pure; ``bootstrap_keeper.keep_bootstrap_connected`` under trio's MockClock)."""

from __future__ import annotations

import logging
import random
import statistics

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.dht.rejoin import JoinBackoff
from ioa_p2p.errors import DialFailed
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.net.bootstrap_keeper import BootstrapState, keep_bootstrap_connected


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


# --------------------------------------------------------------------------- the pure policy


def test_waits_grow_within_their_bounds_and_spread_joiners_that_failed_together() -> None:
    policy = JoinBackoff(base=0.5, cap=30.0, seeded_cap=120.0)
    rng = random.Random(7)
    assert policy.next_delay(0.0, rng) == 0.5  # the first retry: the base
    waits = [0.0]
    for _ in range(40):
        waits.append(policy.next_delay(waits[-1], rng))
    assert all(0.5 <= w <= 30.0 for w in waits[1:])
    assert max(waits) > 10  # it does grow
    # 100 joiners whose first dials failed at the same moment: their later retries are spread out
    joiners = [random.Random(seed) for seed in range(100)]
    times = []
    for r in joiners:
        t, wait = 0.0, 0.0
        for _ in range(4):
            wait = policy.next_delay(wait, r)
            t += wait
        times.append(t)
    assert len({round(t, 1) for t in times}) > 50  # not in lock-step (plain doubling: one moment)
    assert statistics.pstdev(times) > 1.0


def test_a_node_that_knows_other_peers_waits_longer_and_is_never_warned_about() -> None:
    policy = JoinBackoff(base=0.5, cap=30.0, seeded_cap=120.0, patience=60.0)
    rng = random.Random(1)
    wait = 0.0
    for _ in range(60):
        wait = policy.next_delay(wait, rng, seeded=True)
        assert wait <= 120.0
    assert wait > 30.0 or any(policy.next_delay(100.0, rng, seeded=True) > 30 for _ in range(20))
    assert not policy.should_warn(tried_for=1000.0, joined=True, seeded=True)


def test_warned_only_after_patience_before_joining_at_once_after() -> None:
    policy = JoinBackoff(patience=60.0)
    assert not policy.should_warn(tried_for=7.0, joined=False, seeded=False)
    assert policy.should_warn(tried_for=60.0, joined=False, seeded=False)
    assert policy.should_warn(tried_for=0.0, joined=True, seeded=False)
    assert JoinBackoff(base=0.0).next_delay(5.0, random.Random()) == 0.0


# --------------------------------------------------------------------------- the keeper, MockClock


class FakeBootstrap:
    """A bootstrap peer that times out the first ``busy`` dials (a busy node), or refuses them."""

    def __init__(self, busy: int, *, refuse: bool = False) -> None:
        self.busy, self.refuse = busy, refuse
        self.dials: list[float] = []
        self.up = False

    async def connect(self, addr: str) -> PeerId:
        self.dials.append(trio.current_time())
        if len(self.dials) <= self.busy:
            if self.refuse:
                raise DialFailed("cannot reach it: direct: /x (connection refused)", (("/x", "refused"),))
            await trio.sleep_forever()  # the keeper's DIAL_TIMEOUT ends it
        self.up = True
        return Identity.generate().peer_id


def _addr() -> str:
    return f"/ip4/127.0.0.1/tcp/4001/p2p/{Identity.generate().peer_id}"


async def _keep(boot: FakeBootstrap, addr: str, state: BootstrapState, seed: int, **kw: object) -> None:
    joined = trio.Event()

    async def on_connected(peer: PeerId) -> None:
        joined.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: keep_bootstrap_connected(
                boot.connect,
                lambda peer: boot.up,
                addr,
                backoff=0.5,
                backoff_max=30.0,
                on_connected=on_connected,
                state=state,
                rng=random.Random(seed),
                **kw,  # type: ignore[arg-type]
            )
        )
        await joined.wait()
        nursery.cancel_scope.cancel()


async def test_a_busy_bootstrap_is_retried_quietly_within_patience(
    autojump_clock: MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    addr = _addr()
    state = BootstrapState([addr])
    boot = FakeBootstrap(busy=3)
    with caplog.at_level(logging.INFO, logger="ioa_p2p.routing"), trio.fail_after(200):
        await _keep(boot, addr, state, seed=3)
    assert state.joined and len(boot.dials) == 4
    assert "no bootstrap peer is reachable" not in caplog.text  # 3 timeouts of 10 s: within 60 s
    assert caplog.text.count("not reachable (no answer within 10 s)") == 3


async def test_a_bootstrap_that_stays_busy_past_patience_is_warned_about_once(
    autojump_clock: MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    addr = _addr()
    state = BootstrapState([addr])
    boot = FakeBootstrap(busy=8)
    with caplog.at_level(logging.WARNING, logger="ioa_p2p.routing"), trio.fail_after(1000):
        await _keep(boot, addr, state, seed=4, patience=30.0)
    assert caplog.text.count("no bootstrap peer is reachable") == 1
    assert "joined the network through bootstrap peer" in caplog.text  # said loudly after the warning


async def test_a_refused_dial_is_said_at_once(
    autojump_clock: MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    addr = _addr()
    state = BootstrapState([addr])
    boot = FakeBootstrap(busy=1, refuse=True)
    with caplog.at_level(logging.WARNING, logger="ioa_p2p.routing"), trio.fail_after(100):
        await _keep(boot, addr, state, seed=5)
    assert "no bootstrap peer is reachable" in caplog.text and "connection refused" in caplog.text


async def test_joiners_that_failed_together_retry_apart(autojump_clock: MockClock) -> None:
    boots = [FakeBootstrap(busy=3) for _ in range(20)]
    with trio.fail_after(500):
        async with trio.open_nursery() as nursery:
            for i, boot in enumerate(boots):
                addr = _addr()
                nursery.start_soon(_keep, boot, addr, BootstrapState([addr]), i)
    third = [boot.dials[2] for boot in boots]  # all failed their first dial at 10 s, their second ...
    assert len({round(t, 2) for t in third}) >= 15, third  # plain doubling: every one at the same moment


async def test_a_seeded_node_backs_off_further_and_quietly(
    autojump_clock: MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    addr = _addr()
    state = BootstrapState([addr])
    boot = FakeBootstrap(busy=25, refuse=True)
    with caplog.at_level(logging.WARNING, logger="ioa_p2p.routing"), trio.fail_after(5000):
        await _keep(boot, addr, state, seed=6, knows_others=lambda: True)
    assert "no bootstrap peer is reachable" not in caplog.text  # it is in the network through others
    gaps = [b - a for a, b in zip(boot.dials, boot.dials[1:], strict=False)]
    assert max(gaps) > 30.0  # beyond the cap of a node that knows nobody else
