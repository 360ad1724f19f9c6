"""ioa-p2p: the Internet of Agents as a real peer-to-peer network.

Core package (pure where it can be: no I/O outside the CLI and explicit file helpers):

- ``errors.py``          every error, under :class:`IoAError`, grouped by who is at fault
- ``canonical.py``       canonical (deterministic) CBOR: the one encoding every signed object uses
- ``identity.py``        Ed25519 identity; the libp2p peer ID that carries its public key; key files
- ``wire.py``            the signed, versioned envelope and the registry of message body types
- ``budget.py``          resource budgets: amounts held per peer (:class:`Ledger`) and work per period
- ``limits.py``          the ``[limits]`` table: every budget's default, typed
- ``pending.py``         chat messages waiting for missing parents, bounded per chat and per node
- ``config.py``          ``$IOA_HOME`` and ``config.toml``
- ``embedding.py``       the :class:`Embedder` protocol and its backends (wordllama offline default)
- ``control_client.py``  client of a running node's local control API
- ``conv_messages.py``   the ``conv.*`` chat-message kinds of a conversation (content schemas)
- ``conversation.py``    the conversation state machine (turns, floor, limits, fallback speakers, tasks)
- ``conv_types.py``     its inputs, views and decisions (re-exported by ``conversation.py``)
- ``brain.py``           the :class:`Brain` protocol; ``offline_brain.py`` (embedded planner) and
  ``llm_brain.py`` (model-driven turns and team-up)
- ``teaming.py``         team selection by similarity and sub-need coverage; the LLM team-up tools
- ``model.py``           the :class:`Model` protocol, the OpenAI-compatible backend, JSON repair/retries
- ``logs.py``            structured logging setup
- ``cli/``               the ``ioa`` command (thin click layer)

The running peer lives in :mod:`ioa_p2p.node` (top-level ``node/`` folder); discovery in :mod:`ioa_p2p.dht`;
agent integrations in :mod:`ioa_p2p.adapters`; bootstrap nodes and testnets in :mod:`ioa_p2p.bootstrap`.
Names from those packages re-exported here (``open_node``, ``Node``) are imported lazily, so importing the
core never loads py-libp2p.
"""

from __future__ import annotations

from typing import Any

from ioa_p2p.config.node_config import NodeConfig, ioa_home, load_config
from ioa_p2p.control_client import ControlClient
from ioa_p2p.embedding import Embedder, HashingEmbedder, WordLlamaEmbedder, make_embedder
from ioa_p2p.errors import InputError, InvalidMessage, IoAError, IoATimeout, LocalStateError, RemotePeerError
from ioa_p2p.identity import Identity, PeerId, create_key_file, load_key_file
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import Body, message_type
from ioa_p2p.wire.text import Text

_LAZY = {"open_node": "ioa_p2p.node", "Node": "ioa_p2p.node"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ioa_p2p' has no attribute {name!r}")


__all__ = [
    "Body",
    "ControlClient",
    "Embedder",
    "Envelope",
    "HashingEmbedder",
    "Identity",
    "InputError",
    "InvalidMessage",
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
    "ioa_home",
    "load_config",
    "load_key_file",
    "make_embedder",
    "message_type",
    "open_node",
]
