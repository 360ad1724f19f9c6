"""Nodes behind NAT, across a simulated internet of Linux network namespaces (issue 19).

One topology for the whole module (tests/netns_world.py): a public bootstrap/relay and coordinator, three
homes behind NAT routers (two MASQUERADE, one symmetric), five agent nodes. Every node is started with the
README's join command and nothing NAT-specific in its config. The checks run in order on the same world;
the fault scenario comes last because it kills, partitions and restarts nodes. Needs root (skipped with
the reason otherwise); everything created is removed even on failure.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
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
    is_public_addr,
    is_relay_addr,
    open_world,
    peer_entry,
    poll,
    reach_time,
    send,
    unusable_addrs,
)

pytestmark = [pytest.mark.slow, pytest.mark.netns]

NATED = ("calc", "scribe", "coder", "translator")
#: Who tries to reach whom for the reachability figure: a peer in another network for every node.
REACHERS = {
    "coord": "coder",
    "calc": "coder",
    "scribe": "translator",
    "coder": "calc",
    "translator": "calc",
}
#: Pairs in different homes whose NATs both keep ports (MASQUERADE): hole punching can succeed there.
PUNCHABLE = (("calc", "coder"), ("scribe", "coder"))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from open_world(Path(tmp_path_factory.mktemp("netns")))


def test_every_node_joins_and_is_reached_from_another_network(world: World) -> None:
    names = set(world.agents)

    def joined() -> bool:
        seen = {e["peer_id"] for e in world.boot.call("GET", "/peers")}
        return {str(world[n].peer_id) for n in names} <= seen

    poll(joined, 60, "every agent connected to the bootstrap node")
    targets = list(REACHERS.items())
    times = in_parallel([lambda t=t, s=s: reach_time(world[s], world[t]) for t, s in targets])
    world.reached_after.update(dict(zip([t for t, _ in targets], times, strict=True)))
    figures = ", ".join(f"{name} {world.reached_after[name]:.1f} s" for name in REACHERS)
    print(f"\nreachable from another network after start: {figures} (target {REACH_TARGET_S:.0f} s)")


def test_cards_reach_the_coordinator_with_addresses_others_can_dial(world: World) -> None:
    coord = world["coord"]
    cards = {
        name: poll(lambda n=name: holds_current_card(coord, world[n]), 60, f"coordinator holds {name}'s card")
        for name in NATED
    }
    own = coord.call("GET", "/card")
    assert unusable_addrs(own["addrs"]) == [], own["addrs"]
    assert any(a.startswith(f"/ip4/{coord.host.ip}/tcp/") for a in own["addrs"]), own["addrs"]
    for name, card in cards.items():
        addrs = card["addrs"]
        # a NATed node advertises what others can use: relayed addresses, never its LAN or 0.0.0.0
        assert unusable_addrs(addrs) == [], (name, addrs)
        assert any(is_relay_addr(a) for a in addrs), (name, addrs)
        assert all(is_relay_addr(a) or is_public_addr(a) for a in addrs), (name, addrs)
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

    def punched() -> bool:
        return any("punched" in k for k in kinds().values())

    for a, b in PUNCHABLE:  # traffic both ways makes each pair connect (relayed first, then punched)
        in_parallel([lambda a=a, b=b: _send(world, a, b), lambda a=a, b=b: _send(world, b, a)])
    try:
        poll(punched, 45, "a relayed connection between two MASQUERADE homes upgraded by hole punching")
    finally:
        print(f"\nconnections between homes: {kinds()}")
    # behind the symmetric NAT no punch can work: the relayed connection must keep carrying messages
    for other in ("calc", "coder"):
        _send(world, "translator", other)
        _send(world, other, "translator")
        shown = connection_kinds(peer_entry(world["translator"], world[other]))
        assert shown and shown <= {"relayed", "punched", "direct"}, shown


def _send(world: World, sender: str, target: str) -> None:
    text = f"pair {sender} to {target}"
    send(world[sender], world[target], text)
    assert text in inbox_texts(world[target])
