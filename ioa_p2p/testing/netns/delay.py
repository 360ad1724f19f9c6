"""Link delay for namespace labs: ``tc netem`` where the kernel has it, else a userspace NFQUEUE delay line.

:func:`add_delay` delays every packet a lab interface *sends* by ``ms`` milliseconds (so a packet crossing
one link waits once). With ``sch_netem`` in the kernel it installs ``tc qdisc ... netem delay``. Without it
(many cloud and CI kernels) it falls back to :class:`DelayLine`: an iptables rule (``mangle POSTROUTING -o
<if> -j NFQUEUE --queue-bypass``) hands each outgoing packet to a thread of this process that lives in that
namespace and accepts it ``ms`` later (netfilter's nfnetlink_queue protocol, spoken here over a raw
netlink socket: struct layouts from ``linux/netfilter/nfnetlink_queue.h``). The delay is constant, so packets
keep their order; ``--queue-bypass`` lets traffic through undelayed if the thread is gone. Accuracy is a few
tenths of a millisecond plus scheduling noise on a loaded machine; the queue holds at most
:data:`QUEUE_MAXLEN` packets per namespace (beyond that the kernel accepts them undelayed: ``fail-open``).
"""

from __future__ import annotations

import collections
import contextlib
import select
import socket
import struct
import threading
import time
from collections.abc import Sequence
from typing import Literal

from ioa_p2p.testing.netns.lab import LabError, enter_netns, in_netns, run

NETLINK_NETFILTER = 12
_SUBSYS_QUEUE = 3 << 8
_MSG_PACKET, _MSG_VERDICT, _MSG_CONFIG = 0, 1, 2
_NLMSG_ERROR = 2
_F_REQUEST, _F_ACK = 1, 4
_CFG_CMD, _CFG_PARAMS, _CFG_QUEUE_MAXLEN, _CFG_MASK, _CFG_FLAGS = 1, 2, 3, 4, 5
_CMD_BIND = 1
_COPY_META = 1
_ATTR_PACKET_HDR = 1
_ATTR_VERDICT_HDR = 2
_NF_ACCEPT = 1
_F_FAIL_OPEN = 1
QUEUE = 0
QUEUE_MAXLEN = 4096

Mechanism = Literal["netem", "nfqueue"]


def netem_available(netns: str) -> bool:
    """Whether ``tc ... netem`` works here (probed on ``netns``'s loopback, then removed)."""
    try:
        run(
            ["ip", "netns", "exec", netns, "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms"]
        )
    except LabError:
        return False
    run(in_netns(netns, ["tc", "qdisc", "del", "dev", "lo", "root"]), check=False)
    return True


# --------------------------------------------------------------------------- nfnetlink_queue messages (pure)


def _attr(kind: int, payload: bytes) -> bytes:
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def _message(msg: int, queue: int, attrs: bytes, *, seq: int, ack: bool = True) -> bytes:
    body = struct.pack("=BB", socket.AF_UNSPEC, 0) + struct.pack(">H", queue) + attrs
    flags = _F_REQUEST | (_F_ACK if ack else 0)
    return struct.pack("=IHHII", 16 + len(body), _SUBSYS_QUEUE | msg, flags, seq, 0) + body


def bind_messages(queue: int) -> list[bytes]:
    """Bind ``queue``, copy metadata only, fail open when full."""
    cmd = _attr(_CFG_CMD, struct.pack("=BB", _CMD_BIND, 0) + struct.pack(">H", socket.AF_INET))
    params = _attr(_CFG_PARAMS, struct.pack(">IB", 0, _COPY_META))
    maxlen = _attr(_CFG_QUEUE_MAXLEN, struct.pack(">I", QUEUE_MAXLEN))
    flags = _attr(_CFG_FLAGS, struct.pack(">I", _F_FAIL_OPEN)) + _attr(
        _CFG_MASK, struct.pack(">I", _F_FAIL_OPEN)
    )
    return [
        _message(_MSG_CONFIG, queue, cmd, seq=1),
        _message(_MSG_CONFIG, queue, params + maxlen + flags, seq=2),
    ]


def verdict_message(queue: int, packet_id: int, seq: int) -> bytes:
    """Accept packet ``packet_id`` (no acknowledgement asked: one datagram per packet is enough)."""
    verdict = _attr(_ATTR_VERDICT_HDR, struct.pack(">II", _NF_ACCEPT, packet_id))
    return _message(_MSG_VERDICT, queue, verdict, seq=seq, ack=False)


def parse_messages(data: bytes) -> tuple[list[int], list[int]]:
    """(packet ids queued, netlink error codes other than 0) in one datagram from the kernel."""
    ids: list[int] = []
    errors: list[int] = []
    offset = 0
    while offset + 16 <= len(data):
        length, kind, _flags, _seq, _pid = struct.unpack_from("=IHHII", data, offset)
        if length < 16:
            break
        if kind == _NLMSG_ERROR:
            (code,) = struct.unpack_from("=i", data, offset + 16)
            if code:
                errors.append(-code)
        elif kind == _SUBSYS_QUEUE | _MSG_PACKET:
            pos = offset + 20
            while pos + 4 <= offset + length:
                alen, akind = struct.unpack_from("=HH", data, pos)
                if alen < 4:
                    break
                if akind & 0x7FFF == _ATTR_PACKET_HDR:
                    ids.append(struct.unpack_from(">I", data, pos + 4)[0])
                pos += alen + (-alen % 4)
        offset += length + (-length % 4)
    return ids, errors


# --------------------------------------------------------------------------- the delay line


class DelayLine:
    """A thread inside ``netns`` that accepts every queued packet ``ms`` after it was queued."""

    def __init__(self, netns: str, ms: float) -> None:
        self.netns = netns
        self.delay = ms / 1000.0
        self.delayed = 0
        self.error: str | None = None
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"delay-{netns}", daemon=True)
        self._thread.start()
        if not self._ready.wait(10) or self.error:
            self.stop()
            raise LabError(f"NFQUEUE delay line in {netns} did not start: {self.error or 'timeout'}")

    def _run(self) -> None:
        try:
            enter_netns(self.netns)
            sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        except OSError as exc:
            self.error = str(exc)
            self._ready.set()
            return
        with sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            sock.bind((0, 0))
            for message in bind_messages(QUEUE):
                sock.send(message)
                _, errors = parse_messages(sock.recv(65536))
                if errors:
                    self.error = f"netlink error {errors[0]} binding queue {QUEUE}"
                    self._ready.set()
                    return
            self._ready.set()
            self._loop(sock)

    def _loop(self, sock: socket.socket) -> None:
        pending: collections.deque[tuple[float, int]] = collections.deque()
        seq = 10
        while not self._stop.is_set():
            wait = 0.2 if not pending else max(0.0, pending[0][0] - time.monotonic())
            readable, _, _ = select.select([sock], [], [], wait)
            if readable:
                with contextlib.suppress(BlockingIOError, InterruptedError):
                    data = sock.recv(65536, socket.MSG_DONTWAIT)
                    now = time.monotonic()
                    pending.extend((now + self.delay, pid) for pid in parse_messages(data)[0])
            now = time.monotonic()
            while pending and pending[0][0] <= now:
                _, packet_id = pending.popleft()
                seq += 1
                with contextlib.suppress(OSError):
                    sock.send(verdict_message(QUEUE, packet_id, seq))
                self.delayed += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def add_delay(links: Sequence[tuple[str, str]], ms: float) -> tuple[Mechanism, list[DelayLine]]:
    """Delay what each ``(netns, interface)`` sends by ``ms``; the mechanism used and the delay lines to
    :meth:`DelayLine.stop` (none with netem: the qdiscs go with the namespaces)."""
    if not links or ms <= 0:
        return "netem", []
    if netem_available(links[0][0]):
        for netns, ifname in links:
            run(
                in_netns(
                    netns, ["tc", "qdisc", "replace", "dev", ifname, "root", "netem", "delay", f"{ms}ms"]
                )
            )
        return "netem", []
    lines: list[DelayLine] = []
    try:
        for netns in dict.fromkeys(n for n, _ in links):
            lines.append(DelayLine(netns, ms))
        for netns, ifname in links:
            rule = ["-t", "mangle", "-A", "POSTROUTING", "-o", ifname, "-j", "NFQUEUE"]
            run(in_netns(netns, ["iptables", *rule, "--queue-num", str(QUEUE), "--queue-bypass"]))
    except BaseException:
        for line in lines:
            line.stop()
        raise
    return "nfqueue", lines


__all__ = ["DelayLine", "Mechanism", "add_delay", "netem_available"]
