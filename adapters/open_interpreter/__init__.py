"""Kind ``open_interpreter``: Open Interpreter in its own environment, driven as a subprocess.

- ``adapter.py``  :class:`OpenInterpreterAdapter`: options, the card, tasks and their limits;
- ``process.py``  :func:`~ioa_p2p.adapters.open_interpreter.process.run_worker`: the worker process and its
                  JSON-lines protocol (bounded reads, timeouts, stopping it and its code runners);
- ``worker.py``   the worker, run by the environment's Python (standard library and ``interpreter`` only);
- ``setup.py``    ``python -m ioa_p2p.adapters.open_interpreter.setup [FOLDER]``: creates that environment.
"""

from ioa_p2p.adapters.open_interpreter.adapter import OpenInterpreterAdapter, OpenInterpreterOptions

__all__ = ["OpenInterpreterAdapter", "OpenInterpreterOptions"]
