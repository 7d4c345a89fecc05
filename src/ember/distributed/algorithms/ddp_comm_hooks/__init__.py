"""DDP communication hooks: default_hooks.py (allreduce, fp16/bf16 compression) and the
GradBucket they receive (grad_bucket.py); `DDPCommHookType` names them."""
import enum
from functools import partial

from ember.distributed.algorithms.ddp_comm_hooks import default_hooks
from ember.distributed.algorithms.ddp_comm_hooks.grad_bucket import GradBucket

__all__ = ["DDPCommHookType", "GradBucket", "default_hooks", "register_ddp_comm_hook"]


class DDPCommHookType(enum.Enum):
    ALLREDUCE = partial(default_hooks.allreduce_hook)
    FP16_COMPRESS = partial(default_hooks.fp16_compress_hook)
    BF16_COMPRESS = partial(default_hooks.bf16_compress_hook)


def register_ddp_comm_hook(comm_hook_type, model, state=None) -> None:
    model.register_comm_hook(state, comm_hook_type.value)
