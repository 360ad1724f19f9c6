"""Why a cold page find missed a card of the exact top 5 (``bench_find.py --misses``; bench only, issue 25).

:class:`MissProbe` wraps, in the asking node's process only, the page search a find builds (its listed
candidates and the pages it asked), the card fetch (which candidates it chose) and the lookup's answers
(which storing peer's copy of each page the listing read). After each find, :meth:`MissProbe.explain`
gives every exact top-5 card the find did not return one reason:

- ``ranked out``: its card was fetched; the node's ranking of what it fetched left it out;
- ``fetch missed``: chosen for the fetch, its card did not arrive (early end, owner and DHT silent);
- ``not chosen``: listed, but its sketch ranked below the cards fetched (``sketch_rank`` of ``listed``);
- ``not listed``: no page copy the listing read named it. Then every node of the network is asked for the
  listing's level-4 pages of table 0 (one request each, after the find): ``holders`` are the XOR ranks
  (0 = closest) of the nodes whose copy of its page names it, among every node, for that page's key;
  ``read`` the ranks of the copies the listing read of that page (and whether each named it). A card
  held by none (``holders`` empty) was never stored, or expired; one held at ranks the listing did not
  read is a replica the listing never asked. ``unlisted`` places every publisher the listing did not name
  (not only the top 5's) the same way, and ``replicas`` sums up, over every publisher, how many of the
  two closest nodes to its page key hold its entry (what a listing reads) and how many of the 20 closest.
"""

from __future__ import annotations

import time
from typing import Any

import trio

from ioa_p2p.dht.keyspace import position
from ioa_p2p.dht.pages import page_key, read_page

#: Seconds one node may take to answer the survey's request.
SURVEY_WITHIN = 5.0
#: Survey the pages for every publisher the listing did not name, not only the top 5's.
SURVEY_ALL = True


class MissProbe:
    """See the module docstring; install once, before the finds."""

    def __init__(self) -> None:
        from ioa_p2p.dht import lookup as lookup_module
        from ioa_p2p.node.discovery import pages as pages_module

        self.search: Any = None
        self.recording = True  # the find runs (its page requests are timed)
        self.wanted: list[Any] = []
        self.copies: dict[bytes, list[tuple[bytes, bytes | None]]] = {}
        probe = self
        upstream_search = pages_module.PageSearch

        class Recorded(upstream_search):  # type: ignore[misc, valid-type]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                probe.search = self

        pages_module.PageSearch = Recorded  # type: ignore[misc]
        upstream_fetch = pages_module.fetch_ranked

        async def fetch(search: Any, peers: list[Any], **kwargs: Any) -> dict[str, Any]:
            probe.wanted = list(peers)
            return await upstream_fetch(search, peers, **kwargs)

        pages_module.fetch_ranked = fetch  # type: ignore[assignment]
        upstream_answered = lookup_module.Lookup.answered

        def answered(lookup: Any, peer: bytes, key: bytes, closer: Any = (), **kwargs: Any) -> None:
            state = lookup.keys.get(key)
            if (
                key.startswith(b"/ioa/page/")
                and state is not None
                and state.asked.get(peer)
                in (
                    lookup_module.PENDING,
                    lookup_module.SLOW,
                )
            ):
                probe.copies.setdefault(key, []).append((peer, kwargs.get("value")))
            upstream_answered(lookup, peer, key, closer, **kwargs)

        lookup_module.Lookup.answered = answered  # type: ignore[method-assign]
        from ioa_p2p.node.net import kad_io

        upstream_exchange = kad_io._exchange
        #: the page requests of the find: (peer, seconds from send to reply or failure)
        self.exchanges: list[tuple[bytes, float]] = []

        async def exchange(host: Any, peer: Any, requests: list[Any], on_open: Any = None) -> list[Any]:
            page = bool(requests) and bytes(requests[0].key).startswith(b"/ioa/page/")
            if not page or not probe.recording:  # the find's own page requests only, not the survey's
                return await upstream_exchange(host, peer, requests, on_open)
            began = trio.current_time()
            try:
                return await upstream_exchange(host, peer, requests, on_open)
            finally:
                self.exchanges.append((peer.to_bytes(), trio.current_time() - began))

        kad_io._exchange = exchange  # type: ignore[assignment]

    def reset(self) -> None:
        self.search, self.wanted, self.copies, self.exchanges = None, [], {}, []
        self.recording = True

    async def explain(self, net: Any, gold: set[str], got: set[str]) -> dict[str, Any]:
        """Each card of ``gold`` (peer ID text) not in ``got``, with its reason (module docstring)."""
        self.recording = False
        search = self.search
        if search is None:
            return {"missed": {}, "note": "no page search ran"}
        listed = {str(p) for p in search.candidates}
        wanted = [str(p) for p in self.wanted]
        held = {str(e.card.peer_id) for e in net.service.directory}
        ranked = [str(s.peer_id) for s in search.best(len(search.candidates))]
        out: dict[str, Any] = {}
        unlisted = []
        for peer in sorted(gold - got):
            if peer in held:
                out[peer] = {"why": "ranked out"}
            elif peer in wanted:
                out[peer] = {"why": "fetch missed", "fetch_rank": wanted.index(peer)}
            elif peer in listed:
                out[peer] = {"why": "not chosen", "sketch_rank": ranked.index(peer), "fetched": len(wanted)}
            else:
                unlisted.append(peer)
        # every publisher the listing did not name (the top 5's among them), placed in the pages
        publishers = {s["peer_id"] for s in net.summaries} - {str(net.node.peer_id)}
        survey = await self._survey(net, search, sorted(publishers) if SURVEY_ALL else unlisted)
        out.update({p: survey[p] for p in unlisted})
        copies = [len(v) for k, v in self.copies.items()]
        return {
            "missed": out,
            "listed": len(listed),
            "fetched": len(wanted),
            "copies_per_page": sorted(copies),
            "unlisted": {
                p[-6:]: {k: v for k, v in w.items() if k != "why"}
                for p, w in survey.items()
                if p not in listed
            },
            "replicas": replicas(survey.values()),
            # pages whose every copy read was empty (a key with no value ends when its closest answered)
            "empty_pages": sum(not any(v for _, v in read) for read in self.copies.values()),
            "slowest": self._slowest(net),
        }

    def _slowest(self, net: Any) -> list[list[Any]]:
        """The three slowest page requests of the find: seconds, and which node (``bootstrap`` or the
        last characters of its peer ID)."""
        boot = {r.peer_id.raw for r in net.remotes if r.is_bootstrap and r.peer_id is not None}
        slow = sorted(self.exchanges, key=lambda e: -e[1])[:3]
        return [[round(t, 3), "bootstrap" if p in boot else p.hex()[-6:]] for p, t in slow]

    async def _survey(self, net: Any, search: Any, peers: list[str]) -> dict[str, Any]:
        """Ask every node for the listing's level-4 pages of table 0 and place each of ``peers`` in them."""
        from ioa_p2p.node.net import kad

        forest = search.forest
        keys = [
            page_key(cell, forest.model_id, forest.dim)
            for cell in search.asked.values()
            if cell.table == 0 and cell.level == 4
        ]
        dht = net.service.net.dht
        me = dht.local_peer_id.to_bytes()
        nodes = [me] + [r.peer_id.raw for r in net.remotes if r.peer_id is not None]
        copies: dict[bytes, dict[str, list[bytes]]] = {}

        async def ask(node: bytes) -> None:
            if node == me:
                copies[node] = {}
                for key in keys:
                    record = dht.value_store.get(key.encode("utf-8"))
                    if record is not None and record.value:
                        copies[node][key] = [bytes(record.value)]
                return
            with trio.move_on_after(SURVEY_WITHIN):
                copies[node] = await kad.get_values_from(dht, {node: keys}, per_peer=SURVEY_WITHIN)

        async with trio.open_nursery() as nursery:
            for node in nodes:
                nursery.start_soon(ask, node)
        now = int(time.time() * 1000)
        out: dict[str, Any] = {}
        for peer in peers:
            page = None
            holders: dict[bytes, list[bytes]] = {}
            for node, held in copies.items():
                for key, values in held.items():
                    if any(str(s.peer_id) == peer for v in values for s in read_page(v, now)):
                        page = key
                        holders.setdefault(key.encode("utf-8"), []).append(node)
            if page is None:
                out[peer] = {"why": "not listed", "holders": [], "answered": len(copies), "nodes": len(nodes)}
                continue
            key = page.encode("utf-8")
            order = sorted(nodes, key=lambda n: position(n) ^ position(key))
            rank = {n: i for i, n in enumerate(order)}
            read = [
                [rank.get(p, -1), bool(v) and any(str(s.peer_id) == peer for s in read_page(v, now))]
                for p, v in self.copies.get(key, [])
            ]
            out[peer] = {
                "why": "not listed",
                "holders": sorted(rank[n] for n in holders[key]),
                "asker_rank": rank[me],
                "read": read,
                "answered": len(copies),
                "nodes": len(nodes),
            }
        return out


def replicas(placed: Any) -> dict[str, Any]:
    """How well the publishers' entries are replicated where a listing reads them: of the two closest
    nodes to each entry's page key other than the asking node (the copies a listing with ``ask = 2``
    reads), how many hold it (publishers by that count; ``nowhere``: held by no node), and the median
    number of holders among the 20 closest."""
    near: dict[int, int] = {0: 0, 1: 0, 2: 0}
    nowhere, in20 = 0, []
    for entry in placed:
        holders = entry.get("holders", [])
        if not holders:
            nowhere += 1
            continue
        asker = entry.get("asker_rank", -1)
        others = [r - (r > asker) for r in holders if r != asker]
        near[sum(r < 2 for r in others)] += 1
        in20.append(sum(r < 20 for r in others))
    return {
        "of_2_closest": near,
        "nowhere": nowhere,
        "in_20_closest_p50": sorted(in20)[len(in20) // 2] if in20 else 0,
        "in_20_closest_min": min(in20, default=0),
    }


__all__ = ["MissProbe", "replicas"]
