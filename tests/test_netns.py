"""Nodes behind NAT, across a simulated internet of Linux network namespaces (issue 19).

One topology for the whole module (tests/netns_world.py): a public bootstrap/relay and coordinator, three
homes behind NAT routers (two MASQUERADE, one symmetric), five agent nodes. Every node is started with the
README's join command and nothing NAT-specific in its config. The checks run in order on the same world;
the fault scenario comes last because it kills, partitions and restarts nodes. Needs root (skipped with
the reason otherwise); everything created is removed even on failure.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from ioa_p2p.testing.netns import NsNode

from .netns_world import (
    AGENTS,
    REACH_TARGET_S,
    World,
    connection_kinds,
    export_chat,
    holds_current_card,
    in_parallel,
    inbox_texts,
    is_relay_addr,
    open_world,
    peer_entry,
    poll,
    send,
    unusable_addrs,
)

pytestmark = [pytest.mark.slow, pytest.mark.netns]

NATED = ("calc", "scribe", "coder", "translator")
#: Pairs in different homes whose NATs both keep ports (MASQUERADE): hole punching can succeed there.
PUNCHABLE = (("calc", "coder"), ("scribe", "coder"))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from open_world(Path(tmp_path_factory.mktemp("netns")))


def test_every_node_joins_and_is_reached_from_another_network(world: World) -> None:
    seen = {e["peer_id"] for e in world.boot.call("GET", "/peers")}
    assert {str(n.peer_id) for n in world.agents.values()} <= seen  # all joined through the bootstrap node
    figures = ", ".join(
        f"{name} {took:.1f} s" if isinstance(took, float) else f"{name} never"
        for name, took in world.reached_after.items()
    )
    print(f"\nreachable from another network after start: {figures} (target {REACH_TARGET_S:.0f} s)")
    failures = {name: why for name, why in world.reached_after.items() if isinstance(why, str)}
    assert not failures, failures


def test_cards_reach_the_coordinator_with_addresses_others_can_dial(world: World) -> None:
    coord = world["coord"]

    def relayed_card(name: str) -> dict[str, Any] | None:
        card = holds_current_card(coord, world[name])
        return card if card and any(is_relay_addr(a) for a in card["addrs"]) else None

    for name in NATED:  # a NATed node's card, as the coordinator holds it, names the relays that reach it
        try:
            card = poll(
                lambda n=name: relayed_card(n), 60, f"coordinator holds {name}'s card with a relay address"
            )
        finally:
            print(f"\n{name}'s card: {(holds_current_card(coord, world[name]) or {}).get('addrs')}")
        addrs = card["addrs"]
        # never 0.0.0.0 or loopback, and never its router's public address (nothing is forwarded there)
        assert unusable_addrs(addrs) == [], (name, addrs)
        wan = world.internet.homes[world[name].host.site].wan_ip
        assert not [a for a in addrs if a.startswith(f"/ip4/{wan}/")], (name, addrs)
        # nor its LAN address: every home is 192.168.1.0/24, a peer of another home would dial a stranger
        assert not [a for a in addrs if a.startswith("/ip4/192.168.")], (name, addrs)
    own = coord.call("GET", "/card")
    assert unusable_addrs(own["addrs"]) == [], own["addrs"]
    assert any(a.startswith(f"/ip4/{coord.host.ip}/tcp/") for a in own["addrs"]), own["addrs"]
    listed = world["coder"].call("GET", "/id")["addrs"]
    assert not [a for a in listed if "/0.0.0.0/" in a], listed  # the wildcard is expanded


def test_ioa_send_reaches_each_agent_through_the_cli(world: World) -> None:
    pairs = [
        ("coord", "calc"),
        ("coord", "coder"),
        ("calc", "coder"),
        ("coder", "calc"),
        ("translator", "scribe"),
    ]
    runs = in_parallel(
        [lambda s=s, t=t: world[s].ioa("send", str(world[t].peer_id), f"cli {s} to {t}") for s, t in pairs]
    )
    for (sender, target), done in zip(pairs, runs, strict=True):
        assert done.returncode == 0, (sender, target, done.stderr)
        assert done.stdout.startswith("delivered "), done.stdout
        assert f"cli {sender} to {target}" in inbox_texts(world[target])


def test_a_goal_whose_team_spans_both_homes_concludes_with_both_answers(world: World) -> None:
    coord = world["coord"]
    goal = "Calculate 17 * 23. print(sum(range(10)))  # Python"
    team = f"{AGENTS['calc']['name']},{AGENTS['coder']['name']}"
    done = coord.ioa("goal", goal, "--team", team, "--timeout", "90", "--json", timeout=150)
    assert done.returncode == 0, (done.stdout, done.stderr, world.logs())
    result = json.loads(done.stdout)
    assert result["status"] == "concluded", result
    answers = {t["assignee_name"]: t["text"].strip() for t in result["tasks"] if t["status"] == "completed"}
    assert answers.get("calculator", "").endswith("17 * 23 = 391"), result["tasks"]
    assert answers.get("coder") == "45", result["tasks"]
    members = [world[n] for n in ("coord", "calc", "coder")]
    assert {t["peer_id"] for t in result["team"]} == {str(m.peer_id) for m in members}
    copies = {}
    for member in members:  # every member's copy: valid, and the same messages as the coordinator's
        copies[member.name] = export_chat(member, result["chat_id"], min_messages=_count(coord, result))
    paths = []
    for name, data in copies.items():
        path = world.root / f"goal-{name}.ioa"
        path.write_bytes(data)
        paths.append(str(path))
        checked = coord.ioa("audit", str(path))
        assert checked.returncode == 0, (name, checked.stdout, checked.stderr)
    for other in paths[1:]:
        same = coord.ioa("audit", paths[0], other)
        assert same.returncode == 0, (other, same.stdout, same.stderr)


def _count(node: NsNode, result: dict[str, Any]) -> int:
    return len(node.call("GET", f"/chats/history?chat={result['chat_id']}")["messages"])


def test_homes_reach_each_other_and_hole_punching_upgrades_a_pair(world: World) -> None:
    def kinds() -> dict[tuple[str, str], set[str]]:
        return {(a, b): connection_kinds(peer_entry(world[a], world[b])) for a, b in PUNCHABLE}

    def punched() -> tuple[str, str] | None:
        return next((pair for pair, k in kinds().items() if "punched" in k), None)

    # traffic both ways makes each pair connect: relayed first, then punched where the NATs allow it
    for a, b in (*PUNCHABLE, ("translator", "calc"), ("translator", "coder")):
        in_parallel([lambda a=a, b=b: _send(world, a, b), lambda a=a, b=b: _send(world, b, a)])
    # behind the symmetric NAT no punch can work: the relayed connection stays and keeps carrying messages
    for other in ("calc", "coder"):
        assert connection_kinds(peer_entry(world["translator"], world[other])) == {"relayed"}
        _send(world, "translator", other)
    try:
        pair = poll(
            punched, 30, "a relayed connection between two MASQUERADE homes upgraded by hole punching"
        )
    finally:
        print(f"\nconnections between homes: {kinds()}")
        punching = {n: world[n].call("GET", "/relay").get("hole_punching") for n in ("calc", "coder")}
        print(f"hole punching: {punching}")
    _send(world, *pair)  # and traffic flows after the upgrade
    _send(world, pair[1], pair[0])


def test_two_nodes_behind_one_nat_move_to_a_direct_lan_connection(world: World) -> None:
    """calc and scribe share home 1. Their cards carry no LAN address once they hold reservations (the
    test above), yet the pair talks over a direct LAN connection: from an early card (before the node
    knew it was private) or from the hole-punch exchange, which carries LAN addresses peer to peer
    (node/net/punch.py; its filtering is unit-tested in tests/test_libp2p_patches_nat.py)."""

    def lan_connection() -> str | None:
        for a, b in (("calc", "scribe"), ("scribe", "calc")):
            for conn in (peer_entry(world[a], world[b]) or {}).get("connections", []):
                if conn.get("kind") != "relayed" and str(conn.get("addr", "")).startswith("/ip4/192.168.1."):
                    return f"{a} -> {b}: {conn['kind']} {conn['addr']}"
        return None

    in_parallel([lambda: _send(world, "calc", "scribe"), lambda: _send(world, "scribe", "calc")])
    try:
        found = poll(lan_connection, 30, "a direct LAN connection between calc and scribe")
    finally:
        entry = peer_entry(world["calc"], world["scribe"]) or {}
        print(f"\ncalc's connections to scribe: {entry.get('connections')}")
    print(f"\n{found}")
    _send(world, "calc", "scribe")


def _send(world: World, sender: str, target: str) -> None:
    text = f"pair {sender} to {target}"
    send(world[sender], world[target], text)
    assert text in inbox_texts(world[target])


# --------------------------------------------------------------------------- faults (they change the world)

GOAL_TIMEOUT = 60.0


@pytest.mark.long
def test_goals_survive_a_crash_the_bootstrap_going_away_and_a_partitioned_home(world: World) -> None:
    """At once: the bootstrap node crashes; one of the five agent nodes (20 %) is SIGKILLed mid-task; home2
    is cut off the internet for 30 s while its agent works on another goal. Every goal ends within its
    deadline with its failures visible; what the crashed node acknowledged survives; discovery works
    without the bootstrap; once healed, the partitioned copy of the goal chat is the coordinator's
    (`ioa audit A B`: identical); every node finds the restarted bootstrap again."""
    coord, scribe, translator, coder = (world[n] for n in ("coord", "scribe", "translator", "coder"))
    for name in ("scribe", "translator", "coder"):
        poll(lambda n=name: holds_current_card(coord, world[n]), 60, f"coordinator holds {name}'s card")
    send(coord, translator, "acknowledged before the crash")
    home2 = world.internet.homes["home2"]
    before_crash: list[str] = []
    cut_at: list[float] = []

    def kill_translator(chat: str) -> None:
        before_crash.extend(m["hash"] for m in _history(translator, chat))
        translator.kill()

    def cut_home2(chat: str) -> None:
        home2.partition()
        cut_at.append(time.monotonic())

    world.boot.kill()  # the bootstrap node crashes; every node has joined already
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            crashed = pool.submit(
                _goal_with_fault,
                coord,
                {"goal": "Translate the report into French", "team_member_names": ["translator", "scribe"]},
                busy=lambda known: _progress_chat(coord, translator, known),
                fault=kill_translator,
            )
            cut = pool.submit(
                _goal_with_fault,
                coord,
                {
                    "goal": "import time; time.sleep(6); print(6 * 7)  # Python",
                    "team_member_names": ["coder"],
                },
                busy=lambda known: _assigned_chat(coder, known),
                fault=cut_home2,
            )
            # meanwhile, without the bootstrap node: a card change still spreads, and `ioa find` finds it
            scribe.call("POST", "/card", {"skills": ["subtitles", "french"]})
            poll(lambda: holds_current_card(coord, scribe), 60, "coordinator gets scribe's new card")
            found = coord.ioa("find", "subtitles in French", "--json")
            assert found.returncode == 0 and str(scribe.peer_id) in found.stdout, (found.stdout, found.stderr)
            first, second = crashed.result(), cut.result()
        attempts = [(t["assignee_name"], t["status"]) for t in first["tasks"]]
        assert attempts[0] == ("translator", "failed") and ("scribe", "completed") in attempts, first["tasks"]
        assert [(t["assignee_name"], t["status"]) for t in second["tasks"]][:1] == [("coder", "failed")]
        # the bootstrap and the crashed node come back; what the crashed node acknowledged is still there
        world.boot.start()
        translator.start()
        assert "acknowledged before the crash" in inbox_texts(translator)
        assert before_crash and set(before_crash) <= {
            m["hash"] for m in _history(translator, first["chat_id"])
        }
        time.sleep(max(0.0, cut_at[0] + 30.0 - time.monotonic()))
    finally:
        home2.heal()
    chat = second["chat_id"]
    poll(lambda: _same_copy(coord, coder, chat), 90, "coder's and coordinator's copies converge")
    paths = [_export_file(world, node, chat) for node in (coord, coder)]
    same = coord.ioa("audit", *paths)
    assert same.returncode == 0, (same.stdout, same.stderr)
    assert any(m["kind"] == "conv.task.result" for m in _history(coord, chat))  # the coder's late result
    poll(lambda: _joined(world), 90, "every agent back on the restarted bootstrap node")


def _goal_with_fault(
    coord: NsNode,
    body: dict[str, Any],
    *,
    busy: Callable[[set[str]], str],
    fault: Callable[[str], None],
) -> dict[str, Any]:
    """Launch a goal; once ``busy(chats known before)`` names its chat (a worker is at it), ``fault(chat)``;
    the goal's result, which must come by its deadline."""
    body = {**body, "timeout": GOAL_TIMEOUT, "task_timeout": 8}
    known = {c["chat_id"] for c in coord.call("GET", "/chats")}
    with ThreadPoolExecutor(max_workers=1) as pool:
        started = time.monotonic()
        launched = pool.submit(coord.call, "POST", "/launch_goal", body, timeout=GOAL_TIMEOUT + 30)
        chat = poll(lambda: busy(known), 30, f"a worker busy with {body['goal']!r}", interval=0.2)
        fault(chat)
        result: dict[str, Any] = launched.result()
    assert result["status"] == "concluded", result
    assert result["timings"]["total_s"] <= GOAL_TIMEOUT and time.monotonic() - started <= GOAL_TIMEOUT + 10
    return result


def _assigned_chat(worker: NsNode, known: set[str]) -> str:
    """A new chat (not in ``known``) in which ``worker`` holds a task assigned to it, or ''."""
    for chat in worker.call("GET", "/chats"):
        if chat["chat_id"] not in known and any(
            m["kind"] in ("conv.task.sync", "conv.task.async") for m in _history(worker, chat["chat_id"])
        ):
            return str(chat["chat_id"])
    return ""


def _progress_chat(observer: NsNode, worker: NsNode, known: set[str]) -> str:
    """The new chat (not in ``known``) in which ``worker`` reported progress (as ``observer`` sees it)."""
    for chat in observer.call("GET", "/chats"):
        if chat["chat_id"] in known:
            continue
        for message in _history(observer, chat["chat_id"]):
            if message["kind"] == "conv.task.progress" and message["author"] == str(worker.peer_id):
                return str(chat["chat_id"])
    return ""


def _history(node: NsNode, chat: str) -> list[dict[str, Any]]:
    return list(node.call("GET", f"/chats/history?chat={chat}")["messages"])


def _joined(world: World) -> bool:
    seen = {e["peer_id"] for e in world.boot.call("GET", "/peers")}
    return {str(n.peer_id) for n in world.agents.values()} <= seen


def _same_copy(a: NsNode, b: NsNode, chat: str) -> bool:
    copies = [n.call("GET", f"/chats/export?chat={chat}") for n in (a, b)]
    return copies[0]["data"] == copies[1]["data"]


def _export_file(world: World, node: NsNode, chat: str) -> str:
    path = world.root / f"fault-{node.name}.ioa"
    done = node.ioa("history", "export", chat, "-o", str(path))
    assert done.returncode == 0, done.stderr
    return str(path)
