"""ioa_p2p.testing: test doubles, kept out of the product modules.

- ``echo.py``    :class:`EchoAdapter`: answers with its input, or fails on demand (``mode`` option); the
  ``echo`` adapter kind (entry point), which tests and benchmarks run nodes with (``--adapter echo``)
- ``models.py``  :class:`ScriptedModel`: a :class:`~ioa_p2p.llm.model.Model` replaying scripted replies

Imports anything below it (this is the top layer, with the CLI); product code never imports it.
"""

from ioa_p2p.testing.echo import EchoAdapter
from ioa_p2p.testing.models import ScriptedModel

__all__ = ["EchoAdapter", "ScriptedModel"]
