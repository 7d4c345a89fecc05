"""Selective activation checkpointing (SAC) for ember.utils.checkpoint: a policy decides, op
by op, whether a checkpointed region's output is saved in the forward pass or recomputed in
the backward pass.

NOTE [selective checkpointing through dispatch modes]: `create_selective_checkpoint_contexts`
returns two TorchDispatchModes sharing one storage, for `checkpoint(context_fn=...)`. The
forward runs under the caching mode: every op (below autograd) runs, the policy sees it, and
the outputs of the ops it saves are kept (detached), keyed by (op, how many times this op ran
before in the region). The recompute runs under the cached mode: an op whose output was saved
returns it instead of running, the others run again. Autograd sits above both modes, so the
rerun's graph records every op either way and backward is unchanged. A saved entry serves one
backward: a second one through the region is an error, as in PyTorch.
"""
from __future__ import annotations

import collections
import enum

from ember._core import dispatch
from ember.utils._python_dispatch import TorchDispatchMode


class SelectiveCheckpointContext:
    """What the policy function is told about the op it decides on (the op's output; whether
    this is the recompute, always False since the policy runs in the forward pass only)."""

    def __init__(self, *, is_recompute, op_output=None) -> None:
        self.is_recompute = is_recompute
        self.op_output = op_output


class CheckpointPolicy(enum.Enum):
    """Save an op's output in the forward pass, or recompute it in the backward pass (MUST_*
    and PREFER_* are the same in eager mode; CPU_OFFLOAD saves, ember having one device)."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


_SAVING = (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE,
           CheckpointPolicy.MUST_CPU_OFFLOAD, CheckpointPolicy.PREFER_CPU_OFFLOAD)


def _ignored_ops():
    from ember import ops
    return {ops.aten.detach.default}


# Ops the policy never sees: checkpointing itself may detach a different number of times in
# the forward pass and in the recompute.
SAC_IGNORED_OPS = _ignored_ops()

_RECOMPUTE = object()
_CONSUMED = object()
_MISMATCH = ("This can happen if the operations in the checkpointed region are "
             "nondeterministic or depend on global state that changed between forward and "
             "backward.")


def _tree_map(fn, tree):
    from ember.utils._pytree import _tree_map as tree_map
    return tree_map(fn, tree)


class _SavedValue:
    """A saved output with the version it had, so that a later in-place write is caught."""

    __slots__ = ("value", "version")

    def __init__(self, value):
        if isinstance(value, dispatch.Tensor):
            value = value.detach()
            self.version = value._version
        else:
            self.version = None
        self.value = value

    def get(self, allow_mutation):
        if self.version is not None and not allow_mutation and \
                self.value._version != self.version:
            raise RuntimeError("Tensor cached during selective activation checkpoint has been "
                               "mutated")
        return self.value


class _CachingMode(TorchDispatchMode):
    """The forward pass of a region: runs every op and keeps the outputs the policy saves."""

    def __init__(self, policy_fn, storage):
        super().__init__()
        self.policy_fn = policy_fn
        self.storage = storage
        self.counts = collections.defaultdict(int)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = {} if kwargs is None else kwargs
        out = func(*args, **kwargs)
        if func in SAC_IGNORED_OPS:
            return out
        index = self.counts[func]
        self.counts[func] += 1
        policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=False, op_output=out),
                                func, *args, **kwargs)
        if isinstance(policy, bool):     # the older form: True saves
            policy = CheckpointPolicy.MUST_SAVE if policy else CheckpointPolicy.PREFER_RECOMPUTE
        if policy in _SAVING:
            self.storage[func][index] = _tree_map(_SavedValue, out)
        else:
            self.storage[func][index] = _RECOMPUTE
        return out


class _CachedMode(TorchDispatchMode):
    """The recompute of a region: saved outputs come from the storage, the rest run again."""

    def __init__(self, storage, allow_cache_entry_mutation):
        super().__init__()
        self.storage = storage
        self.allow_mutation = allow_cache_entry_mutation
        self.counts = collections.defaultdict(int)

    def __enter__(self):
        self.counts.clear()      # each recompute counts from the start of the region
        return super().__enter__()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = {} if kwargs is None else kwargs
        if func in SAC_IGNORED_OPS:
            return func(*args, **kwargs)
        index = self.counts[func]
        self.counts[func] += 1
        entries = self.storage.get(func)
        if entries is None:
            raise RuntimeError(f"{func} encountered during backward but not found in storage. "
                               f"{_MISMATCH}")
        entry = entries.get(index)
        if entry is None:
            raise RuntimeError(f"{func} invocation index {index} encountered during backward "
                               f"but not found in storage. {_MISMATCH}")
        if entry is _CONSUMED:
            raise RuntimeError("Trying to backward an extra time. You are only allowed to "
                               "backward once on any region computed under selective "
                               "activation checkpoint.")
        if entry is _RECOMPUTE:
            return func(*args, **kwargs)
        entries[index] = _CONSUMED
        return _tree_map(lambda saved: saved.get(self.allow_mutation), entry)


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """The (forward, recompute) context managers for `checkpoint(context_fn=...)` that save
    the outputs of the ops the policy chooses (a function `policy(ctx, op, *args, **kwargs)`
    returning a CheckpointPolicy, or a list of ops to save) and recompute the rest (NOTE
    [selective checkpointing through dispatch modes])."""
    from ember._core.registry import OpDef
    from ember.ops import OpOverloadPacket
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not isinstance(op, OpDef):
                hint = ("Please update the OpOverloadPacket to a specific OpOverload.For "
                        "example, if you have `torch.ops.aten.mm`, change it to "
                        "`torch.ops.aten.mm.default`.") \
                    if isinstance(op, OpOverloadPacket) else ""
                message = (f"Expected op in `op_list` to be an OpOverload but got: {op} of "
                           f"type {type(op)}. {hint}")
                raise ValueError(message)  # noqa: TRY004 (PyTorch's class)
        saved_ops = list(policy_fn_or_list)

        def policy_fn(ctx, op, *args, **kwargs):
            if op in saved_ops:
                return CheckpointPolicy.MUST_SAVE
            return CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage = collections.defaultdict(dict)
    return (_CachingMode(policy_fn, storage),
            _CachedMode(storage, allow_cache_entry_mutation))
