"""The backward engine: walk the graph from the outputs in dependency order, iteratively.

NOTE [dependency order]: a first pass counts, for every node reachable from the roots, how many
edges point at it. A node runs once every node that feeds it a gradient has run (its count drops
to zero), so gradients from all paths are summed before it sees them. No recursion anywhere: a
chain of 100,000 ops backpropagates in constant Python stack depth.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

from ember._core import dispatch
from ember._core.checks import _check, _check_type
from ember._core.device import CPU
from ember._core.dispatch.subclasses import PLAIN
from ember._core.lazy_method import LazyModule
from ember.autograd import anomaly_mode, grad_layout, grad_mode
from ember.autograd.graph import AccumulateGrad, edge_of

heapq = LazyModule("heapq", globals(), "heapq")     # (loaded by the first backward)

_np_empty = np.empty


def _make_grads(outputs, grad_outputs, create_graph):
    grads = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
            # (Tests written out, not through _check: this runs once per backward call.)
            if not out._requires_grad:
                raise RuntimeError("element 0 of tensors does not require grad and does not "
                                   "have a grad_fn")
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not out._dtype.is_floating_point:
                raise RuntimeError(f"grad can be implicitly created only for real scalar "
                                   f"outputs but got {out._dtype}")
            g = _implicit_grad(out)
        else:
            _check_type(isinstance(g, dispatch.Tensor), lambda: (
                f"grad_outputs must be Tensors or None, got {type(g).__name__}"))
            _check(tuple(g.shape) == tuple(out.shape), lambda: (
                f"Mismatch in shape: grad_output[0] has a shape of {tuple(g.shape)} and "
                f"output[0] has a shape of {tuple(out.shape)}."))
            if not create_graph and g._requires_grad:
                g = g.detach()      # (one without history is used as it is, as in PyTorch)
        grads.append(g)
    return grads


def _implicit_grad(out):
    """The ones a scalar output's backward starts from. NOTE [the implicit gradient]: it is
    `ones_like(out)`, which a mode or a subclass sees as that call; on the plain path (no mode,
    a plain-acting CPU tensor) the array is made and wrapped here, without the factory's
    dispatch (the engine asks once per backward call)."""
    if not dispatch.state.slow and out._device is CPU and \
            (type(out) is dispatch.Tensor or type(out) in PLAIN):
        data = out._data
        ones = _np_empty(data.shape, data.dtype)
        ones.fill(1)
        return dispatch.wrap(ones, out._dtype, CPU)
    from ember._ops.creation import ones_like
    return ones_like(out)


def _collect_dependencies(roots):
    counts = {}
    # Several outputs of one node may be roots: walk each node once.
    stack = [roots[0][0]] if len(roots) == 1 else list(dict.fromkeys(node for node, _ in roots))
    seen = set(stack)
    while stack:
        for edge in stack.pop().next_functions:
            if edge is None:
                continue
            nxt = edge[0]
            counts[nxt] = counts.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return counts


def _needed_nodes(roots, capture):
    """NOTE [only what the inputs need]: autograd.grad runs only the nodes on some path from
    the outputs to an input's edge, as PyTorch does: the rest of the graph keeps its saved
    tensors (a later backward through it still works), runs no hooks and costs nothing.
    (PyTorch's backward(inputs=...) runs the whole graph, and so does ember's.)"""
    parents = {}
    stack = list(dict.fromkeys(node for node, _ in roots))
    seen = set(stack)
    while stack:
        node = stack.pop()
        for edge in node.next_functions:
            if edge is None:
                continue
            parents.setdefault(edge[0], []).append(node)
            if edge[0] not in seen:
                seen.add(edge[0])
                stack.append(edge[0])
    needed = set()
    stack = [node for node, _ in capture]
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed


def _add(a, b):
    if a is None:
        return b
    return a + b


# NOTE [final callbacks]: `queue_callback(fn)`, called while a backward pass runs (from a hook
# or a Function's backward), runs fn with no arguments once that pass has run all its nodes, in
# the order queued; callbacks a callback queues run too. DDP waits for its gradient reductions
# there. One list per pass in flight in this thread (a pass may start another, e.g.
# autograd.grad in a hook; passes in other threads keep their own).
_final_callbacks = threading.local()


def _callback_stack() -> list:
    stack = _final_callbacks.__dict__.get("stack")
    if stack is None:
        stack = _final_callbacks.stack = []
    return stack


def queue_callback(callback) -> None:
    """Run `callback()` at the end of the backward pass now running."""
    stack = _callback_stack()
    _check(bool(stack), "Final callbacks can only be installed during backward pass.")
    stack[-1].append(callback)


def _run_final_callbacks(queued: list) -> None:
    i = 0
    while i < len(queued):
        queued[i]()
        i += 1


def run_backward(outputs, grad_outputs, *, retain_graph, create_graph, capture=None,
                 accumulate=True, allow_unreachable=True, prune=False):
    """Propagate `grad_outputs` from `outputs`. With `capture` ({edge: slot}), gradients that
    reach those edges are returned instead of (or besides) being accumulated into `.grad`."""
    Tensor = dispatch.Tensor
    for out in outputs:
        if not isinstance(out, Tensor):
            raise TypeError("outputs must be Tensors")
        if not out._requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have "
                               "a grad_fn")
    grads = _make_grads(outputs, grad_outputs, create_graph)
    user_ids = {id(g) for g, given in zip(grads, grad_outputs) if given is not None} \
        if grad_outputs.count(None) != len(grad_outputs) else ()
    roots = [edge_of(out) for out in outputs]
    counts = _collect_dependencies(roots)
    buffers = {}
    for (node, nr), g in zip(roots, grads):
        slot = buffers.setdefault(node, {})
        slot[nr] = _add(slot.get(nr), g)
    captured = {}
    needed = _needed_nodes(roots, capture) if prune and capture else None
    # NOTE [ready order]: of the nodes whose gradients are complete, the one with the highest
    # sequence number runs first, as in PyTorch's ready queue: an AccumulateGrad (numbered
    # last, graph.ACCUMULATE_SEQUENCE), then the node made last in the forward. A mode logging
    # the backward sees PyTorch's order of ATen ops. (Heap keys: -number, then push order.)
    ready, pushes = [], 0
    for node in ((roots[0][0],) if len(roots) == 1 else
                 dict.fromkeys(node for node, _ in roots)):
        if counts.get(node, 0) == 0:
            heapq.heappush(ready, (-node._sequence_nr, pushes, node))
            pushes += 1
    prev_mode = grad_mode._state.grad_enabled
    grad_mode._state.grad_enabled = bool(create_graph)
    dispatch.modes.function_off += 1     # the formulas' ops are not the user's calls
    queued = []
    callbacks = _callback_stack()
    callbacks.append(queued)            # NOTE [final callbacks]
    try:
        while ready:
            node = heapq.heappop(ready)[2]
            slot = buffers.pop(node, {})
            if capture:
                for nr, g in slot.items():
                    key = (node, nr)
                    if key in capture:
                        captured[key] = _add(captured.get(key), g)
            if needed is not None and node not in needed:
                continue                # NOTE [only what the inputs need]
            if isinstance(node, AccumulateGrad):
                if accumulate and 0 in slot:
                    # The slot's reference goes with the call: see NOTE [stealing gradients].
                    fresh = id(slot[0]) not in user_ids
                    _accumulate(node.variable, slot.pop(0), create_graph, fresh)
                continue
            grad_in = _run_node(node, slot, retain_graph)
            for edge, g in zip(node.next_functions, grad_in):
                if edge is None:
                    continue
                nxt, nr = edge
                if g is not None:
                    nslot = buffers.get(nxt)
                    if nslot is None:
                        buffers[nxt] = {nr: g}
                    else:
                        before = nslot.get(nr)
                        nslot[nr] = g if before is None else before + g
                counts[nxt] -= 1
                if counts[nxt] == 0:
                    heapq.heappush(ready, (-nxt._sequence_nr, pushes, nxt))
                    pushes += 1
            grad_in = g = None      # hold no gradient past its node (NOTE [stealing gradients])
        if queued:
            _run_final_callbacks(queued)
    finally:
        callbacks.pop()
        grad_mode._state.grad_enabled = prev_mode
        dispatch.modes.function_off -= 1
    return captured


def _run_node(node, slot, retain_graph):
    n_out = max(slot) + 1 if slot else 1
    outputs = getattr(node, "_output_meta", None)
    if outputs and len(outputs) > n_out:
        n_out = len(outputs)
    grads = [slot.get(0)] if n_out == 1 else [slot.get(k) for k in range(n_out)]
    if node._tensor_pre_hooks:
        for nr, hooks in node._tensor_pre_hooks.items():
            if nr < len(grads) and grads[nr] is not None:
                for hook in list(hooks.values()):
                    new = hook(grads[nr])
                    if new is not None:
                        grads[nr] = new
    if node._retain_grad_hooks:
        for nr, hook in node._retain_grad_hooks.items():
            if nr < len(grads) and grads[nr] is not None:
                hook(grads[nr])
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            new = hook(tuple(grads))
            if new is not None:
                grads = list(new)
    grad_in = node.apply(grads) if not anomaly_mode.state.enabled else _apply_checked(node, grads)
    if node._hooks:
        for hook in list(node._hooks.values()):
            new = hook(tuple(grad_in), tuple(grads))
            if new is not None:
                grad_in = list(new)
    if not retain_graph:
        node.release()
    return grad_in


def _apply_checked(node, grads):
    """node.apply under anomaly mode: errors point at the forward call, NaN gradients raise."""
    try:
        grad_in = node.apply(grads)
        if anomaly_mode.state.check_nan:
            anomaly_mode.check_nan(node, grad_in)
    except Exception:
        anomaly_mode.warn_forward_stack(node)
        raise
    return grad_in


def _accumulate(variable, grad, create_graph, fresh=True):
    """Add `grad` into `variable.grad` (a leaf), running its hooks first: NOTE [the gradient
    layout contract] (grad_layout.py).

    A gradient the user passed in may still be held by the user: it is copied, never stored
    by reference (`fresh` is False for those)."""
    grad = in_grad_dtype(variable, grad)
    hooks = variable.__dict__.get("_hooks")
    if hooks:
        for hook in list(hooks.values()):
            new = hook(grad)
            if new is not None:
                grad = new
        new = None
    current = variable._grad
    if current is None:
        refs = sys.getrefcount(grad)    # measured alone: NOTE [stealing gradients]
        if grad._dtype is not variable._dtype:     # a grad_dtype of its own: NOTE [grad_dtype]
            variable._grad = grad if fresh and not create_graph else grad.clone()
        elif create_graph:
            variable._grad = grad_layout.copy_obeying_layout(grad, variable, create_graph)
        elif dispatch.modes.dispatch_modes and fresh and grad_layout.can_alias(grad, variable,
                                                                              refs):
            # A mode sees the detach PyTorch's AccumulateGrad makes of a gradient it keeps.
            variable._grad = dispatch.detach_for_modes(grad)
        elif fresh and grad_layout.can_steal(grad, variable, refs):
            variable._grad = grad
        else:
            variable._grad = grad_layout.copy_obeying_layout(grad, variable, False)
    elif create_graph:
        variable._grad = current + grad
    else:
        grad_layout.add_in_place(current, grad)
    post = variable.__dict__.get("_post_accumulate_hooks")
    if post:
        for hook in list(post.values()):
            hook(variable)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute and accumulate gradients of `tensors` into the leaves' `.grad`."""
    Tensor = dispatch.Tensor
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
        if grad_tensors is None:
            grad_tensors = (None,)
    tensors = tuple(tensors)
    if grad_tensors is None or isinstance(grad_tensors, Tensor):
        grad_tensors = (grad_tensors,) * len(tensors) if grad_tensors is None else (grad_tensors,)
    grad_tensors = tuple(grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
        _check(len(inputs) > 0, "'inputs' argument to backward() cannot be empty.")
        targets = {edge_of(t): t for t in inputs}
        captured = run_backward(tensors, grad_tensors, retain_graph=retain_graph,
                                create_graph=create_graph, capture=targets, accumulate=False)
        for edge, t in targets.items():
            g = captured.get(edge)
            if g is not None:
                if t._grad_fn is None:
                    _accumulate(t, g, create_graph, fresh=False)
                else:
                    _set_nonleaf_grad(t, g)
        return
    run_backward(tensors, grad_tensors, retain_graph=retain_graph, create_graph=create_graph)


def in_grad_dtype(leaf, grad):
    """`grad` cast to the dtype a leaf's `grad_dtype` asks for, when one was set (None, or
    nothing set, keeps the gradient's own dtype: the leaf's by construction)."""
    wanted = leaf.__dict__.get("_grad_dtype")
    if wanted is None or grad._dtype is wanted:
        return grad
    return grad.to(wanted)


def _set_nonleaf_grad(t, g):
    t._grad = g if t._grad is None else t._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, returned (not accumulated)."""
    Tensor = dispatch.Tensor
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    single_input = isinstance(inputs, Tensor)
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    inputs = (inputs,) if single_input else tuple(inputs)
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = (grad_outputs,)
    grad_outputs = tuple(grad_outputs)
    _check(len(grad_outputs) == len(outputs), lambda: (
        f"grad requires one grad_output per output: got {len(grad_outputs)} grad_outputs and "
        f"{len(outputs)} outputs"))
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs:
        _check(t._requires_grad, "One of the differentiated Tensors does not require grad")
    targets = {}
    for t in inputs:
        targets.setdefault(edge_of(t), t)
    captured = run_backward(outputs, grad_outputs, retain_graph=retain_graph,
                            create_graph=create_graph, capture=targets, accumulate=False,
                            prune=True)
    result = []
    for position, t in enumerate(inputs):
        g = captured.get(edge_of(t))
        if g is None:
            _check(allow_unused, lambda position=position: (
                f"The differentiated Tensor at index {position} appears to not have been used "
                "in the graph. Set allow_unused=True if this is the desired behavior."))
            if materialize_grads:
                from ember._ops.creation import zeros_like
                g = zeros_like(t)
        else:
            if t._grad_fn is None:
                g = in_grad_dtype(t, g)
            if not create_graph:
                g = g.detach()
        result.append(g)
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """is_grads_batched=True: each grad_output has a leading batch dim; one backward per
    entry, the results stacked (PyTorch vmaps the backward; the numbers are the same)."""
    Tensor = dispatch.Tensor
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    grad_outputs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    _check(all(isinstance(g, Tensor) for g in grad_outputs),
           "grad_outputs must be given (batched tensors) when is_grads_batched=True")
    batch = grad_outputs[0].shape[0]
    for g, out in zip(grad_outputs, outputs):
        _check(g.ndim >= 1 and g.shape[0] == batch and tuple(g.shape[1:]) == tuple(out.shape),
               lambda: f"If `is_grads_batched=True`, we interpret the first dimension of each "
                       f"grad_output as the batch dimension. The sizes of the remaining "
                       f"dimensions are expected to match the shape of corresponding output, "
                       f"but a mismatch was detected: grad_output has a shape of "
                       f"{tuple(g.shape)} and output has a shape of {tuple(out.shape)}.")
    per_sample = []
    for b in range(batch):
        keep = True if b < batch - 1 else retain_graph
        per_sample.append(grad(outputs, inputs, [g[b] for g in grad_outputs], retain_graph=keep,
                               create_graph=create_graph, allow_unused=allow_unused,
                               materialize_grads=materialize_grads))
    from ember._core.registry import OPS
    results = []
    for k in range(len(per_sample[0])):
        column = [sample[k] for sample in per_sample]
        results.append(None if any(c is None for c in column) else
                       dispatch.call(OPS["stack"], (column, 0)))
    return tuple(results)
