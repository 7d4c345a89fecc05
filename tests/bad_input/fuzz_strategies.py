"""Hypothesis strategies that draw calls of ember's registered ops, mostly wrong ones.

An op is drawn from the registry (each entry's schema, as tools/gen_bindings.py reads it) in
one of its public forms (ember.<name>, Tensor.<name>, Tensor.<name>_) that PyTorch also has.
Each schema argument then gets a value description (fuzz_values.py): a plausible one for its
type and name, or, for one or two arguments, a wrong one (a bool or float for an int, a
string, bytes, None, a list of wrong things, a NumPy scalar or array, a tensor of another
dtype, a huge or negative size, a dimension out of range, a bad dtype/device/layout/memory
format ...). Some calls instead carry an unknown keyword, miss a required argument or pass
one argument too many.
"""
from __future__ import annotations

import functools

from hypothesis import strategies as st

# --------------------------------------------------------------------------- the op pool

# Ops left out of the draw, with the reason.
EXCLUDED = {
    # Results depend on memory contents or on each library's random stream alone.
    "empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided",
    # These touch process-wide state (the default generator, the default dtype).
    "manual_seed", "seed", "set_default_dtype",
}


@functools.cache
def op_pool():
    """[(registry key, form, attribute name)] for every public form both libraries have."""
    import torch

    import ember
    from ember._core.registry import FRONTENDS, OPS
    pool = []
    for key in sorted(OPS):
        op = OPS[key]
        name = op.python_name
        if name in EXCLUDED or name.startswith("_"):
            continue
        frontend = FRONTENDS.get(name)
        if (op.function or frontend is not None and frontend.is_function) and \
                hasattr(torch, name) and hasattr(ember, name):
            pool.append((key, "function", name))
        if op.schema.arguments and op.schema.arguments[0].is_tensor:
            if (op.method or frontend is not None and frontend.method is not None) and \
                    hasattr(torch.Tensor, name) and hasattr(ember.Tensor, name):
                pool.append((key, "method", name))
            if op.inplace and hasattr(torch.Tensor, name + "_"):
                pool.append((key, "inplace", name + "_"))
    return tuple(pool)


def _schema(key):
    from ember._core.registry import OPS
    return OPS[key].schema


def is_random(key) -> bool:
    """Ops whose values differ between the libraries' random streams: shapes compared only."""
    from ember._core.registry import OPS
    op = OPS[key]
    return "nondeterministic_seeded" in op.tags or any(
        a.base_type == "Generator" for a in op.schema.arguments)


# --------------------------------------------------------------------------- plain values

DTYPES = ("float32", "float32", "float32", "float64", "int64", "int32", "bool", "complex64",
          "float16", "bfloat16", "uint8", "int8")
SHAPES = ((), (3,), (2, 3), (2, 3), (2, 3, 4), (1, 2, 3, 2), (0,), (2, 0, 3), (1, 2, 2, 2, 2))


def tensor(shape, dtype="float32", requires_grad=False):
    return ("tensor", tuple(shape), dtype, requires_grad)


def _ints(values):
    return st.sampled_from([("int", v) for v in values])


@st.composite
def good_tensor(draw, base_shape):
    shape = draw(st.sampled_from([base_shape] * 4 + list(SHAPES)))
    dtype = draw(st.sampled_from(DTYPES))
    grad = dtype in ("float32", "float64") and draw(st.sampled_from([False] * 5 + [True]))
    return tensor(shape, dtype, grad)


def _good_int(name):
    if "dim" in name or name in ("axis", "source", "destination", "start_dim", "end_dim"):
        return _ints([-2, -1, 0, 0, 1, 1, 2, 3])
    if name in ("diagonal", "offset", "k", "shifts"):
        return _ints([-1, 0, 1, 2])
    return _ints([0, 1, 1, 2, 2, 3])


def _good_int_list(name, length):
    if "dim" in name or name == "axis":
        items = st.lists(_ints([-2, -1, 0, 1, 2]), min_size=0, max_size=3)
    elif name in ("size", "shape", "sizes") or "size" in name:
        return st.sampled_from([("tuple", [("int", 2), ("int", 3)]),
                                ("tuple", [("int", 6)]), ("tuple", [("int", -1)]),
                                ("list", [("int", 3), ("int", 2)]),
                                ("tuple", [("int", 2), ("int", -1)]), ("tuple", [])])
    else:
        low = 0 if "padding" in name else 1
        items = st.lists(_ints([low, low + 1, 2]), min_size=length or 1,
                         max_size=length or 3)
    single = _ints([1, 2]) if length else st.nothing()
    return st.one_of(items.map(lambda v: ("tuple", v)), items.map(lambda v: ("list", v)),
                     single)


_STRINGS = ("mean", "sum", "none", "floor", "trunc", "reflect", "constant", "replicate",
            "linear", "nearest", "bilinear", "tanh", "reduced", "complete", "L", "U", "ortho",
            "backward", "forward", "lower", "higher", "midpoint", "batchmean", "max", "amax")


def good_value(arg, base_shape):
    """A plausible value for a schema argument."""
    base = arg.base_type
    length = None
    if "[" in arg.type and arg.type.split("[")[1][:1].isdigit():
        length = int(arg.type.split("[")[1].split("]")[0])
    if base == "Tensor":
        return good_tensor(base_shape)
    if base in ("Tensor[]", "Tensor?[]"):
        return st.lists(good_tensor(base_shape), min_size=1, max_size=3).map(
            lambda v: ("list", v))
    if base in ("int", "SymInt"):
        return _good_int(arg.name)
    if base in ("int[]", "SymInt[]"):
        return _good_int_list(arg.name, length)
    if base == "bool[]":
        return st.just(("list", [("bool", True)] * (length or 1)))
    if base == "float":
        return st.sampled_from([("float", v) for v in (0.5, 0.1, 1.0, 2.0, 0.0, -1.5)])
    if base == "bool":
        return st.sampled_from([("bool", True), ("bool", False)])
    if base == "Scalar":
        return st.sampled_from([("int", 2), ("float", 0.5), ("int", -1), ("bool", True),
                                ("float", 2.5), ("complex", 1 + 1j)])
    if base == "ScalarType":
        return st.sampled_from([("dtype", d) for d in ("float32", "float64", "int64",
                                                       "int32", "bool", "complex64")])
    if base == "Layout":
        return st.just(("layout", "strided"))
    if base == "Device":
        return st.sampled_from([("str", "cpu"), ("device", "cpu")])
    if base == "MemoryFormat":
        return st.sampled_from([("memory_format", m) for m in (
            "contiguous_format", "preserve_format", "channels_last")])
    if base == "Generator":
        return st.just(("generator", 0))
    if base == "str":
        if arg.has_default and isinstance(arg.default, str):
            return st.sampled_from([("str", arg.default), ("str", arg.default),
                                    ("str", _STRINGS[0])])
        return st.sampled_from([("str", s) for s in _STRINGS])
    return st.just(("none",))


# --------------------------------------------------------------------------- wrong values

_ANYWHERE = [("str", "a"), ("bytes", b"x"), ("none",), ("object",),
             ("list", [("str", "a")]), ("ndarray", [1, 2])]

_WRONG = {
    "int": [("bool", True), ("bool", False), ("float", 1.5), ("float", 1.0), ("int", 2 ** 63),
            ("int", -2 ** 63 - 1), ("int", 2 ** 70), ("nan",), ("numpy", "float64", 1.0),
            ("numpy", "bool_", True), ("numpy", "int64", 1), ("numpy", "int32", -1),
            ("list", [("int", 1)]), ("complex", 1j), ("int", 1000), ("int", -1000),
            ("int", -1), ("tensor", (), "int64", False), ("tensor", (), "float32", False),
            ("tensor", (2,), "int64", False)],
    "float": [("complex", 1j), ("list", [("float", 0.5)]), ("nan",), ("float", float("inf")),
              ("float", -1.0), ("float", 1e300), ("numpy", "float32", 0.5),
              ("numpy", "int64", 2), ("bool", True), ("int", 2 ** 70),
              ("tensor", (3,), "float32", False), ("tensor", (), "float32", False)],
    "bool": [("int", 1), ("int", 0), ("float", 1.0), ("str", "yes"), ("numpy", "bool_", True),
             ("numpy", "int64", 1), ("tensor", (), "bool", False), ("list", [("bool", True)])],
    "Scalar": [("list", [("int", 1)]), ("tuple", [("int", 1)]), ("numpy", "float64", 0.5),
               ("numpy", "int64", 3), ("numpy", "bool_", True), ("numpy", "complex64", 1j),
               ("tensor", (3,), "float32", False), ("tensor", (), "float64", False),
               ("int", 2 ** 70), ("float", float("inf")), ("nan",), ("int", 2 ** 63)],
    "ScalarType": [("str", "float32"), ("int", 5), ("numpy_dtype", "float32"),
                   ("python_type", "int"), ("python_type", "float"), ("python_type", "bool"),
                   ("python_type", "str"), ("dtype", "bfloat16"), ("dtype", "float16"),
                   ("dtype", "uint16"), ("dtype", "complex128"), ("dtype", "int8")],
    "Layout": [("str", "strided"), ("int", 1), ("layout", "sparse_coo"), ("dtype", "float32")],
    "Device": [("str", "bogus"), ("float", 1.5), ("int", -1), ("str", "cpu:0"), ("int", 0),
               ("bool", True), ("str", "cpu:-1"), ("str", ""), ("dtype", "float32")],
    "MemoryFormat": [("str", "channels_last"), ("int", 1), ("memory_format", "channels_last_3d"),
                     ("dtype", "float32")],
    "Generator": [("int", 1), ("str", "a"), ("device", "cpu")],
    "str": [("int", 1), ("str", "bogus"), ("str", ""), ("bytes", b"mean"),
            ("list", [("str", "mean")])],
    "int[]": [("tuple", [("float", 1.5)]), ("tuple", [("bool", True)]), ("str", "ab"),
              ("list", [("int", 2 ** 63)]), ("tensor", (2,), "float32", False),
              ("tensor", (2,), "int64", False), ("ndarray", [0, 1]), ("int", -2),
              ("tuple", [("int", 1), ("str", "a")]), ("tuple", [("int", 2 ** 40)] * 2),
              ("tuple", [("int", -2), ("int", 3)]), ("tuple", [("int", 0), ("int", 0)]),
              ("tuple", [("none",)]), ("float", 2.0), ("numpy", "int64", 2),
              ("tuple", [("numpy", "int64", 1)]), ("tuple", [("int", 1)] * 7),
              ("size", [2, 3]), ("dict",)],
    "bool[]": [("list", [("int", 1)]), ("bool", True), ("list", [("bool", True)] * 5)],
    "Tensor": [("int", 1), ("float", 1.5), ("list", [("float", 1.0), ("float", 2.0)]),
               ("ndarray", [1.0, 2.0]), ("bool", True), ("numpy", "float32", 1.0),
               ("tensor", (5,), "float32", False), ("tensor", (4, 1), "float64", False),
               ("tensor", (2, 3), "int64", False), ("tensor", (2, 3), "bool", False),
               ("tensor", (2, 3), "complex64", False), ("tensor", (2, 3), "bfloat16", False),
               ("tensor", (2, 3), "float32", True), ("tensor", (), "uint16", False)],
    "Tensor[]": [("tensor", (2, 3), "float32", False), ("list", []),
                 ("list", [("tensor", (2, 3), "float32", False), ("int", 1)]),
                 ("list", [("tensor", (2, 3), "float32", False),
                           ("tensor", (2, 3), "int64", False)]),
                 ("list", [("tensor", (2, 3), "float32", False),
                           ("tensor", (3,), "float32", False)]),
                 ("tuple", [("tensor", (2, 3), "float32", False)]), ("list", [("none",)])],
}
_WRONG["SymInt"] = _WRONG["int"]
_WRONG["SymInt[]"] = _WRONG["int[]"]
_WRONG["Tensor?[]"] = _WRONG["Tensor[]"]


def wrong_value(arg):
    """A value of the wrong kind (or a right kind out of range) for a schema argument."""
    specific = _WRONG.get(arg.base_type, [])
    pool = [v for v in specific + _ANYWHERE if v != ("dict",)]
    if arg.optional or (arg.has_default and arg.default is None):
        pool = [v for v in pool if v != ("none",)]
    return st.sampled_from(pool)


# --------------------------------------------------------------------------- whole calls

@st.composite
def calls(draw):
    """A call description: {'key', 'form', 'name', 'args', 'kwargs', 'random'}."""
    key, form, name = draw(st.sampled_from(op_pool()))
    arguments = _schema(key).arguments
    base_shape = draw(st.sampled_from(SHAPES[:6]))
    count = len(arguments)
    first = 1 if form != "function" else 0        # a method's self stays a tensor
    mode = draw(st.sampled_from(["right", "wrong", "wrong", "wrong", "wrong", "two wrong",
                                 "keyword", "missing", "extra"]))
    wrong = set()
    if mode in ("wrong", "two wrong") and count > first:
        wrong.add(draw(st.integers(first, count - 1)))
        if mode == "two wrong":
            wrong.add(draw(st.integers(first, count - 1)))
    args, kwargs, positional_open = [], {}, True
    for i, arg in enumerate(arguments):
        value = draw(wrong_value(arg) if i in wrong else good_value(arg, base_shape))
        if i == 0 and form != "function":
            value = draw(good_tensor(base_shape))
        if i not in wrong and arg.has_default and draw(st.booleans()):
            positional_open = False if not arg.kwarg_only else positional_open
            continue                                  # left at its default
        if mode == "missing" and not arg.has_default and i >= first and draw(st.booleans()):
            mode = "missed"
            positional_open = False
            continue
        keyword = arg.kwarg_only or not positional_open or (
            i > 0 and draw(st.sampled_from([False] * 4 + [True])))
        if keyword:
            shown = "input" if i == 0 and arg.name == "self" else arg.name
            kwargs[shown] = value
            positional_open = False
        else:
            args.append(value)
    if mode == "keyword":
        kwargs["bogus_keyword"] = ("int", 1)
    if mode == "extra":
        args = args + [("int", 1)]
    return {"key": key, "form": form, "name": name, "args": args, "kwargs": kwargs,
            "random": is_random(key)}
