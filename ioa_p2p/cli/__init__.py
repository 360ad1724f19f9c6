"""The ``ioa`` command: a thin click layer over the library.

Each module registers its commands on :data:`main`:

- ``_base.py``           the ``main`` group, output and error handling shared by every command
- ``identity_cmds.py``   ``ioa init``, ``ioa id``
- ``node_cmds.py``       ``ioa node start``, ``ioa peers``, ``ioa faults``, ``ioa send``, ``ioa inbox``
- ``adapter_cmds.py``    ``ioa adapters``
- ``config_cmds.py``     ``ioa config check``
- ``chat_cmds.py``       ``ioa chats``, ``ioa history show|export``, ``ioa audit``
- ``find_cmds.py``       ``ioa find``
- ``card_cmds.py``       ``ioa card show|set|withdraw``
- ``goal_cmds.py``       ``ioa goal``
- ``demo_cmds.py``       ``ioa demo``
- ``bootstrap_cmds.py``  ``ioa bootstrap start``, ``ioa relay status|connect``
- ``testnet_cmds.py``    ``ioa testnet up``
- ``gateway_cmds.py``    ``ioa a2a serve``, ``ioa mcp`` (the gateways: ``ioa_p2p.gateways``)
- ``ui_cmds.py``         ``ioa ui``: the dashboard's URL with a one-time login code

Exit codes: 0 ok, 1 failure, 2 usage error or unreadable input. Errors print one line ``error: ...`` on
stderr (with ``--json``, a JSON object ``{"error": {"type", "message"}}`` on stdout instead).
"""

from __future__ import annotations

from ioa_p2p.cli import adapter_cmds as adapter_cmds  # noqa: E402  (ioa adapters)
from ioa_p2p.cli import bootstrap_cmds, testnet_cmds  # noqa: E402, F401  (bootstrap, relay, testnet)
from ioa_p2p.cli import card_cmds as card_cmds  # noqa: E402  (ioa card)
from ioa_p2p.cli import chat_cmds as chat_cmds  # noqa: E402
from ioa_p2p.cli import config_cmds as config_cmds  # noqa: E402  (ioa config check)
from ioa_p2p.cli import demo_cmds as demo_cmds  # noqa: E402  (ioa demo)
from ioa_p2p.cli import find_cmds as find_cmds  # noqa: E402  (ioa find)
from ioa_p2p.cli import gateway_cmds as gateway_cmds  # noqa: E402  (ioa a2a serve, ioa mcp)
from ioa_p2p.cli import goal_cmds as goal_cmds  # noqa: E402  (ioa goal)
from ioa_p2p.cli import identity_cmds as identity_cmds  # noqa: E402  (registers commands)
from ioa_p2p.cli import node_cmds as node_cmds  # noqa: E402
from ioa_p2p.cli import ui_cmds as ui_cmds  # noqa: E402, F401  (ioa ui)
from ioa_p2p.cli._base import main

__all__ = ["main"]
