"""AOT autograd: a function's forward and backward traced ahead of time into two fx graphs of
ATen ops, each handed to a compiler, run as one autograd node.

NOTE [the joint graph]: on its first call with inputs of a new kind (shapes, dtypes, strides,
which require grad, grad mode), `aot_function(fn, fw_compiler, bw_compiler)` runs
`joint(*primals, *tangents) -> (*outputs, *grads)` under make_fx (NOTE [make_fx records
below autograd]): `fn` runs with grad enabled on fresh leaf copies of the inputs, then
`autograd.grad` runs the registry's derivative formulas for the outputs that require grad,
with the tangents as their gradients, and every op of both is recorded. The partitioner
(partitioners.py, NOTE [what the forward saves]) splits the graph; each half is compiled;
`CompiledFunction`, an `autograd.Function`, runs the compiled forward (its outputs get the
node as grad_fn, the saved values are kept with version checks) and, at `backward()`, the
compiled backward. With grad disabled, or no input requiring grad, a forward-only graph (the
function traced alone) runs instead.

NOTE [what AOT autograd does not compile]: the call runs eagerly, with the reason kept in
`fallback_reasons` and logged once, when the traced function writes in place into a tensor
that requires grad (ember's autograd writes those below the dispatcher: NOTE [writes the
recorder cannot see]), returns a view of (or the same tensor as) an input, or reads a tensor
that requires grad from outside its inputs (its gradient would be lost). Writes into inputs
that do not require grad (BatchNorm's running statistics, a counter buffer) are kept in the
forward graph as recorded ops, so each call makes them on the caller's tensors, as eager does;
a compiler that cannot compile a graph with writes (inductor) runs that graph eagerly.
"""
from __future__ import annotations

import logging

from ember._core.dispatch import storage_of
from ember._functorch.partitioners import default_partition
from ember._tensor import Tensor
from ember.autograd import Function, grad_mode
from ember.autograd import grad as autograd_grad
from ember.fx.experimental.proxy_tensor import UntracedWrite, make_fx

__all__ = ["aot_function", "aot_module", "aot_module_simplified", "fallback_reasons"]

log = logging.getLogger("ember._functorch.aot_autograd")
fallback_reasons = []        # (function name, reason), newest last
_said = set()


class AOTUnsupported(Exception):
    """What AOT autograd does not compile (NOTE [what AOT autograd does not compile])."""


def aot_function(fn, fw_compiler, bw_compiler=None, partition_fn=default_partition,
                 decompositions=None, num_params_buffers=0, keep_inference_input_mutations=False,
                 inference_compiler=None, inputs_guarded=False):
    """`fn` with its forward and backward compiled ahead of time (NOTE [the joint graph]).
    Compilers are `compiler(gm, example_inputs) -> callable`; `bw_compiler` and
    `inference_compiler` default to `fw_compiler`. `inputs_guarded`: the caller's guards pin
    every input fact the cache key holds (graph capture's TENSOR_MATCH with static sizes), so
    the key is the grad mode alone (NOTE [the joint graph])."""
    bw_compiler = bw_compiler or fw_compiler
    inference_compiler = inference_compiler or fw_compiler
    table = dict(decompositions or {})
    cache = {}

    def compiled(*args):
        training = grad_mode.is_grad_enabled() and any(
            isinstance(a, Tensor) and a.requires_grad for a in args)
        key = training if inputs_guarded else (training, *(_signature(a) for a in args))
        entry = cache.get(key)
        if entry is None:
            entry = cache[key] = _build(fn, args, training, table, fw_compiler, bw_compiler,
                                        inference_compiler, partition_fn)
            compiled.entries.append(entry)
        return entry(args)

    compiled.entries = []
    compiled.__name__ = getattr(fn, "__name__", "aot")
    return compiled


def aot_module(mod, fw_compiler, bw_compiler=None, partition_fn=default_partition,
               decompositions=None, **kwargs):
    """A callable running `mod` through `aot_function`, its parameters and buffers passed
    to the graphs as inputs (so their gradients reach `.grad`)."""
    from ember.func import functional_call
    names = [n for n, _ in mod.named_parameters()] + [n for n, _ in mod.named_buffers()]

    def flat_fn(*flat):
        state = dict(zip(names, flat[:len(names)]))
        return functional_call(mod, state, flat[len(names):])

    compiled = aot_function(flat_fn, fw_compiler, bw_compiler, partition_fn, decompositions,
                            num_params_buffers=len(names), **kwargs)

    def forward(*args):
        values = [p for _, p in mod.named_parameters()] + [b for _, b in mod.named_buffers()]
        return compiled(*values, *args)

    forward.entries = compiled.entries
    return forward


def aot_module_simplified(mod, args, fw_compiler, bw_compiler=None,
                          partition_fn=default_partition, decompositions=None,
                          keep_inference_input_mutations=False, inference_compiler=None,
                          inputs_guarded=False):
    """For graph capture: `mod` (a GraphModule whose inputs already include the parameters,
    as `ember.compile` lifts them) compiled for inputs like `args`."""
    return aot_function(mod.forward if hasattr(mod, "forward") else mod, fw_compiler,
                        bw_compiler, partition_fn, decompositions,
                        inference_compiler=inference_compiler, inputs_guarded=inputs_guarded)


def _signature(a):
    if isinstance(a, Tensor):
        return (type(a), a._dtype, a._device, tuple(a.shape), tuple(a.stride()),
                a.requires_grad)
    return (type(a), a) if a is None or type(a) in (int, float, bool, str) else (type(a), id(a))


def _build(fn, args, training, table, fw_compiler, bw_compiler, inference_compiler,
           partition_fn):
    name = getattr(fn, "__name__", type(fn).__name__)
    try:
        if training:
            return _build_training(fn, args, table, fw_compiler, bw_compiler, partition_fn)
        return _build_inference(fn, args, table, inference_compiler)
    except (AOTUnsupported, UntracedWrite) as e:
        reason = str(e)
    fallback_reasons.append((name, reason))
    if (name, reason) not in _said:
        _said.add((name, reason))
        log.warning("aot_autograd: %s runs eagerly: %s", name, reason)
    return _Eager(fn, reason)


class _Eager:
    def __init__(self, fn, reason):
        self.fn = fn
        self.reason = reason

    def __call__(self, args):
        return self.fn(*args)


def _copies(args, requires_grad):
    """Inputs for a trace: fresh tensors (a trace that writes them leaves the caller's alone)."""
    out = []
    for a in args:
        if isinstance(a, Tensor):
            c = a.detach().clone()
            out.append(c.requires_grad_() if requires_grad and a.requires_grad else c)
        else:
            out.append(a)
    return out


def _check_outputs(outs, inputs):
    storages = {id(storage_of(a)) for a in inputs if isinstance(a, Tensor)}
    for i, o in enumerate(outs):
        if isinstance(o, Tensor) and id(storage_of(o)) in storages:
            raise AOTUnsupported(f"output {i} is an input or a view of one (aliasing outputs "
                                 "are not compiled)")


def _flat_outputs(out):
    if isinstance(out, (tuple, list)):
        return type(out), list(out)
    return None, [out]


def _check_constants(gm):
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            value = getattr(gm, node.target)
            if isinstance(value, Tensor) and value.requires_grad:
                raise AOTUnsupported(f"a tensor that requires grad ({node.target}) is read "
                                     "from outside the inputs; its gradient would be lost "
                                     "(pass it as an input)")


def _build_inference(fn, args, table, compiler):
    ins = _copies(args, False)
    with grad_mode.no_grad():
        kind, outs = _flat_outputs(fn(*ins))
    _check_outputs(outs, ins)

    def flat(*a):
        return tuple(_flat_outputs(fn(*a))[1])

    with grad_mode.no_grad():
        gm = make_fx(flat, table)(*_copies(args, False))
    call = compiler(gm, [a.detach() if isinstance(a, Tensor) else a for a in args])

    def run(call_args):
        with grad_mode.no_grad():
            result = list(call(*call_args))
        return kind(result) if kind is not None else result[0]
    run.forward_graph = gm
    run.backward_graph = None
    return run


def _build_training(fn, args, table, fw_compiler, bw_compiler, partition_fn):
    ins = _copies(args, True)
    with grad_mode.enable_grad():
        kind, outs = _flat_outputs(fn(*ins))
    _check_outputs(outs, ins)
    n_in = len(args)
    needs = [isinstance(a, Tensor) and a.requires_grad for a in args]
    diff = [isinstance(o, Tensor) and o.requires_grad for o in outs]
    tangents = [o.detach().new_ones(o.shape) for o, d in zip(outs, diff) if d]
    n_out = len(outs)

    def joint(*flat):
        primals, cotangents = flat[:n_in], flat[n_in:]
        with grad_mode.enable_grad():
            result = _flat_outputs(fn(*primals))[1]
        wanted = [p for p, need in zip(primals, needs) if need]
        roots = [o for o, d in zip(result, diff) if d]
        grads = autograd_grad(roots, wanted, list(cotangents), allow_unused=True) \
            if roots else [None] * len(wanted)
        return (*result, *grads)

    joint_gm = make_fx(joint, table)(*_copies(args, True), *tangents)
    _name_inputs(joint_gm, n_in)
    _check_constants(joint_gm)
    fw_gm, bw_gm = partition_fn(joint_gm, None, num_fwd_outputs=n_out)
    sources = _saved_inputs(fw_gm, n_out)
    fw_examples = [a.detach() if isinstance(a, Tensor) else a for a in args]
    # the saved values, after the user's outputs, may leave as views (NOTE [saved values
    # leave as views] in _inductor/lowering.py)
    fw_gm.meta["saved_outputs_from"] = n_out
    fw_call = fw_compiler(fw_gm, fw_examples)
    # NOTE [the backward's examples come from the compiled forward]: the saved values the
    # backward receives at each call are what the compiled forward returns, whose layout may
    # differ from the eager graph's (inductor returns dense buffers where eager returns a
    # transposed view), and a compiler specializes on its examples' strides (NOTE [compiled
    # graphs guard their inputs] in _inductor/wrapper.py). So the examples are made by the
    # compiled forward itself, on copies of the inputs (its writes land on those).
    with grad_mode.no_grad():
        ins = _copies(args, False)
        fw_values = list(fw_call(*ins))
    computed = iter(fw_values[n_out:])
    bw_examples = [ins[s] if s is not None else next(computed) for s in sources] + tangents
    bw_call = bw_compiler(bw_gm, bw_examples)
    function = _function_class(fw_call, bw_call, n_out, sources, diff, needs)

    def run(call_args):
        result = list(function.apply(*call_args))
        return kind(result) if kind is not None else result[0]
    run.forward_graph = fw_gm
    run.backward_graph = bw_gm
    run.joint_graph = joint_gm
    return run


def _name_inputs(gm, n_in):
    """PyTorch's placeholder names in joint graphs: `primals_<i>`, `tangents_<i>` (the
    partitioner tells the two apart by them)."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for i, node in enumerate(placeholders):
        node.name = f"primals_{i + 1}" if i < n_in else f"tangents_{i - n_in + 1}"
        node.target = node.name
    gm.recompile()


def _saved_inputs(fw_gm, n_out) -> list:
    """Saved values that are the forward's own inputs leave its outputs: the runtime keeps
    the caller's tensors (a compiler would copy an input it returns). One entry per saved
    value: the input's index, or None for a value the forward computes."""
    output = list(fw_gm.graph.nodes)[-1]
    values = list(output.args[0])
    placeholders = [n for n in fw_gm.graph.nodes if n.op == "placeholder"]
    sources = [placeholders.index(v) if getattr(v, "op", None) == "placeholder" else None
               for v in values[n_out:]]
    kept = values[:n_out] + [v for v, s in zip(values[n_out:], sources) if s is None]
    output.args = (tuple(kept),)
    fw_gm.recompile()
    return sources


def _function_class(fw_call, bw_call, n_out, sources, diff, needs):
    """One autograd.Function subclass per compiled graph pair."""

    def forward(ctx, *args):
        values = list(fw_call(*args))
        outs = values[:n_out]
        computed = iter(values[n_out:])
        ctx.save_for_backward(*[args[s] if s is not None else next(computed)
                                for s in sources])
        ctx.mark_non_differentiable(*[o for o, d in zip(outs, diff)
                                      if not d and isinstance(o, Tensor)])
        return tuple(outs)

    def backward(ctx, *grad_outputs):
        tangents = [g for g, d in zip(grad_outputs, diff) if d]
        grads = iter(bw_call(*ctx.saved_tensors, *tangents))
        return tuple(next(grads) if need else None for need in needs)

    return type("CompiledFunction", (Function,), {"forward": staticmethod(forward),
                                                  "backward": staticmethod(backward)})
