"""The CPU back-end: kernels run on NumPy arrays (bfloat16 and float8 through ml_dtypes)."""
from __future__ import annotations

import numpy as np

from ember._backends.registry import Backend, register_backend

# NumPy's floating-point error state stays the user's: see NOTE [floating-point warnings] in
# ember/_core/fp_errors.py for how the kernels keep quiet.


def _to_host(array):
    return array


def _from_host(array, device):
    return array


register_backend(Backend("cpu", np, _to_host, _from_host))
