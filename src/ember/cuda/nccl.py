"""`ember.cuda.nccl`: PyTorch's single-process multi-GPU NCCL collectives. ember has no NCCL
binding (its collectives are in ember.distributed): `is_available` is False, `version` and the
collectives raise."""
from __future__ import annotations

__all__ = ["all_gather", "all_reduce", "broadcast", "reduce", "reduce_scatter"]

SUM = 0


def is_available(tensors) -> bool:
    return False


def _refuse(name: str):
    raise RuntimeError(f"torch.cuda.nccl.{name}: ember has no NCCL binding (use "
                       "torch.distributed's collectives)")


def version():
    _refuse("version")


def all_reduce(inputs, outputs=None, op=SUM, streams=None, comms=None) -> None:
    _refuse("all_reduce")


def reduce(inputs, output=None, root=0, op=SUM, streams=None, comms=None, *, outputs=None):
    _refuse("reduce")


def broadcast(inputs, root=0, streams=None, comms=None) -> None:
    _refuse("broadcast")


def all_gather(inputs, outputs, streams=None, comms=None) -> None:
    _refuse("all_gather")


def reduce_scatter(inputs, outputs, op=SUM, streams=None, comms=None) -> None:
    _refuse("reduce_scatter")
