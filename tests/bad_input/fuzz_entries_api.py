"""Hypothesis strategies for the bad-input fuzzer's remaining public callables: the
`torch.linalg`, `torch.fft` and `torch.special` namespaces (family "namespace"), and the
`ember.*` functions and Tensor methods that the registry family does not draw because they
are aliases, hand-written frontends or Python wrappers (family "api").

An argument's kind comes from PyTorch's own description of the callable: its ATen schema
(`torch._C._jit_get_schemas_for_operator`, parsed with ember's schema parser) for a built-in,
its Python signature otherwise; callables with neither are left out. Values are
fuzz_values.py descriptions, drawn right or wrong as fuzz_strategies.py draws a registry op's.
"""
from __future__ import annotations

import functools
import inspect

from fuzz_entries_nn import arguments_of
from fuzz_strategies import good_tensor, good_value, op_pool, wrong_value
from hypothesis import strategies as st

# Left out, with the reason: process-wide state, memory contents, the compiler and function
# transforms, I/O (the load family draws `load`), hooks, devices ember does not have, and
# callables that take no tensor at all.
_EXCLUDED = {
    "set_default_dtype", "set_default_device", "set_default_tensor_type", "manual_seed",
    "seed", "set_rng_state", "get_rng_state", "initial_seed", "use_deterministic_algorithms",
    "set_deterministic_debug_mode", "set_float32_matmul_precision", "set_flush_denormal",
    "set_num_threads", "set_num_interop_threads", "set_printoptions", "set_warn_always",
    "set_anomaly_enabled", "compile", "vmap", "load", "save", "from_file", "from_dlpack",
    "empty", "empty_like", "empty_strided", "empty_permuted", "new_empty",
    "new_empty_strided", "resize", "resize_", "resize_as", "resize_as_", "set_",
    "thread_safe_generator", "lobpcg", "backward", "register_hook",
    "register_post_accumulate_grad_hook", "retain_grad", "share_memory_", "pin_memory",
    "is_pinned", "cuda", "ipu", "xpu", "mtia", "record_stream", "storage", "untyped_storage",
    "storage_type", "data_ptr", "const_data_ptr", "module_load", "apply_", "map_", "map2_",
    "as_subclass", "is_shared", "is_set_to", "typename", "get_device_module",
    "sym_float", "sym_int", "sym_ite", "sym_max", "sym_min", "sym_not", "sym_sum",
    "frombuffer", "asarray", "tensor", "as_tensor", "from_numpy", "dsmm", "hsmm", "saddmm",
    "smm", "spmm", "hspmm", "sspaddmm", "sparse_resize_", "sparse_resize_and_clear_",
    "resize_as_sparse_", "to_padded_tensor", "is_distributed",
}
# Prefixes of process-state switches and queries (autocast, anomaly mode, determinism ...).
_EXCLUDED_PREFIXES = ("set_autocast", "get_autocast", "autocast_", "clear_autocast",
                      "is_autocast", "is_anomaly", "are_deterministic", "get_deterministic",
                      "is_deterministic", "get_", "is_grad_enabled", "is_inference_mode",
                      "is_warn_always")
RANDOM_NAMES = {"bernoulli_", "cauchy_", "exponential_", "geometric_", "log_normal_",
                "normal_", "random_", "uniform_", "rrelu", "rrelu_", "dropout", "dropout_",
                "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout",
                "feature_alpha_dropout_", "feature_dropout", "feature_dropout_",
                "native_dropout"}


def _aten_arguments(aten_name):
    """The arguments of an ATen op's first overload without out=, or None."""
    import torch

    from ember._core.schema import parse_schema
    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{aten_name}")
    except RuntimeError:
        return None
    for schema in sorted(schemas, key=lambda s: (s.overload_name != "", s.overload_name)):
        text = str(schema).replace("aten::", "", 1)
        if ".out(" in text or "out)" in text.split("->")[0] or "Dimname" in text:
            continue
        try:
            return parse_schema(text).arguments
        except ValueError:
            return None
    return None


class _Arg:
    """A signature argument in the shape fuzz_strategies' value tables read."""

    def __init__(self, name, base_type, default, kwarg_only):
        self.name = name
        self.base_type = self.type = base_type
        self.has_default = default is not inspect.Parameter.empty
        self.default = default if self.has_default else None
        self.optional = self.has_default and default is None
        self.kwarg_only = kwarg_only


def _described(torch_obj, aten_name):
    """The arguments of a PyTorch callable, from its schema or its signature; None if
    neither is readable."""
    if inspect.isfunction(torch_obj) or inspect.ismethod(torch_obj):
        try:
            return tuple(_Arg(*a) for a in arguments_of(torch_obj))
        except (TypeError, ValueError):
            return None
    return _aten_arguments(aten_name)


def _excluded(name):
    return name.startswith("_") or name in _EXCLUDED or name.startswith(_EXCLUDED_PREFIXES)


@functools.cache
def namespace_pool():
    """((namespace, name, arguments)) for the linalg, fft and special functions."""
    import torch

    import ember
    pool = []
    for namespace in ("linalg", "fft", "special"):
        theirs, ours = getattr(torch, namespace), getattr(ember, namespace)
        for name in sorted(dir(theirs)):
            if _excluded(name) or not callable(getattr(ours, name, None)) or \
                    inspect.isclass(getattr(theirs, name)):
                continue
            arguments = _described(getattr(theirs, name), f"{namespace}_{name}")
            if arguments:
                pool.append((namespace, name, arguments))
    return tuple(pool)


@functools.cache
def api_pool():
    """((\"torch\" or \"Tensor\", name, arguments)) for the public functions and methods the
    registry family does not draw."""
    import torch

    import ember
    drawn = {(form == "function", name) for _, form, name in op_pool()}
    pool = []
    for where, theirs, ours in (("torch", torch, ember), ("Tensor", torch.Tensor, ember.Tensor)):
        for name in sorted(dir(theirs)):
            if _excluded(name) or ((where == "torch"), name) in drawn or \
                    not hasattr(ours, name):
                continue
            torch_obj = getattr(theirs, name)
            if inspect.isclass(torch_obj) or not callable(torch_obj) or \
                    not callable(getattr(ours, name)) or isinstance(torch_obj, property):
                continue
            arguments = _described(torch_obj, name)
            if arguments is None:
                continue
            if where == "Tensor" and not inspect.isfunction(torch_obj):
                if not arguments or arguments[0].base_type != "Tensor":
                    continue
                arguments = arguments[1:]                  # self: the tensor called on
            pool.append((where, name, tuple(arguments)))
    return tuple(pool)


_SHAPES = ((3, 3), (2, 3), (2, 3, 3), (3,), (), (0, 3), (4,), (2, 4, 4))


@st.composite
def _arguments(draw, arguments, shape):
    """Positional and keyword values, one or two of them wrong in most calls."""
    mode = draw(st.sampled_from(["right", "wrong", "wrong", "wrong", "two wrong", "keyword",
                                 "missing", "extra"]))
    count = len(arguments)
    wrong = set()
    if mode in ("wrong", "two wrong") and count:
        wrong.add(draw(st.integers(0, count - 1)))
        if mode == "two wrong":
            wrong.add(draw(st.integers(0, count - 1)))
    args, kwargs, positional_open = [], {}, True
    for i, arg in enumerate(arguments):
        if i not in wrong and arg.has_default and draw(st.booleans()):
            positional_open = positional_open and arg.kwarg_only
            continue
        if mode == "missing" and not arg.has_default and draw(st.booleans()):
            mode, positional_open = "missed", False
            continue
        if i in wrong:
            value = draw(wrong_value(arg))
        elif arg.base_type == "Tensor":
            value = draw(good_tensor(shape))
        else:
            value = draw(good_value(arg, shape))
        if arg.kwarg_only or not positional_open or (i > 0 and draw(st.integers(0, 4)) == 0):
            kwargs["input" if arg.name == "self" else arg.name] = value
            positional_open = False
        else:
            args.append(value)
    if mode == "keyword":
        kwargs["bogus_keyword"] = ("int", 1)
    if mode == "extra":
        args.append(("int", 1))
    return args, kwargs


@st.composite
def namespace_calls(draw):
    namespace, name, arguments = draw(st.sampled_from(namespace_pool()))
    shape = draw(st.sampled_from(_SHAPES))
    args, kwargs = draw(_arguments(arguments, shape))
    return {"family": "namespace", "form": "namespace", "key": f"{namespace}.{name}",
            "name": name, "namespace": namespace, "args": args, "kwargs": kwargs,
            "random": False}


@st.composite
def api_calls(draw):
    where, name, arguments = draw(st.sampled_from(api_pool()))
    shape = draw(st.sampled_from(_SHAPES))
    args, kwargs = draw(_arguments(arguments, shape))
    if where == "Tensor":
        args = [draw(good_tensor(shape))] + args
    return {"family": "api", "form": "api", "key": f"{where}.{name}", "name": name,
            "namespace": where, "args": args, "kwargs": kwargs,
            "random": name in RANDOM_NAMES}


API_FAMILIES = {"namespace": namespace_calls, "api": api_calls}
