"""The agents of one process (``[[agents]]``, ``open_agents``): who they are, so that they do not budget
each other as remote peers.

The per-peer budgets of :mod:`ioa_p2p.node.net.budgets` protect a node from what remote peers make it
do: identities are free, so a stranger's work is paced in a pool, and strangers yield to trusted peers
while the loop is congested. The agents of one process are not remote: they are this process's own
code, on its one event loop and its one CPU, and their peer IDs are proven by the Noise handshake of
every connection between them. Budgeting them against each other only adds waits: while they start,
each agent is a stranger to every other (none holds another's card yet), so every agent kept the
others waiting for its trusted bootstrap peer's work, and the CPU they took was charged per step by
the step timer for nothing (measured: a 25-agent process, 4 of 25 cards at the coordinator after
150 s, team formation 42.7 s p50; docs/performance.md, issue 26).

So a node hosted with others (:class:`CoHosted`, one per ``open_agents``) treats their connections as
its process's own work: not charged to a peer, never paced, trusted as the operator's (the operator
listed them); what bounds them is the process's own CPU, as for the node's own tasks. Remote peers keep
their per-peer budgets and pools. Nodes that merely share a trio run (tests with an attacker node
beside its victim) are not co-hosted unless they are given the same :class:`CoHosted`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ioa_p2p.identity import PeerId


class CoHosted:
    """The peer IDs of the agents that run in this process (as one ``[[agents]]`` list)."""

    __slots__ = ("_peers",)

    def __init__(self) -> None:
        self._peers: dict[PeerId, int] = {}

    def __contains__(self, peer: object) -> bool:
        return peer in self._peers

    def __len__(self) -> int:
        return len(self._peers)

    @contextmanager
    def hosting(self, peer: PeerId) -> Iterator[None]:
        """While this block runs, ``peer`` is one of the process's agents (from before its host
        listens or dials until it has closed)."""
        self._peers[peer] = self._peers.get(peer, 0) + 1
        try:
            yield
        finally:
            left = self._peers.pop(peer, 1) - 1
            if left > 0:
                self._peers[peer] = left


__all__ = ["CoHosted"]
