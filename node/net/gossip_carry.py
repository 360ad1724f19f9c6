"""Carrying a co-hosted agent's card announcement out through the gossip mesh of its process-mates.

The agents of one process hand each other their announcements in memory
(:meth:`~ioa_p2p.node.net.cohosted.CoHosted.card_topic`) and open no pubsub stream to each other, so an
agent's announcement reaches the *other* processes only through its own gossip mesh. An agent that
starts after the others of its process meets the remote agents through its DHT join before its card
topic opens; their identify said then that it speaks no GossipSub, they do not register it, and it has no
remote gossip neighbour when it announces: its card crosses only by a census or a DHT fetch, minutes
later (issue 26, docs/performance.md: the late starters of 4 processes of 25 held 13 remote connections
and 0 card-topic peers; 68 of 100 cards at a coordinator after 90 s).

So an agent's announcement, a pubsub message signed by the agent itself (:func:`signed_message`, as
``Pubsub.publish`` makes it), is also handed to the process-mates with the largest remote mesh
(:data:`~ioa_p2p.node.net.cohosted.CARRIERS` of them, ``CoHosted.carrying``). Each pushes it through
its own pubsub as a message *forwarded* by its origin (:func:`carry_loop`): its own topic validator
checks it (the card is the origin's, signed by it), and its router sends it to its mesh, as GossipSub
forwards any message. Remote peers see an ordinary
forwarded message (from the origin, signature the origin's) and deduplicate it by its ID like any other;
nothing is signed on another agent's behalf. The hand-over is a bounded queue (:data:`CARRY_QUEUE`,
dropped past it: gossip is best effort, the census and DHT fetches remain).
"""

from __future__ import annotations

import logging
from typing import Any

import trio
from libp2p.peer.id import ID
from libp2p.pubsub.pb import rpc_pb2
from libp2p.pubsub.pubsub import Pubsub
from libp2p.pubsub.validators import PUBSUB_SIGNING_PREFIX

from ioa_p2p.errors import LocalStateError
from ioa_p2p.faults import Faults

log = logging.getLogger("ioa_p2p.node.net.gossip")

#: Announcements of process-mates waiting to be forwarded by one agent (more are dropped).
CARRY_QUEUE = 64
#: Seconds one forward may take (its validation and its writes to the mesh).
CARRY_TIMEOUT = 10.0


def signed_message(pubsub: Pubsub, topic: str, data: bytes) -> Any:
    """The pubsub message ``Pubsub.publish(topic, data)`` would push: from this node, its next sequence
    number, signed with its key (strict signing)."""
    msg = rpc_pb2.Message(
        data=data, topicIDs=[topic], from_id=pubsub.my_id.to_bytes(), seqno=pubsub._next_seqno()
    )
    if pubsub.strict_signing:
        key = pubsub.sign_key
        if key is None:
            raise LocalStateError("the pubsub router has no signing key; cannot announce a card")
        msg.signature = key.sign(PUBSUB_SIGNING_PREFIX.encode() + msg.SerializeToString())
        msg.key = pubsub.host.get_public_key().serialize()
    return msg


class Carrier:
    """The announcements of process-mates one agent forwards to its mesh (a bounded queue)."""

    def __init__(self, size: int = CARRY_QUEUE) -> None:
        self._send, self._receive = trio.open_memory_channel[Any](size)
        self.carried = 0
        self.dropped = 0

    def offer(self, msg: Any) -> bool:
        """Queue ``msg`` (another agent's signed announcement); False when the queue is full."""
        try:
            self._send.send_nowait(msg)
        except trio.WouldBlock:
            self.dropped += 1
            return False
        return True

    async def next(self) -> Any:
        return await self._receive.receive()


async def carry_loop(pubsub: Pubsub, carrier: Carrier, faults: Faults) -> None:
    """Forward the queued announcements of process-mates through ``pubsub``, each as a message its
    origin forwarded to us (validated by our topic validator, then sent to our mesh)."""
    while True:
        msg = await carrier.next()
        with faults.boundary("gossip carry"), trio.move_on_after(CARRY_TIMEOUT):
            await pubsub.push_msg(ID(msg.from_id), msg)
            carrier.carried += 1


__all__ = ["CARRY_QUEUE", "CARRY_TIMEOUT", "Carrier", "carry_loop", "signed_message"]
