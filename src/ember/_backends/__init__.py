"""Every back-end in one place: the registry (registry.py), the in-tree back-ends cpu.py (NumPy),
meta.py (shape-only arrays) and cuda.py (CuPy, loaded on first use), and the out-of-tree ones:
plug-in loading (plugins.py) and privateuse1 registration (privateuse1.py).

Importing this package registers the in-tree back-ends; CuPy itself is not imported until a
'cuda' tensor is made.
"""
from __future__ import annotations

from ember._backends import cpu, cuda, meta  # noqa: F401  (registers the in-tree back-ends)
from ember._backends.registry import (  # noqa: F401  (the seam the dispatcher imports)
    BACKENDS,
    Backend,
    get_backend,
    register_backend,
    register_lazy_backend,
)
