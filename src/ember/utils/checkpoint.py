"""Activation checkpointing, as in `torch.utils.checkpoint`: run a function without keeping
its intermediate values and recompute them when the backward pass needs them.

Two variants, chosen by `use_reentrant`:
- True: a custom autograd Function whose backward reruns the function with grad on and
  backpropagates through the rerun (PyTorch's reentrant checkpoint; arguments only).
- False: the function runs once with grad on; its graph is replaced by one recompute node
  whose edges are the graph's boundary (the arguments and any leaf it reads, such as module
  parameters), so the intermediate nodes are freed at once. Works with autograd.grad,
  keyword arguments and higher-order gradients.

Selective checkpointing (which ops' outputs to save) is _checkpoint_selective.py; the error
class, switches, device RNG helpers and GraphExecGroup are _checkpoint_state.py.
"""
from __future__ import annotations

import contextlib
import functools
import warnings

from ember._core import dispatch
from ember.autograd import grad_mode
from ember.autograd.engine import backward as _backward
from ember.autograd.engine import run_backward
from ember.autograd.function import Function
from ember.autograd.graph import AccumulateGrad, Node, edge_of
from ember.utils._checkpoint_selective import (
    SAC_IGNORED_OPS,
    CheckpointPolicy,
    SelectiveCheckpointContext,
    create_selective_checkpoint_contexts,
)
from ember.utils._checkpoint_state import (
    CheckpointError,
    DefaultDeviceType,
    GraphExecGroup,
    check_backward_validity,
    detach_variable,
    get_device_states,
    set_checkpoint_debug_enabled,
    set_checkpoint_early_stop,
    set_device_states,
    switches,
)

__all__ = ["SAC_IGNORED_OPS", "CheckpointError", "CheckpointFunction", "CheckpointPolicy",
           "DefaultDeviceType", "GraphExecGroup", "SelectiveCheckpointContext",
           "check_backward_validity", "checkpoint", "checkpoint_sequential",
           "create_selective_checkpoint_contexts", "detach_variable", "get_device_states",
           "noop_context_fn", "set_checkpoint_debug_enabled", "set_checkpoint_early_stop",
           "set_device_states"]

_DETERMINISM_CHECKS = ("default", "none")


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def _is_tensor(x):
    return isinstance(x, dispatch.Tensor)


@contextlib.contextmanager
def _rng_as_of(state):
    """Run with the global RNG at `state` (None: untouched), then put the current one back."""
    if state is None:
        yield
        return
    import ember
    current = ember.get_rng_state()
    ember.set_rng_state(state)
    try:
        yield
    finally:
        ember.set_rng_state(current)


def _saved_rng(preserve):
    if not preserve:
        return None
    import ember
    return ember.get_rng_state()


def _detached_copy(t):
    copy = t.detach()
    copy.requires_grad_(t.requires_grad)
    return copy


# --------------------------------------------------------------------------- reentrant

class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        if not any(a.requires_grad for a in args if _is_tensor(a)):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          stacklevel=2)
        ctx.run_function = run_function
        ctx.rng_state = _saved_rng(preserve_rng_state)
        ctx.inputs = [None if _is_tensor(a) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if _is_tensor(a)]
        ctx.save_for_backward(*(a for a in args if _is_tensor(a)))
        return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with _rng_as_of(ctx.rng_state):
            inputs = [_detached_copy(a) if _is_tensor(a) else a for a in inputs]
            with grad_mode.enable_grad():
                outputs = ctx.run_function(*inputs)
        if _is_tensor(outputs):
            outputs = (outputs,)
        roots, root_grads = [], []
        for out, g in zip(outputs, grad_outputs):
            if _is_tensor(out) and out.requires_grad:
                roots.append(out)
                root_grads.append(g)
        if not roots:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _backward(roots, root_grads)
        return (None, None) + tuple(a.grad if _is_tensor(a) else None for a in inputs)


# --------------------------------------------------------------------------- non-reentrant

class CheckpointArgumentStub(Node):
    """The grad_fn of an argument's copy in a rerun: the engine stops here while the rerun
    backpropagates (no edges yet), and passes gradients through once connected."""

    __slots__ = ()

    def apply(self, grad_outputs):
        return [grad_outputs[0]]


def _stub_copy(t):
    """A copy of `t` sharing its data, whose graph ends at a stub (NOTE [checkpoint stubs])."""
    copy = t.detach()
    copy._grad_fn = CheckpointArgumentStub()
    copy._requires_grad = True
    return copy


class CheckpointRecomputeBackward(Node):
    """Stands for a checkpointed region: its backward reruns the region and backpropagates
    through the rerun to the region's boundary edges (`next_functions`)."""

    __slots__ = ("__dict__",)

    def apply(self, grad_outputs):
        from ember.utils._pytree import _flatten
        reached = {k for k, g in enumerate(grad_outputs) if g is not None}
        if self._function is None or reached & self._released_outputs:
            from ember.autograd.graph import _FREED
            raise RuntimeError(_FREED)
        self._last_reached = reached
        # Outputs no gradient reached are left out of the rerun's backward (not fed zeros),
        # so their branches cost nothing.
        grads = list(grad_outputs) + [None] * (len(self._output_meta) - len(grad_outputs))
        flat, spec = _flatten((self._args, self._kwargs))
        group = switches.graph_exec_group
        kept = self.__dict__.get("_group_rerun")
        if group is not None and kept is not None and kept[0] is group:
            _, recomputed, copies = kept     # recomputed once in this group already
        else:
            copies, recomputed = self._rerun(flat, spec)
            if group is not None:
                self._group_rerun = (group, recomputed, copies)
                group.__dict__.setdefault("_reran", []).append(self)
        # Boundary edges of the arguments map to their detached copies' edges.
        edge_map = {}
        for t in flat:
            if _is_tensor(t) and t.requires_grad:
                edge_map.setdefault(edge_of(t), edge_of(copies[id(t)]))
        targets = [edge_map.get(e, e) for e in self.next_functions]
        roots, root_grads = [], []
        for out, g in zip(recomputed, grads):
            if g is not None and out.requires_grad:
                roots.append(out)
                root_grads.append(g)
        if not roots:
            return [None] * len(targets)
        # The engine runs a node with grad mode on exactly when the outer call has
        # create_graph; then the gradients we return reference the rerun's graph: keep it.
        create_graph = grad_mode.is_grad_enabled()
        for t in flat:       # a rerun kept for the group is cut off from the arguments again
            if _is_tensor(t) and t.requires_grad:
                copies[id(t)]._grad_fn.next_functions = ()
        captured = run_backward(roots, root_grads,
                                retain_graph=create_graph or group is not None,
                                create_graph=create_graph,
                                capture=dict.fromkeys(targets), accumulate=False)
        # NOTE [checkpoint stubs]: only now connect each copy to its argument, so that
        # gradients built with create_graph lead back to the arguments for double backward.
        for t in flat:
            if _is_tensor(t) and t.requires_grad:
                copies[id(t)]._grad_fn.next_functions = (edge_of(t),)
        return [captured.get(e) for e in targets]

    def _rerun(self, flat, spec):
        """(the arguments' copies by id, the rerun's outputs at the checkpointed positions)."""
        from ember.utils._pytree import _flatten, _unflatten
        copies = {}
        for t in flat:
            if _is_tensor(t) and id(t) not in copies:
                copies[id(t)] = _stub_copy(t) if t.requires_grad else t.detach()
        new_flat = [copies[id(t)] if _is_tensor(t) else t for t in flat]
        args, kwargs = _unflatten(new_flat, spec)
        with _rng_as_of(self._rng_state), self._recompute_context, grad_mode.enable_grad():
            outputs = self._function(*args, **kwargs)
        flat_out = _flatten(outputs)[0]
        recomputed = [flat_out[i] if i < len(flat_out) else None for i in self._positions]
        if self._check:
            _check_same_metadata(recomputed, self._output_meta, self._debug_log)
        return copies, recomputed

    def release(self) -> None:
        """NOTE [a region is freed output by output]: in PyTorch each output of a region has a
        graph of its own, so backward calls from different outputs each recompute it. Here
        the outputs share this node, so it stays usable until every output has been
        backpropagated once; backward again from an output already used is the usual error."""
        group = switches.graph_exec_group
        if group is not None:        # kept for the group's later backward calls
            group.__dict__.setdefault("_held", []).append(self)
            return
        self._released_outputs |= self.__dict__.pop("_last_reached", set())
        if len(self._released_outputs) < len(self._positions):
            return
        self._function = None
        self._args = None
        self._kwargs = None
        self.__dict__.pop("_group_rerun", None)


def _metadata(t):
    return {"shape": tuple(t.shape), "dtype": t.dtype, "device": t.device}


def _check_same_metadata(recomputed, expected, debug_log=None):
    mismatches = []
    for k, (out, (shape, dtype, device)) in enumerate(zip(recomputed, expected)):
        saved = {"shape": shape, "dtype": dtype, "device": device}
        found = _metadata(out) if _is_tensor(out) else None
        if found != saved:
            mismatches.append(f"tensor at position {k}:\nsaved metadata: {saved}\n"
                              f"recomputed metadata: {found}\n")
    if mismatches:
        trace = ""
        if debug_log is not None:
            forward_ops, recompute_ops = debug_log
            trace = ("\nOperators run during the original forward pass:\n" +
                     "\n".join(forward_ops) + "\n\nOperators run during the recomputation:\n" +
                     "\n".join(recompute_ops) + "\n")
        else:
            trace = ("\nTip: To see a more detailed error message, either pass `debug=True` to "
                     "`torch.utils.checkpoint.checkpoint(...)` or wrap the code block with "
                     "`with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to "
                     "enable checkpoint-debug mode globally.\n")
        raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following "
                              "tensors have different metadata than during the forward pass.\n"
                              + "".join(mismatches) + trace)


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check,
                                  debug, args, kwargs):
    from ember.utils._pytree import _flatten
    if switches.debug is not None:
        debug = switches.debug
    debug_log = None
    if debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        debug_log = ([], [])
        context_fn = functools.partial(_op_logging_contexts, debug_log)
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, "
                         f"but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    rng_state = _saved_rng(preserve_rng_state)
    # Nodes made from here on belong to the region; older ones are its boundary.
    first_inside = Node()._sequence_nr
    with forward_context:
        outputs = function(*args, **kwargs)
    if not grad_mode.is_grad_enabled():
        return outputs
    flat_out = _flatten(outputs)[0]
    positions = [i for i, o in enumerate(flat_out) if _is_tensor(o) and o.grad_fn is not None
                 and not isinstance(o.grad_fn, AccumulateGrad)
                 and o.grad_fn._sequence_nr > first_inside]
    if not positions:
        return outputs
    boundary = _boundary_edges([flat_out[i].grad_fn for i in positions], first_inside)
    arg_edges = {edge_of(t) for t in _flatten((args, kwargs))[0]
                 if _is_tensor(t) and t.requires_grad}
    for node, _ in boundary:
        if not isinstance(node, AccumulateGrad) and (node, _) not in arg_edges:
            raise NotImplementedError(
                "checkpoint(use_reentrant=False): the function reads a tensor that requires "
                "grad and is neither one of its arguments nor a leaf; pass it as an argument")
    node = CheckpointRecomputeBackward()
    node.next_functions = tuple(boundary)
    node._function = function
    node._args = args
    node._kwargs = kwargs
    node._rng_state = rng_state
    node._recompute_context = recompute_context
    node._check = determinism_check == "default"
    node._debug_log = debug_log
    node._positions = positions
    node._released_outputs = set()
    node._output_meta = [(tuple(flat_out[i].shape), flat_out[i].dtype, flat_out[i].device)
                         for i in positions]
    # Re-home the outputs on the recompute node: the region's own nodes become unreachable.
    for k, i in enumerate(positions):
        out = flat_out[i]
        out._grad_fn = node
        if k:
            out.__dict__["_output_nr"] = k
        else:
            out.__dict__.pop("_output_nr", None)
    return outputs


def _op_logging_contexts(debug_log):
    """checkpoint(debug=True): list the ops run in the forward pass and in the recompute."""
    from ember.utils._python_dispatch import TorchDispatchMode

    class _OpLog(TorchDispatchMode):
        def __init__(self, names):
            super().__init__()
            self.names = names

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.append(str(func))
            return func(*args, **(kwargs or {}))

    return _OpLog(debug_log[0]), _OpLog(debug_log[1])


def _boundary_edges(roots, first_inside):
    """Edges leaving the region (nodes newer than `first_inside`), in discovery order."""
    found = {}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for edge in node.next_functions:
            if edge is None:
                continue
            nxt = edge[0]
            if isinstance(nxt, AccumulateGrad) or nxt._sequence_nr <= first_inside:
                found.setdefault(edge, None)
            elif nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return list(found)


# --------------------------------------------------------------------------- public API

def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, preserve_rng_state=True,
               early_stop=True, **kwargs):
    """Run `function(*args, **kwargs)` without keeping its intermediates for backward; they are
    recomputed when needed (with the RNG state of the forward when preserve_rng_state)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, preserve_rng_state, context_fn,
                                         determinism_check, debug, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of callables in `segments` chunks, checkpointing all but the last."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children"):
        functions = list(functions.children())
    else:
        functions = list(functions)

    def run_range(start, end):
        def forward(value):
            for j in range(start, end + 1):
                value = functions[j](value)
            return value
        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_range(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_range(end + 1, len(functions) - 1)(input)
