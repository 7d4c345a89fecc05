"""`ember.futures`: the Future type of asynchronous work (`ember.jit.fork`, RPC) and helpers to
wait on several."""
from __future__ import annotations

from ember.jit._runtime import Future

__all__ = ["Future", "collect_all", "wait_all"]


def collect_all(futures) -> Future:
    """A Future completed with the list of `futures` once all of them are done."""
    combined = Future()
    for future in futures:
        future.wait()
    combined.set_result(list(futures))
    return combined


def wait_all(futures) -> list:
    """The results of `futures`, waiting for each."""
    return [future.wait() for future in futures]
