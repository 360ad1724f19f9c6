"""The root group's commands load on first use (issue 26: ``ioa node start`` holds no other command's module).

:data:`COMMANDS` names the module (of ``ioa_p2p.cli``) that registers each top-level command on ``main``;
:class:`LazyGroup` imports it when the command is asked for, and every module when the commands are
listed (``ioa --help``). ``tests/test_cli_lazy.py`` pins the table to what the modules register.
"""

from __future__ import annotations

import importlib

import click

#: top-level command -> the module of ``ioa_p2p.cli`` that registers it
COMMANDS = {
    "a2a": "gateway_cmds",
    "adapters": "adapter_cmds",
    "audit": "chat_cmds",
    "bootstrap": "bootstrap_cmds",
    "card": "card_cmds",
    "chats": "chat_cmds",
    "config": "config_cmds",
    "demo": "demo_cmds",
    "faults": "node_cmds",
    "find": "find_cmds",
    "goal": "goal_cmds",
    "history": "chat_cmds",
    "id": "identity_cmds",
    "inbox": "node_cmds",
    "init": "identity_cmds",
    "mcp": "gateway_cmds",
    "node": "node_cmds",
    "peers": "node_cmds",
    "relay": "bootstrap_cmds",
    "send": "node_cmds",
    "testnet": "testnet_cmds",
    "ui": "ui_cmds",
}


def load_command_module(name: str) -> None:
    """Import the module that registers command ``name`` (nothing for an unknown name)."""
    module = COMMANDS.get(name)
    if module is not None:
        importlib.import_module(f"ioa_p2p.cli.{module}")


def load_all() -> None:
    """Import every command module (for listing, help and tests)."""
    for module in sorted(set(COMMANDS.values())):
        importlib.import_module(f"ioa_p2p.cli.{module}")


class LazyGroup(click.Group):
    """A click group whose commands are registered by modules imported on first use (:data:`COMMANDS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        load_all()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            load_command_module(cmd_name)
        return super().get_command(ctx, cmd_name)
