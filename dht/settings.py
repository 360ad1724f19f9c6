"""Discovery configuration: the ``[agent]`` and ``[discovery]`` tables of the node's config (pure).

``[agent]`` (also settable on ``ioa node start``)::

    name = "plotter"                 # default: agent-<last 6 chars of the peer ID>
    description = "Draws charts..."  # what the agent does, in plain words (this is what gets embedded)
    skills = ["matplotlib"]          # tags
    task_types = ["plot"]            # accepted task types
    languages = ["de", "en"]         # structured capability fields (optional; card version 2):
    input_types = ["text/csv"]       #   natural languages, media types accepted and returned,
    output_types = ["image/png"]     #   tools or runtimes the agent drives
    tools = ["python", "matplotlib"]
    adapter = "python"               # adapter kind

``[discovery]`` (all optional)::

    enabled = true          # false: serve the DHT's /ioa/ records only (no card, no gossip, no find)
    ttl = 1800              # seconds a card lives
    republish = 600         # seconds between new card versions (default ttl / 3)
    gossip = true           # announce and learn cards by GossipSub
    dht = true              # store cards and LSH provider records in the DHT, look them up on find
    probes = 40             # near LSH buckets probed per query, on top of one bucket per table
    enumerate = 200         # networks estimated at most this large are listed in full by a DHT find
    lsh_v1 = false          # also provide and probe LSH version 1 buckets (for nodes of the previous release)
    ask = 2                 # closest peers asked per key in DHT lookups (3 at least to place records)
    find_timeout = 10.0     # seconds a find may spend on DHT lookups before answering from what it has
    card_refresh = 600      # a find re-fetches a provider's card when our copy is older than this
    max_fetch = 64          # cards fetched from the DHT per find, at most (provider-record path)
    pages = true            # publish a signed sketch of our card in bucket pages and search pages:
                            # rank candidates from the sketches, fetch only the best page_fetch cards
    page_fetch = 24         # cards a page search fetches at most (half when sketches carry MiniLM)
    page_width = 20         # best candidates whose own buckets a page search lists per round
    max_pages = 1200        # pages a search asks at most
    page_budget = 4194304   # bytes of sketches a page search reads at most (its pages are asked best first)
    heartbeat = 1.0         # GossipSub heartbeat, seconds (while the mesh or topic changes, messages flow)
    heartbeat_idle = 5.0    # the heartbeat once nothing happened for 30 s (<= heartbeat: never slower)
    stamp_bits = 18         # proof-of-work bits of this node's card stamp (0: unstamped version 1/2 cards)
    min_stamp_bits = 16     # cards with a weaker stamp are refused (0 in a network with previous releases)
    flood_weight = 3.0      # score a page search takes off the sketches of identities that reached this node
                            # in a flood of new ones (dht/arrival.py; 0: off, nor are they barred from teams)
    keep_arrivals = true    # keep when each identity first arrived (the flood evidence) across restarts, in
                            # $IOA_HOME/arrivals.sqlite3 (bounded: 65,536 identities, two weeks of hours)
    revalidate = 720        # a card not confirmed for this long is asked again (owner, then DHT), and
                            # dropped if still unconfirmed a find_timeout later (withdrawals reach every
                            # node within revalidate + find_timeout, 12.2 min by default)
    new_cards = 120         # cards of identities new to this node accepted per minute, in total
    updates = 30            # new versions accepted per identity and hour
    eclipse_protection = true
    local_sources = false   # a gossip neighbour with a loopback, private or link-local address is a source
                            # of its own for the per-source limits (a LAN; false: such peers form none)
    max_cards = 200000      # local directory size
    keep_all = 20000        # past this many cards, keep only those this node needs (finds use the DHT)
    relay_all = 20000       # past a network of this many nodes (estimated), gossip carries only new and
                            # changed cards and withdrawals: an unchanged card's renewal is neither
                            # announced nor relayed, its holders confirm it by revalidation, and only the
                            # cards this node needs are kept confirmed (dht/relaycap.py; default keep_all)
    matcher = "hybrid"      # offline ranking: "hybrid" (wordllama + MiniLM int8 + BM25) or "lite"
    warm = "auto"           # the matcher's models: "auto" loads them at the first find or goal, then keeps
                            # arriving cards embedded in the background; true also loads them after start
                            # (a coordinator); false: at each find, nothing in the background
    unload_idle = 300       # seconds without a find or goal after which "auto"/false unload the models
                            # (~150-200 MB back; 0: never); warm = true never unloads
    [discovery.index]       # kind = "annoy" (default; exact below min_size) or "exact"
    min_size = 20000
    n_trees = 50
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ioa_p2p.card import MAX_TTL_MS
from ioa_p2p.card.stamp import MAX_BITS
from ioa_p2p.config.sections import parse_section, setting
from ioa_p2p.errors import ConfigError
from ioa_p2p.identity import PeerId

DEFAULT_TTL = 1800.0
MAX_TTL = MAX_TTL_MS / 1000


@dataclass(frozen=True, slots=True)
class DiscoverySettings:
    enabled: bool = True
    ttl: float = setting(DEFAULT_TTL, low=2.0, high=MAX_TTL, unit="seconds")
    #: default: a third of ``ttl``
    republish: float = setting(DEFAULT_TTL / 3, low=0.5, high=MAX_TTL, unit="seconds")
    gossip: bool = True
    dht: bool = True
    probes: int = setting(40, low=0, high=512)
    enumerate: int = setting(200, low=0, high=2000)
    lsh_v1: bool = False
    ask: int = setting(2, low=1, high=20)
    find_timeout: float = setting(10.0, low=0.1, high=600.0, unit="seconds")
    card_refresh: float = setting(600.0, low=0.0, high=86_400.0, unit="seconds")
    max_fetch: int = setting(64, low=1, high=10_000)
    pages: bool = True
    page_fetch: int = setting(24, low=1, high=1_000)
    page_width: int = setting(20, low=0, high=1_000)
    max_pages: int = setting(1200, low=1, high=10_000)
    #: bytes of sketches a page search reads at most (``dht.expand.BUDGET``; pages asked best first)
    page_budget: int = setting(4 * 1024 * 1024, low=16 * 1024, high=256 * 1024 * 1024, unit="bytes")
    heartbeat: float = setting(1.0, low=0.05, high=120.0, unit="seconds")
    heartbeat_idle: float = setting(5.0, low=0.05, high=120.0, unit="seconds")
    stamp_bits: int = setting(18, low=0, high=MAX_BITS)
    min_stamp_bits: int = setting(16, low=0, high=MAX_BITS)
    #: score units off sketches of identities that came in a flood of new ones (``dht.arrival.FLOOD_WEIGHT``)
    flood_weight: float = setting(3.0, low=0.0, high=100.0)
    #: keep the arrival record across restarts (``node/discovery/arrival_store.py``); false: memory only
    keep_arrivals: bool = True
    #: default: 720, or 1.2 * republish when that is longer
    revalidate: float = setting(720.0, low=5.0, high=MAX_TTL, unit="seconds")
    new_cards: int = setting(120, low=1, high=1_000_000)
    updates: int = setting(30, low=1, high=1_000_000)
    eclipse_protection: bool = True
    #: gossip neighbours with addresses that are not public are sources of their own (``dht/admission.py``)
    local_sources: bool = False
    max_cards: int = setting(200_000, low=1, high=10_000_000)
    keep_all: int = setting(20_000, low=1, high=10_000_000)
    #: default: ``keep_all`` (``dht/relaycap.py``: past it the card topic carries only what is new)
    relay_all: int = setting(20_000, low=1, high=10_000_000)
    matcher: Literal["hybrid", "lite"] = "hybrid"
    #: the matcher's models (node/discovery/warm.py): ``"auto"`` loads them at the first find or goal and
    #: then embeds arriving cards in the background; ``true`` also loads them after start (a coordinator's
    #: first find does not wait; ~190 MB more with the hybrid matcher); ``false``: no background work
    warm: Literal[True, False, "auto"] = "auto"
    #: seconds without a find or goal after which the models are unloaded (``warm`` "auto" or false; 0:
    #: never)
    unload_idle: float = setting(300.0, low=0.0, high=86_400.0, unit="seconds")
    index: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_section(cls, table: dict[str, Any]) -> DiscoverySettings:
        settings = parse_section(cls, table, "[discovery]")
        if "republish" not in table:
            settings = replace(settings, republish=settings.ttl / 3)
        if settings.republish >= settings.ttl:
            raise ConfigError(
                f"[discovery].republish ({settings.republish} s) must be shorter than "
                f"ttl ({settings.ttl} s), or cards would expire before their replacement is out"
            )
        if "relay_all" not in table:
            settings = replace(settings, relay_all=settings.keep_all)
        if "revalidate" not in table and settings.republish * 1.2 > settings.revalidate:
            settings = replace(settings, revalidate=settings.republish * 1.2)
        if 0 < settings.stamp_bits < settings.min_stamp_bits:
            raise ConfigError(
                f"[discovery].stamp_bits ({settings.stamp_bits}) is below min_stamp_bits "
                f"({settings.min_stamp_bits}): nodes configured like this one would refuse its card"
            )
        return settings


#: The ``[agent]`` keys that hold lists of text (all optional).
LIST_FIELDS = ("skills", "task_types", "languages", "input_types", "output_types", "tools")


@dataclass(frozen=True, slots=True)
class AgentSettings:
    name: str
    description: str = ""
    skills: tuple[str, ...] = setting((), one_or_list=True)
    task_types: tuple[str, ...] = setting((), one_or_list=True)
    adapter: str = ""
    #: structured capability fields (card version 2, docs/protocol.md §9.1)
    languages: tuple[str, ...] = setting((), one_or_list=True)
    input_types: tuple[str, ...] = setting((), one_or_list=True)
    output_types: tuple[str, ...] = setting((), one_or_list=True)
    tools: tuple[str, ...] = setting((), one_or_list=True)

    @classmethod
    def from_section(cls, table: dict[str, Any], peer: PeerId) -> AgentSettings:
        """The agent's own keys of ``[agent]``; the other keys of the table (``options``...) belong to the
        adapter and the goals service and are left to them. A blank name: ``agent-<peer>``."""
        settings = parse_section(cls, {"name": "", **table}, "[agent]", ignore_unknown=True)
        if not settings.name.strip():
            settings = replace(settings, name=f"agent-{peer.short()}")
        return settings

    def with_changes(self, changes: dict[str, Any], peer: PeerId) -> AgentSettings:
        merged: dict[str, Any] = {"name": self.name, "description": self.description, "adapter": self.adapter}
        merged.update({key: list(getattr(self, key)) for key in LIST_FIELDS})
        merged.update(changes)
        return AgentSettings.from_section(merged, peer)


__all__ = ["AgentSettings", "DiscoverySettings"]
