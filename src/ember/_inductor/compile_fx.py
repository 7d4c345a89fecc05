"""`compile_fx(gm, example_inputs)`: an fx graph of ATen ops (as `make_fx` gives, decomposed
and functional) to a Python callable running generated C kernels and extern calls.

Steps: lowering.py (graph -> IR), scheduler.py (fusion), codegen_c.py (C), cpp_builder.py
(compile and cache), memory_planning.py (buffer reuse), wrapper.py (the callable).
NOTE [inductor without a C compiler]: when no C compiler is found (`$CC`, else `cc`), a warning
is given once per process and the graph runs eagerly through ember's NumPy kernels.
"""
from __future__ import annotations

import operator

from ember._core.checks import _warn_once
from ember._core.dispatch.inplace_out import InplaceOp, OpForm
from ember._core.registry import OpDef
from ember._decomp import core_aten_decompositions
from ember._tensor import Tensor
from ember._inductor import cpp_builder, metrics, sizes
from ember._inductor.codegen_c import module_source
from ember._inductor.lowering import GraphLowering
from ember._inductor.memory_planning import plan_memory
from ember._inductor.scheduler import KernelGroup, schedule
from ember.fx.experimental.proxy_tensor import make_fx


def compile_fx(gm, example_inputs, inputs_guarded=False, mode=None, dynamic_dims=None,
               **kwargs):
    """Compile `gm` for inputs like `example_inputs`; returns `f(*args)` giving what `gm`
    gives (NOTE [compiled graphs guard their inputs] in wrapper.py; `inputs_guarded`: the
    caller's own guards already pin the inputs' facts; `mode="reduce-overhead"`: NOTE
    [reduce-overhead] in wrapper.py; `mode="max-autotune"`: NOTE [max-autotune] in
    autotune.py; `dynamic_dims`: per input, the dims that may take other
    sizes, whose sizes the kernels take as arguments: NOTE [symbolic sizes in kernels] in
    sizes.py). A graph of anything
    but ATen ops (ember functions, methods, modules: what graph capture records) is first
    traced to ATen ops with make_fx and the core ATen decompositions."""
    eager = gm.forward
    if not _is_aten_graph(gm):
        gm = make_fx(gm, core_aten_decompositions())(*example_inputs)
    if cpp_builder.compiler() is None:
        _warn_once("inductor-no-compiler",
                   "ember inductor: no C compiler found ($CC or cc); compiled graphs run "
                   "eagerly through ember's NumPy kernels")
        return eager
    if any(isinstance(node.target, InplaceOp) for node in gm.graph.nodes):
        # A graph that writes in place (not functionalized) runs as it is.
        return eager
    try:
        return _compiled(gm, example_inputs, eager, inputs_guarded,
                         preallocate=mode == "reduce-overhead", dynamic_dims=dynamic_dims,
                         autotune=mode in ("max-autotune", "max-autotune-no-cudagraphs"))
    except Exception as error:  # noqa: BLE001 -- NOTE [a graph inductor cannot compile]
        metrics.compile_failures += 1
        _warn_once(f"inductor-failed-{type(error).__name__}-{error}",
                   f"ember inductor could not compile a graph ({type(error).__name__}: "
                   f"{error}); it runs eagerly through ember's kernels")
        return eager


# NOTE [a graph inductor cannot compile]: lowering, scheduling, code generation and the
# wrapper's planning run once per graph; an error there (an op or a layout the lowering does
# not handle yet) makes the graph run as the eager graph it came from, which gives eager's
# values, with a warning naming the error once per process and `metrics.compile_failures`
# counted. Errors while a compiled graph runs are not caught: its guards send every call it
# cannot serve to the eager graph before anything runs (NOTE [compiled graphs guard their
# inputs], wrapper.py).
def _compiled(gm, example_inputs, eager, inputs_guarded=False, preallocate=False,
              dynamic_dims=None, autotune=False):
    shapes, table = _symbolic_inputs(example_inputs, dynamic_dims)
    with sizes.symbols(table):
        graph = GraphLowering(gm, example_inputs, shapes).run()
        items = schedule(graph.steps)
    graph.size_values = {s.expr: int(s) for shape in shapes or () for s in shape or ()
                         if type(s) is sizes.SymSize}
    kernels = [item.kernel for item in items if isinstance(item, KernelGroup)]
    metrics.generated_kernel_count += len(kernels)
    metrics.extern_calls += graph.extern_count
    functions = {}
    choices = {}
    if autotune and kernels:      # NOTE [max-autotune] (autotune.py)
        from ember._inductor import autotune as tuner
        from ember._switches import get_num_threads
        choices = tuner.tune(kernels, graph, get_num_threads())
    source = module_source(kernels, cpp_builder.vector_math())
    if kernels:
        functions = cpp_builder.load(source, {k.name: (len(k.params), len(k.size_args))
                                              for k in kernels})
    outputs = _output_names(graph.outputs)
    from ember._inductor import wrapper
    call = wrapper.build(graph, items, plan_memory(items, outputs), functions,
                         _counted(eager), inputs_guarded, preallocate)
    call.kernel_source = source
    call.kernel_count = len(kernels)
    call.autotune_choices = choices
    return call


def _symbolic_inputs(example_inputs, dynamic_dims):
    """The inputs' shapes with SymSizes for their dynamic dims, and the lookup table
    (NOTE [symbolic sizes in kernels]); (None, {}) for a static graph."""
    if not dynamic_dims or not any(dynamic_dims) or len(dynamic_dims) != len(example_inputs):
        return None, {}
    pairs = [(tuple(t.shape), dims) if isinstance(t, Tensor) else ((), ())
             for t, dims in zip(example_inputs, dynamic_dims)]
    shapes, table = sizes.input_table(pairs)
    return [s if isinstance(t, Tensor) else None for s, t in zip(shapes, example_inputs)], table


def _is_aten_graph(gm) -> bool:
    for node in gm.graph.nodes:
        if node.op in ("call_method", "call_module"):
            return False
        if node.op == "call_function" and not (isinstance(node.target, (OpDef, OpForm)) or
                                               node.target is operator.getitem):
            return False
    return True


def _counted(eager):
    def fallback(*args):
        metrics.eager_fallbacks += 1
        return eager(*args)
    return fallback


def _output_names(value) -> set:
    if type(value) is list or type(value) is tuple:
        names = set()
        for v in value:
            names |= _output_names(v)
        return names
    name = getattr(value, "name", None)
    return {name} if name is not None else set()
