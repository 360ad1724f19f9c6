"""Linux network namespaces for tests: create, enter, remove, and sweep what crashed runs left behind.

Every namespace a :class:`Lab` creates is named ``ioatest-<pid>-<tag>-<short name>`` (``<pid>``: the process
that created it), so parallel runs never collide and :func:`sweep_leftovers` can tell a live run's namespaces
from a dead one's. Interfaces are created directly inside namespaces (``ip -n NS link add ... netns OTHER``),
never in the caller's own namespace, so removing the namespaces removes every interface, bridge, address,
route, qdisc and firewall rule the lab made. :meth:`Lab.close` (also on error, cancellation or Ctrl-C, as a
context manager) SIGKILLs every process still inside the lab's namespaces, then deletes them.

Sockets belong to the namespace of the thread that opens them: :class:`NetnsThreads` runs functions on worker
threads that entered a namespace with ``setns(2)`` (Python 3.11 has no ``os.setns``: ctypes), which is how a
test reaches a node's control API on that namespace's 127.0.0.1 without a subprocess per call.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ioa_p2p.errors import LocalStateError

PREFIX = "ioatest"
NETNS_DIR = "/run/netns"
#: Bound on one ``ip`` / ``iptables`` / ``tc`` command.
COMMAND_TIMEOUT = 30.0
_CLONE_NEWNET = 0x40000000
_LEFTOVER = re.compile(rf"^{PREFIX}-(\d+)(?:-|$)")

T = TypeVar("T")


class LabError(LocalStateError):
    """A namespace, link, address, route or firewall rule could not be set up on this machine."""


def run(argv: Sequence[str], *, check: bool = True, timeout: float = COMMAND_TIMEOUT) -> str:
    """Run a setup command; its stdout. Raises LabError naming the command and its error output."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise LabError(f"{argv[0]} is not installed (needed for network namespace tests)") from None
    except subprocess.TimeoutExpired:
        raise LabError(f"`{' '.join(argv)}` did not finish in {timeout:.0f} s") from None
    if check and done.returncode != 0:
        raise LabError(f"`{' '.join(argv)}` failed ({done.returncode}): {done.stderr.strip()[:500]}")
    return done.stdout


def in_netns(netns: str, argv: Sequence[str]) -> list[str]:
    """``argv`` run inside ``netns`` (``ip netns exec``: same pid, a private mount namespace for /sys)."""
    return ["ip", "netns", "exec", netns, *argv]


def veth(netns_a: str, name_a: str, netns_b: str, name_b: str) -> None:
    """A veth pair made directly inside two namespaces (nothing appears in the caller's namespace)."""
    peer = ["peer", "name", name_b, "netns", netns_b]
    run(["ip", "-n", netns_a, "link", "add", name_a, "type", "veth", *peer])


# --------------------------------------------------------------------------- can we?


def netns_unavailable() -> str | None:
    """Why network namespaces cannot be made here (a skip reason), or None when they can."""
    if not sys.platform.startswith("linux"):
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "creating network namespaces needs root (CI runs as root)"
    if shutil.which("ip") is None:
        return "the `ip` command (Debian package iproute2) is not installed"
    probe = f"{PREFIX}-{os.getpid()}-probe"
    try:
        run(["ip", "netns", "add", probe])
    except LabError as exc:
        return f"cannot create a network namespace: {exc}"
    with contextlib.suppress(LabError):
        run(["ip", "netns", "del", probe])
    return None


def nat_unavailable() -> str | None:
    """Why NAT routers cannot be built (iptables missing), or None."""
    if shutil.which("iptables") is None:
        return "iptables is not installed (`apt-get install -y iptables`; .ci/run installs it as root)"
    return None


# --------------------------------------------------------------------------- namespaces


def list_netns() -> list[str]:
    try:
        return sorted(os.listdir(NETNS_DIR))
    except FileNotFoundError:
        return []


def netns_pids(netns: str) -> list[int]:
    out = run(["ip", "netns", "pids", netns], check=False)
    return [int(p) for p in out.split() if p.isdigit()]


def kill_netns_processes(netns: str) -> None:
    """SIGKILL every process inside ``netns`` (processes keep a namespace alive after ``ip netns del``)."""
    for pid in netns_pids(netns):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def delete_netns(netns: str) -> None:
    kill_netns_processes(netns)
    run(["ip", "netns", "del", netns], check=False)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_leftovers() -> list[str]:
    """Delete the namespaces (and kill the processes in them) that runs of this harness left behind when
    they died without cleaning up: those whose creating pid is gone. Returns their names."""
    swept = []
    for name in list_netns():
        match = _LEFTOVER.match(name)
        if match and int(match[1]) != os.getpid() and not _alive(int(match[1])):
            delete_netns(name)
            swept.append(name)
    return swept


class Lab:
    """The namespaces of one test setup; removed with everything in them by :meth:`close`."""

    def __init__(self, tag: str = "lab") -> None:
        if not re.fullmatch(r"[a-z0-9]{1,12}", tag):
            raise LabError(f"lab tag {tag!r} must be 1-12 lowercase letters or digits")
        self.prefix = f"{PREFIX}-{os.getpid()}-{tag}"
        self.namespaces: list[str] = []
        self._threads: dict[str, NetnsThreads] = {}
        self.closed = False

    def add_namespace(self, short: str) -> str:
        """A new namespace ``<prefix>-<short>`` with its loopback up; its full name."""
        if self.closed:
            raise LabError("this lab is closed")
        name = f"{self.prefix}-{short}"
        if name in self.namespaces:
            raise LabError(f"this lab already has a namespace named {short!r}")
        if name in list_netns():  # a previous lab of this very process that did not close
            delete_netns(name)
        run(["ip", "netns", "add", name])
        self.namespaces.append(name)
        run(["ip", "-n", name, "link", "set", "lo", "up"])
        return name

    def threads(self, netns: str) -> NetnsThreads:
        """Worker threads inside ``netns`` (made on first use, closed with the lab)."""
        if netns not in self._threads:
            self._threads[netns] = NetnsThreads(netns)
        return self._threads[netns]

    def close(self) -> None:
        """Kill every process in the lab's namespaces, then delete them. Safe to call twice."""
        self.closed = True
        for pool in self._threads.values():
            pool.close()
        self._threads.clear()
        for netns in reversed(self.namespaces):
            kill_netns_processes(netns)
        for netns in reversed(self.namespaces):
            run(["ip", "netns", "del", netns], check=False)
        self.namespaces.clear()

    def __enter__(self) -> Lab:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------- threads inside a namespace


def _libc_setns() -> Callable[[int, int], int]:
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    setns: Callable[[int, int], int] = libc.setns
    return setns


def enter_netns(netns: str) -> None:
    """Move the calling thread (only it) into ``netns``: sockets it opens from now on belong there."""
    fd = os.open(os.path.join(NETNS_DIR, netns), os.O_RDONLY)
    try:
        if _libc_setns()(fd, _CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise LabError(f"setns into {netns} failed: {os.strerror(err)}")
    finally:
        os.close(fd)


class NetnsThreads:
    """A small thread pool whose threads live in one namespace (entered when each thread starts)."""

    def __init__(self, netns: str, workers: int = 4) -> None:
        self.netns = netns
        self._pool = ThreadPoolExecutor(
            max_workers=workers,
            thread_name_prefix=f"netns-{netns}",
            initializer=enter_netns,
            initargs=(netns,),
        )

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a thread inside the namespace; blocks until it returns (or raises)."""
        return self._pool.submit(fn, *args).result()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


__all__ = [
    "PREFIX",
    "Lab",
    "LabError",
    "NetnsThreads",
    "delete_netns",
    "enter_netns",
    "in_netns",
    "list_netns",
    "nat_unavailable",
    "netns_pids",
    "netns_unavailable",
    "run",
    "sweep_leftovers",
    "veth",
]
