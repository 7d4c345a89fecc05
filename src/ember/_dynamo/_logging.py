"""What capture logs, and the switches: `EMBER_LOGS=graph_breaks,recompiles,graph_code,guards`
(PyTorch's `TORCH_LOGS` is read when EMBER_LOGS is not set) or `set_logs(...)`. Each artifact
is a logger under `ember._dynamo`; the recompile-limit warning goes to `ember._dynamo` itself."""
from __future__ import annotations

import logging
import os
import sys

ARTIFACTS = ("graph_breaks", "recompiles", "graph_code", "guards")
log = logging.getLogger("ember._dynamo")
graph_breaks = logging.getLogger("ember._dynamo.graph_breaks")
recompiles = logging.getLogger("ember._dynamo.recompiles")
graph_code = logging.getLogger("ember._dynamo.graph_code")
guards = logging.getLogger("ember._dynamo.guards")
_handlers = {}


def set_logs(**enabled) -> None:
    """Turn artifacts on or off: `set_logs(graph_breaks=True, recompiles=True)`."""
    for name, on in enabled.items():
        if name not in ARTIFACTS:
            raise ValueError(f"Unknown ember._dynamo log artifact {name!r}; known: "
                             f"{', '.join(ARTIFACTS)}")
        logger = logging.getLogger(f"ember._dynamo.{name}")
        if on and name not in _handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("[%(name)s] %(message)s"))
            logger.addHandler(handler)
            logger.propagate = False
            _handlers[name] = handler
        elif not on and name in _handlers:
            logger.removeHandler(_handlers.pop(name))
            logger.propagate = True
        logger.setLevel(logging.DEBUG if on else logging.NOTSET)


def _from_environment():
    text = os.environ.get("EMBER_LOGS", os.environ.get("TORCH_LOGS", ""))
    names = [n.strip().lstrip("+") for n in text.split(",") if n.strip()]
    chosen = {n: True for n in names if n in ARTIFACTS}
    if "dynamo" in names:
        chosen = {n: True for n in ARTIFACTS}
    if chosen:
        set_logs(**chosen)


_from_environment()
