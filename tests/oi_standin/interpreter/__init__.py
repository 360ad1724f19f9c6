"""A stand-in for Open Interpreter 0.4 (``interpreter``), installed into a throwaway venv by the tests.

It keeps the parts of the real API the worker uses (``OpenInterpreter(**settings)``, ``.llm`` attributes,
``chat(prompt, display=False, stream=True)`` yielding Open Interpreter's chunk dicts, ``.messages``,
``.computer.terminate()``) and behaves by a word of the prompt:

- ``compute``   runs ``print(6 * 7)`` for real in a child process, answers "The answer is 42.";
- ``settings``  answers with the settings it was given (JSON, the API key left out);
- ``loop``      runs code blocks forever (the caller's max_steps stops it);
- ``hang``      starts a child process (its pid in the file named after ``pidfile=``) and never answers;
- ``noise``     writes junk to stdout from Python and from a child process, then answers "quiet";
- ``boom``      raises, mentioning the API key (the caller must hide it);
- ``flood``     answers with 3 MB of text.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

__version__ = "0.4.3-standin"


class _Llm:
    model = None
    api_base = None
    api_key = None
    temperature = 0
    context_window = None
    max_tokens = None
    supports_functions = None
    supports_vision = None


class _Computer:
    def __init__(self) -> None:
        self.children: list[subprocess.Popen[bytes]] = []

    def terminate(self) -> None:
        for child in self.children:
            if child.poll() is None:
                child.kill()


class OpenInterpreter:
    def __init__(self, **settings: object) -> None:
        self.settings = settings
        self.llm = _Llm()
        self.computer = _Computer()
        self.messages: list[dict[str, object]] = []

    def _code(self, code: str):  # type: ignore[no-untyped-def]
        yield {"role": "assistant", "type": "code", "format": "python", "start": True}
        yield {"role": "assistant", "type": "code", "format": "python", "content": code}
        yield {"role": "assistant", "type": "code", "format": "python", "end": True}
        self.messages.append({"role": "assistant", "type": "code", "format": "python", "content": code})

    def _say(self, text: str):  # type: ignore[no-untyped-def]
        yield {"role": "assistant", "type": "message", "start": True}
        yield {"role": "assistant", "type": "message", "content": text}
        yield {"role": "assistant", "type": "message", "end": True}
        self.messages.append({"role": "assistant", "type": "message", "content": text})

    def chat(self, message: str, display: bool = True, stream: bool = False):  # type: ignore[no-untyped-def]
        assert display is False and stream is True
        self.messages.append({"role": "user", "type": "message", "content": message})
        if "compute" in message:
            yield from self._code("print(6 * 7)")
            out = subprocess.run(
                [sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True
            ).stdout
            yield {"role": "computer", "type": "console", "format": "output", "content": out}
            yield from self._say(f"The answer is {out.strip()}.")
        elif "settings" in message:
            llm = {k: getattr(self.llm, k) for k in ("model", "api_base", "temperature", "max_tokens")}
            yield from self._say(json.dumps({"settings": self.settings, "llm": llm}, sort_keys=True))
        elif "loop" in message:
            while True:
                yield from self._code("print('again')")
        elif "hang" in message:
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
            self.computer.children.append(child)
            found = re.search(r"pidfile=(\S+)", message)
            if found:
                with open(found.group(1), "w") as f:
                    f.write(f"{os.getpid()} {child.pid}")
            yield from self._code("import time; time.sleep(3600)")
            time.sleep(3600)
        elif "noise" in message:
            print("junk from python print")
            os.write(1, b"junk on file descriptor 1\n")
            subprocess.run([sys.executable, "-c", "print('junk from a child')"])
            yield from self._say("quiet")
        elif "boom" in message:
            raise RuntimeError(f"the model server refused key {self.llm.api_key}")
        elif "flood" in message:
            yield from self._say("x" * 3_000_000)
        else:
            yield from self._say("nothing to do")
