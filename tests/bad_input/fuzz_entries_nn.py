"""Hypothesis strategies for the bad-input fuzzer's `nn` families: calls of every public
`nn.functional` function and module constructions followed by a call of the module.

Neither family has a schema, so each argument's kind is read from its name and default in the
function's (or the module's `__init__`/`forward`) signature: PyTorch's where Python can read
it, ember's otherwise. The drawn call itself names only the function or class and carries
library-neutral values (fuzz_values.py), so both workers make the same call.
"""
from __future__ import annotations

import functools
import inspect

from fuzz_strategies import _ANYWHERE, _WRONG, good_value
from hypothesis import strategies as st

# --------------------------------------------------------------------------- argument kinds

_TENSOR_NAMES = {
    "input", "x1", "x2", "input1", "input2", "target", "weight", "bias", "query", "key",
    "value", "anchor", "positive", "negative", "log_probs", "targets", "input_lengths",
    "target_lengths", "running_mean", "running_var", "tensor", "grid", "theta", "attn_mask",
    "pos_weight", "indices", "offsets", "per_sample_weights", "var", "in_proj_weight",
    "in_proj_bias", "out_proj_weight", "out_proj_bias", "bias_k", "bias_v", "x", "hx",
    "key_padding_mask", "src", "tgt", "memory", "mask", "src_mask", "tgt_mask",
}
_SIZE_NAMES = {"kernel_size", "stride", "padding", "dilation", "output_size", "output_padding",
               "size", "pad", "normalized_shape", "unflattened_size", "scale_factor"}
_INT_NAMES = {"dim", "groups", "num_classes", "upscale_factor", "downscale_factor",
              "padding_idx", "ignore_index", "blank", "num_groups", "start_dim", "end_dim",
              "num_features", "in_features", "out_features", "in_channels", "out_channels",
              "in1_features", "in2_features", "num_embeddings", "embedding_dim", "input_size",
              "hidden_size", "num_layers", "num_parameters", "num_channels", "embed_dim",
              "num_heads", "d_model", "nhead", "proj_size", "norm_type"}


class Arg:
    """What fuzz_strategies' value tables need of a schema argument."""

    def __init__(self, name, base_type, default=inspect.Parameter.empty):
        self.name = name
        self.base_type = base_type
        self.type = base_type
        self.has_default = default is not inspect.Parameter.empty
        self.default = default if self.has_default else None
        self.optional = self.has_default and default is None
        self.kwarg_only = False


def kind_of(name, default):
    """The schema-like base type of an argument, from its name and default."""
    if name in _TENSOR_NAMES:
        return "Tensor"
    if name in _SIZE_NAMES:
        return "int[]"
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int) or name in _INT_NAMES:
        return "int"
    if isinstance(default, float):
        return "float"
    if isinstance(default, str):
        return "str"
    if isinstance(default, tuple):
        return "int[]"
    return "float" if default is None and name not in ("dtype",) else "other"


def arguments_of(function):
    """[(name, base type, default, keyword only)] of a signature, without *args/**kwargs."""
    out = []
    for p in inspect.signature(function).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name == "self":
            continue
        if p.name == "dtype":
            out.append((p.name, "ScalarType", p.default, p.kind == p.KEYWORD_ONLY))
            continue
        out.append((p.name, kind_of(p.name, p.default), p.default,
                    p.kind == p.KEYWORD_ONLY))
    return out


def _signature_source(torch_obj, ember_obj):
    try:
        inspect.signature(torch_obj)
        return torch_obj
    except (TypeError, ValueError):
        return ember_obj


# NOTE the values of tensors are small (fuzz_values.tensor_values); their shapes are drawn
# around a channel count of 3, the feature size most drawn constructions use.
NN_SHAPES = ((2, 3), (2, 3), (1, 3, 4), (1, 3, 4), (1, 3, 4, 4), (1, 3, 4, 4), (2, 3, 2, 2, 2),
             (3,), (), (0, 3), (1, 3, 0), (4, 3), (3, 3))
_SCALARS = [("float", 3.0), ("int", 2), ("bool", True), ("none",), ("str", "a"),
            ("list", [("float", 1.0), ("float", 2.0)]), ("complex", 1j),
            ("tensor", (2, 3), "int64", False), ("tensor", (2, 3), "bool", False),
            ("tensor", (2, 3), "float64", False), ("tensor", (), "float32", False),
            ("tensor", (2, 3), "complex64", False), ("tensor", (7,), "float32", False),
            ("tensor", (1, 5, 4), "float32", False), ("ndarray", [1.0, 2.0]),
            ("numpy", "float32", 1.0)]


def _good(base_type, name, default, shape):
    if base_type == "Tensor":
        if name in ("target", "targets", "indices", "input_lengths", "target_lengths"):
            return st.sampled_from([("tensor", shape, "float32", False),
                                    ("tensor", shape[:1], "int64", False),
                                    ("tensor", shape, "int64", False)])
        if name in ("weight", "in_proj_weight", "out_proj_weight"):
            return st.sampled_from([("tensor", s, "float32", False) for s in (
                (3,), (4, 3), (4, 3, 2), (4, 3, 2, 2), (4, 3, 1, 1, 1), (3, 3), (1,))])
        if name in ("bias", "running_mean", "running_var"):
            return st.sampled_from([("tensor", (4,), "float32", False),
                                    ("tensor", (3,), "float32", False)])
        return st.sampled_from([("tensor", shape, "float32", False)] * 4 + [
            ("tensor", shape, "float64", False), ("tensor", shape, "float32", True)])
    if base_type == "int[]":
        return st.sampled_from([("int", 1), ("int", 2), ("tuple", [("int", 2), ("int", 2)]),
                                ("tuple", [("int", 1)]), ("int", 3)])
    if base_type == "int":
        if name in ("dim", "start_dim", "end_dim"):
            return st.sampled_from([("int", d) for d in (-1, 0, 1, 1)])
        return st.sampled_from([("int", v) for v in (1, 2, 3, 3, 4)])
    if base_type == "other":
        return st.just(("none",))
    return good_value(Arg(name, base_type, default), shape)


def _wrong(base_type, optional):
    pool = list(_WRONG.get(base_type, [])) + _ANYWHERE
    if base_type == "Tensor":
        pool += _SCALARS
    pool = [v for v in pool if v != ("dict",) and not (optional and v == ("none",))]
    return st.sampled_from(pool)


@st.composite
def _call_arguments(draw, arguments, shape, mode):
    """Positional and keyword values for `arguments` (see `arguments_of`), one or two of them
    wrong unless `mode` is 'right'."""
    count = len(arguments)
    wrong = set()
    if mode in ("wrong", "two wrong") and count:
        wrong.add(draw(st.integers(0, count - 1)))
        if mode == "two wrong":
            wrong.add(draw(st.integers(0, count - 1)))
    args, kwargs, positional_open = [], {}, True
    for i, (name, base_type, default, kwarg_only) in enumerate(arguments):
        has_default = default is not inspect.Parameter.empty
        if i not in wrong and has_default and draw(st.booleans()):
            positional_open = False
            continue
        if mode == "missing" and not has_default and draw(st.booleans()):
            mode = "missed"
            positional_open = False
            continue
        if i in wrong:
            value = draw(_wrong(base_type, has_default and default is None))
        else:
            value = draw(_good(base_type, name, default, shape))
        if kwarg_only or not positional_open or (i > 0 and draw(st.integers(0, 4)) == 0):
            kwargs[name] = value
            positional_open = False
        else:
            args.append(value)
    if mode == "keyword":
        kwargs["bogus_keyword"] = ("int", 1)
    if mode == "extra":
        args.append(("int", 1))
    return args, kwargs


_MODES = ["right", "right", "wrong", "wrong", "wrong", "two wrong", "keyword", "missing",
          "extra"]

# --------------------------------------------------------------------------- nn.functional

# Left out: names that are not functions of tensors, and ops still missing from ember.
_F_EXCLUDED = {"ScalingType", "SwizzleType", "grad", "has_torch_function",
               "handle_torch_function", "boolean_dispatch", "assert_int_or_pair",
               "has_torch_function_unary", "has_torch_function_variadic", "scaled_mm",
               "scaled_grouped_mm", "grouped_mm", "linear_cross_entropy",
               "multi_head_attention_forward"}
RANDOM_FUNCTIONAL = ("dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d",
                     "dropout2d", "dropout3d", "rrelu", "rrelu_", "gumbel_softmax",
                     "fractional_max_pool2d", "fractional_max_pool3d",
                     "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices",
                     "scaled_dot_product_attention")


@functools.cache
def functional_pool():
    """((name, arguments)) for every public nn.functional function both libraries have."""
    import torch.nn.functional as TF

    import ember.nn.functional as EF
    pool = []
    for name in sorted(dir(TF)):
        if name.startswith("_") or name in _F_EXCLUDED or not hasattr(EF, name):
            continue
        torch_obj, ember_obj = getattr(TF, name), getattr(EF, name)
        if not inspect.isfunction(torch_obj) and not inspect.isbuiltin(torch_obj) or \
                not callable(ember_obj) or inspect.isclass(torch_obj):
            continue
        pool.append((name, tuple(arguments_of(_signature_source(torch_obj, ember_obj)))))
    return tuple(pool)


@st.composite
def functional_calls(draw):
    name, arguments = draw(st.sampled_from(functional_pool()))
    shape = draw(st.sampled_from(NN_SHAPES))
    args, kwargs = draw(_call_arguments(arguments, shape, draw(st.sampled_from(_MODES))))
    return {"family": "functional", "form": "functional", "key": name, "name": name,
            "args": args, "kwargs": kwargs, "random": name in RANDOM_FUNCTIONAL}


# --------------------------------------------------------------------------- modules

_M_EXCLUDED = {"Module", "Container", "Sequential", "ModuleList", "ModuleDict",
               "ParameterList", "ParameterDict", "RNNBase", "RNNCellBase", "SyncBatchNorm",
               "LinearCrossEntropyLoss", "LinearCrossEntropyOptions", "CrossMapLRN2d",
               "AdaptiveLogSoftmaxWithLoss", "Transformer", "TransformerEncoder",
               "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer",
               "TripletMarginWithDistanceLoss"}
_RANDOM_MODULES = ("Dropout", "AlphaDropout", "FeatureAlphaDropout", "RReLU",
                   "FractionalMaxPool")


@functools.cache
def module_pool():
    """((class name, constructor arguments, forward arguments)) for every module class."""
    import torch.nn as TN

    import ember.nn as EN
    pool = []
    for name in TN.modules.__all__:
        if name in _M_EXCLUDED or name.startswith("Lazy") or not hasattr(EN, name):
            continue
        cls = getattr(TN, name)
        ctor = [a for a in arguments_of(cls.__init__)
                if a[0] not in ("device", "dtype", "factory_kwargs", "_weight", "_freeze")]
        forward = arguments_of(cls.forward)
        pool.append((name, tuple(ctor), tuple(forward)))
    return tuple(pool)


_NOT_REQUIRED = inspect.Parameter.empty


@st.composite
def module_calls(draw):
    """Construct a module (maybe with a wrong argument) and call it (maybe with wrong ones)."""
    name, ctor, forward = draw(st.sampled_from(module_pool()))
    shape = draw(st.sampled_from(NN_SHAPES))
    where = draw(st.sampled_from(["ctor", "forward", "forward", "forward", "right"]))
    mode = draw(st.sampled_from(_MODES[2:])) if where != "right" else "right"
    ctor_args, ctor_kwargs = draw(_call_arguments(ctor, shape,
                                                  mode if where == "ctor" else "right"))
    args, kwargs = draw(_call_arguments(forward, shape, mode if where == "forward" else "right"))
    if where == "forward" and draw(st.integers(0, 3)) == 0:      # a lone scalar or None
        args, kwargs = [draw(st.sampled_from(_SCALARS))], {}
    return {"family": "module", "form": "module", "key": name, "name": name,
            "ctor_args": ctor_args, "ctor_kwargs": ctor_kwargs, "args": args,
            "kwargs": kwargs, "random": name.startswith(_RANDOM_MODULES)}
