"""The default DDP communication hooks: each averages a bucket over the group and returns a
Future of the averaged flat tensor, which DDP copies into the parameters' gradients."""
from __future__ import annotations

__all__ = ["allreduce_hook", "bf16_compress_hook", "fp16_compress_hook"]


def _group_and_size(process_group):
    import ember.distributed as dist
    group = process_group if process_group is not None else dist.group.WORLD
    return group, dist.get_world_size(group)


def _allreduce_fut(process_group, tensor):
    """Sum `tensor` over the group, non-blocking; a Future of it."""
    import ember.distributed as dist
    group, _ = _group_and_size(process_group)
    work = dist.all_reduce(tensor, group=group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group, bucket):
    """Divide the bucket by the world size and sum it over the group."""
    _, size = _group_and_size(process_group)
    return _allreduce_fut(process_group, bucket.buffer().div_(size))


def _compress_hook(dtype, process_group, bucket):
    import ember
    _, size = _group_and_size(process_group)
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(size)

    def decompress(fut):
        with ember.no_grad():
            buffer.copy_(fut.value())
        return buffer
    return _allreduce_fut(process_group, compressed).then(decompress)


def fp16_compress_hook(process_group, bucket):
    """allreduce_hook on the bucket cast to float16 (half the bytes), cast back after."""
    import ember
    return _compress_hook(ember.float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """allreduce_hook on the bucket cast to bfloat16, cast back after."""
    import ember
    return _compress_hook(ember.bfloat16, process_group, bucket)
