"""Kind ``open_interpreter``: Open Interpreter through its Python API (optional extra
``ioa-p2p[open-interpreter]``, which pip cannot currently install beside a2a-sdk: see ``adapter.py``)."""

from ioa_p2p.adapters.open_interpreter.adapter import OpenInterpreterAdapter, OpenInterpreterOptions

__all__ = ["OpenInterpreterAdapter", "OpenInterpreterOptions"]
