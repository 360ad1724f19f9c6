"""ioa-p2p: the Internet of Agents as a real peer-to-peer network.

The pure core (no network I/O; CONTRIBUTING.md and docs/architecture.md give the layer rule):

- ``errors.py``          every error, under :class:`IoAError`, grouped by who is at fault
- ``logs.py``            structured logging setup
- ``identity.py``        Ed25519 identity; the libp2p peer ID that carries its public key; key files
- ``budget.py``          resource budgets: amounts held per peer (:class:`Ledger`) and work per period
- ``faults.py``          counting the exceptions stopped at task boundaries (nothing a peer sends ends a node)
- ``lazy.py``            :func:`lazy_exports`: a package's public names imported on first use
- ``wire/``              canonical CBOR, the signed versioned envelope, the ``message_type`` schema mechanism
- ``config/``            ``$IOA_HOME``, ``config.toml``, the ``[limits]`` table
- ``card.py``            the signed capability card of an agent
- ``embedding.py``       the :class:`Embedder` protocol and its backends (wordllama offline default)
- ``llm/``               the :class:`Model` protocol, the OpenAI-compatible backend, JSON repair
- ``history/``           group-chat histories: bodies, the hash-linked DAG, history files, audit
- ``teaming/``           team selection by similarity and sub-need coverage; the LLM team-up tools
- ``conversation/``      the conversation state machine, its messages, inputs and decisions; ``brains/``
- ``api/``               the typed local control API: requests, replies, goal events, the route table
- ``control_client/``    clients of a running node's control API (blocking; async for gateways)
- ``cli/``               the ``ioa`` command (thin click layer)
- ``testing/``           test doubles (echo adapter, scripted model), never imported by product code

The running peer lives in :mod:`ioa_p2p.node` (top-level ``node/`` folder); the pure half of discovery in
:mod:`ioa_p2p.dht`; agent integrations in :mod:`ioa_p2p.adapters`; bootstrap nodes and testnets in
:mod:`ioa_p2p.bootstrap`. Every public name is re-exported here but imported on first use (in
:func:`__getattr__`): ``import ioa_p2p`` (which every ``import ioa_p2p.x`` runs first) must not load
py-libp2p (about 10x the import time of the core; the core is a lower layer than the node), numpy, the
matcher or the planner: a bootstrap node imports none of them (docs/performance.md, "Light nodes").
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ioa_p2p.api.events import GoalEvent, decode_event
    from ioa_p2p.api.goals import GoalResult
    from ioa_p2p.api.launch import LaunchRequest
    from ioa_p2p.config.node_config import NodeConfig, ioa_home, load_config
    from ioa_p2p.control_client import ControlClient
    from ioa_p2p.control_client.aio import AsyncControlClient
    from ioa_p2p.embedding import Embedder, HashingEmbedder, WordLlamaEmbedder, make_embedder
    from ioa_p2p.errors import (
        InputError,
        InvalidMessage,
        IoAError,
        IoATimeout,
        LocalStateError,
        RemotePeerError,
    )
    from ioa_p2p.identity import Identity, PeerId, create_key_file, load_key_file
    from ioa_p2p.node import Node, open_node
    from ioa_p2p.wire.envelope import Envelope
    from ioa_p2p.wire.schema import Body, message_type
    from ioa_p2p.wire.text import Text

#: Where each public name lives; imported on first use (:func:`__getattr__`), so that ``import ioa_p2p.x``
#: (every module of the package runs this file first) loads only ``x`` and what it imports: a bootstrap
#: node never loads numpy, the matcher or the planner through here.
_HOMES = {
    "AsyncControlClient": "ioa_p2p.control_client.aio",  # httpx
    "Body": "ioa_p2p.wire.schema",
    "ControlClient": "ioa_p2p.control_client",
    "Embedder": "ioa_p2p.embedding",  # numpy and the matcher's modules (no model loads)
    "Envelope": "ioa_p2p.wire.envelope",
    "GoalEvent": "ioa_p2p.api.events",
    "GoalResult": "ioa_p2p.api.goals",
    "HashingEmbedder": "ioa_p2p.embedding",
    "Identity": "ioa_p2p.identity",
    "InputError": "ioa_p2p.errors",
    "InvalidMessage": "ioa_p2p.errors",
    "IoAError": "ioa_p2p.errors",
    "IoATimeout": "ioa_p2p.errors",
    "LaunchRequest": "ioa_p2p.api.launch",
    "LocalStateError": "ioa_p2p.errors",
    "Node": "ioa_p2p.node",  # py-libp2p
    "NodeConfig": "ioa_p2p.config.node_config",
    "PeerId": "ioa_p2p.identity",
    "RemotePeerError": "ioa_p2p.errors",
    "Text": "ioa_p2p.wire.text",
    "WordLlamaEmbedder": "ioa_p2p.embedding",
    "create_key_file": "ioa_p2p.identity",
    "decode_event": "ioa_p2p.api.events",
    "ioa_home": "ioa_p2p.config.node_config",
    "load_config": "ioa_p2p.config.node_config",
    "load_key_file": "ioa_p2p.identity",
    "make_embedder": "ioa_p2p.embedding",
    "message_type": "ioa_p2p.wire.schema",
    "open_node": "ioa_p2p.node",
}


def __getattr__(name: str) -> Any:
    """Every public name, imported from its module on first use (see :data:`_HOMES`)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'ioa_p2p' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])


__all__ = [
    "AsyncControlClient",
    "Body",
    "ControlClient",
    "Embedder",
    "Envelope",
    "GoalEvent",
    "GoalResult",
    "HashingEmbedder",
    "Identity",
    "InputError",
    "InvalidMessage",
    "LaunchRequest",
    "IoAError",
    "IoATimeout",
    "LocalStateError",
    "Node",
    "NodeConfig",
    "PeerId",
    "RemotePeerError",
    "Text",
    "WordLlamaEmbedder",
    "create_key_file",
    "decode_event",
    "ioa_home",
    "load_config",
    "load_key_file",
    "make_embedder",
    "message_type",
    "open_node",
]
