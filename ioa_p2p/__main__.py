"""``python -m ioa_p2p`` is the ``ioa`` command."""

from ioa_p2p.cli import main

main()
