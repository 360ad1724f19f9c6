"""``bench_chat.py --link-delay``: every link between the benchmark's processes is delayed the same way
(a network namespace whose loopback holds each packet), so the star's second hop costs what a network's
would; the namespace and its processes are gone afterwards. Root only (skips elsewhere)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ioa_p2p.testing.netns import netns_unavailable
from ioa_p2p.testing.netns.lab import PREFIX, list_netns

pytestmark = pytest.mark.netns

BENCH = Path(__file__).resolve().parent.parent / "bench"

#: Inside the namespace: one TCP round trip on 127.0.0.1 (a byte out, a byte back), in seconds; exits 7.
INNER = """
import socket, threading, time
server = socket.create_server(("127.0.0.1", 0))
def echo():
    conn, _ = server.accept()
    conn.sendall(conn.recv(1))
threading.Thread(target=echo, daemon=True).start()
client = socket.create_connection(server.getsockname(), timeout=30)
client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
start = time.perf_counter()
client.sendall(b"x")
assert client.recv(1) == b"x"
print(f"rtt {time.perf_counter() - start:.4f}", flush=True)
raise SystemExit(7)
"""


def test_a_link_delay_holds_each_packet_on_every_link_and_leaves_nothing_behind() -> None:
    reason = netns_unavailable()
    if reason:
        pytest.skip(reason)
    outer = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(BENCH)!r})\n"
        "from chat_procs import run_with_link_delay\n"
        f"rc = run_with_link_delay([sys.executable, '-c', {INNER!r}], 20.0)\n"
        "print(f'rc {rc}', flush=True)\n"
        "print(f'pid {os.getpid()}', flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", outer], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if not line.startswith("#"))
    assert lines["rc"] == "7"  # the inner run's exit code comes back
    assert float(lines["rtt"]) >= 0.040  # out and back: the 20 ms link twice, a lower bound load cannot lower
    assert "every link: 20 ms each way" in done.stdout
    assert not [name for name in list_netns() if name.startswith(f"{PREFIX}-{lines['pid']}-")]
