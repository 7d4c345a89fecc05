"""`nn.parallel.DistributedDataParallel`: one model replica per process; gradients averaged
over the process group during backward.

NOTE [DDP buckets]: the parameters that need gradients are laid out, last parameter first
(the order backward produces gradients in), in flat buckets of one dtype each: the first up to
1 MiB, the others up to `bucket_cap_mb`. A post-accumulate-grad hook on each parameter counts
its bucket down; a full bucket gets its gradients copied in and its reduction started
non-blocking (the comm hook: allreduce_hook by default), so communication overlaps the rest
of backward. Buckets are started in index order only (a later one waits for the earlier ones),
so every rank issues the same collectives in the same order; the used-parameter mask of
`find_unused_parameters` goes through the group's side channel, since a rank that did not use
a parameter starts its bucket later than one that did. A final callback at the end of
backward (NOTE [final callbacks]) starts what is left, waits for every bucket and writes the
averaged gradients into `.grad` (with `gradient_as_bucket_view`, `.grad` becomes a view of the
bucket itself).
"""
from __future__ import annotations

import contextlib

import ember
from ember.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024
_DEFAULT_BUCKET_MB = 25


class _Bucket:
    def __init__(self, index, params, dtype):
        self.index = index
        self.params = params
        self.offsets = []
        offset = 0
        for p in params:
            self.offsets.append(offset)
            offset += p.numel()
        self.buffer = ember.zeros(offset, dtype=dtype)
        self.views = [self.buffer[o:o + p.numel()].view(p.shape)
                      for p, o in zip(params, self.offsets)]
        self.pending = len(params)
        self.future = None


def _assign_buckets(params, cap_bytes):
    """Buckets of parameter indices: reverse order, one dtype each, capped in bytes."""
    buckets, open_by_dtype = [], {}
    limit = min(_FIRST_BUCKET_BYTES, cap_bytes)
    for p in reversed(params):
        current = open_by_dtype.get(p.dtype)
        size = p.numel() * p.element_size()
        if current is None or (current[1] and current[1] + size > current[2]):
            current = [[], 0, limit]
            open_by_dtype[p.dtype] = current
            buckets.append(current)
            limit = cap_bytes
        current[0].append(p)
        current[1] += size
    return [(b[0], b[0][0].dtype) for b in buckets]


class DistributedDataParallel(Module):
    """Wrap `module` for data-parallel training over `process_group` (the default group)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, init_sync=True,
                 skip_all_reduce_unused_params=False):
        super().__init__()
        import ember.distributed as dist
        from ember.distributed.work import progress
        self._progress = progress
        if not dist.is_initialized() and process_group is None:
            raise ValueError("Default process group has not been initialized, please make sure "
                             "to call init_process_group.")
        params = [p for p in dict.fromkeys(module.parameters()) if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have "
                               "any parameter that requires a gradient.")
        self.module = module
        self.process_group = process_group if process_group is not None else dist.group.WORLD
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        cap = _DEFAULT_BUCKET_MB if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap * 1024 * 1024)
        self._params = params
        self._buckets = [_Bucket(i, ps, dtype) for i, (ps, dtype) in
                         enumerate(_assign_buckets(params, self.bucket_bytes_cap))]
        self._slot = {}
        for bucket in self._buckets:
            for j, p in enumerate(bucket.params):
                self._slot[p] = (bucket, j)
        self._comm_hook = None
        self._comm_state = None
        self._ready = set()
        self._next_bucket = 0
        self._callback_queued = False
        self._unfinished = None
        self._hook_handles = [p.register_post_accumulate_grad_hook(self._grad_ready)
                              for p in params]
        if init_sync:
            self._sync_from_rank0([*module.parameters(), *module.buffers()])

    def _sync_from_rank0(self, tensors) -> None:
        import ember.distributed as dist
        src = dist.get_global_rank(self.process_group, 0)
        with ember.no_grad():
            works = [dist.broadcast(t, src=src, group=self.process_group, async_op=True)
                     for t in dict.fromkeys(tensors)]
            for work in works:
                work.wait()

    # ------------------------------------------------------------------ forward
    def forward(self, *inputs, **kwargs):
        if self._unfinished is not None:
            missing, self._unfinished = self._unfinished, None
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a "
                "new one. This error indicates that your module has parameters that were not "
                "used in producing loss. You can enable unused parameter detection by passing "
                "the keyword argument `find_unused_parameters=True` to "
                "`torch.nn.parallel.DistributedDataParallel`. Parameter indices which did not "
                f"receive grad for rank {ember.distributed.get_rank()}: "
                f"{' '.join(map(str, missing))}")
        if self.broadcast_buffers and self.require_forward_param_sync:
            buffers = list(self.module.buffers())
            if buffers:
                self._sync_from_rank0(buffers)
        self._reset()
        return self.module(*inputs, **kwargs)

    def _reset(self) -> None:
        self._ready = set()
        self._next_bucket = 0
        self._callback_queued = False
        for bucket in self._buckets:
            bucket.pending = len(bucket.params)
            bucket.future = None

    # ------------------------------------------------------------------ backward
    def _grad_ready(self, param) -> None:
        if not self.require_backward_grad_sync:
            return
        if not self._callback_queued:
            self._callback_queued = True
            from ember.autograd.variable import Variable
            Variable._execution_engine.queue_callback(self._finish_backward)
        if param in self._ready:
            raise RuntimeError("Expected to mark a variable ready only once: a parameter got "
                               "its gradient twice in one iteration (backward run twice, or "
                               "reentrant backward); DDP reduces each gradient once.")
        self._ready.add(param)
        bucket, _ = self._slot[param]
        bucket.pending -= 1
        if self._next_bucket:
            self._progress()        # NOTE [progress while computing]
        self._launch_ready_buckets()

    def _launch_ready_buckets(self, force: bool = False) -> None:
        while self._next_bucket < len(self._buckets):
            bucket = self._buckets[self._next_bucket]
            if bucket.pending and not force:
                return
            self._launch(bucket)
            self._next_bucket += 1

    def _launch(self, bucket) -> None:
        from ember.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
        from ember.distributed.algorithms.ddp_comm_hooks.grad_bucket import GradBucket
        with ember.no_grad():
            for p, view in zip(bucket.params, bucket.views):
                grad = p.grad
                if grad is None:
                    view.zero_()
                elif grad is not view:
                    view.copy_(grad)
            gb = GradBucket(bucket.index, bucket.buffer, bucket.params, bucket.offsets,
                            bucket.index == len(self._buckets) - 1)
            if self._comm_hook is None:
                bucket.future = allreduce_hook(self.process_group, gb)
            else:
                bucket.future = self._comm_hook(self._comm_state, gb)

    def _finish_backward(self) -> None:
        unused = [i for i, p in enumerate(self._params) if p not in self._ready]
        if unused and not self.find_unused_parameters:
            # Started buckets still complete (every rank started the same ones).
            for bucket in self._buckets[:self._next_bucket]:
                bucket.future.wait()
            self._unfinished = unused
            return
        used_globally = self._globally_used() if self.find_unused_parameters else None
        self._launch_ready_buckets(force=True)
        with ember.no_grad():
            for bucket in self._buckets:
                result = bucket.future.wait()
                if result is not bucket.buffer:
                    bucket.buffer.copy_(result.reshape(-1))
                for p, view in zip(bucket.params, bucket.views):
                    if used_globally is not None and not used_globally[p]:
                        continue
                    if self.gradient_as_bucket_view:
                        p.grad = view
                    elif p.grad is None:
                        p.grad = view.clone()
                    else:
                        p.grad.copy_(view)
        self._reset()

    def _globally_used(self) -> dict:
        import numpy as np
        # Buckets may be in flight on the group's communicator, started at different moments
        # on each rank: the mask goes through the group's side channel (NOTE [DDP buckets]).
        flags = np.array([p in self._ready for p in self._params], np.int32)
        self.process_group._side_all_reduce(flags)
        return {p: bool(f) for p, f in zip(self._params, flags.tolist())}

    # ------------------------------------------------------------------ API
    @contextlib.contextmanager
    def no_sync(self):
        """Accumulate gradients locally inside the block; the first backward after it
        reduces the accumulated gradients."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def register_comm_hook(self, state, hook) -> None:
        """Reduce each bucket with `hook(state, bucket) -> Future` instead of allreduce."""
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be "
                               "called once.")
        self._comm_hook = hook
        self._comm_state = state

    def _set_static_graph(self) -> None:
        self.static_graph = True

    @contextlib.contextmanager
    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        yield

    def extra_repr(self) -> str:
        return ""
