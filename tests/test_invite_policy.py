"""Who may invite a node into a chat: names, added_by, declines, rates, budgets, open/known/allowlist.

Unit tests for the rate limiter and the ``[chats]`` keys; the rest on real libp2p hosts on 127.0.0.1,
an attacker sending hand-made signed invitations and reading the signed replies.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.adapters.registry import adapter_executes_code
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import ConfigError, ProtocolViolation
from ioa_p2p.history.bodies import make_genesis
from ioa_p2p.history.frames import ChatInvite, ChatInviteReply
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node import Node
from ioa_p2p.node.chats.admission import RateLimiter
from ioa_p2p.node.chats.config import ChatsConfig
from ioa_p2p.node.chats.invites import PROTO_INVITE
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import build
from tests.nodes import checked_node

from .test_chats_net import FAST, chats_of, connect_all

# --------------------------------------------------------------------------- units


def test_rate_limiter_allows_a_burst_then_the_refill_rate_per_inviter() -> None:
    now = [100.0]
    limiter = RateLimiter(rate=0.5, burst=3, clock=lambda: now[0], max_keys=2)
    a, b, c = (Identity.generate().peer_id for _ in range(3))
    assert [limiter.take(a) for _ in range(4)] == [True, True, True, False]
    assert limiter.take(b)  # another inviter has its own bucket
    now[0] += 1.9
    assert not limiter.take(a)  # 0.95 tokens
    now[0] += 0.2
    assert limiter.take(a) and not limiter.take(a)
    limiter.take(c)  # a third inviter: the least recently seen (b) is forgotten, a is kept
    assert not limiter.take(a)


def test_chats_invite_keys_are_checked() -> None:
    peer = str(Identity.generate().peer_id)
    config = ChatsConfig.from_section(
        {"invite_policy": "allowlist", "invite_allowlist": [peer], "invite_burst": 5, "invite_rate": 1}
    )
    rules = config.invite_rules("open")
    assert rules.policy == "allowlist" and rules.allow == {PeerId.from_string(peer)} and rules.burst == 5
    assert ChatsConfig.from_section({}).invite_rules("known").policy == "known"  # the node's default
    assert ChatsConfig.from_section({"invite_policy": "open"}).invite_rules("known").policy == "open"
    for bad, key in [
        ({"invite_policy": "friends"}, "invite_policy"),
        ({"invite_allowlist": ["not-a-peer"]}, "invite_allowlist"),
        ({"invite_denylist": "12D3KooW"}, "invite_denylist"),
        ({"invite_burst": 0}, "invite_burst"),
        ({"max_chats_per_inviter": -1}, "max_chats_per_inviter"),
    ]:
        with pytest.raises(ConfigError, match=key):
            ChatsConfig.from_section(bad)


def test_adapters_that_execute_code_say_so() -> None:
    assert adapter_executes_code("python")
    assert not any(adapter_executes_code(k) for k in ("calculator", "echo", "retrieval", None, "no-such"))


# --------------------------------------------------------------------------- helpers


def config_for(tmp_path: Path, name: str, chats: dict[str, Any] | None = None, **tables: Any) -> NodeConfig:
    return NodeConfig(home=tmp_path / name, raw={"chats": {**FAST, **(chats or {})}, **tables})


@asynccontextmanager
async def open_named(tmp_path: Path, configs: dict[str, NodeConfig]) -> AsyncIterator[dict[str, Node]]:
    async with AsyncExitStack() as stack:
        nodes = {
            name: await stack.enter_async_context(checked_node(config, Identity.generate()))
            for name, config in configs.items()
        }
        await connect_all(list(nodes.values()))
        yield nodes


def genesis_by(node: Node, members: list[PeerId], topic: str = "t") -> Envelope:
    now = int(time.time() * 1000)
    return make_genesis(node.identity, members, topic, now_ms=now, nonce=secrets.token_bytes(16))


async def invite_raw(
    sender: Node, target: Node, genesis: Envelope, added_by: bytes | None = None
) -> ChatInviteReply:
    """Send one signed ``chat.invite`` by hand; the target's signed reply body."""
    invite = Envelope.create(
        sender.identity, build(ChatInvite, genesis=genesis.to_cbor(), added_by=added_by), seq=0
    )
    stream = await sender.open_stream(target.peer_id, PROTO_INVITE)
    async with stream:
        await stream.send(invite.to_cbor())
        reply = await stream.receive_envelope()
    assert reply.author == target.peer_id and isinstance(reply.body, ChatInviteReply)
    assert reply.body.chat_id == genesis.hash
    return reply.body


async def invite_settled(
    sender: Node, target: Node, genesis: Envelope, added_by: bytes | None = None
) -> ChatInviteReply:
    """``invite_raw``, asking again while the answer is the transient ``busy`` (the sender's own chat
    service may be re-inviting the target to the same chat at the same moment)."""
    while True:
        reply = await invite_raw(sender, target, genesis, added_by)
        if code(reply) != "busy":
            return reply
        await trio.sleep(0.1)


def code(reply: ChatInviteReply) -> str:
    return reply.reason.split(":", 1)[0]


async def invite_fresh(sender: Node, target: Node, topic: str = "t") -> ChatInviteReply:
    """Invite ``target`` to a new (well-formed) chat of ``sender`` and ``target``."""
    return await invite_raw(sender, target, genesis_by(sender, [target.peer_id], topic))


def stored_chats(node: Node) -> int:
    return len(chats_of(node).store.chats())


# --------------------------------------------------------------------------- names and added_by


@pytest.mark.slow
async def test_invitations_that_do_not_name_this_node_or_carry_a_bogus_added_by_are_refused(
    tmp_path: Path,
) -> None:
    with trio.fail_after(90):
        configs = {n: config_for(tmp_path, n) for n in ("victim", "attacker", "other", "x")}
        async with open_named(tmp_path, configs) as nodes:
            victim, attacker, other, x = (nodes[n] for n in ("victim", "attacker", "other", "x"))
            asked: list[bytes] = []
            asked_once = trio.Event()

            async def decline_all(genesis: Envelope) -> bool:
                asked.append(genesis.hash)
                asked_once.set()
                return False

            chats_of(victim).set_invite_policy(decline_all)

            # a genesis that does not name the victim, without added_by
            not_named = await invite_raw(attacker, victim, genesis_by(attacker, [other.peer_id]))
            assert (not_named.accept, code(not_named)) == (False, "not-named")
            # a genesis naming the victim, sent by someone it does not name
            by_outsider = await invite_raw(attacker, victim, genesis_by(other, [victim.peer_id]))
            assert code(by_outsider) == "inviter-not-member"

            # added_by with a made-up hash, in a chat the attacker really holds (victim not a member)
            handle = await chats_of(attacker).create_chat([other.peer_id], "real chat")
            made_up = await invite_raw(attacker, victim, handle.genesis, secrets.token_bytes(32))
            assert code(made_up) == "bad-added-by"
            # the hash of a real message that is not a member.add of the victim
            text = await chats_of(attacker).post(handle.chat_id, "text", {"text": "hi"})
            await chats_of(attacker).add_member(handle.chat_id, victim.peer_id)  # real add, declined
            await asked_once.wait()  # the attacker node's own invitation was checked and declined
            add_x = await chats_of(attacker).add_member(handle.chat_id, x.peer_id)
            for wrong in (text.hash, add_x.hash):
                reply = await invite_settled(attacker, victim, handle.genesis, wrong)
                assert code(reply) == "bad-added-by", reply.reason
            # the real member.add passes every rule and reaches the application (which declines)
            real = chats_of(attacker).history(handle.chat_id)[1]
            reply = await invite_settled(attacker, victim, handle.genesis, real.hash)
            assert (reply.accept, code(reply)) == (False, "declined")
            assert handle.chat_id in asked

            # nothing was stored: not the refusals, not the declines
            assert stored_chats(victim) == 0 and chats_of(victim).find(handle.chat_id) is None
            refused = chats_of(victim).invites.admission.refused
            assert refused["not-named"] == 1 and refused["bad-added-by"] == 3


@pytest.mark.slow
async def test_a_verified_added_by_joins_with_the_pulled_history(tmp_path: Path) -> None:
    with trio.fail_after(60):
        configs = {n: config_for(tmp_path, n) for n in ("a", "b", "c")}
        async with open_named(tmp_path, configs) as nodes:
            a, b, c = nodes["a"], nodes["b"], nodes["c"]
            handle = await chats_of(a).create_chat([b.peer_id], "grows")
            for i in range(3):
                await chats_of(a).post(handle.chat_id, "text", {"text": f"m{i}"})
            await chats_of(a).add_member(handle.chat_id, c.peer_id)  # invites c with added_by
            chats = chats_of(c)
            await chats.wait_until(lambda: chats.find(handle.chat_id) is not None)
            assert chats.status(handle.chat_id) == "member"
            assert len(chats.get(handle.chat_id)) == 4  # the pulled history came with it
            assert chats.store.chat(handle.chat_id).inviter == a.peer_id.raw  # type: ignore[union-attr]


# --------------------------------------------------------------------------- rates and budgets


@pytest.mark.slow
async def test_per_inviter_rate_limit_refuses_the_flood_and_serves_everyone_else(tmp_path: Path) -> None:
    with trio.fail_after(60):
        configs = {
            "victim": config_for(tmp_path, "victim", {"invite_burst": 3, "invite_rate": 0.001}),
            "attacker": config_for(tmp_path, "attacker"),
            "good": config_for(tmp_path, "good"),
        }
        async with open_named(tmp_path, configs) as nodes:
            victim, attacker, good = nodes["victim"], nodes["attacker"], nodes["good"]
            replies = [await invite_fresh(attacker, victim, f"flood {i}") for i in range(6)]
            assert [code(r) for r in replies] == ["accepted"] * 3 + ["rate-limited"] * 3
            assert chats_of(victim).store.count_invited(attacker.peer_id) == 3
            assert stored_chats(victim) == 3
            assert (await invite_fresh(good, victim)).accept  # another inviter is still served
            # the inviter's side reads "rate-limited" as "not now" (unanswered), not as a decline
            genesis = genesis_by(attacker, [victim.peer_id])
            answer = await chats_of(attacker).invites.call_invite(victim.peer_id, genesis, None, within=5)
            assert answer is None


@pytest.mark.slow
async def test_per_inviter_and_total_budgets_refuse_the_newcomer_and_keep_what_is_held(
    tmp_path: Path,
) -> None:
    with trio.fail_after(60):
        configs = {
            "victim": config_for(tmp_path, "victim", {"max_chats_per_inviter": 2, "max_invited_chats": 3}),
            "attacker": config_for(tmp_path, "attacker"),
            "good": config_for(tmp_path, "good"),
        }
        async with open_named(tmp_path, configs) as nodes:
            victim, attacker, good = nodes["victim"], nodes["attacker"], nodes["good"]
            codes = [code(await invite_fresh(attacker, victim, f"a{i}")) for i in range(3)]
            assert codes == ["accepted", "accepted", "over-budget"]
            first = await invite_fresh(good, victim, "g0")
            assert first.accept  # the total is 3: one more inviter fits
            assert code(await invite_fresh(good, victim, "g1")) == "over-budget"  # total reached
            # what is held is kept and served: the good chat works, and leaving one frees a place
            await chats_of(victim).post(first.chat_id, "text", {"text": "still here"})
            await chats_of(victim).leave(first.chat_id)
            assert (await invite_fresh(good, victim, "g2")).accept
            assert stored_chats(victim) == 4  # 2 + the left one + the new one


# --------------------------------------------------------------------------- policies


@pytest.mark.slow
async def test_allowlist_and_denylist(tmp_path: Path) -> None:
    with trio.fail_after(60):
        friend_id = Identity.generate()
        stranger_id = Identity.generate()
        configs = {
            "allow": config_for(
                tmp_path,
                "allow",
                {"invite_policy": "allowlist", "invite_allowlist": [str(friend_id.peer_id)]},
            ),
            "deny": config_for(tmp_path, "deny", {"invite_denylist": [str(stranger_id.peer_id)]}),
        }
        async with AsyncExitStack() as stack:
            nodes = {
                n: await stack.enter_async_context(checked_node(c, Identity.generate()))
                for n, c in configs.items()
            }
            friend = await stack.enter_async_context(checked_node(config_for(tmp_path, "f"), friend_id))
            stranger = await stack.enter_async_context(checked_node(config_for(tmp_path, "s"), stranger_id))
            await connect_all([*nodes.values(), friend, stranger])
            assert (await invite_fresh(friend, nodes["allow"])).accept
            assert code(await invite_fresh(stranger, nodes["allow"])) == "not-allowed"
            assert (await invite_fresh(friend, nodes["deny"])).accept
            assert code(await invite_fresh(stranger, nodes["deny"])) == "denied"
            assert stored_chats(nodes["allow"]) == 1 and stored_chats(nodes["deny"]) == 1


@pytest.mark.slow
async def test_a_node_whose_adapter_executes_code_accepts_only_known_inviters_by_default(
    tmp_path: Path,
) -> None:
    with trio.fail_after(120):
        configs = {
            "coder": config_for(tmp_path, "coder", agent={"name": "coder", "adapter": "python"}),
            "open_coder": config_for(
                tmp_path, "open_coder", {"invite_policy": "open"}, agent={"adapter": "python"}
            ),
            "known": config_for(tmp_path, "known", agent={"name": "planner"}),
            "stranger": config_for(tmp_path, "stranger", discovery={"enabled": False}),  # no card
        }
        async with open_named(tmp_path, configs) as nodes:
            coder, known, stranger = nodes["coder"], nodes["known"], nodes["stranger"]
            assert chats_of(coder).invites.admission.rules.policy == "known"
            assert chats_of(nodes["open_coder"]).invites.admission.rules.policy == "open"
            assert chats_of(known).invites.admission.rules.policy == "open"  # no adapter: open
            directory = coder.services.discovery.directory
            while directory.get(known.peer_id) is None:  # noqa: ASYNC110 - gossip has no event to wait on
                await trio.sleep(0.1)
            assert (await invite_fresh(known, coder)).accept
            refused = await invite_fresh(stranger, coder)
            assert (refused.accept, code(refused)) == (False, "not-known")
            assert (await invite_fresh(stranger, nodes["open_coder"])).accept
            assert stored_chats(coder) == 1


# --------------------------------------------------------------------------- transient failures


@pytest.mark.slow
async def test_an_invitation_refused_for_now_or_reset_is_asked_again_in_its_window(
    tmp_path: Path,
) -> None:
    """Issue 26 (the 20-agent testnet's "unanswered" teammate): an invitee that resets the invitation's
    stream (budgets refusing a paced peer) or answers ``busy`` is asked again until the window ends,
    and its answer counts; a dial that fails is not."""
    with trio.fail_after(60):
        configs = {"host": config_for(tmp_path, "host"), "guest": config_for(tmp_path, "guest")}
        async with open_named(tmp_path, configs) as nodes:
            host, guest = nodes["host"], nodes["guest"]
            invites = chats_of(guest).invites
            refused = 0

            async def refuse_twice(stream: Any) -> None:  # what a paced peer's reset stream looks like
                nonlocal refused
                if refused < 2:
                    refused += 1
                    raise ProtocolViolation("refused for now")
                await invites.handle_invite(stream)

            guest.set_stream_handler(PROTO_INVITE, refuse_twice)
            genesis = genesis_by(host, [guest.peer_id])
            assert await chats_of(host).invites.call_invite(guest.peer_id, genesis, None, within=10) is True
            assert refused == 2 and chats_of(guest).status(genesis.hash) == "member"

            busy = genesis_by(host, [guest.peer_id], "busy")
            invites._deciding.add(busy.hash)  # another invitation to this chat is being checked

            async def settle() -> None:
                await trio.sleep(1.0)
                invites._deciding.discard(busy.hash)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(settle)
                assert await chats_of(host).invites.call_invite(guest.peer_id, busy, None, within=10) is True
            assert chats_of(guest).status(busy.hash) == "member"
