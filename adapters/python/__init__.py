"""ioa_p2p.adapters.python: the ``python`` adapter: runs the Python code of a task in a sandboxed process.

- ``adapter.py``  :class:`PythonAdapter`: one run per task (scratch directory, files in and out, result)
- ``code.py``     :func:`extract_code`: the code in a task text
- ``options.py``  :class:`PythonOptions` and their checks
- ``process.py``  the subprocess: bounded output capture, deadline, killing its process group
- ``sandbox.py``  the wrapper run inside the subprocess (limits, hidden paths, audit hooks), its config
"""

from ioa_p2p.adapters.python.adapter import PythonAdapter, PythonOptions, extract_code

__all__ = ["PythonAdapter", "PythonOptions", "extract_code"]
