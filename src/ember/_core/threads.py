"""ember's own intra-op threads: the count (`set_num_threads` sets it; by default the
OMP/OpenBLAS variables or the core count, as PyTorch) and a pool that splits large reductions
(NumPy runs them on one thread, releasing the GIL)."""
from __future__ import annotations

import itertools
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


def _in_pool() -> bool:
    """Whether this thread is one of the pool's: work it splits runs on it alone, so that
    pool threads never wait on tasks queued behind them."""
    return threading.current_thread().name.startswith(_PREFIX)


_PREFIX = "ember-intra-op"


def parallel_map(fn, items):
    """[fn(item) for item in items] on the pool's threads (the pool is made on first use);
    on this thread alone when it is one of the pool's."""
    if _in_pool():
        return [fn(item) for item in items]
    return [future.result() for future in _pool_submit([(lambda i=i: fn(i)) for i in items])]


# NOTE [kernels split over the intra-op threads]: a kernel whose work is independent along
# rows or elements (pointwise passes, row-wise softmax and norms, the matrices of a batched
# product) may cut it into `parts(total, threshold)` contiguous ranges and run them with
# `run_parts`: the calling thread takes the first range, the pool the rest, each range quiet
# (NumPy's floating-point errors ignored, as on any pool thread). Each row or element is
# computed by the same NumPy (or BLAS) loop whatever range it falls in, and a reduction
# across the ranges is never split, so the bits do not depend on the thread count. Below the
# threshold (work of about 100 us on one core, several times a pool hand-off) the kernel runs
# whole, and asking costs one comparison.
def parts(total: int, threshold: int, align: int = 1) -> list:
    """[(start, stop), ...]: `total` rows cut into one contiguous range per intra-op thread,
    starts on multiples of `align`; one range while `total` is under `threshold` or there is
    one thread."""
    if total < threshold:
        return [(0, total)]
    threads = intra_op_threads()
    if threads < 2 or _in_pool():
        return [(0, total)]
    units = -(-total // align)
    threads = min(threads, units)
    edges = [units * i // threads * align for i in range(threads)] + [total]
    return [(start, stop) for start, stop in itertools.pairwise(edges) if start < stop]


def run_parts(fn, ranges) -> list:
    """[fn(start, stop) for (start, stop) in ranges]: the first on this thread, the others on
    the pool, all quiet (NOTE [kernels split over the intra-op threads])."""
    if len(ranges) == 1:
        return [fn(*ranges[0])]
    from ember._core.fp_errors import run_quietly
    rest = _pool_submit([(lambda r=r: run_quietly(fn, *r)) for r in ranges[1:]])
    first = run_quietly(fn, *ranges[0])
    return [first] + [future.result() for future in rest]


def _pool_submit(thunks):
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                from concurrent.futures import ThreadPoolExecutor
                _pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1),
                                           thread_name_prefix=_PREFIX)
    return [_pool.submit(thunk) for thunk in thunks]


# NOTE [BLAS on one thread beside the pool]: work split over the pool that calls BLAS would,
# with BLAS's own threads, run two thread teams on the same cores (and OpenBLAS serialises
# concurrent threaded calls). `one_blas_thread()` pins the BLAS libraries loaded at its first
# use (NumPy's, which the kernels call) to one thread while such a split runs and gives the
# count back after; the count is process-wide, so BLAS products that other Python threads
# start meanwhile also run on one thread.
_blas = None
_blas_depth = 0
_blas_saved = None


def _blas_controllers():
    global _blas
    if _blas is None:
        from threadpoolctl import ThreadpoolController
        _blas = ThreadpoolController().select(user_api="blas").lib_controllers
    return _blas


class one_blas_thread:
    """Context: the BLAS libraries on one thread (NOTE [BLAS on one thread beside the pool])."""

    def __enter__(self):
        global _blas_depth, _blas_saved
        with _lock:
            if _blas_depth == 0:
                controllers = _blas_controllers()
                _blas_saved = [c.get_num_threads() for c in controllers]
                for c in controllers:
                    c.set_num_threads(1)
            _blas_depth += 1
        return self

    def __exit__(self, *exc):
        global _blas_depth
        with _lock:
            _blas_depth -= 1
            if _blas_depth == 0:
                for c, count in zip(_blas_controllers(), _blas_saved):
                    c.set_num_threads(count)
        return False
