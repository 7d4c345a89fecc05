"""Hypothesis strategies for the bad-input fuzzer's data entry points: `load`, `frombuffer`,
`asarray`, `tensor`, the legacy constructors (`Tensor(...)`, `x.new(...)`, `FloatTensor(...)`)
and indexing (`x[i]`, `x[i] = v`), mostly with wrong arguments.

`load` gets bytes, byte streams and small files (empty, truncated or foreign bytes, each
library's own save of a tensor cut short), and wrong argument types; crafted hostile
checkpoints are tests/test_checkpoint_hostile.py's. Values are fuzz_values.py descriptions.
"""
from __future__ import annotations

from fuzz_strategies import _WRONG, SHAPES, good_tensor
from hypothesis import strategies as st

_DTYPES = [("dtype", d) for d in ("float32", "float64", "int64", "int32", "uint8", "bool",
                                  "complex64", "float16", "bfloat16", "int8", "int16")]
_BAD_DTYPES = _WRONG["ScalarType"] + [("none",), ("str", "a"), ("object",)]
_DEVICES = [("str", "cpu"), ("device", "cpu")]
_BAD_DEVICES = _WRONG["Device"] + [("str", "cuda:x"), ("object",), ("list", [("int", 0)])]
_BOOLS = [("bool", True), ("bool", False)]
_BAD_BOOLS = _WRONG["bool"] + [("str", "a"), ("none",)]


def _kw(name, good, bad, wrong):
    """(name, value) for an optional keyword: absent, right or wrong."""
    choices = [None, None, ("right", good)] + ([("wrong", bad)] if wrong else [])
    return st.sampled_from(choices).flatmap(
        lambda c: st.just(None) if c is None else st.sampled_from(c[1]).map(
            lambda v: (name, v)))


@st.composite
def _keywords(draw, table, wrong):
    out = {}
    for name, good, bad in table:
        item = draw(_kw(name, good, bad, wrong))
        if item is not None:
            out[item[0]] = item[1]
    if wrong and draw(st.integers(0, 8)) == 0:
        out["bogus_keyword"] = ("int", 1)
    return out


def _call(family, name, args, kwargs, random=False, **extra):
    return dict({"family": family, "form": family, "key": name, "name": name, "args": args,
                 "kwargs": kwargs, "random": random}, **extra)


_PYTHON_DATA = [
    ("list", [("float", 1.0), ("float", 2.5)]), ("list", [("int", 1), ("int", -2)]),
    ("list", [("list", [("int", 1), ("int", 2)]), ("list", [("int", 3)])]),
    ("list", [("list", [("int", 1), ("int", 2)]), ("list", [("int", 3), ("int", 4)])]),
    ("list", [("bool", True), ("int", 2)]), ("list", [("complex", 1j), ("float", 2.0)]),
    ("list", []), ("list", [("list", [])]), ("tuple", [("int", 1), ("float", 2.0)]),
    ("int", 3), ("float", 1.5), ("bool", True), ("complex", 1 + 2j), ("int", 2 ** 63),
    ("int", 2 ** 70), ("nan",), ("float", float("inf")), ("list", [("str", "a")]),
    ("list", [("none",)]), ("list", [("tensor", (2,), "float32", False), ("int", 1)]),
    ("list", [("tensor", (2,), "float32", False), ("tensor", (3,), "float32", False)]),
    ("list", [("tensor", (2,), "float32", False), ("tensor", (2,), "int64", False)]),
    ("list", [("tensor", (), "float32", False), ("float", 2.0)]),
    ("list", [("numpy", "float32", 1.0), ("numpy", "int64", 2)]),
    ("ndarray", [1, 2, 3]), ("ndarray", [[1.0, 2.0]]), ("ndarray_obj", [1, "a"]),
    ("ndarray_dtype", [1, 2], "uint16"), ("ndarray_dtype", [1, 2], "float128"),
    ("ndarray_dtype", ["a", "b"], "U1"), ("numpy", "float64", 2.0), ("numpy", "int8", -1),
    ("str", "abc"), ("bytes", b"ab"), ("bytearray", b"abcd"), ("none",), ("object",),
    ("dict",), ("set",), ("size", [2, 3]), ("range", 3), ("generator_expr", 3),
    ("tensor", (2, 3), "float32", False), ("tensor", (2, 3), "int64", False),
    ("tensor", (), "float32", True), ("memoryview", b"abcdefgh"),
    ("array", "f", [1.0, 2.0]), ("array", "i", [1, 2]),
]

# --------------------------------------------------------------------------- tensor, asarray


@st.composite
def tensor_calls(draw):
    wrong = draw(st.booleans())
    data = draw(st.sampled_from(_PYTHON_DATA))
    kwargs = draw(_keywords([("dtype", _DTYPES, _BAD_DTYPES),
                             ("device", _DEVICES, _BAD_DEVICES),
                             ("requires_grad", _BOOLS, _BAD_BOOLS),
                             ("pin_memory", [("bool", False)], _BAD_BOOLS)], wrong))
    args = [data]
    if wrong and draw(st.integers(0, 5)) == 0:
        args.append(draw(st.sampled_from(_DTYPES + [("int", 1)])))
    if wrong and draw(st.integers(0, 8)) == 0:
        args = []
    return _call("tensor", "tensor", args, kwargs)


@st.composite
def asarray_calls(draw):
    wrong = draw(st.booleans())
    data = draw(st.sampled_from(_PYTHON_DATA))
    kwargs = draw(_keywords([("dtype", _DTYPES, _BAD_DTYPES),
                             ("device", _DEVICES, _BAD_DEVICES),
                             ("copy", _BOOLS + [("none",)], _WRONG["bool"] + [("str", "a")]),
                             ("requires_grad", _BOOLS, _BAD_BOOLS)], wrong))
    args = [data]
    if wrong and draw(st.integers(0, 5)) == 0:
        args.append(draw(st.sampled_from(_DTYPES + [("int", 1), ("none",)])))
    return _call("asarray", "asarray", args, kwargs)


# --------------------------------------------------------------------------- frombuffer

_BUFFERS = [("bytes", b"abcdefgh"), ("bytearray", b"abcdefgh"), ("bytearray", b"abc"),
            ("bytearray", b""), ("memoryview", b"abcdefgh"), ("array", "f", [1.0, 2.0]),
            ("array", "d", [1.0]), ("array", "b", [1, 2, 3]), ("ndarray", [1.0, 2.0]),
            ("memoryview_strided", b"abcdefgh")]
_BAD_BUFFERS = [("str", "abcd"), ("list", [("int", 1)]), ("none",), ("int", 4),
                ("tensor", (4,), "float32", False), ("object",), ("float", 1.0)]
_COUNTS = [("int", -1), ("int", 1), ("int", 2)]
_BAD_COUNTS = _WRONG["int"] + [("int", 0), ("int", -2), ("int", 100), ("str", "a"),
                               ("none",)]
_OFFSETS = [("int", 0), ("int", 1), ("int", 4)]
_BAD_OFFSETS = _WRONG["int"] + [("int", 8), ("int", 9), ("int", -1), ("none",)]


@st.composite
def frombuffer_calls(draw):
    wrong = draw(st.booleans())
    buffer = draw(st.sampled_from(_BUFFERS + (_BAD_BUFFERS if wrong else [])))
    kwargs = draw(_keywords([("dtype", _DTYPES[:6], _BAD_DTYPES),
                             ("count", _COUNTS, _BAD_COUNTS),
                             ("offset", _OFFSETS, _BAD_OFFSETS),
                             ("requires_grad", _BOOLS, _BAD_BOOLS)], wrong))
    if "dtype" not in kwargs and draw(st.booleans()):
        kwargs["dtype"] = ("dtype", "uint8")
    args = [buffer]
    if wrong and draw(st.integers(0, 6)) == 0:
        args.append(draw(st.sampled_from(_DTYPES)))
    return _call("frombuffer", "frombuffer", args, kwargs)


# --------------------------------------------------------------------------- legacy constructors

_LEGACY_ARGS = [("int", 2), ("int", 3), ("int", 0), ("int", -1), ("float", 2.0), ("bool", True),
                ("none",), ("str", "a"), ("list", [("float", 1.0), ("float", 2.0)]),
                ("list", [("int", 1), ("str", "a")]), ("tuple", [("int", 2), ("int", 3)]),
                ("size", [2, 3]), ("tensor", (2, 3), "float32", False),
                ("tensor", (2,), "int64", False), ("tensor", (), "int64", False),
                ("ndarray", [1.0, 2.0]), ("numpy", "int64", 2), ("int", 2 ** 63),
                ("int", 2 ** 40), ("bytes", b"ab"), ("object",), ("list", []),
                ("list", [("list", [("int", 1)]), ("list", [("int", 1), ("int", 2)])])]
_LEGACY_CLASSES = ("Tensor", "Tensor", "new", "new", "FloatTensor", "LongTensor",
                   "DoubleTensor", "BoolTensor", "IntTensor", "ByteTensor")


@st.composite
def legacy_calls(draw):
    name = draw(st.sampled_from(_LEGACY_CLASSES))
    args = draw(st.lists(st.sampled_from(_LEGACY_ARGS), min_size=0, max_size=3))
    kwargs = draw(_keywords([("device", _DEVICES, _BAD_DEVICES),
                             ("dtype", _DTYPES[:2], _BAD_DTYPES[:4]),
                             ("requires_grad", [("bool", False)], _BAD_BOOLS[:2])],
                            draw(st.booleans())))
    if name != "new":
        kwargs.pop("requires_grad", None)
        kwargs.pop("dtype", None)
    base = draw(good_tensor((2, 3))) if name == "new" else None
    # Sizes give uninitialized memory: only shapes and dtypes are compared then.
    sizes = any(a[0] in ("int", "numpy", "size") for a in args)
    return _call("legacy", name, args, kwargs, random=sizes, base=base)


# --------------------------------------------------------------------------- indexing

_INDEX_ITEMS = [
    ("int", 0), ("int", 1), ("int", -1), ("int", 5), ("int", -7), ("int", 2 ** 63),
    ("none",), ("ellipsis",), ("bool", True), ("bool", False), ("float", 1.0), ("str", "a"),
    ("slice", ("none",), ("none",), ("none",)), ("slice", ("int", 0), ("int", 2), ("none",)),
    ("slice", ("none",), ("none",), ("int", 2)), ("slice", ("none",), ("none",), ("int", 0)),
    ("slice", ("none",), ("none",), ("int", -1)), ("slice", ("float", 0.5), ("none",), ("none",)),
    ("slice", ("str", "a"), ("none",), ("none",)), ("slice", ("int", 5), ("int", 1), ("none",)),
    ("slice", ("tensor", (), "int64", False), ("none",), ("none",)),
    ("list", [("int", 0), ("int", 1)]), ("list", [("int", 0), ("int", 9)]),
    ("list", [("int", 0), ("str", "a")]), ("list", [("float", 0.0)]), ("list", []),
    ("list", [("bool", True), ("bool", False)]), ("list", [("list", [("int", 0)]),
                                                           ("list", [("int", 1), ("int", 0)])]),
    ("tensor", (2,), "int64", False), ("tensor", (2,), "int32", False),
    ("tensor", (2,), "float32", False), ("tensor", (2, 3), "bool", False),
    ("tensor", (3,), "bool", False), ("tensor", (2,), "uint8", False),
    ("tensor", (), "int64", False), ("tensor", (), "float32", False),
    ("tensor", (0,), "int64", False), ("ndarray", [0, 1]), ("ndarray", [0.5]),
    ("numpy", "int64", 1), ("numpy", "float32", 1.0), ("numpy", "bool_", True),
    ("object",), ("complex", 1j), ("bytes", b"a"), ("dict",),
]
_SET_VALUES = [("int", 1), ("float", 2.5), ("bool", True), ("complex", 1 + 1j), ("str", "a"),
               ("none",), ("list", [("float", 1.0), ("float", 2.0)]), ("list", [("str", "a")]),
               ("tensor", (), "float32", False), ("tensor", (3,), "float32", False),
               ("tensor", (4,), "float32", False), ("tensor", (2, 3), "int64", False),
               ("tensor", (2, 3), "complex64", False), ("tensor", (5, 5), "float32", False),
               ("tensor", (3,), "float32", True), ("ndarray", [1.0, 2.0, 3.0]),
               ("numpy", "float64", 1.5), ("int", 2 ** 70), ("float", float("nan")),
               ("object",), ("bytes", b"a"), ("int", 300)]


@st.composite
def indexing_calls(draw):
    base = draw(st.sampled_from([("tensor", s, d, False) for s in SHAPES[:6] + ((2, 3, 4),)
                                 for d in ("float32", "int64", "bool", "uint8")]))
    items = draw(st.lists(st.sampled_from(_INDEX_ITEMS), min_size=1, max_size=4))
    index = items[0] if len(items) == 1 and draw(st.booleans()) else ("tuple", items)
    if draw(st.booleans()):
        value = draw(st.sampled_from(_SET_VALUES))
        return _call("setitem", "__setitem__", [base, index, value], {})
    return _call("getitem", "__getitem__", [base, index], {})


# --------------------------------------------------------------------------- load

_JUNK = [b"", b"PK\x03\x04", b"PK\x05\x06" + b"\x00" * 18, b"\x80\x02K\x01.", b"\x80\x04N.",
         b"not a checkpoint at all", b"\x00" * 64, b"\x80\x02}q\x00.", b"\x80\x02]q\x00."]
_SOURCES = ([("bytes", j) for j in _JUNK[:3]] + [("bytesio", j) for j in _JUNK] +
            [("tmpfile", j) for j in _JUNK] +
            [("saved", cut) for cut in (None, None, 0, 10, 100, 300, -1, -30)] +
            [("saved_file", cut) for cut in (None, 20, -22)] +
            [("path", "/nonexistent/x.pt"), ("path", "/"), ("path", ""), ("none",),
             ("int", 3), ("float", 1.0), ("list", [("str", "a")]), ("object",),
             ("str", "\x00bad"), ("tensor", (2,), "float32", False), ("bytearray", b"PK")])
_MAP_LOCATIONS = [("str", "cpu"), ("device", "cpu"), ("none",)]
_BAD_MAP_LOCATIONS = [("int", 1), ("str", "bogus"), ("float", 1.0), ("object",),
                      ("list", [("str", "cpu")]), ("str", "")]
_WEIGHTS_ONLY = [("bool", True), ("none",)]
_BAD_WEIGHTS_ONLY = [("str", "yes"), ("int", 2), ("object",)]


@st.composite
def load_calls(draw):
    wrong = draw(st.booleans())
    source = draw(st.sampled_from(_SOURCES))
    kwargs = draw(_keywords([("map_location", _MAP_LOCATIONS, _BAD_MAP_LOCATIONS),
                             ("weights_only", _WEIGHTS_ONLY, _BAD_WEIGHTS_ONLY),
                             ("mmap", [("bool", False), ("none",)],
                              [("bool", True), ("str", "a"), ("int", 1)])], wrong))
    return _call("load", "load", [source], kwargs)


DATA_FAMILIES = {"tensor": tensor_calls, "asarray": asarray_calls,
                 "frombuffer": frombuffer_calls, "legacy": legacy_calls,
                 "indexing": indexing_calls, "load": load_calls}
