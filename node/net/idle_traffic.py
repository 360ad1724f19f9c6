"""What py-libp2p sends while nothing happens, cut to what is needed (patch 22 of
:mod:`ioa_p2p.node.net.libp2p_patches`; docs/performance.md, "Light nodes").

21. Yamux window credit on every read: py-libp2p 0.8.1's ``YamuxStream`` sends a WINDOW_UPDATE frame
    after nearly every read (its "partial slack" and "release on read" branches credit any bytes
    read), and its own message readers read a varint prefix one byte at a time, so each small message
    on a Kademlia or GossipSub stream cost the peer about three frames more than the message itself
    (measured: 608 window updates for 200 messages of 300 bytes; an idle node of a 25-node testnet
    wrote 18 window updates a second against 7.5 data frames). Each frame is a Noise encryption, a
    socket write and a wake-up of the peer's muxer. :func:`credit_in_halves` keeps go-yamux's rule,
    which upstream's first two branches already implement: credit the bytes read once they reach
    half the receive window (the receive window grows as upstream's auto-tuning says), so a stream of
    small messages sends no window update until it has carried half a window. Flow control is
    unchanged: a sender that filled the window is credited as soon as the reader took half of it.
    ``tests/test_idle_traffic.py`` checks that upstream still credits on every read (the patch is
    still needed), that patched hosts send almost no window updates for small messages, and that a
    transfer of many windows still completes.

Also here: yamux measures each connection's RTT with a PING every ``RTT_MEASURE_INTERVAL`` (30 s); at
25 nodes (about 26 connections each) that was 1.7 frames a second written and as many read by an idle
node, the largest part of its frames once the window credit was fixed. :func:`credit_yamux_in_halves`
sets it to :data:`RTT_PING_INTERVAL` (120 s): the RTT only tunes receive windows, and a PING every
2 minutes still keeps NAT mappings of TCP connections alive (RFC 5382 asks NATs to keep them 2 h).
Each connection's stale-stream sweeper likewise woke every ``_STALE_STREAM_SWEEP_INTERVAL`` (30 s): at
100 connections 3.3 wake-ups a second of an idle node, each taking the connection's stream lock to find
nothing. It runs every :data:`STALE_SWEEP_INTERVAL` (120 s) now: what it reclaims is the bookkeeping of
streams closed 60 s ago with unread bytes, which the ``unread`` ledger bounds meanwhile
(:mod:`~ioa_p2p.node.net.muxer_meter` drops a reset stream's bytes at once).
"""

from __future__ import annotations

from typing import Any

#: Seconds between yamux's RTT PINGs on each connection (upstream: 30 s; an int there).
RTT_PING_INTERVAL = 120
#: Seconds between yamux's sweeps of closed streams on each connection (upstream: 30 s).
STALE_SWEEP_INTERVAL = 120.0
#: Upstream's ``YamuxStream._auto_tune_and_send_window_update``, kept when the patch goes in.
_upstream: Any = None


async def credit_in_halves(self: Any, *, bytes_read: int = 0) -> None:
    """``YamuxStream._auto_tune_and_send_window_update`` without the per-read credit (see patch 22):
    a WINDOW_UPDATE only when half the receive window or more was read since the last one."""
    total = 0
    async with self.window_lock:
        if bytes_read > 0:
            self._pending_recv_release += bytes_read
        buffered = len(self.conn.stream_buffers.get(self.stream_id, b""))
        delta = self.target_recv_window - (self.recv_window + buffered)
        threshold = self._grow_threshold()
        if delta > 0 and delta >= threshold:
            total = self._grow_to_delta(buffered) + self._apply_autotune_epoch(buffered)
            self._pending_recv_release = 0
        elif self._pending_recv_release > 0 and self._pending_recv_release >= threshold:
            total = self._pending_recv_release
            self.recv_window += total
            self._pending_recv_release = 0
            total += self._apply_autotune_epoch(buffered)
    if total > 0:
        await self.send_window_update(total, skip_lock=True)


def credit_yamux_in_halves() -> None:
    """Install patch 22 (idempotent, process-wide; before any yamux stream reads)."""
    global _upstream
    if _upstream is not None:
        return
    import libp2p.stream_muxer.yamux.yamux as yamux
    from libp2p.stream_muxer.yamux.yamux import YamuxStream

    for name in (
        "_auto_tune_and_send_window_update",
        "_grow_threshold",
        "_grow_to_delta",
        "_apply_autotune_epoch",
        "send_window_update",
    ):
        if not hasattr(YamuxStream, name):
            raise RuntimeError(f"py-libp2p's YamuxStream has no {name} any more: revisit idle_traffic.py")
    if not hasattr(yamux, "RTT_MEASURE_INTERVAL"):
        raise RuntimeError("py-libp2p's yamux has no RTT_MEASURE_INTERVAL any more: revisit idle_traffic.py")
    if not hasattr(yamux, "_STALE_STREAM_SWEEP_INTERVAL"):
        raise RuntimeError(
            "py-libp2p's yamux has no _STALE_STREAM_SWEEP_INTERVAL any more: revisit idle_traffic.py"
        )
    yamux.RTT_MEASURE_INTERVAL = max(yamux.RTT_MEASURE_INTERVAL, RTT_PING_INTERVAL)
    yamux._STALE_STREAM_SWEEP_INTERVAL = max(yamux._STALE_STREAM_SWEEP_INTERVAL, STALE_SWEEP_INTERVAL)
    _upstream = YamuxStream._auto_tune_and_send_window_update
    YamuxStream._auto_tune_and_send_window_update = credit_in_halves  # type: ignore[method-assign]


def upstream_credit() -> Any:
    """Upstream's credit function (for the sentinel test); the patch must be in."""
    if _upstream is None:
        raise RuntimeError("patch 22 is not applied yet")
    return _upstream


__all__ = [
    "RTT_PING_INTERVAL",
    "STALE_SWEEP_INTERVAL",
    "credit_in_halves",
    "credit_yamux_in_halves",
    "upstream_credit",
]
