"""The public surface of ``ioa_p2p`` is pinned: a name that disappears (or stops resolving) fails here.

Adding a name is fine (add it to PUBLIC too); removing or renaming one is a breaking change for every
program built on ioa-p2p and needs a deliberate edit of this list.
"""

from __future__ import annotations

import ioa_p2p

PUBLIC = frozenset(
    {
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
    }
)


def test_every_pinned_name_is_still_exported() -> None:
    missing = sorted(PUBLIC - set(ioa_p2p.__all__))
    assert not missing, f"ioa_p2p.__all__ lost {missing}: a breaking change (restore them or update PUBLIC)"


def test_every_exported_name_is_pinned_and_resolves() -> None:
    unpinned = sorted(set(ioa_p2p.__all__) - PUBLIC)
    assert not unpinned, f"new public names {unpinned}: add them to PUBLIC in this test"
    for name in ioa_p2p.__all__:
        assert getattr(ioa_p2p, name) is not None, name


def test_the_lazy_names_are_the_node_packages_own() -> None:
    from ioa_p2p.node import Node, open_node

    assert ioa_p2p.open_node is open_node and ioa_p2p.Node is Node
