"""``python -m ioa_p2p`` is the ``ioa`` command.

``kill -USR1`` prints every thread's stack from the first line on, before the command's modules are imported
(a node asked where it is stuck while still importing would otherwise die of the signal, saying nothing);
``ioa node start`` then adds the trio task tree on ``-USR2`` (:mod:`ioa_p2p.cli.stacks`)."""

import faulthandler
import signal
import sys

if hasattr(signal, "SIGUSR1"):
    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True, chain=False)
if hasattr(signal, "SIGUSR2"):
    # a no-op until a node installs its task-tree dump (a handler, unlike SIG_IGN, is not inherited)
    signal.signal(signal.SIGUSR2, lambda signum, frame: None)

from ioa_p2p.cli import main  # noqa: E402 - after the handlers, on purpose

main()
