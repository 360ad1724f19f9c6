"""The chat drivers of this node: one :class:`~ioa_p2p.node.goals.driver.ChatDriver` per goal chat, and
which goal chats this node joins.

:class:`Drivers` is a read-only mapping ``chat id -> driver``. A driver starts when this node launches a
goal (:meth:`Drivers.ensure`), accepts an invitation to a goal chat (:meth:`Drivers.invite_policy`), or
starts and finds goal chats in its store (:meth:`Drivers.resume`); each runs in the goals service's
nursery, inside a fault boundary, and is forgotten when it stops (the next invitation or start resumes
its chat).

Invitation policy (docs/goals.md section 5): a chat whose topic starts with ``goal: `` is accepted while
this node works on fewer than ``[goals] max_concurrent`` goals (:meth:`ChatDriver.busy
<ioa_p2p.node.goals.driver.ChatDriver.busy>`), declined otherwise; other chats are accepted as before.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping

import trio

from ioa_p2p.history.bodies import ChatGenesis
from ioa_p2p.node.goals.driver import ChatDriver, DriverDeps
from ioa_p2p.node.goals.types import GOAL_TOPIC_PREFIX, GoalsConfig
from ioa_p2p.wire.envelope import Envelope

log = logging.getLogger("ioa_p2p.goals")


class Drivers(Mapping[bytes, ChatDriver]):
    """The running chat drivers by chat id (see the module docstring). Drivers start only after
    :meth:`open` gave them what they work with."""

    def __init__(self, config: GoalsConfig, nursery: trio.Nursery) -> None:
        self.config = config
        self._nursery = nursery
        self._drivers: dict[bytes, ChatDriver] = {}
        self._deps: DriverDeps | None = None
        self.declined_invitations = 0

    def open(self, deps: DriverDeps) -> None:
        """Give the drivers their collaborators (task running needs launching, which needs the drivers:
        the one cycle of the goal wing, closed here by ``compose_goals``)."""
        self._deps = deps

    # ------------------------------------------------------------------ the mapping

    def __getitem__(self, chat_id: bytes) -> ChatDriver:
        return self._drivers[chat_id]

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._drivers)

    def __len__(self) -> int:
        return len(self._drivers)

    # ------------------------------------------------------------------ starting and stopping

    def ensure(self, chat_id: bytes, *, wait_for_chat: float = 0.0, reserved: bool = False) -> ChatDriver:
        """The driver of ``chat_id``, started now when there is none (``wait_for_chat``: seconds it waits
        for an invited chat to arrive; ``reserved``: an accepted invitation waiting for its round)."""
        driver = self._drivers.get(chat_id)
        if driver is None:
            assert self._deps is not None, "Drivers.open() gives drivers their collaborators first"
            driver = ChatDriver(self._deps, chat_id, reserved=reserved)
            self._drivers[chat_id] = driver
            self._nursery.start_soon(self._run, driver, wait_for_chat)
        return driver

    async def _run(self, driver: ChatDriver, wait_for_chat: float) -> None:
        """A driver that fails stops alone (it is forgotten; the next invitation or start resumes the
        chat): the goals service and the node go on."""
        assert self._deps is not None
        try:
            with self._deps.node.faults.boundary("goal driver"):
                await driver.run(wait_for_chat)
        finally:
            if self._drivers.get(driver.chat_id) is driver:
                del self._drivers[driver.chat_id]

    def resume(self) -> int:
        """Start a driver for every goal chat this node is a member of (unfinished rounds resume)."""
        assert self._deps is not None
        count = 0
        for chat_id in self._deps.chats.member_chats_with_topic(GOAL_TOPIC_PREFIX):
            self.ensure(chat_id)
            count += 1
        return count

    # ------------------------------------------------------------------ invitations

    def busy_count(self) -> int:
        """Goals this node works on now (rounds it is a member of, invitations waiting for their round)."""
        return sum(1 for d in self._drivers.values() if d.busy(self.config.reserve_timeout))

    async def invite_policy(self, genesis: Envelope) -> bool:
        """Accept goal chats while under ``max_concurrent`` (others as before); start their driver."""
        body = genesis.body
        if not isinstance(body, ChatGenesis) or not body.topic.startswith(GOAL_TOPIC_PREFIX):
            return True
        if genesis.hash in self._drivers:
            return True
        if self.busy_count() >= self.config.max_concurrent:
            self.declined_invitations += 1
            log.info("declining goal chat %s: busy with %d goals", genesis.hash.hex()[:16], self.busy_count())
            return False
        self.ensure(genesis.hash, wait_for_chat=self.config.reserve_timeout, reserved=True)
        return True

    # ------------------------------------------------------------------ rounds

    def last_round_members(self, chat_id: bytes) -> tuple[str, ...] | None:
        """The members of the latest round this node drove in ``chat_id`` (None: no round known)."""
        driver = self._drivers.get(chat_id)
        last = driver.latest_round() if driver else None
        return None if last is None else tuple(last.start.members)


__all__ = ["Drivers"]
