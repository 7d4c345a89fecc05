"""`ember.cuda.graphs`: CUDA graph capture. ember's CUDA back-end does not capture graphs: without
CUDA the calls raise PyTorch's CPU-only errors, with CuPy `not_supported`. Nothing is ever being
captured, so `is_current_stream_capturing()` is False wherever CUDA runs."""
from __future__ import annotations

from ember._backends.cuda import _cupy, _require, not_supported

__all__ = [
    "CUDAGraph",
    "graph",
    "graph_pool_handle",
    "is_current_stream_capturing",
    "make_graphed_callables",
]


def _refuse(what: str):
    if _cupy() is None:
        raise RuntimeError(f"Tried to instantiate dummy base class {what}: PyTorch was compiled "
                           "without CUDA support")
    raise not_supported(f"torch.cuda.{what}")


def is_current_stream_capturing() -> bool:
    if _cupy() is None:
        _refuse("_cuda_isCurrentStreamCapturing")
    return False


def graph_pool_handle():
    _refuse("_graph_pool_handle")


class CUDAGraph:
    """A captured CUDA graph (not in ember)."""

    def __init__(self, *args, **kwargs) -> None:
        _refuse("CUDAGraph")


class graph:
    """`with ember.cuda.graph(g):` captures the block into `g` (needs a CUDA stream first)."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode: str = "global"):
        from ember.cuda.streams import Stream
        Stream()
        _require()
        raise not_supported("torch.cuda.graph")


def make_graphed_callables(callables, sample_args, num_warmup_iters=3,
                           allow_unused_input=False, pool=None):
    CUDAGraph()
