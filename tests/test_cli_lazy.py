"""The ``ioa`` group loads each command's module on first use (issue 26, ``ioa_p2p/cli/lazy_group.py``)."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from ioa_p2p.cli import main
from ioa_p2p.cli.lazy_group import COMMANDS, load_all


def test_the_table_names_the_module_of_every_command() -> None:
    load_all()
    registered = {name: cmd.callback.__module__ for name, cmd in main.commands.items() if cmd.callback}
    assert registered == {name: f"ioa_p2p.cli.{module}" for name, module in COMMANDS.items()}


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert f"  {name} " in result.output


def test_one_command_loads_its_module_only() -> None:
    """In a fresh process: ``ioa id --help`` imports identity_cmds and no other command module."""
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from ioa_p2p.cli import main\n"
        "assert CliRunner().invoke(main, ['id', '--help']).exit_code == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith('ioa_p2p.cli.') and m.endswith('_cmds')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "['ioa_p2p.cli.identity_cmds']"


def test_an_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["no-such-command"])
    assert result.exit_code == 2
    assert "No such command" in result.output
