"""ioa-p2p: the Internet of Agents as a real peer-to-peer network.

The pure core (no network I/O; CONTRIBUTING.md and docs/architecture.md give the layer rule):

- ``errors.py``          every error, under :class:`IoAError`, grouped by who is at fault
- ``logs.py``            structured logging setup
- ``identity.py``        Ed25519 identity; the libp2p peer ID that carries its public key; key files
- ``budget.py``          resource budgets: amounts held per peer (:class:`Ledger`) and work per period
- ``faults.py``          counting the exceptions stopped at task boundaries (nothing a peer sends ends a node)
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
:mod:`ioa_p2p.bootstrap`. ``open_node`` and ``Node`` are re-exported here but imported on first use (in
:func:`__getattr__`): ``import ioa_p2p`` must not load py-libp2p (about 10x the import time of the core),
and the core is a lower layer than the node.
"""

from __future__ import annotations

from typing import Any

from ioa_p2p.api.events import GoalEvent, decode_event
from ioa_p2p.api.goals import GoalResult
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.config.node_config import NodeConfig, ioa_home, load_config
from ioa_p2p.control_client import ControlClient
from ioa_p2p.embedding import Embedder, HashingEmbedder, WordLlamaEmbedder, make_embedder
from ioa_p2p.errors import InputError, InvalidMessage, IoAError, IoATimeout, LocalStateError, RemotePeerError
from ioa_p2p.identity import Identity, PeerId, create_key_file, load_key_file
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import Body, message_type
from ioa_p2p.wire.text import Text


def __getattr__(name: str) -> Any:
    """``ioa_p2p.open_node`` and ``ioa_p2p.Node``, imported on first use (see the module docstring)."""
    if name in ("open_node", "Node"):
        from ioa_p2p import node

        return getattr(node, name)
    if name == "AsyncControlClient":  # httpx is imported on first use
        from ioa_p2p.control_client.aio import AsyncControlClient

        return AsyncControlClient
    raise AttributeError(f"module 'ioa_p2p' has no attribute {name!r}")


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
