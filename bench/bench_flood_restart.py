"""How long a node takes to restart after an invitation flood, beside an empty node (issues 9, 20).

Run (from the repository root): python bench/bench_flood_restart.py [--rounds 3]

The figure ``tests/test_invite_flood_process.py`` prints but does not assert (speed targets live here):
a real ``ioa node start`` process is flooded with 1,000 invitations from 50 identities (the test's own
flood, default policy, so at most ``max_stranger_chats`` chats are stored), stopped, then restarted
``--rounds`` times. Each round also starts a node with an empty store on the same machine right before,
so the load of the moment shows in both. Prints every round's restart-to-listening (spawn to "listening
on" with the control API up) and ``GET /chats`` time, then the medians and the ratio flooded/empty
(the target of docs/security.md: a stored flood adds well under a second to a start).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests package, for its flood

import trio  # noqa: E402

from ioa_p2p.control_client import ControlClient  # noqa: E402
from tests.conftest import NodeProcess, ioa_init  # noqa: E402
from tests.test_chats_process import free_port  # noqa: E402
from tests.test_invite_flood_process import flood, timed_start  # noqa: E402


def flood_once(tmp: Path, home: Path, listen: tuple[str, ...]) -> int:
    node = NodeProcess(home, *listen)
    try:
        target = node.wait_listening()[0]
        codes, took = trio.run(flood, tmp, target)
    finally:
        node.stop()
    print(f"flood: {dict(codes)} in {took:.1f} s")
    return codes["accepted"]


def restart_once(home: Path, listen: tuple[str, ...]) -> tuple[float, float, int]:
    node = NodeProcess(home, *listen)
    try:
        began = time.monotonic()
        node.wait_listening(timeout=60)
        startup = time.monotonic() - began
        asked = time.monotonic()
        listing = ControlClient(home, timeout=30).call("GET", "/chats")
        listed = time.monotonic() - asked
        assert isinstance(listing, list), listing
        return startup, listed, len(listing)
    finally:
        node.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ioa-bench-flood-") as tmpdir:
        tmp = Path(tmpdir)
        home, empty_home = tmp / "victim", tmp / "empty"
        ioa_init(home)
        ioa_init(empty_home)
        listen = ("--listen", f"/ip4/127.0.0.1/tcp/{free_port()}")
        accepted = flood_once(tmp, home, listen)
        empties, restarts, listings = [], [], []
        for i in range(args.rounds):
            empties.append(timed_start(empty_home, listen))
            startup, listed, chats = restart_once(home, listen)
            restarts.append(startup)
            listings.append(listed)
            print(
                f"round {i + 1}: empty node {empties[-1]:.2f} s, restart with {chats} chats "
                f"{startup:.2f} s, GET /chats {listed * 1000:.0f} ms"
            )
        empty, restart = statistics.median(empties), statistics.median(restarts)
        print(
            f"median over {args.rounds} rounds ({accepted} chats stored): restart to listening "
            f"{restart:.2f} s, empty node {empty:.2f} s, difference {restart - empty:+.2f} s "
            f"(target < 1 s), ratio {restart / empty:.2f}; GET /chats "
            f"{statistics.median(listings) * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
