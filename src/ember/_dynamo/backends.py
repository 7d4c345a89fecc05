"""Backends: what turns a captured GraphModule into the function the replay calls. A backend
is `fn(gm, example_inputs) -> callable`, registered by name (PyTorch's registry API)."""
from __future__ import annotations

import functools
import importlib.util

from ember._dynamo import _logging
from ember._dynamo.exc import InvalidBackend

_REGISTRY = {}
_TAGS = {}
_said = set()


def register_backend(compiler_fn=None, name=None, tags=()):
    """Register `compiler_fn` under `name` (its `__name__` by default); without
    `compiler_fn`, a decorator."""
    if compiler_fn is None:
        return lambda fn: register_backend(fn, name=name, tags=tags)
    key = name or compiler_fn.__name__
    if key in _REGISTRY:
        raise AssertionError(f"duplicate name: {key}")
    _REGISTRY[key] = compiler_fn
    _TAGS[key] = tuple(tags)
    return compiler_fn


def lookup_backend(compiler_fn):
    """The backend function for a name (or the callable itself)."""
    if isinstance(compiler_fn, str):
        if compiler_fn not in _REGISTRY:
            raise InvalidBackend(compiler_fn)
        return _REGISTRY[compiler_fn]
    return compiler_fn


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """The registered names, without those carrying an excluded tag."""
    excluded = set(exclude_tags or ())
    return sorted(n for n, tags in _TAGS.items() if not excluded & set(tags))


@register_backend(tags=("debug",))
def eager(gm, example_inputs):
    """Run the captured graph as it is: each node calls its ember function."""
    return gm.forward


def _not_built(name, reason):
    def backend(gm, example_inputs):
        if name not in _said:
            _said.add(name)
            _logging.log.warning("backend %r: %s; the captured graph runs as backend='eager' "
                                 "runs it", name, reason)
        return gm.forward
    backend.__name__ = name
    return backend


def _requires_grad(example_inputs) -> bool:
    return any(getattr(t, "requires_grad", False) for t in example_inputs)


@register_backend
def inductor(gm, example_inputs, mode=None):
    """The code-generating compiler (`ember._inductor.compile_fx`) where it exists; a graph
    whose inputs require grad goes through AOT autograd first, its forward and backward
    graphs compiled (NOTE [the joint graph] in `ember._functorch.aot_autograd`). `mode`:
    compile's (`"reduce-overhead"`: NOTE [reduce-overhead] in `ember._inductor.wrapper`)."""
    if importlib.util.find_spec("ember._inductor") is None or \
            not hasattr(importlib.import_module("ember._inductor"), "compile_fx"):
        return _not_built("inductor", "ember._inductor is not built yet")(gm, example_inputs)
    compile_fx = importlib.import_module("ember._inductor").compile_fx
    if mode is not None:
        compile_fx = functools.partial(compile_fx, mode=mode)
    if _requires_grad(example_inputs) and gm.meta.get("grad_enabled", True):
        from ember._decomp import core_aten_decompositions
        from ember._functorch.aot_autograd import aot_module_simplified
        from ember._functorch.partitioners import min_cut_rematerialization_partition
        return aot_module_simplified(
            gm, example_inputs, fw_compiler=compile_fx,
            partition_fn=min_cut_rematerialization_partition,
            decompositions=core_aten_decompositions(),
            inputs_guarded=not any(gm.meta.get("dynamic_dims", ())))
    if _requires_grad(example_inputs):
        # NOTE [inference graphs skip AOT autograd]: a graph captured with grad mode off (its
        # GRAD_MODE guard pins that for every call) records no autograd history whatever its
        # inputs require, so a module's parameters need not send it through AOT autograd's
        # per-call cache key and input checks: it is compiled as a plain forward graph, on
        # detached examples, its inputs pinned by capture's guards.
        example_inputs = [t.detach() if getattr(t, "requires_grad", False) else t
                          for t in example_inputs]
    if any(gm.meta.get("dynamic_dims", ())):
        return _per_sizes(compile_fx, gm, example_inputs)
    # every input is pinned by TENSOR_MATCH (exact facts) and grad mode by GRAD_MODE
    return compile_fx(gm, example_inputs, inputs_guarded=True)


def _per_sizes(compile_fx, gm, example_inputs, limit=64):
    """A graph with dynamic dims (NOTE [dynamic dimensions] in dynamic.py): one variant per
    set of input sizes, lowered for those sizes (the capture itself is not repeated), whose
    C kernels take the dynamic sizes as arguments, so a new size reuses the compiled kernels
    (NOTE [symbolic sizes in kernels] in ember/_inductor/sizes.py); past `limit` variants,
    other sizes run the graph."""
    dims = gm.meta["dynamic_dims"]
    compile_fx = functools.partial(compile_fx, dynamic_dims=dims)
    variants = {_sizes(example_inputs): compile_fx(gm, example_inputs)}

    def call(*args):
        key = _sizes(args)
        fn = variants.get(key)
        if fn is None:
            if len(variants) >= limit:
                return gm.forward(*args)
            fn = variants[key] = compile_fx(gm, list(args))
        return fn(*args)
    return call


def _sizes(args):
    return tuple(tuple(a.shape) if hasattr(a, "shape") else None for a in args)


def _run_graph(gm, example_inputs):
    return gm.forward


@register_backend(tags=("debug",))
def aot_eager(gm, example_inputs):
    """AOT autograd with no compiler: the forward and backward graphs run as traced."""
    from ember._functorch.aot_autograd import aot_module_simplified
    return aot_module_simplified(gm, example_inputs, fw_compiler=_run_graph)


@register_backend(tags=("debug",))
def aot_eager_decomp_partition(gm, example_inputs):
    """As aot_eager, with the core ATen decompositions and the recomputing partitioner."""
    from ember._decomp import core_aten_decompositions
    from ember._functorch.aot_autograd import aot_module_simplified
    from ember._functorch.partitioners import min_cut_rematerialization_partition
    return aot_module_simplified(gm, example_inputs, fw_compiler=_run_graph,
                                 partition_fn=min_cut_rematerialization_partition,
                                 decompositions=core_aten_decompositions())


for _name in ("cudagraphs", "openxla", "tvm"):
    register_backend(_not_built(_name, "not built in ember"), name=_name)
