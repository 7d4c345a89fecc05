"""ember's own intra-op threads: the count (`set_num_threads` sets it; by default the
OMP/OpenBLAS variables or the core count, as PyTorch) and a pool that splits large reductions
(NumPy runs them on one thread, releasing the GIL)."""
from __future__ import annotations

import os
import threading

_lock = threading.Lock()
_pool = None
_count = None


def intra_op_threads() -> int:
    if _count is not None:
        return _count
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        value = os.environ.get(variable)
        if value and value.isdigit() and int(value) > 0:
            return int(value)
    return os.cpu_count() or 1


def blas_threads() -> int:
    """How many threads BLAS splits each product over: `set_num_threads` sets it with ember's
    own count; by default the OpenBLAS/MKL/OMP variables or the core count, as OpenBLAS reads
    them at load."""
    if _count is not None:
        return _count
    for variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(variable)
        if value and value.isdigit() and int(value) > 0:
            return int(value)
    return os.cpu_count() or 1


def set_intra_op_threads(count: int) -> None:
    global _count
    _count = count


def parallel_map(fn, items):
    """[fn(item) for item in items] on the pool's threads (the pool is made on first use)."""
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                from concurrent.futures import ThreadPoolExecutor
                _pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1),
                                           thread_name_prefix="ember-intra-op")
    return list(_pool.map(fn, items))
