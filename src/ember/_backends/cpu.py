"""The CPU back-end: kernels run on NumPy arrays (bfloat16 and float8 through ml_dtypes)."""
from __future__ import annotations

import numpy as np

from ember._core.backend import Backend, register_backend

# NOTE [floating-point warnings]: PyTorch never warns on overflow, 0/0 or log(-1); NumPy does.
# ember turns NumPy's floating-point warnings off once, at import, instead of per call.
np.seterr(all="ignore")


def _to_host(array):
    return array


def _from_host(array, device):
    return array


register_backend(Backend("cpu", np, _to_host, _from_host))
