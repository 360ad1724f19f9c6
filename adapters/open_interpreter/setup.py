"""``python -m ioa_p2p.adapters.open_interpreter.setup [FOLDER]``: create Open Interpreter's own environment.

open-interpreter cannot be installed beside ioa-p2p (docs/adapters.md), so the ``open_interpreter`` kind
runs it from a venv of its own. This creates that venv (default: ``open-interpreter`` in the node home,
``$IOA_HOME`` or ``~/.ioa``, which is where the kind looks by default), installs :data:`PACKAGE` into it with
pip, checks that the worker starts there (its ``--probe``) and prints the ``[agent]`` lines to use. Exit 0
when the environment works, 1 otherwise (pip's or the probe's words on stderr).
"""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

from ioa_p2p.adapters.open_interpreter.adapter import DEFAULT_ENV
from ioa_p2p.adapters.open_interpreter.process import worker_argv
from ioa_p2p.config.node_config import ioa_home

#: The release the adapter and its worker are written for.
PACKAGE = "open-interpreter==0.4.3"


def create_environment(folder: Path, package: str = PACKAGE, *, timeout: float = 1800.0) -> Path:
    """A venv at ``folder`` with ``package`` installed (pip bounded by ``timeout`` seconds); returns its
    Python. Raises CalledProcessError or TimeoutExpired."""
    venv.EnvBuilder(with_pip=True, clear=False, upgrade_deps=False).create(folder)
    python = folder / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", package], check=True, timeout=timeout)
    return python


def probe(python: Path, timeout: float = 300.0) -> subprocess.CompletedProcess[str]:
    """Start the worker in ``python``'s environment and let it import Open Interpreter (``--probe``)."""
    return subprocess.run(
        worker_argv(str(python), probe=True), capture_output=True, text=True, timeout=timeout
    )


def main(argv: list[str]) -> int:
    folder = Path(argv[0]).expanduser().absolute() if argv else ioa_home() / DEFAULT_ENV
    print(f"creating {folder} with {PACKAGE} (a few minutes) ...")
    try:
        python = create_environment(folder)
    except subprocess.CalledProcessError as exc:
        print(f"error: pip failed with code {exc.returncode}", file=sys.stderr)
        return 1
    except subprocess.TimeoutExpired:
        print("error: pip did not finish within 30 minutes", file=sys.stderr)
        return 1
    checked = probe(python)
    if checked.returncode != 0 or '"ready"' not in checked.stdout:
        print(
            f"error: the worker does not start there:\n{checked.stdout}{checked.stderr[-3000:]}",
            file=sys.stderr,
        )
        return 1
    print(f"ok: {checked.stdout.strip()}")
    print(f'[agent]\nadapter = "open_interpreter"\n[agent.options]\npython = "{python}"')
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
