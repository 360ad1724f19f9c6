"""What a simulated round of stores shares (:class:`PlacingRun`): its lookup, the stores sent while the
lookup runs (:class:`~ioa_p2p.dht.early.EarlyPlacement`), the quorum that answers its caller and ends it
(:mod:`~ioa_p2p.dht.quorum`, as ``ioa_p2p.node.net.store_round`` does in the node) and its times. The
runs themselves (record put, page put, provide round) are :mod:`~ioa_p2p.dht.sim.publish`.

Two moments, as in the node: the caller's wait ends (:attr:`PlacingRun.returned_at`, ``on_done``) once
every key has its quorum (:attr:`StoreQuorum.placed <ioa_p2p.dht.quorum.StoreQuorum.placed>`, the
record findable), and the round goes on until its quorum and grace, or every target heard from
(:attr:`PlacingRun.finished_at`); acknowledgements in between still count. A ``complete`` round (a
withdrawal's tombstone) ends, and only then answers its caller, when every target has been heard from."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from ioa_p2p.dht.early import EarlyPlacement
from ioa_p2p.dht.keyspace import K, estimate_network_size
from ioa_p2p.dht.provide import assign
from ioa_p2p.dht.quorum import StoreQuorum, grace
from ioa_p2p.dht.sim.fabric import Fabric
from ioa_p2p.dht.sim.kad import PLACE_ASK, LookupRun, start_lookup
from ioa_p2p.dht.sim.peer import SimNode


def network_size(world: Fabric, node: SimNode) -> float:
    """The node's estimate of the network's size (its table's closest peers and its connections)."""
    known = node.table.closest(node.position, K) + [world.nodes[i].peer for i in node.neighbours]
    return estimate_network_size(node.peer, known)


class PlacingRun(ABC):
    """What the three runs share: who places what, when it started and finished, and ``on_done``. A run
    (:mod:`~ioa_p2p.dht.sim.publish`) says how it sends stores (:meth:`_send_early`, :meth:`_placed`)."""

    def __init__(
        self,
        world: Fabric,
        node: SimNode,
        on_done: Callable[[Any], Any] | None,
        ask: int,
        complete: bool = False,
    ) -> None:
        self.world, self.node, self.on_done = world, node, on_done
        self.ask = max(ask, PLACE_ASK)
        self.complete = complete
        self.started_at = world.loop.now
        self.returned_at: float | None = None  # the caller's wait ended (``on_done``): the quorum placed
        self.finished_at: float | None = None  # the round ended
        self.placed_at: float | None = None  # every key had its quorum (findable at its closest peers)
        self.looked_up_at: float | None = None  # the lookup was done
        self.quorum: StoreQuorum | None = None
        self.early: EarlyPlacement | None = None
        self.lookup: LookupRun | None = None
        self._grace_set = False
        self._over = False  # the quorum's grace is over: the round ends once nothing holds it

    def _look_up(self, keys: list[bytes], kind: str) -> None:
        """Start the lookup of ``keys``; each answer sends the stores due early (:meth:`_send_early`)."""
        world, node = self.world, self.node
        self.quorum = StoreQuorum({key: () for key in keys}, final=False)
        rank = getattr(world, "early_rank", 0.0)
        if rank > 0:
            self.early = EarlyPlacement(keys, network_size(world, node), rank)
        on_answer = self._answer if self.early is not None else None
        self.lookup = start_lookup(
            world, node, keys, kind, ask=self.ask, on_answer=on_answer, on_done=self._placed
        )

    def _answer(self, key: bytes) -> None:
        run, early, quorum = self.lookup, self.early, self.quorum
        if run is None or early is None or quorum is None or self.finished_at is not None or quorum.final:
            return
        lookup = run.lookup
        if not early.active:
            return
        due = early.due(key, lookup.closest(key))
        if lookup.finished(key):  # this key's lookup is over: the rest of its closest, not the batch's end
            due += early.rest({key: list(lookup.keys[key].candidates)})[key]
        if due:
            quorum.add(key, due)
            self._send_early({peer: [key] for peer in due})

    @abstractmethod
    def _send_early(self, plan: dict[bytes, list[bytes]]) -> None:
        """Send ``plan`` (peer -> keys) now, while the lookup runs."""

    @abstractmethod
    def _placed(self, run: LookupRun) -> None:
        """The lookup of ``run`` is done: send the rest of the round's stores (:meth:`_final`)."""

    def _final(self, run: LookupRun) -> dict[bytes, list[bytes]]:
        """The lookup is done: the targets of its keys not sent early, as ``peer -> keys``; the round's
        targets are final from now."""
        quorum = self.quorum
        assert quorum is not None
        self.looked_up_at = self.world.loop.now
        final = {key: list(state.candidates) for key, state in run.lookup.keys.items()}
        rest = self.early.rest(final) if self.early is not None else final
        quorum.finalise(rest)
        return assign(rest)

    def _heard(self, peer: bytes, acked: list[bytes], gave_up: list[bytes]) -> None:
        """``peer`` acknowledged ``acked`` and will not be asked ``gave_up`` again; ends the round as
        ``ioa_p2p.node.net.kad_write.QuorumRound`` does."""
        quorum = self.quorum
        if quorum is None or self.finished_at is not None:
            return
        quorum.acked(peer, acked)
        quorum.gave_up(peer, gave_up)
        self._check()

    def _check(self) -> None:
        quorum = self.quorum
        assert quorum is not None
        if self.placed_at is None and quorum.placed:
            self.placed_at = self.world.loop.now
            if not self.complete:
                self._return()
        if not quorum.final:
            return
        if quorum.settled or (self._over and not self._holding()):
            self._finish()
        elif quorum.reached and not self._grace_set and not self.complete:
            self._grace_set = True
            self.world.loop.after(grace(self.world.loop.now - self.started_at), self._grace_over)

    def _holding(self) -> bool:
        """Keys not sent yet that the round sends, quorum or not (a provide round's paced keys)."""
        return False

    def _grace_over(self) -> None:
        self._over = True
        if not self._holding():
            self._finish()

    def _return(self) -> None:
        """The caller's wait ends (``on_done``); the round may go on."""
        if self.returned_at is not None:
            return
        self.returned_at = self.world.loop.now
        if self.on_done is not None:
            self.on_done(self)

    def _finish(self) -> None:
        if self.finished_at is not None:
            return
        self.finished_at = self.world.loop.now
        if self.placed_at is None and self.quorum is not None and self.quorum.placed:
            self.placed_at = self.finished_at
        self._return()

    @property
    def elapsed(self) -> float:
        """Seconds the caller waited (so far)."""
        return (self.returned_at if self.returned_at is not None else self.world.loop.now) - self.started_at

    @property
    def round_s(self) -> float | None:
        """Seconds until the round ended (None: not yet)."""
        return None if self.finished_at is None else self.finished_at - self.started_at

    @property
    def placed_s(self) -> float | None:
        """Seconds until every key had its quorum (None: not within the round)."""
        return None if self.placed_at is None else self.placed_at - self.started_at


__all__ = ["PlacingRun", "network_size"]
