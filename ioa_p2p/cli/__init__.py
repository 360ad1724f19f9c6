"""The ``ioa`` command: a thin click layer over the library.

Each module registers its commands on :data:`main`:

- ``identity_cmds.py``  ``ioa init``, ``ioa id``
- ``node_cmds.py``      ``ioa node start``, ``ioa peers``, ``ioa faults``, ``ioa send``, ``ioa inbox``
- ``adapter_cmds.py``   ``ioa adapters``

Exit codes: 0 ok, 1 failure, 2 usage error or unreadable input. Errors print one line ``error: ...`` on
stderr (with ``--json``, a JSON object ``{"error": {"type", "message"}}`` on stdout instead).
"""

from __future__ import annotations

from . import adapter_cmds as adapter_cmds  # noqa: E402  (ioa adapters)
from . import bootstrap_cmds, testnet_cmds  # noqa: E402, F401  (bootstrap, relay, testnet)
from . import chat_cmds as chat_cmds  # noqa: E402
from . import demo_cmds as demo_cmds  # noqa: E402  (ioa demo)
from . import find_cmds as find_cmds  # noqa: E402  (ioa find)
from . import goal_cmds as goal_cmds  # noqa: E402  (ioa goal)
from . import identity_cmds as identity_cmds  # noqa: E402  (registers commands)
from . import node_cmds as node_cmds  # noqa: E402
from ._base import main

__all__ = ["main"]
