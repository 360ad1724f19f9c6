"""The node's resource budgets (``[limits]``), shared by every service, and their control route.

One :class:`NodeBudgets` per node (``node.budgets``) owns the ledgers and rate budgets of
:mod:`ioa_p2p.budget`, sized by :class:`ioa_p2p.config.limits.Limits`:

- ``frames``: bytes announced by incomplete frames, per peer and in total (every FramedStream the
  node makes, inbound and outbound, is charged here; see :mod:`ioa_p2p.node.net.framing`);
- ``streams``: inbound ``/ioa/...`` streams open at once, per peer and in total (charged by
  :meth:`ioa_p2p.node.node.Node.set_stream_handler`; py-libp2p's resource manager also caps every
  inbound stream of a peer before protocol negotiation: ``libp2p_patches.cap_inbound_streams``, and
  refuses there the streams of a peer whose partial-frame budget is full, :meth:`NodeBudgets.admits`);
- ``orphans``: encoded bytes of chat messages waiting for missing parents, across all chats
  (each chat's own cap lives in its :class:`ioa_p2p.history.pending.PendingSet`);
- ``sync_requests`` / ``sync_messages``: sync answers per peer and in total per period;
  ``sync_answers``: bytes of sync answers built and not yet sent, per peer and in total;
  ``sync_pulls``: pulls started because of what a peer sent, per peer per period.

``GET /budgets`` on the control API shows what each holds and how often it refused or evicted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from ioa_p2p.budget import Ledger, RateBudget
from ioa_p2p.config.limits import Limits
from ioa_p2p.errors import IoAError
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.framing import READ_CHUNK, FramedStream

if TYPE_CHECKING:
    pass


class NodeBudgets:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.frames = Ledger(
            "partial_frame_bytes",
            total=limits.partial_frame_bytes_total,
            per_key=limits.partial_frame_bytes_per_peer,
        )
        self.streams = Ledger("streams", total=limits.streams_total, per_key=limits.streams_per_peer)
        self.orphans = Ledger("pending_bytes", total=limits.pending_bytes_total)
        period = limits.sync_period
        self.sync_requests = RateBudget(
            "sync_requests",
            period=period,
            per_key=limits.sync_requests_per_peer,
            total=limits.sync_requests_total,
        )
        self.sync_messages = RateBudget(
            "sync_messages",
            period=period,
            per_key=limits.sync_messages_per_peer,
            total=limits.sync_messages_total,
        )
        self.sync_answers = Ledger(
            "sync_answer_bytes",
            total=limits.sync_answer_bytes_total,
            per_key=limits.sync_answer_bytes_per_peer,
        )
        self.sync_pulls = RateBudget("sync_pulls", period=period, per_key=limits.sync_pulls_per_peer)
        #: inbound streams py-libp2p refused before negotiation (per-peer cap); set by the patch
        self.streams_refused_early = 0

    def framed(self, stream: Any, remote: PeerId) -> FramedStream:
        """A FramedStream over ``stream`` with the node's deadlines, charged to its frame budget."""
        return FramedStream(
            stream,
            remote,
            read_timeout=self.limits.read_timeout,
            frame_timeout=self.limits.frame_timeout,
            budget=self.frames,
        )

    def count_refused_early(self, peer: str) -> None:
        self.streams_refused_early += 1

    def admits(self, peer: str) -> bool:
        """Whether a new inbound stream of ``peer`` may start protocol negotiation: not while the
        peer's partial-frame budget is full (less than one read chunk left), since any frame it
        would announce there is refused anyway, after the cost of negotiating and reading it."""
        frames = self.frames
        if frames.held_total == 0:
            return True
        try:
            key = PeerId.from_string(peer)
        except IoAError:
            return False
        return frames.per_key is None or frames.per_key - frames.held(key) >= READ_CHUNK

    @staticmethod
    def now() -> float:
        return trio.current_time()

    def snapshot(self) -> dict[str, Any]:
        streams = self.streams.snapshot()
        streams["refused_before_negotiation"] = self.streams_refused_early
        return {
            "partial_frame_bytes": self.frames.snapshot(),
            "streams": streams,
            "pending_bytes": self.orphans.snapshot(),
            "sync_requests": self.sync_requests.snapshot(),
            "sync_messages": self.sync_messages.snapshot(),
            "sync_answer_bytes": self.sync_answers.snapshot(),
            "sync_pulls": self.sync_pulls.snapshot(),
            "limits": _limits_view(self.limits),
        }


def _limits_view(limits: Limits) -> dict[str, Any]:
    return {name: getattr(limits, name) for name in limits.__dataclass_fields__}


__all__ = ["NodeBudgets"]
