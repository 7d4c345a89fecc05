"""Run a PyTorch program on ember, unchanged.

    python -m ember.run script.py [args ...]
    python -m ember.run -m package.module [args ...]

`import torch` (and `torch.X` for every submodule ember has) resolves to ember for that process.
"""
from __future__ import annotations

import os
import runpy
import sys

from ember.utils._alias import alias_torch

USAGE = "usage: python -m ember.run script.py [args ...] | -m module [args ...]"


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    alias_torch()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
