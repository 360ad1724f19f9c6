"""ioa_p2p.adapters.python: the ``python`` adapter: runs the Python code of a task in a sandboxed process."""

from ioa_p2p.adapters.python.adapter import PythonAdapter, PythonOptions, extract_code

__all__ = ["PythonAdapter", "PythonOptions", "extract_code"]
