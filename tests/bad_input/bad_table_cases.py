"""The cases of test_bad_table.py: (label, call(lib), message fragment or None). A call gets the
library (`ember` or `torch`) and must build everything it uses from it; its outcome (exception
class, warnings, or result) is compared between the two. A fragment is text of PyTorch's message
that ember's message must contain too."""

import io

import numpy as np
from tests.bad_input.bad_table_indexing_shapes import (
    GRID_SAMPLING,
    INDEXING_AND_SHAPES,
    INT_LISTS,
    SEARCHING,
    SORTING,
)


def _x(L):
    return L.ones(2, 3)


def _a(L):
    return L.arange(6.0).reshape(2, 3)


def _img(L):
    return L.ones(1, 2, 5, 5)


def _with(value, use):
    """use(value): a case that needs one value twice (an input and an out= on it)."""
    return use(value)


def _seeded(L):
    L.manual_seed(0)
    return L


CANT_CAST = "can't be cast to the desired output type"
OVERFLOW = "without overflow"
SELF_OVERLAP = "more than one element of the written-to tensor refers to a single memory location"
INPUT_OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single"
RESIZED = "An output with one or more elements was resized"

FACTORIES = [
    ("zeros(-1)", lambda L: L.zeros(-1), "zeros: Dimension size must be non-negative."),
    ("zeros(2, -3)", lambda L: L.zeros(2, -3), "Dimension size must be non-negative"),
    ("zeros('a')", lambda L: L.zeros("a"), None),
    ("zeros(2.5)", lambda L: L.zeros(2.5), None),
    ("zeros((2, 2.0))", lambda L: L.zeros((2, 2.0)), None),
    ("zeros(None)", lambda L: L.zeros(None), None),
    ("zeros(2, dtype='int')", lambda L: L.zeros(2, dtype="int"), None),
    ("zeros([2, [3]])", lambda L: L.zeros([2, [3]]), None),
    ("zeros(True)", lambda L: L.zeros(True), None),
    ("zeros(np.int64(2))", lambda L: L.zeros(np.int64(2)).tolist(), None),
    ("zeros(0-d tensor)", lambda L: L.zeros(L.tensor(2)).tolist(), None),
    ("ones(2, 3, out=int)", lambda L: L.ones(2, 3, out=L.empty(2, 3, dtype=L.long)).tolist(), None),
    ("ones(-2)", lambda L: L.ones(-2), "negative dimension"),
    ("ones(size=(2,), dtype=1)", lambda L: L.ones((2,), dtype=1), None),
    ("empty(-1)", lambda L: L.empty(-1), "negative dimension"),
    (
        "empty((2,), memory_format=channels_last)",
        lambda L: L.empty((2,), memory_format=L.channels_last),
        "channels_last",
    ),
    (
        "empty(1,2,3,4, channels_last) ok",
        lambda L: L.empty(1, 2, 3, 4, memory_format=L.channels_last).stride(),
        None,
    ),
    ("empty(2, device='cpu:x')", lambda L: L.empty(2, device="cpu:x"), None),
    ("empty(2, device='gpu')", lambda L: L.empty(2, device="gpu"), None),
    ("empty(2, device='cpu:-2')", lambda L: L.empty(2, device="cpu:-2"), None),
    ("full((2,), None)", lambda L: L.full((2,), None), None),
    ("full((2,), [1])", lambda L: L.full((2,), [1]), None),
    ("full((2,), 1e40, float16)", lambda L: L.full((2,), 1e40, dtype=L.float16), OVERFLOW),
    ("full((2,), 1e5, float16)", lambda L: L.full((2,), 1e5, dtype=L.float16), OVERFLOW),
    ("full((2,), 300, uint8)", lambda L: L.full((2,), 300, dtype=L.uint8), OVERFLOW),
    ("full((2,), -129, int8)", lambda L: L.full((2,), -129, dtype=L.int8), OVERFLOW),
    ("full((2,), nan, int32)", lambda L: L.full((2,), float("nan"), dtype=L.int32), OVERFLOW),
    ("full((2,), 1+1j, float32)", lambda L: L.full((2,), 1 + 1j, dtype=L.float32), None),
    (
        "full((2,), inf, float16) ok",
        lambda L: L.full((2,), float("inf"), dtype=L.float16).tolist(),
        None,
    ),
    ("full((2,), -1, uint8) ok", lambda L: L.full((2,), -1, dtype=L.uint8).tolist(), None),
    ("full((2,), 2, bool) ok", lambda L: L.full((2,), 2, dtype=L.bool).tolist(), None),
    ("full((2,), 1.5, int64) ok", lambda L: L.full((2,), 1.5, dtype=L.int64).tolist(), None),
    ("full((-1,), 1)", lambda L: L.full((-1,), 1.0), "negative dimension"),
    ("full_like(u8, 300)", lambda L: L.full_like(L.zeros(2, dtype=L.uint8), 300), OVERFLOW),
    ("full_like(x, 'a')", lambda L: L.full_like(_x(L), "a"), None),
    ("full_like((1, 2), 1)", lambda L: L.full_like((1, 2), 1), None),
    ("zeros_like([1, 2])", lambda L: L.zeros_like([1, 2]), None),
    ("ones_like(x, dtype='f')", lambda L: L.ones_like(_x(L), dtype="f"), None),
    ("arange(0, 10, 0)", lambda L: L.arange(0, 10, 0), "step must be nonzero"),
    (
        "arange(10, 0, 1)",
        lambda L: L.arange(10, 0, 1),
        "upper bound and lower bound inconsistent with step sign",
    ),
    ("arange(0, 10, -1)", lambda L: L.arange(0, 10, -1), "inconsistent with step sign"),
    ("arange(nan)", lambda L: L.arange(float("nan")), "unsupported range"),
    ("arange(inf)", lambda L: L.arange(float("inf")), "unsupported range"),
    ("arange('a')", lambda L: L.arange("a"), None),
    ("arange(None)", lambda L: L.arange(None), None),
    ("arange(5, dtype=bool)", lambda L: L.arange(5, dtype=L.bool), None),
    (
        "arange(0, 300, 100, uint8) ok",
        lambda L: L.arange(0, 300, 100, dtype=L.uint8).tolist(),
        None,
    ),
    ("arange(1+1j)", lambda L: L.arange(1 + 1j), None),
    ("linspace(0, 1, -1)", lambda L: L.linspace(0, 1, -1), "number of steps must be non-negative"),
    ("linspace(0, 1, 2.5)", lambda L: L.linspace(0, 1, 2.5), None),
    ("linspace(0, 1)", lambda L: L.linspace(0, 1), None),
    ("linspace('a', 1, 3)", lambda L: L.linspace("a", 1, 3), None),
    ("linspace(0, 1, 0) ok", lambda L: L.linspace(0, 1, 0).tolist(), None),
    ("logspace(0, 1, -2)", lambda L: L.logspace(0, 1, -2), "number of steps must be non-negative"),
    ("randn(-1)", lambda L: L.randn(-1), "negative dimension"),
    ("randn(2, dtype=long)", lambda L: L.randn(2, dtype=L.long), None),
    ("randn(2, generator='g')", lambda L: L.randn(2, generator="g"), None),
    ("rand(2, dtype=int32)", lambda L: L.rand(2, dtype=L.int32), None),
    ("randint(5, 1, (2,))", lambda L: L.randint(5, 1, (2,)), "random_ expects 'from' to be less"),
    ("randint(0, 0, (2,))", lambda L: L.randint(0, 0, (2,)), None),
    ("randint(10)", lambda L: L.randint(10), None),
    (
        "randint(10, (2,), dtype=float32) ok",
        lambda L: _seeded(L).randint(10, (2,), dtype=L.float32).shape,
        None,
    ),
    ("randint(0, 300, (2,), uint8)", lambda L: L.randint(0, 300, (2,), dtype=L.uint8), None),
    ("randint(10, 2)", lambda L: L.randint(10, 2), None),
    ("randperm(-1)", lambda L: L.randperm(-1), None),
    ("randperm(3, dtype=bool)", lambda L: L.randperm(3, dtype=L.bool), None),
    ("normal(0, -1, (2,))", lambda L: L.normal(0.0, -1.0, (2,)), "normal expects std >= 0.0"),
    ("bernoulli(p=2)", lambda L: L.bernoulli(L.full((2,), 2.0)), None),
    ("multinomial(neg)", lambda L: L.multinomial(L.tensor([-1.0, 2.0]), 1), None),
    (
        "multinomial(2 of 1 no replacement)",
        lambda L: L.multinomial(L.tensor([1.0, 0.0]), 3),
        "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
    ),
    ("eye(-1)", lambda L: L.eye(-1), "n must be greater or equal to 0, got -1"),
    ("eye(2, -1)", lambda L: L.eye(2, -1), "m must be greater or equal to 0, got -1"),
    ("eye(2.5)", lambda L: L.eye(2.5), None),
    ("eye('a')", lambda L: L.eye("a"), None),
    ("tensor([[1, 2], [3]])", lambda L: L.tensor([[1, 2], [3]]), "expected sequence of length"),
    ("tensor([1, 'a'])", lambda L: L.tensor([1, "a"]), None),
    ("tensor([[1], 2])", lambda L: L.tensor([[1], 2]), None),
    ("tensor(1, dtype='float')", lambda L: L.tensor(1, dtype="float"), None),
    ("tensor(1, device='xpu:x')", lambda L: L.tensor(1, device="xpu:x"), None),
    ("tensor(-1, uint8) ok", lambda L: L.tensor(-1, dtype=L.uint8).tolist(), None),
    ("tensor(256, uint8)", lambda L: L.tensor(256, dtype=L.uint8), OVERFLOW),
    ("tensor(1e40, float16) ok", lambda L: L.tensor(1e40, dtype=L.float16).tolist(), None),
    ("tensor(True, int8) ok", lambda L: L.tensor(True, dtype=L.int8).tolist(), None),
    ("tensor([1.5], bool) ok", lambda L: L.tensor([1.5], dtype=L.bool).tolist(), None),
    ("tensor(np object array)", lambda L: L.tensor(np.array(["a"], dtype=object)), None),
    ("tensor(np str array)", lambda L: L.tensor(np.array(["a"])), None),
    ("as_tensor('a')", lambda L: L.as_tensor("a"), None),
    ("as_tensor([1, None])", lambda L: L.as_tensor([1, None]), None),
    ("as_tensor([1e10], int32)", lambda L: L.as_tensor([1e10], dtype=L.int32), OVERFLOW),
    ("as_tensor(x, dtype=long) ok", lambda L: L.as_tensor(_x(L), dtype=L.long).tolist(), None),
    (
        "asarray(t, bf16, copy=False)",
        lambda L: L.asarray(_x(L), dtype=L.bfloat16, copy=False),
        "can't alias tensor with dtype 'Float' into dtype 'BFloat16'",
    ),
    (
        "asarray(t, long, copy=False)",
        lambda L: L.asarray(_x(L), dtype=L.long, copy=False),
        "can't alias tensor with dtype 'Float' into dtype 'Long'",
    ),
    (
        "asarray(np f64, float32, copy=False)",
        lambda L: L.asarray(np.ones(2), dtype=L.float32, copy=False),
        "can't alias",
    ),
    (
        "asarray(t, float32, copy=False) ok",
        lambda L: L.asarray(_x(L), dtype=L.float32, copy=False).tolist(),
        None,
    ),
    ("asarray(t, float64) ok", lambda L: L.asarray(_x(L), dtype=L.float64).tolist(), None),
    ("asarray(t, copy=True) ok", lambda L: L.asarray(_x(L), copy=True).tolist(), None),
    ("asarray('a')", lambda L: L.asarray("a"), None),
]

VIEWS = [
    ("view(4)", lambda L: _x(L).view(4), "shape '[4]' is invalid for input of size 6"),
    ("view(-1, -1)", lambda L: _x(L).view(-1, -1), "only one dimension can be inferred"),
    ("view(-2, 3)", lambda L: _x(L).view(-2, 3), "invalid shape dimension -2"),
    ("view(4, -1)", lambda L: _x(L).view(4, -1), "shape '[4, -1]' is invalid for input of size 6"),
    ("view(1.5)", lambda L: _x(L).view(1.5), None),
    ("view('a')", lambda L: _x(L).view("a"), None),
    ("t().view(6)", lambda L: _x(L).t().view(6), "view size is not compatible"),
    (
        "view(int32) size",
        lambda L: L.ones(3).view(L.float64),
        "self.size(-1) must be divisible by 2",
    ),
    ("view(dtype=float16) ok", lambda L: L.zeros(2).view(L.float16).tolist(), None),
    ("reshape(5)", lambda L: _x(L).reshape(5), "shape '[5]' is invalid for input of size 6"),
    ("reshape(-1, -1)", lambda L: _x(L).reshape(-1, -1), "only one dimension can be inferred"),
    ("reshape((2, '3'))", lambda L: _x(L).reshape((2, "3")), None),
    ("reshape(0, -1)", lambda L: _x(L).reshape(0, -1), None),
    ("reshape([]) of 1 ok", lambda L: L.ones(1).reshape([]).tolist(), None),
    (
        "permute(0)",
        lambda L: _x(L).permute(0),
        "number of dimensions in the tensor input does not match the length",
    ),
    ("permute(0, 0)", lambda L: _x(L).permute(0, 0), "permute(): duplicate dims are not allowed."),
    ("permute(0, 2)", lambda L: _x(L).permute(0, 2), "Dimension out of range"),
    ("permute(0, 1.0)", lambda L: _x(L).permute(0, 1.0), None),
    ("permute(-1, -2) ok", lambda L: _x(L).permute(-1, -2).shape, None),
    ("transpose(0, 2)", lambda L: _x(L).transpose(0, 2), "Dimension out of range"),
    ("transpose(0, 'a')", lambda L: _x(L).transpose(0, "a"), None),
    ("t() of 3-d", lambda L: L.ones(2, 2, 2).t(), "expects a tensor with <= 2 dimensions"),
    ("expand(3)", lambda L: _x(L).expand(3), "the number of sizes provided (1) must be greater"),
    (
        "expand(2, 4)",
        lambda L: _x(L).expand(2, 4),
        "The expanded size of the tensor (4) must match",
    ),
    ("expand(-1, -1, 3)", lambda L: _x(L).expand(-1, -1, 3), None),
    ("expand(2, -2)", lambda L: _x(L).expand(2, -2), None),
    ("expand(2, 3.0)", lambda L: _x(L).expand(2, 3.0), None),
    ("expand_as(ones(3))", lambda L: _x(L).expand_as(L.ones(3)), None),
    ("narrow(0, 1, 5)", lambda L: _x(L).narrow(0, 1, 5), "start (1) + length (5) exceeds"),
    ("narrow(0, 3, 1)", lambda L: _x(L).narrow(0, 3, 1), "start out of range"),
    ("narrow(0, 0, -1)", lambda L: _x(L).narrow(0, 0, -1), "narrow(): length must be non-negative"),
    ("narrow(2, 0, 1)", lambda L: _x(L).narrow(2, 0, 1), "Dimension out of range"),
    ("narrow(0, -1, 1) ok", lambda L: _x(L).narrow(0, -1, 1).tolist(), None),
    ("select(0, 2)", lambda L: _x(L).select(0, 2), "index 2 out of range for tensor of size"),
    ("select(1, -4)", lambda L: _x(L).select(1, -4), "out of range"),
    ("select(2, 0)", lambda L: _x(L).select(2, 0), "Dimension out of range"),
    ("select of 0-d", lambda L: L.tensor(1.0).select(0, 0), None),
    ("unfold(0, 3, 1)", lambda L: _x(L).unfold(0, 3, 1), "maximum size for tensor at dimension 0"),
    ("unfold(1, 2, 0)", lambda L: _x(L).unfold(1, 2, 0), "step is 0 but must be > 0"),
    ("unfold(1, -1, 1)", lambda L: _x(L).unfold(1, -1, 1), None),
    ("unfold(3, 1, 1)", lambda L: _x(L).unfold(3, 1, 1), "Dimension out of range"),
    (
        "as_strided((2, 4), (3, 1))",
        lambda L: _x(L).as_strided((2, 4), (3, 1)),
        "setStorage: sizes [2, 4], strides [3, 1]",
    ),
    (
        "as_strided((2,), (1, 1))",
        lambda L: _x(L).as_strided((2,), (1, 1)),
        "mismatch in length of strides and shape",
    ),
    (
        "as_strided((2,), (-1,))",
        lambda L: _x(L).as_strided((2,), (-1,)),
        "as_strided: Negative strides are not supported at the moment",
    ),
    ("as_strided((3,), (0,)) ok", lambda L: _x(L).as_strided((3,), (0,)).tolist(), None),
    ("squeeze(2)", lambda L: _x(L).squeeze(2), "Dimension out of range"),
    ("unsqueeze(3)", lambda L: _x(L).unsqueeze(3), "Dimension out of range"),
    (
        "flatten(1, 0)",
        lambda L: L.ones(2, 3, 4).flatten(1, 0),
        "flatten() has invalid args: start_dim cannot come after end_dim",
    ),
    ("unflatten(1, (2, 2))", lambda L: _x(L).unflatten(1, (2, 2)), None),
    ("movedim(0, 0, 1)", lambda L: _x(L).movedim((0, 1), (0,)), None),
    ("split(0)", lambda L: _x(L).split(0), "split_size can only be 0 if dimension size is 0"),
    ("split([1, 1], 1)", lambda L: _x(L).split([1, 1], 1), "split_with_sizes expects split_sizes"),
    ("chunk(0)", lambda L: _x(L).chunk(0), "chunk expects `chunks` to be greater than 0"),
    ("diagonal(0, 0, 0)", lambda L: _x(L).diagonal(0, 0, 0), "diagonal dimensions cannot be"),
    ("roll(1, dims=(0, 1))", lambda L: _x(L).roll(1, dims=(0, 1)), None),
    ("flip(0, 0)", lambda L: _x(L).flip(0, 0), "dim 0 appears multiple times"),
    ("repeat(2)", lambda L: _x(L).repeat(2), "Number of dimensions of repeat dims can not be"),
    ("repeat(2, -1)", lambda L: _x(L).repeat(2, -1), None),
]


def _setitem(target, index, value):
    target[index] = value
    return target


INDEXING = [
    ("x[2]", lambda L: _x(L)[2], "index 2 is out of bounds for dimension 0 with size 2"),
    ("x[:, 3]", lambda L: _x(L)[:, 3], "index 3 is out of bounds for dimension 1 with size 3"),
    ("x[-3]", lambda L: _x(L)[-3], "index -3 is out of bounds"),
    ("x[0, 0, 0]", lambda L: _x(L)[0, 0, 0], "too many indices for tensor of dimension 2"),
    ("x[1.5]", lambda L: _x(L)[1.5], None),
    ("x[1, 'a']", lambda L: _x(L)[1, "a"], None),
    ("x[{0}]", lambda L: _x(L)[{0}], None),
    ("x[object()]", lambda L: _x(L)[object()], None),
    ("x[[0, 2]]", lambda L: _x(L)[[0, 2]], "index 2 is out of bounds for dimension 0 with size 2"),
    ("x[tensor([2])]", lambda L: _x(L)[L.tensor([2])], None),
    (
        "x[float tensor]",
        lambda L: _x(L)[L.tensor([0.0])],
        "tensors used as indices must be long, int, byte or bool tensors",
    ),
    (
        "x[bool mask 3]",
        lambda L: _x(L)[L.tensor([True, False, True])],
        "The shape of the mask [3] at index 0 does not match the shape of the indexed tensor",
    ),
    (
        "x[bool mask (2, 2)]",
        lambda L: _x(L)[L.ones(2, 2, dtype=L.bool)],
        "does not match the shape",
    ),
    ("x[..., ...] ok", lambda L: _x(L)[..., ...].shape, None),
    ("x[::-1]", lambda L: _x(L)[::-1], "step must be greater than zero"),
    ("x[::0]", lambda L: _x(L)[::0], None),
    ("x[None, 0, None] ok", lambda L: _x(L)[None, 0, None].shape, None),
    ("x[True] ok", lambda L: _x(L)[True].shape, None),
    ("x[np.int64(1)] ok", lambda L: _x(L)[np.int64(1)].tolist(), None),
    ("x[np.array([1])] ok", lambda L: _a(L)[np.array([1])].tolist(), None),
    ("x[5:10] ok", lambda L: _x(L)[5:10].shape, None),
    ("x[2] = 1", lambda L: _setitem(_x(L), 2, 1.0), "out of bounds"),
    (
        "x[:2] = np.float32(1.5)",
        lambda L: _setitem(_x(L), slice(0, 2), np.float32(1.5)),
        "can't assign a numpy.float32 to a",
    ),
    ("x[0] = np.float32(1.5)", lambda L: _setitem(_x(L), 0, np.float32(1.5)), None),
    ("x[0] = np.bool_(True)", lambda L: _setitem(_x(L), 0, np.bool_(True)), None),
    ("x[0] = np.float64 ok", lambda L: _setitem(_x(L), 0, np.float64(1.5)).tolist(), None),
    ("x[0] = np.int64 ok", lambda L: _setitem(_x(L), 0, np.int64(4)).tolist(), None),
    (
        "x[0] = np.array([1., 2., 3.])",
        lambda L: _setitem(_x(L), 0, np.array([1.0, 2.0, 3.0])),
        "can't assign a numpy.ndarray to a",
    ),
    ("x[0] = [1, 2, 3]", lambda L: _setitem(_x(L), 0, [1, 2, 3]), "can't assign a list to a"),
    ("x[0] = 'a'", lambda L: _setitem(_x(L), 0, "a"), "can't assign a str to a"),
    ("x[0] = None", lambda L: _setitem(_x(L), 0, None), "can't assign a NoneType to a"),
    (
        "x[0] = ones(2)",
        lambda L: _setitem(_x(L), 0, L.ones(2)),
        "The expanded size of the tensor (3) must match the existing size (2)",
    ),
    ("x[0] = ones(2, 3)", lambda L: _setitem(_x(L), 0, L.ones(2, 3)), None),
    ("x[0] = ones(1, 1, 3) ok", lambda L: _setitem(_x(L), 0, L.zeros(1, 1, 3)).tolist(), None),
    ("u8[0] = 300", lambda L: _setitem(L.zeros(2, dtype=L.uint8), 0, 300), OVERFLOW),
    ("u8[0] = -1 ok", lambda L: _setitem(L.zeros(2, dtype=L.uint8), 0, -1).tolist(), None),
    ("i8[:] = 1e10", lambda L: _setitem(L.zeros(2, dtype=L.int8), slice(None), 1e10), OVERFLOW),
    ("f16[0] = 1e40 ok", lambda L: _setitem(L.zeros(2, dtype=L.float16), 0, 1e40).tolist(), None),
    ("f16[0] = 1e40j", lambda L: _setitem(L.zeros(2, dtype=L.float16), 0, 1e40j), None),
    ("x[0] = 1j", lambda L: _setitem(_x(L), 0, 1j), None),
    ("x[mask] = ones(3)", lambda L: _setitem(_x(L), _x(L) > 0, L.ones(3)), None),
    ("index_select(0, float idx)", lambda L: _x(L).index_select(0, L.tensor([0.0])), None),
    ("index_select(0, [2])", lambda L: _x(L).index_select(0, L.tensor([2])), "out of range"),
    (
        "index_select(0, 2-d idx)",
        lambda L: _x(L).index_select(0, L.zeros(1, 1, dtype=L.long)),
        "index_select(): Index is supposed to be a vector",
    ),
    ("gather(1, [[3]])", lambda L: _x(L).gather(1, L.tensor([[3]])), "out of bounds"),
    (
        "gather(1, float)",
        lambda L: _x(L).gather(1, L.tensor([[0.0]])),
        "gather(): Expected dtype int32/int64 for index",
    ),
    (
        "gather(1, 1-d)",
        lambda L: _x(L).gather(1, L.tensor([0])),
        "Index tensor must have the same number of dimensions as input tensor",
    ),
    (
        "scatter_(1, idx, src small)",
        lambda L: _x(L).scatter_(1, L.tensor([[5]]), 1.0),
        "out of bounds",
    ),
    ("index_put_ shape", lambda L: _x(L).index_put_((L.tensor([0, 1]),), L.ones(4)), None),
    (
        "masked_fill(mask float)",
        lambda L: _x(L).masked_fill(L.ones(2, 3), 1.0),
        "masked_fill_ only supports boolean masks, but got mask with dtype float",
    ),
    ("masked_fill(mask shape)", lambda L: _x(L).masked_fill(L.ones(2, 2, dtype=L.bool), 1.0), None),
    (
        "masked_fill(u8, 300)",
        lambda L: L.zeros(2, dtype=L.uint8).masked_fill(L.ones(2, dtype=L.bool), 300),
        OVERFLOW,
    ),
    (
        "masked_fill(value 1-d)",
        lambda L: _x(L).masked_fill(L.ones(2, 3, dtype=L.bool), L.ones(2)),
        None,
    ),
    (
        "index_fill(u8, 300)",
        lambda L: L.zeros(2, dtype=L.uint8).index_fill(0, L.tensor([0]), 300),
        OVERFLOW,
    ),
    ("index_fill(idx 2)", lambda L: _x(L).index_fill(0, L.tensor([2]), 1.0), None),
    ("take([6])", lambda L: _x(L).take(L.tensor([6])), "out of range"),
    ("masked_select(float mask)", lambda L: _x(L).masked_select(L.ones(2, 3)), None),
]

REDUCTIONS = [
    ("sum(2)", lambda L: _x(L).sum(2), "Dimension out of range"),
    ("sum((0, 0))", lambda L: _x(L).sum((0, 0)), "appears multiple times in the list of dims"),
    ("sum((0, -2))", lambda L: _x(L).sum((0, -2)), "appears multiple times"),
    ("sum(0, keepdim='yes')", lambda L: _x(L).sum(0, keepdim="yes"), None),
    ("sum(0, keepdim=None)", lambda L: _x(L).sum(0, keepdim=None), None),
    ("sum(dim='a')", lambda L: _x(L).sum(dim="a"), None),
    ("sum(0, dtype=bool) ok", lambda L: _x(L).sum(0, dtype=L.bool).tolist(), None),
    (
        "mean of long",
        lambda L: L.ones(2, dtype=L.long).mean(),
        "mean(): could not infer output dtype",
    ),
    ("mean(dtype=long)", lambda L: _x(L).mean(dtype=L.long), None),
    ("mean(3)", lambda L: _x(L).mean(3), "Dimension out of range"),
    ("prod((0, 1))", lambda L: _x(L).prod((0, 1)), None),
    ("max(2)", lambda L: _x(L).max(2), "Dimension out of range"),
    ("max of empty", lambda L: L.ones(0).max(), "max(): Expected reduction dim to be specified"),
    (
        "max(0) of (0, 3)",
        lambda L: L.ones(0, 3).max(0),
        "Expected reduction dim 0 to have non-zero size",
    ),
    ("min(0, keepdim=2)", lambda L: _x(L).min(0, keepdim=2), None),
    ("argmax(2)", lambda L: _x(L).argmax(2), "Dimension out of range"),
    (
        "argmax of empty",
        lambda L: L.ones(0).argmax(),
        "Expected reduction dim to be specified for input.numel() == 0",
    ),
    ("amax((0, 0))", lambda L: _x(L).amax((0, 0)), "appears multiple times"),
    ("std(correction='a')", lambda L: _x(L).std(correction="a"), None),
    ("var(0, unbiased=1, keepdim=1)", lambda L: _x(L).var(0, 1, 1), None),
    ("norm(p='fro', dim=(0, 0))", lambda L: _x(L).norm(p="fro", dim=(0, 0)), None),
    ("norm(p='nuc', dim=0)", lambda L: _x(L).norm(p="nuc", dim=0), None),
    ("logsumexp(2)", lambda L: _x(L).logsumexp(2), "Dimension out of range"),
    ("cumsum(2)", lambda L: _x(L).cumsum(2), "Dimension out of range"),
    ("cumsum(None)", lambda L: _x(L).cumsum(None), None),
    ("topk(4)", lambda L: _x(L).topk(4), "selected index k out of range"),
    ("topk(-1)", lambda L: _x(L).topk(-1), None),
    ("kthvalue(0)", lambda L: _x(L).kthvalue(0), None),
    ("sort(dim=2)", lambda L: _x(L).sort(dim=2), "Dimension out of range"),
    ("median(2)", lambda L: _x(L).median(2), "Dimension out of range"),
    ("all(2)", lambda L: _x(L).all(2), "Dimension out of range"),
    ("count_nonzero((0, 0))", lambda L: _x(L).count_nonzero((0, 0)), None),
    ("quantile(2.0)", lambda L: _x(L).quantile(2.0), "q must be in the range [0, 1]"),
    (
        "quantile(0.5, interpolation='x')",
        lambda L: _x(L).quantile(0.5, interpolation="x"),
        "interpolation must be one of linear, lower, higher, midpoint or nearest",
    ),
    (
        "bincount(neg)",
        lambda L: L.bincount(L.tensor([-1])),
        "bincount only supports 1-d non-negative",
    ),
    ("bincount(float)", lambda L: L.bincount(L.tensor([1.0])), None),
]

LINEAR_ALGEBRA = [
    (
        "mm (2,3)@(2,3)",
        lambda L: L.mm(_x(L), _x(L)),
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)",
    ),
    ("mm 1-d", lambda L: L.mm(L.ones(3), L.ones(3)), "self must be a matrix"),
    (
        "mm dtypes",
        lambda L: L.mm(_x(L), L.ones(3, 2, dtype=L.float64)),
        "expected m1 and m2 to have the same dtype",
    ),
    (
        "mm int ok",
        lambda L: L.mm(L.ones(2, 2, dtype=L.long), L.ones(2, 2, dtype=L.long)).tolist(),
        None,
    ),
    ("bmm 2-d", lambda L: L.bmm(_x(L), _x(L)), "batch1 must be a 3D tensor"),
    ("bmm batch", lambda L: L.bmm(L.ones(2, 2, 3), L.ones(3, 3, 2)), None),
    ("bmm inner", lambda L: L.bmm(L.ones(2, 2, 3), L.ones(2, 2, 2)), None),
    ("matmul (2,3)@(2,)", lambda L: L.matmul(_x(L), L.ones(2)), "size mismatch"),
    (
        "matmul 0-d",
        lambda L: L.matmul(L.tensor(1.0), L.ones(2)),
        "both arguments to matmul need to be at least 1D",
    ),
    ("matmul (3,)@(4,)", lambda L: L.matmul(L.ones(3), L.ones(4)), None),
    ("matmul batch", lambda L: L.matmul(L.ones(2, 2, 3), L.ones(3, 3, 2)), None),
    ("x @ 2", lambda L: _x(L) @ 2, None),
    ("mv mismatch", lambda L: L.mv(_x(L), L.ones(2)), None),
    ("dot mismatch", lambda L: L.dot(L.ones(3), L.ones(2)), "inconsistent tensor size"),
    ("dot 2-d", lambda L: L.dot(_x(L), _x(L)), "1D tensors expected, but got 2D and 2D tensors"),
    (
        "dot dtypes",
        lambda L: L.dot(L.ones(2), L.ones(2, dtype=L.long)),
        "dot : expected both vectors to have same dtype",
    ),
    ("outer 2-d", lambda L: L.outer(_x(L), L.ones(2)), None),
    ("addmm shapes", lambda L: L.addmm(L.ones(5), _x(L), _x(L)), None),
    ("inverse non-square", lambda L: L.inverse(_x(L)), None),
    ("det 1-d", lambda L: L.det(L.ones(3)), None),
    ("einsum bad", lambda L: L.einsum("ij,jk->ik", _x(L), _x(L)), None),
    ("einsum operands", lambda L: L.einsum("ij->ji"), None),
    ("tensordot dims", lambda L: L.tensordot(_x(L), _x(L), dims=([0], [1])), None),
    ("cross dim 3", lambda L: L.cross(_x(L), _x(L), dim=0), None),
]

JOINING = [
    ("cat([])", lambda L: L.cat([]), "expected a non-empty list of Tensors"),
    ("cat(())", lambda L: L.cat(()), None),
    (
        "cat dims",
        lambda L: L.cat([L.ones(2, 3), L.ones(2, 2)]),
        "Sizes of tensors must match except in dimension 0",
    ),
    ("cat ndim", lambda L: L.cat([L.ones(2, 3), L.ones(3)]), None),
    ("cat dim 2", lambda L: L.cat([_x(L), _x(L)], 2), "Dimension out of range"),
    (
        "cat dtypes ok",
        lambda L: L.cat([_x(L), L.ones(2, 3, dtype=L.long)]).dtype.is_floating_point,
        None,
    ),
    (
        "cat 0-d",
        lambda L: L.cat([L.tensor(1.0), L.tensor(2.0)]),
        "zero-dimensional tensor (at position 0) cannot be concatenated",
    ),
    ("cat([x, None])", lambda L: L.cat([_x(L), None]), None),
    ("cat(dim='a')", lambda L: L.cat([_x(L)], dim="a"), None),
    ("cat out overlap", lambda L: _with(L.ones(4), lambda a: L.cat([a, a], out=a)), None),
    ("stack([])", lambda L: L.stack([]), "stack expects a non-empty TensorList"),
    (
        "stack shapes",
        lambda L: L.stack([L.ones(2), L.ones(3)]),
        "stack expects each tensor to be equal size",
    ),
    ("stack dim 3", lambda L: L.stack([_x(L), _x(L)], 3), "Dimension out of range"),
    (
        "stack dtypes ok",
        lambda L: str(L.stack([L.ones(2), L.ones(2, dtype=L.long)]).dtype).split(".")[1],
        None,
    ),
    ("hstack([])", lambda L: L.hstack([]), None),
    ("vstack shapes", lambda L: L.vstack([L.ones(2), L.ones(3)]), None),
    ("split_with_sizes", lambda L: L.split(_x(L), [1, 3], 1), None),
    ("tensor_split(0)", lambda L: L.tensor_split(_x(L), 0), None),
    ("chunk(-1)", lambda L: L.chunk(_x(L), -1), None),
    ("where shapes", lambda L: L.where(L.ones(2, dtype=L.bool), L.ones(3), L.ones(3)), None),
    (
        "where float cond",
        lambda L: L.where(L.ones(2), L.ones(2), L.ones(2)),
        "where expected condition to be a boolean tensor",
    ),
    (
        "where(u8, 300)",
        lambda L: L.where(L.ones(2, dtype=L.bool), L.zeros(2, dtype=L.uint8), 300),
        None,
    ),
    ("broadcast_tensors", lambda L: L.broadcast_tensors(L.ones(2), L.ones(3)), None),
    ("broadcast_to", lambda L: L.broadcast_to(L.ones(3), (2, 2)), None),
    ("add shapes", lambda L: L.ones(2) + L.ones(3), "The size of tensor a (2) must match"),
    ("clamp(u8, min=300)", lambda L: L.zeros(2, dtype=L.uint8).clamp(min=300), OVERFLOW),
    ("clamp()", lambda L: _x(L).clamp(), "At least one of 'min' or 'max' must not be None"),
    ("clamp(min=tensor(3))", lambda L: _x(L).clamp(min=L.ones(3)), None),
]

OUT_AND_INPLACE = [
    (
        "add out overlaps input",
        lambda L: _with(L.arange(4.0), lambda x: L.add(x[:3], 1, out=x[1:])),
        INPUT_OVERLAP,
    ),
    (
        "exp out overlaps input",
        lambda L: _with(L.arange(4.0), lambda x: L.exp(x[:3], out=x[1:])),
        INPUT_OVERLAP,
    ),
    (
        "mul out overlaps other",
        lambda L: _with(L.arange(4.0), lambda x: L.mul(L.ones(3), x[:3], out=x[1:])),
        INPUT_OVERLAP,
    ),
    ("add out expanded", lambda L: L.add(L.ones(3), 1, out=L.zeros(1).expand(3)), SELF_OVERLAP),
    (
        "add out is input ok",
        lambda L: _with(L.arange(4.0), lambda x: L.add(x, 1, out=x)).tolist(),
        None,
    ),
    ("add out resized", lambda L: L.add(L.ones(3), 1, out=L.zeros(2)).tolist(), RESIZED),
    ("add out empty resized quietly", lambda L: L.add(L.ones(3), 1, out=L.zeros(0)).tolist(), None),
    ("add out long", lambda L: L.add(L.ones(3), 1, out=L.zeros(3, dtype=L.long)), CANT_CAST),
    (
        "add out bool",
        lambda L: L.add(L.ones(3, dtype=L.long), 1, out=L.zeros(3, dtype=L.bool)),
        "result type Long can't be cast to the desired output type Bool",
    ),
    (
        "add long out float ok",
        lambda L: L.add(L.ones(3, dtype=L.long), 1, out=L.zeros(3)).tolist(),
        None,
    ),
    ("add out meta", lambda L: L.add(L.ones(3), 1, out=L.zeros(3, device="meta")), None),
    ("add out=[t]", lambda L: L.add(L.ones(3), 1, out=[L.zeros(3)]), None),
    (
        "x.add(1, out=)",
        lambda L: L.ones(3).add(1, out=L.zeros(3)),
        "got an unexpected keyword argument 'out'",
    ),
    (
        "relu(out=)",
        lambda L: L.relu(L.ones(3), out=L.zeros(3)),
        "got an unexpected keyword argument 'out'",
    ),
    ("sum out resized", lambda L: L.sum(L.ones(3, 2), 0, out=L.zeros(5)).tolist(), RESIZED),
    ("max out indices float", lambda L: L.max(L.ones(3, 2), 0, out=(L.zeros(2), L.zeros(2))), None),
    (
        "max out ok",
        lambda L: [
            t.tolist() for t in L.max(L.ones(3, 2), 0, out=(L.zeros(2), L.zeros(2, dtype=L.long)))
        ],
        None,
    ),
    (
        "sort out values long",
        lambda L: L.sort(L.ones(3), out=(L.zeros(3, dtype=L.long), L.zeros(3, dtype=L.long))),
        None,
    ),
    (
        "add out=(t,)",
        lambda L: L.add(L.ones(3), 1, out=(L.zeros(3),)),
        "argument 'out' must be Tensor, not tuple",
    ),
    ("max(x, 0, out=t)", lambda L: L.max(L.ones(3, 2), 0, out=L.zeros(2)), None),
    (
        "add out=t.t() of input",
        lambda L: _with(L.ones(3, 3), lambda x: L.add(x, 1, out=x.t())),
        INPUT_OVERLAP,
    ),
    (
        "add strided disjoint out ok",
        lambda L: _with(L.zeros(6), lambda x: L.add(x[::2], 1, out=x[1::2])).tolist(),
        None,
    ),
    (
        "cumsum out overlaps input",
        lambda L: _with(L.arange(4.0), lambda x: L.cumsum(x[:3], 0, out=x[1:])),
        INPUT_OVERLAP,
    ),
    (
        "sort out overlaps input",
        lambda L: _with(
            L.arange(4.0), lambda x: L.sort(x[:3], out=(x[1:], L.zeros(3, dtype=L.long)))
        ),
        INPUT_OVERLAP,
    ),
    (
        "index_select out overlaps input",
        lambda L: _with(
            L.arange(4.0), lambda x: L.index_select(x[:3], 0, L.tensor([0, 1]), out=x[1:3])
        ),
        INPUT_OVERLAP,
    ),
    (
        "stack out overlaps input",
        lambda L: _with(L.ones(3, 3), lambda x: L.stack([x[0], x[1]], out=x[:2])),
        INPUT_OVERLAP,
    ),
    (
        "sum out overlapping input ok",
        lambda L: _with(L.ones(3, 3), lambda x: L.sum(x, 0, out=x[0])).shape,
        None,
    ),
    ("sum out expanded ok", lambda L: L.sum(L.ones(3, 3), 0, out=L.zeros(1).expand(3)).shape, None),
    (
        "mm out expanded",
        lambda L: L.mm(L.ones(3, 3), L.ones(3, 3), out=L.zeros(1, 1).expand(3, 3)),
        SELF_OVERLAP,
    ),
    (
        "cumsum out expanded",
        lambda L: L.cumsum(L.ones(3), 0, out=L.zeros(1).expand(3)),
        SELF_OVERLAP,
    ),
    (
        "sum out long computes in long ok",
        lambda L: L.sum(L.full((3, 2), 1.5), 0, out=L.zeros(2, dtype=L.long)).tolist(),
        None,
    ),
    (
        "cumsum out long ok",
        lambda L: L.cumsum(L.full((3,), 1.5), 0, out=L.zeros(3, dtype=L.long)).tolist(),
        None,
    ),
    ("mean out long", lambda L: L.mean(L.ones(3, 2), 0, out=L.zeros(2, dtype=L.long)), CANT_CAST),
    ("amax out double", lambda L: L.amax(L.ones(3, 2), 0, out=L.zeros(2, dtype=L.float64)), None),
    (
        "argmax out float",
        lambda L: L.argmax(L.ones(3, 2), 0, out=L.zeros(2)),
        "Expected out tensor to have dtype long int, but got float instead",
    ),
    (
        "mm out double",
        lambda L: L.mm(L.ones(2, 2), L.ones(2, 2), out=L.zeros(2, 2, dtype=L.float64)),
        "Expected out tensor to have dtype float, but got double",
    ),
    (
        "index_select out double",
        lambda L: L.index_select(L.ones(3), 0, L.tensor([0]), out=L.zeros(1, dtype=L.float64)),
        None,
    ),
    (
        "linalg.inv out double",
        lambda L: L.linalg.inv(L.eye(2), out=L.zeros(2, 2, dtype=L.float64)),
        "Expected out tensor to have dtype float, but got double",
    ),
    (
        "cat out double ok",
        lambda L: L.cat([L.ones(2)], out=L.zeros(2, dtype=L.float64)).tolist(),
        None,
    ),
    (
        "stack out double ok",
        lambda L: L.stack([L.ones(2)], out=L.zeros(1, 2, dtype=L.float64)).tolist(),
        None,
    ),
    (
        "max out values double",
        lambda L: L.max(
            L.ones(3, 2), 0, out=(L.zeros(2, dtype=L.float64), L.zeros(2, dtype=L.long))
        ),
        "Expected out tensor to have dtype float, but got double instead",
    ),
    ("u8.clamp_min(300)", lambda L: L.zeros(2, dtype=L.uint8).clamp_min(300), OVERFLOW),
    ("u8.clamp(max=300)", lambda L: L.zeros(2, dtype=L.uint8).clamp(max=300), OVERFLOW),
    ("u8.clamp(-1) wraps ok", lambda L: L.zeros(2, dtype=L.uint8).clamp(-1).tolist(), None),
    (
        "where(cond, 300, u8)",
        lambda L: L.where(L.ones(2, dtype=L.bool), 300, L.zeros(2, dtype=L.uint8)),
        OVERFLOW,
    ),
    (
        "where(cond, 2.5, u8) ok",
        lambda L: L.where(L.ones(2, dtype=L.bool), 2.5, L.zeros(2, dtype=L.uint8)).tolist(),
        None,
    ),
    ("expand(3, 3).add_(1)", lambda L: L.ones(1).expand(3, 3).add_(1), SELF_OVERLAP),
    ("expand(3, 3).mul_(2)", lambda L: L.ones(3, 1).expand(3, 3).mul_(2), SELF_OVERLAP),
    ("expand(3).copy_()", lambda L: L.ones(1).expand(3).copy_(L.arange(3.0)), SELF_OVERLAP),
    ("expand(3).fill_(2) ok", lambda L: L.ones(1).expand(3).fill_(2).tolist(), None),
    ("expand(3).zero_() ok", lambda L: L.ones(1).expand(3).zero_().tolist(), None),
    ("expand(3) += 1", lambda L: L.ones(1).expand(3).__iadd__(1), SELF_OVERLAP),
    (
        "ones(3).add_(ones(2, 3))",
        lambda L: L.ones(3).add_(L.ones(2, 3)),
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
    ),
    (
        "ones(1, 3).mul_(ones(3, 1))",
        lambda L: L.ones(1, 3).mul_(L.ones(3, 1)),
        "output with shape [1, 3] doesn't match the broadcast shape [3, 3]",
    ),
    (
        "long.add_(1.5)",
        lambda L: L.ones(3, dtype=L.long).add_(1.5),
        "result type Float can't be cast to the desired output type Long",
    ),
    ("bool.add_(1)", lambda L: L.ones(3, dtype=L.bool).add_(1), CANT_CAST),
    ("long.div_(2)", lambda L: L.ones(3, dtype=L.long).div_(2), CANT_CAST),
    ("long.sqrt_()", lambda L: L.ones(3, dtype=L.long).sqrt_(), CANT_CAST),
    ("u8.add_(300) wraps ok", lambda L: L.zeros(2, dtype=L.uint8).add_(300).tolist(), None),
    ("u8.fill_(300)", lambda L: L.zeros(2, dtype=L.uint8).fill_(300), OVERFLOW),
    ("u8.fill_(-1) ok", lambda L: L.zeros(2, dtype=L.uint8).fill_(-1).tolist(), None),
    ("i8.fill_(1e10)", lambda L: L.zeros(2, dtype=L.int8).fill_(1e10), OVERFLOW),
    ("f16.fill_(1e40)", lambda L: L.zeros(2, dtype=L.float16).fill_(1e40), OVERFLOW),
    (
        "leaf.add_() requiring grad",
        lambda L: L.ones(2, requires_grad=True).add_(1),
        "a leaf Variable that requires grad is being used in an in-place operation",
    ),
    ("view of leaf mul_", lambda L: L.ones(2, requires_grad=True)[:1].mul_(2), None),
]

NN_FUNCTIONAL = [
    (
        "conv2d channels",
        lambda L: L.nn.functional.conv2d(_img(L), L.ones(4, 3, 3, 3)),
        "expected input[1, 2, 5, 5] to have 3 channels, but got 2 channels instead",
    ),
    (
        "conv2d kernel too big",
        lambda L: L.nn.functional.conv2d(_img(L), L.ones(1, 2, 7, 7)),
        "Kernel size can't be greater than actual input size",
    ),
    ("conv2d 2-d input", lambda L: L.nn.functional.conv2d(L.ones(5, 5), L.ones(1, 1, 3, 3)), None),
    (
        "conv2d stride 0",
        lambda L: L.nn.functional.conv2d(_img(L), L.ones(1, 2, 3, 3), stride=0),
        "non-positive stride is not supported",
    ),
    (
        "conv2d padding -1",
        lambda L: L.nn.functional.conv2d(_img(L), L.ones(1, 2, 3, 3), padding=-1),
        "negative padding is not supported",
    ),
    (
        "conv2d padding='x'",
        lambda L: L.nn.functional.conv2d(_img(L), L.ones(1, 2, 3, 3), padding="x"),
        None,
    ),
    (
        "conv2d groups",
        lambda L: L.nn.functional.conv2d(_img(L), L.ones(1, 2, 3, 3), groups=2),
        None,
    ),
    (
        "conv2d bias shape",
        lambda L: L.nn.functional.conv2d(_img(L), L.ones(1, 2, 3, 3), bias=L.ones(2)),
        None,
    ),
    (
        "conv1d weight 4-d",
        lambda L: L.nn.functional.conv1d(L.ones(1, 2, 5), L.ones(1, 2, 3, 3)),
        None,
    ),
    (
        "conv2d dtypes",
        lambda L: L.nn.functional.conv2d(_img(L), L.ones(1, 2, 3, 3, dtype=L.float64)),
        None,
    ),
    ("max_pool2d kernel 0", lambda L: L.nn.functional.max_pool2d(_img(L), 0), None),
    (
        "max_pool2d pad too big",
        lambda L: L.nn.functional.max_pool2d(_img(L), 2, padding=2),
        "pad should be at most half of effective kernel size",
    ),
    ("avg_pool2d kernel big", lambda L: L.nn.functional.avg_pool2d(_img(L), 7), None),
    (
        "cross_entropy target 5",
        lambda L: L.nn.functional.cross_entropy(L.ones(2, 3), L.tensor([0, 5])),
        "Target 5 is out of bounds",
    ),
    (
        "cross_entropy target -2",
        lambda L: L.nn.functional.cross_entropy(L.ones(2, 3), L.tensor([0, -2])),
        None,
    ),
    (
        "cross_entropy target float shape",
        lambda L: L.nn.functional.cross_entropy(L.ones(2, 3), L.ones(2)),
        None,
    ),
    (
        "cross_entropy batch",
        lambda L: L.nn.functional.cross_entropy(L.ones(2, 3), L.tensor([0, 1, 2])),
        "Expected input batch_size (2) to match target",
    ),
    (
        "cross_entropy reduction='x'",
        lambda L: L.nn.functional.cross_entropy(L.ones(2, 3), L.tensor([0, 1]), reduction="x"),
        "x is not a valid value for reduction",
    ),
    (
        "cross_entropy label_smoothing 2",
        lambda L: L.nn.functional.cross_entropy(
            L.ones(2, 3), L.tensor([0, 1]), label_smoothing=2.0
        ),
        None,
    ),
    (
        "nll_loss weight shape",
        lambda L: L.nn.functional.nll_loss(L.ones(2, 3), L.tensor([0, 1]), weight=L.ones(2)),
        None,
    ),
    (
        "mse_loss shapes warn",
        lambda L: L.nn.functional.mse_loss(L.ones(2, 1), L.ones(2)).tolist(),
        "Using a target size",
    ),
    (
        "mse_loss shapes bad",
        lambda L: L.nn.functional.mse_loss(L.ones(2), L.ones(3)),
        "The size of tensor a (2) must match",
    ),
    (
        "binary_cross_entropy > 1",
        lambda L: L.nn.functional.binary_cross_entropy(L.full((2,), 2.0), L.ones(2)),
        "all elements of input should be between 0 and 1",
    ),
    (
        "binary_cross_entropy sizes",
        lambda L: L.nn.functional.binary_cross_entropy(L.full((2,), 0.5), L.ones(3)),
        None,
    ),
    ("pad odd", lambda L: L.nn.functional.pad(_x(L), (1,)), "Padding length must be divisible"),
    (
        "pad too long",
        lambda L: L.nn.functional.pad(_x(L), (1, 1, 1, 1, 1, 1)),
        "Padding length should be less than or equal to two times the input dimension",
    ),
    ("pad mode='x'", lambda L: L.nn.functional.pad(_x(L), (1, 1), mode="x"), None),
    (
        "pad reflect too big",
        lambda L: L.nn.functional.pad(L.ones(1, 1, 3), (3, 3), mode="reflect"),
        None,
    ),
    ("pad negative ok", lambda L: L.nn.functional.pad(_x(L), (-1, 0)).shape, None),
    (
        "interpolate size and scale",
        lambda L: L.nn.functional.interpolate(_img(L), size=3, scale_factor=2.0),
        "only one of size or scale_factor should be defined",
    ),
    (
        "interpolate neither",
        lambda L: L.nn.functional.interpolate(_img(L)),
        "either size or scale_factor should be defined",
    ),
    (
        "interpolate mode='x'",
        lambda L: L.nn.functional.interpolate(_img(L), size=3, mode="x"),
        None,
    ),
    (
        "interpolate bilinear 3-d",
        lambda L: L.nn.functional.interpolate(L.ones(1, 2, 5), size=3, mode="bilinear"),
        None,
    ),
    ("interpolate size len", lambda L: L.nn.functional.interpolate(_img(L), size=(3, 3, 3)), None),
    (
        "interpolate align nearest",
        lambda L: L.nn.functional.interpolate(_img(L), size=3, align_corners=True),
        None,
    ),
    (
        "softmax no dim warns",
        lambda L: L.nn.functional.softmax(L.ones(3)).tolist(),
        "Implicit dimension choice for softmax has been deprecated",
    ),
    ("softmax(dim=2)", lambda L: L.nn.functional.softmax(_x(L), 2), "Dimension out of range"),
    (
        "dropout(p=2)",
        lambda L: L.nn.functional.dropout(_x(L), 2.0),
        "dropout probability has to be between 0 and 1, but got 2.0",
    ),
    ("dropout(p=-0.1)", lambda L: L.nn.functional.dropout(_x(L), -0.1), None),
    (
        "linear shapes",
        lambda L: L.nn.functional.linear(_x(L), L.ones(4, 2)),
        "mat1 and mat2 shapes cannot be multiplied",
    ),
    (
        "embedding index out of range",
        lambda L: L.nn.functional.embedding(L.tensor([5]), L.ones(3, 2)),
        "index out of range in self",
    ),
    (
        "embedding float index",
        lambda L: L.nn.functional.embedding(L.tensor([0.0]), L.ones(3, 2)),
        None,
    ),
    (
        "one_hot(-1 value)",
        lambda L: L.nn.functional.one_hot(L.tensor([-1])),
        "Class values must be non-negative.",
    ),
    (
        "one_hot too small",
        lambda L: L.nn.functional.one_hot(L.tensor([3]), 2),
        "Class values must be smaller than num_classes.",
    ),
    ("one_hot float", lambda L: L.nn.functional.one_hot(L.tensor([1.0])), None),
    ("layer_norm shape", lambda L: L.nn.functional.layer_norm(_x(L), (2,)), None),
    (
        "batch_norm running shape",
        lambda L: L.nn.functional.batch_norm(_x(L), L.zeros(2), L.ones(2)),
        None,
    ),
    ("group_norm groups", lambda L: L.nn.functional.group_norm(L.ones(1, 3, 2), 2), None),
    ("unfold 3-d", lambda L: L.nn.functional.unfold(L.ones(2, 3), 2), None),
    (
        "grid_sample grid shape",
        lambda L: L.nn.functional.grid_sample(_img(L), L.zeros(1, 2, 2, 3), align_corners=False),
        None,
    ),
    (
        "kl_div reduction warn",
        lambda L: L.nn.functional.kl_div(L.zeros(2), L.ones(2)).tolist(),
        None,
    ),
]


NN_MODULES = [
    (
        "Linear in_features",
        lambda L: L.nn.Linear(4, 2)(_x(L)),
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)",
    ),
    ("Linear(-1, 2)", lambda L: L.nn.Linear(-1, 2), None),
    ("Linear(2.5, 2)", lambda L: L.nn.Linear(2.5, 2), None),
    ("Linear int input", lambda L: L.nn.Linear(3, 2)(L.ones(2, 3, dtype=L.long)), None),
    (
        "Conv2d kernel > input",
        lambda L: L.nn.Conv2d(2, 1, 7)(_img(L)),
        "Kernel size can't be greater than actual input size",
    ),
    ("Conv2d channels", lambda L: L.nn.Conv2d(3, 1, 3)(_img(L)), "to have 3 channels"),
    (
        "Conv2d groups",
        lambda L: L.nn.Conv2d(3, 2, 3, groups=2),
        "in_channels must be divisible by groups",
    ),
    ("Conv2d padding_mode", lambda L: L.nn.Conv2d(2, 2, 3, padding_mode="x"), None),
    (
        "Conv2d padding='same' stride",
        lambda L: L.nn.Conv2d(2, 2, 3, padding="same", stride=2),
        "padding='same' is not supported for strided convolutions",
    ),
    ("Conv2d padding='x'", lambda L: L.nn.Conv2d(2, 2, 3, padding="x"), None),
    ("Conv1d 4-d input", lambda L: L.nn.Conv1d(2, 1, 3)(_img(L)), None),
    ("BatchNorm1d channels", lambda L: L.nn.BatchNorm1d(4)(_x(L)), None),
    ("BatchNorm2d channels", lambda L: L.nn.BatchNorm2d(3)(_img(L)), None),
    (
        "BatchNorm2d 2-d input",
        lambda L: L.nn.BatchNorm2d(2)(_x(L)),
        "expected 4D input (got 2D input)",
    ),
    (
        "BatchNorm1d batch 1 training",
        lambda L: L.nn.BatchNorm1d(3)(L.ones(1, 3)),
        "Expected more than 1 value per channel when training",
    ),
    ("LayerNorm shape", lambda L: L.nn.LayerNorm(4)(_x(L)), None),
    (
        "Embedding index",
        lambda L: L.nn.Embedding(3, 2)(L.tensor([3])),
        "index out of range in self",
    ),
    (
        "Embedding padding_idx",
        lambda L: L.nn.Embedding(3, 2, padding_idx=5),
        "Padding_idx must be within num_embeddings",
    ),
    (
        "Dropout(p=1.5)",
        lambda L: L.nn.Dropout(1.5),
        "dropout probability has to be between 0 and 1, but got 1.5",
    ),
    (
        "LSTM input size",
        lambda L: L.nn.LSTM(4, 2)(L.ones(1, 1, 3)),
        "input.size(-1) must be equal to input_size",
    ),
    ("LSTM 4-d input", lambda L: L.nn.LSTM(3, 2)(L.ones(1, 1, 1, 3)), None),
    ("MaxPool2d on 2-d", lambda L: L.nn.MaxPool2d(2)(L.ones(2)), None),
    ("Sequential bad module", lambda L: L.nn.Sequential(L.nn.ReLU(), 3), None),
    ("add_module bad name", lambda L: L.nn.Module().add_module("a.b", L.nn.ReLU()), "got: a.b"),
    (
        "add_module not module",
        lambda L: L.nn.Module().add_module("a", 3),
        "is not a Module subclass",
    ),
    (
        "register_parameter tensor",
        lambda L: L.nn.Module().register_parameter("w", _x(L)),
        "object to parameter 'w' (torch.nn.Parameter or None required)",
    ),
    (
        "load_state_dict missing",
        lambda L: L.nn.Linear(2, 2).load_state_dict({}),
        "Missing key(s) in state_dict",
    ),
    (
        "load_state_dict shape",
        lambda L: L.nn.Linear(2, 2).load_state_dict({"weight": L.ones(3, 3), "bias": L.ones(2)}),
        "size mismatch for weight",
    ),
    ("Flatten bad dims", lambda L: L.nn.Flatten(2, 1)(L.ones(2, 3, 4)), None),
    ("Softmax dim 3", lambda L: L.nn.Softmax(3)(_x(L)), "Dimension out of range"),
    (
        "CrossEntropyLoss target",
        lambda L: L.nn.CrossEntropyLoss()(L.ones(2, 3), L.tensor([3, 0])),
        "Target 3 is out of bounds",
    ),
]


def _optimizer(L, name, **options):
    return getattr(L.optim, name)([L.nn.Parameter(L.ones(2))], **options)


OPTIM = [
    ("SGD lr -1", lambda L: _optimizer(L, "SGD", lr=-1.0), "Invalid learning rate: -1.0"),
    (
        "SGD momentum -1",
        lambda L: _optimizer(L, "SGD", lr=0.1, momentum=-1.0),
        "Invalid momentum value: -1.0",
    ),
    (
        "SGD nesterov no momentum",
        lambda L: _optimizer(L, "SGD", lr=0.1, nesterov=True),
        "Nesterov momentum requires a momentum and zero dampening",
    ),
    (
        "SGD weight_decay -1",
        lambda L: _optimizer(L, "SGD", lr=0.1, weight_decay=-1.0),
        "Invalid weight_decay value: -1.0",
    ),
    ("Adam lr -1", lambda L: _optimizer(L, "Adam", lr=-1.0), "Invalid learning rate: -1.0"),
    (
        "Adam betas 1.5",
        lambda L: _optimizer(L, "Adam", betas=(1.5, 0.9)),
        "Invalid beta parameter at index 0: 1.5",
    ),
    ("Adam eps -1", lambda L: _optimizer(L, "Adam", eps=-1.0), "Invalid epsilon value: -1.0"),
    (
        "AdamW weight_decay -1",
        lambda L: _optimizer(L, "AdamW", weight_decay=-1.0),
        "Invalid weight_decay value: -1.0",
    ),
    (
        "RMSprop alpha -1",
        lambda L: _optimizer(L, "RMSprop", alpha=-1.0),
        "Invalid alpha value: -1.0",
    ),
    (
        "Adagrad lr_decay -1",
        lambda L: _optimizer(L, "Adagrad", lr_decay=-1.0),
        "Invalid lr_decay value: -1.0",
    ),
    (
        "SGD empty params",
        lambda L: L.optim.SGD([], lr=0.1),
        "optimizer got an empty parameter list",
    ),
    (
        "SGD params tensor",
        lambda L: L.optim.SGD(L.ones(2), lr=0.1),
        "params argument given to the optimizer should be an iterable of Tensors or dicts",
    ),
    (
        "SGD params not tensors",
        lambda L: L.optim.SGD([1, 2], lr=0.1),
        "optimizer can only optimize Tensors",
    ),
    (
        "SGD non-leaf param",
        lambda L: L.optim.SGD([L.ones(2, requires_grad=True) * 2], lr=0.1),
        "can't optimize a non-leaf Tensor",
    ),
    (
        "SGD duplicate params warns",
        lambda L: _with(
            L.nn.Parameter(L.ones(2)), lambda p: len(L.optim.SGD([p, p], lr=0.1).param_groups)
        ),
        "optimizer contains a parameter group with duplicate parameters",
    ),
    ("SGD set params", lambda L: L.optim.SGD({L.nn.Parameter(L.ones(2))}, lr=0.1), None),
    (
        "add_param_group overlapping",
        lambda L: _with(
            L.nn.Parameter(L.ones(2)),
            lambda p: L.optim.SGD([p], lr=0.1).add_param_group({"params": [p]}),
        ),
        "some parameters appear in more than one parameter group",
    ),
    (
        "load_state_dict groups",
        lambda L: _optimizer(L, "SGD", lr=0.1).load_state_dict({"state": {}, "param_groups": []}),
        "loaded state dict has a different number of parameter groups",
    ),
    ("StepLR bad optimizer", lambda L: L.optim.lr_scheduler.StepLR(3, 1), None),
]

DTYPES_DEVICES = [
    ("device('xyz')", lambda L: L.device("xyz"), None),
    ("device('cpu:-1')", lambda L: L.device("cpu:-1"), None),
    ("device('cpu', -1)", lambda L: L.device("cpu", -1), None),
    ("device('cpu:0:1')", lambda L: L.device("cpu:0:1"), None),
    ("device(1.5)", lambda L: L.device(1.5), None),
    ("device('cpu') ok", lambda L: str(L.device("cpu")), None),
    ("x.to('xyz')", lambda L: _x(L).to("xyz"), None),
    ("x.to('float32')", lambda L: _x(L).to("float32"), None),
    ("x.to(3)", lambda L: _x(L).to(3), None),
    ("x.to(dtype='float')", lambda L: _x(L).to(dtype="float"), None),
    ("x.type('xyz')", lambda L: _x(L).type("xyz"), None),
    (
        "x.type(torch.LongTensor-str) ok",
        lambda L: _x(L).type(L.__name__ + ".LongTensor").tolist(),
        None,
    ),
    (
        "get_default_dtype set int",
        lambda L: L.set_default_dtype(L.int64),
        "only floating-point types are supported as the default type",
    ),
    ("set_default_dtype('float')", lambda L: L.set_default_dtype("float"), None),
    ("set_grad_enabled(None)", lambda L: L.set_grad_enabled(None), "must be bool, not NoneType"),
    ("set_grad_enabled('yes')", lambda L: L.set_grad_enabled("yes"), "must be bool, not str"),
    ("iinfo(float32)", lambda L: L.iinfo(L.float32), None),
    ("finfo(int32)", lambda L: L.finfo(L.int32), None),
    ("promote_types('a', float)", lambda L: L.promote_types("a", L.float32), None),
    ("can_cast(1, float)", lambda L: L.can_cast(1, L.float32), None),
    ("result_type('a', 1)", lambda L: L.result_type("a", 1), None),
]


AUTOGRAD = [
    (
        "backward non-scalar",
        lambda L: (L.ones(2, requires_grad=True) * 2).backward(),
        "grad can be implicitly created only for scalar outputs",
    ),
    (
        "backward no grad",
        lambda L: L.ones(2).sum().backward(),
        "element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    (
        "backward twice",
        lambda L: _with(
            (L.ones(2, requires_grad=True).exp()).sum(),
            lambda y: (y.backward(retain_graph=False), y.backward()),
        ),
        "Trying to backward through the graph a second time",
    ),
    (
        "backward grad shape",
        lambda L: (L.ones(2, requires_grad=True) * 2).backward(L.ones(3)),
        "Mismatch in shape: grad_output[0] has a shape of",
    ),
    (
        "backward grad dtype",
        lambda L: (L.ones(2, requires_grad=True) * 2).backward(L.ones(2, dtype=L.long)),
        None,
    ),
    (
        "requires_grad on int",
        lambda L: L.ones(2, dtype=L.long).requires_grad_(),
        "only Tensors of floating point dtype can require gradients",
    ),
    (
        "tensor(int, requires_grad)",
        lambda L: L.tensor([1], requires_grad=True),
        "Only Tensors of floating point and complex dtype can require gradients",
    ),
    (
        "requires_grad_ non-leaf off",
        lambda L: (L.ones(2, requires_grad=True) * 2).requires_grad_(False),
        "you can only change requires_grad flags of leaf variables",
    ),
    (
        "non-leaf .grad warns",
        lambda L: (L.ones(2, requires_grad=True) * 2).grad,
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed",
    ),
    (
        "retain_grad no grad",
        lambda L: L.ones(2).retain_grad(),
        "can't retain_grad on Tensor that has requires_grad=False",
    ),
    (
        "grad unrelated",
        lambda L: L.autograd.grad(
            L.ones(2, requires_grad=True).sum(), L.ones(2, requires_grad=True)
        ),
        "The differentiated Tensor at index 0 appears to not have been used in the graph",
    ),
    (
        "grad unrelated allow_unused ok",
        lambda L: L.autograd.grad(
            L.ones(2, requires_grad=True).sum(), L.ones(2, requires_grad=True), allow_unused=True
        ),
        None,
    ),
    (
        "grad of non-scalar",
        lambda L: _with(L.ones(2, requires_grad=True), lambda x: L.autograd.grad(x * 2, x)),
        "grad can be implicitly created only for scalar outputs",
    ),
    (
        "grad input no grad",
        lambda L: L.autograd.grad(L.ones(2, requires_grad=True).sum(), L.ones(2)),
        "One of the differentiated Tensors does not require grad",
    ),
    (
        "numpy() requiring grad",
        lambda L: L.ones(2, requires_grad=True).numpy(),
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
    ),
    (
        "item() of 2",
        lambda L: L.ones(2).item(),
        "a Tensor with 2 elements cannot be converted to Scalar",
    ),
    (
        "bool(ones(2))",
        lambda L: bool(L.ones(2)),
        "Boolean value of Tensor with more than one value is ambiguous",
    ),
    ("int(ones(2))", lambda L: int(L.ones(2)), "only one element tensors can be converted"),
    ("len(0-d)", lambda L: len(L.tensor(1.0)), "len() of a 0-d tensor"),
    ("iter(0-d)", lambda L: iter(L.tensor(1.0)), "iteration over a 0-d tensor"),
    (
        "in-place on saved",
        lambda L: _with(
            L.ones(2, requires_grad=True),
            lambda x: _with(x.exp(), lambda y: (y.mul_(2), y.sum().backward())),
        ),
        "one of the variables needed for gradient computation has been modified by an inplace",
    ),
]


SERIALIZATION = [
    (
        "load('no such file')",
        lambda L: L.load("/nonexistent/ember_bad_table.pt"),
        "No such file or directory",
    ),
    (
        "load(BytesIO garbage)",
        lambda L: L.load(io.BytesIO(b"not a checkpoint"), weights_only=False),
        None,
    ),
    ("load(BytesIO empty)", lambda L: L.load(io.BytesIO(b"")), None),
    ("load(3)", lambda L: L.load(3), None),
    ("save(x, 3)", lambda L: L.save(_x(L), 3), None),
    ("save(x, dir)", lambda L: L.save(_x(L), "/"), None),
]


def _read_only(array):
    array.setflags(write=False)
    return array


def _scheduler_step_first(L):
    optimizer = L.optim.SGD([L.nn.Parameter(L.ones(1))], lr=0.1)
    L.optim.lr_scheduler.StepLR(optimizer, 1).step()
    return optimizer.param_groups[0]["lr"]


def _clip_infinite_grad(L):
    parameter = L.nn.Parameter(L.ones(1))
    parameter.grad = L.tensor([float("inf")])
    return L.nn.utils.clip_grad_norm_([parameter], 1.0)


# Calls PyTorch answers with a warning (and a result): the warnings' classes are compared.
WARNINGS = [
    (
        "complex.float() warns",
        lambda L: L.tensor([1 + 2j]).float().tolist(),
        "Casting complex values to real discards the imaginary part",
    ),
    (
        "complex.to(float32) warns",
        lambda L: L.tensor([1 + 2j]).to(L.float32).tolist(),
        "Casting complex values to real discards the imaginary part",
    ),
    (
        "real.copy_(complex) warns",
        lambda L: L.zeros(1).copy_(L.tensor([1 + 2j])).tolist(),
        "discards the imaginary part",
    ),
    (
        "as_tensor(read-only array) warns",
        lambda L: L.as_tensor(_read_only(np.ones(2))).tolist(),
        "The given NumPy array is not writable",
    ),
    (
        "from_numpy(read-only array) warns",
        lambda L: L.from_numpy(_read_only(np.ones(2))).tolist(),
        "The given NumPy array is not writable",
    ),
    (
        "tensor(tensor) warns",
        lambda L: L.tensor(L.ones(2)).tolist(),
        "To copy construct from a tensor",
    ),
    ("3-d .T warns", lambda L: L.ones(2, 3, 4).T.shape, None),
    (
        "std of one element warns",
        lambda L: L.ones(1).std().isnan().tolist(),
        "degrees of freedom is <= 0",
    ),
    (
        "var correction > n warns",
        lambda L: L.ones(2, 1).var(0, correction=3).isnan().tolist(),
        "degrees of freedom is <= 0",
    ),
    ("range warns", lambda L: L.range(0, 3).tolist(), "is deprecated"),
    (
        "uint8 mask index warns",
        lambda L: L.ones(3)[L.tensor([1, 0, 1], dtype=L.uint8)].tolist(),
        "please use a dtype",
    ),
    (
        "where(uint8 condition) warns",
        lambda L: L.where(L.tensor([1, 0], dtype=L.uint8), L.ones(2), L.zeros(2)).tolist(),
        "where received a uint8 condition tensor",
    ),
    (
        "log_softmax without dim warns",
        lambda L: L.nn.functional.log_softmax(L.ones(3)).tolist(),
        "Implicit dimension choice for log_softmax has been deprecated",
    ),
    (
        "l1_loss sizes warn",
        lambda L: L.nn.functional.l1_loss(L.ones(2, 1), L.ones(2)).tolist(),
        "Using a target size",
    ),
    (
        "smooth_l1_loss sizes warn",
        lambda L: L.nn.functional.smooth_l1_loss(L.ones(2, 1), L.ones(2)).tolist(),
        "Using a target size",
    ),
    (
        "binary_cross_entropy sizes (2, 1) and (2,)",
        lambda L: L.nn.functional.binary_cross_entropy(L.full((2, 1), 0.5), L.ones(2)),
        None,
    ),
    (
        "upsample warns",
        lambda L: L.nn.functional.upsample(L.ones(1, 1, 2), scale_factor=2.0).tolist(),
        "upsample` is deprecated",
    ),
    (
        "dropout2d on 3-d warns",
        lambda L: L.nn.functional.dropout2d(L.ones(2, 2, 2), training=False).tolist(),
        "dropout2d: Received a 3D input to dropout2d",
    ),
    (
        "LSTM dropout with one layer warns",
        lambda L: L.nn.LSTM(2, 2, dropout=0.5).dropout,
        "dropout option adds dropout after all but last recurrent layer",
    ),
    (
        "meshgrid without indexing",
        lambda L: [t.tolist() for t in L.meshgrid(L.arange(2), L.arange(2))],
        None,
    ),
    (
        "scheduler step before optimizer warns",
        _scheduler_step_first,
        "Detected call of `lr_scheduler.step()` before `optimizer.step()`",
    ),
    ("clip_grad_norm_ of inf", lambda L: _clip_infinite_grad(L).tolist(), None),
    ("resize_ of a non-empty tensor ok", lambda L: L.ones(2).resize_(3).shape, None),
    ("tensor(1e300, float32) is inf", lambda L: L.tensor([1e300], dtype=L.float32).tolist(), None),
    (
        "xavier_uniform_ of 1-d",
        lambda L: L.nn.init.xavier_uniform_(L.empty(3)),
        "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
    ),
    (
        "kaiming_uniform_ of empty warns",
        lambda L: L.nn.init.kaiming_uniform_(L.empty(0, 2)).shape,
        "Initializing zero-element tensors is a no-op",
    ),
]

# Found by the fuzzer (tests/bad_input/fuzz_cli.py) in the pointwise, BLAS and factory ops.
FUZZ_POINTWISE_BLAS_FACTORIES = [
    ("addcdiv(x, x, 2): a number for tensor2", lambda L: L.addcdiv(_x(L), _x(L), 2),
     "must be Tensor, not int"),
    ("addcmul(x, 1.5, x): a number for tensor1", lambda L: L.addcmul(_x(L), 1.5, _x(L)),
     "must be Tensor, not float"),
    ("igamma method with a NumPy number", lambda L: _x(L).igamma(np.float32(2.0)),
     "must be Tensor"),
    ("igammac(1, x): a number for input", lambda L: L.igammac(1, _x(L)), "must be Tensor"),
    ("atan2(x, 2)", lambda L: L.atan2(_x(L), 2), "must be Tensor"),
    ("clamp_max(2.0, x): a number for input", lambda L: L.clamp_max(2.0, _x(L)), None),
    ("eq(1, x): a number for input", lambda L: L.eq(1, _x(L)), None),
    ("rsub(2, x)", lambda L: L.rsub(2, _x(L)), None),
    ("dist(2, x)", lambda L: L.dist(2, _x(L)), "must be Tensor"),
    ("where(cond, x): two arguments", lambda L: L.where(_x(L) > 0, _x(L)),
     "received an invalid combination of arguments"),
    ("clamp(x, tensor, number)", lambda L: L.clamp(_x(L), _x(L), 1),
     "received an invalid combination of arguments"),
    ("x.clamp_(number, max=tensor)", lambda L: _x(L).clamp_(1, max=_x(L)),
     "received an invalid combination of arguments"),
    ("clamp(x, 0-d tensor, number) ok", lambda L: L.clamp(_a(L), L.tensor(1.0), 4).tolist(),
     None),
    ("clamp(bool, bool tensor, bool tensor)",
     lambda L: L.clamp(L.ones(2, dtype=L.bool), L.ones(2, dtype=L.bool), L.ones(2, dtype=L.bool)),
     '"clamp_cpu" not implemented'),
    ("clamp_max(bool, bool tensor) ok",
     lambda L: L.ones(2, dtype=L.bool).clamp_max(L.zeros(2, dtype=L.bool)).tolist(), None),
    ("clamp(bool, max=True)", lambda L: L.clamp(L.ones(2, dtype=L.bool), max=True),
     '"clamp_max_scalar_cpu" not implemented'),
    ("clamp(bool, 0, 1) computes in long", lambda L: L.clamp(L.ones(2, dtype=L.bool), 0,
                                                            1).tolist(), None),
    ("clamp(complex, max=None)", lambda L: L.ones(2, dtype=L.complex64).clamp(max=None),
     "At least one of 'min' or 'max' must not be None"),
    ("hardshrink(x, 2**70)", lambda L: L.hardshrink(_x(L), 2 ** 70), "int too big to convert"),
    ("add(x, x, alpha=-2**64)", lambda L: L.add(_x(L), _x(L), alpha=-2 ** 64),
     "can't convert negative int to unsigned"),
    ("add(int, int, alpha=2**70)", lambda L: L.add(L.ones(2, dtype=L.int64), L.ones(
        2, dtype=L.int64), alpha=2 ** 70), "int too big to convert"),
    ("hardshrink(float16, 1+1j)", lambda L: L.hardshrink(L.ones(2, dtype=L.float16), 1 + 1j),
     "without overflow"),
    ("threshold(x, 1+1j, 1)", lambda L: L.threshold(_x(L), 1 + 1j, 1.0), "without overflow"),
    ("add alpha NumPy complex64: its real part", lambda L: L.add(
        _x(L), _x(L), alpha=np.complex64(2 + 1j)).tolist(), None),
    ("addcdiv value 1+1j", lambda L: L.addcdiv(_x(L), _x(L), _x(L), value=1 + 1j),
     "without overflow"),
    ("logit(int, eps=1e300)", lambda L: L.ones(2, dtype=L.int32).logit(1e300),
     "without overflow"),
    ("chain_matmul([x]): a list is no tensor", lambda L: L.chain_matmul([_x(L)]),
     "expected Tensor as element 0 in argument 0, but got list"),
    ("rand((2,), layout='a')", lambda L: L.rand((2,), layout="a"), None),
    ("eye(2, layout='a')", lambda L: L.eye(2, layout="a"), None),
    ("full_like(x, 1, layout=1)", lambda L: L.full_like(_x(L), 1, layout=1),
     "must be torch.layout, not int"),
    ("new_zeros((2,), layout=object())", lambda L: _x(L).new_zeros((2,), layout=object()),
     "must be torch.layout, not object"),
    ("nanmean(dtype=bool)", lambda L: _x(L).nanmean(dtype=L.bool),
     "Optional dtype must be either a floating point or complex dtype"),
    ("sum((True,)): a bool is no dim", lambda L: _x(L).sum((True,)), None),
    ("any((True,), False)", lambda L: _x(L).any((True,), False), None),
    ("count_nonzero((True,))", lambda L: _x(L).count_nonzero((True,)), None),
    ("count_nonzero(True)", lambda L: _x(L).count_nonzero(True), None),
    ("x.count_nonzero(0, 1): dims as arguments", lambda L: _x(L).count_nonzero(0, 1).tolist(),
     None),
    ("x.count_nonzero(3, 1)", lambda L: _x(L).count_nonzero(3, 1), "Dimension out of range"),
    ("count_nonzero(x, 0-d tensor)", lambda L: L.count_nonzero(_x(L), L.tensor(1)).tolist(),
     None),
    ("rand(dtype=bool): Python's bool names a dtype",
     lambda L: L.rand((2,), dtype=bool), '"check_uniform_bounds" not implemented'),
    ("zeros_like(dtype=int)", lambda L: L.zeros_like(_x(L), dtype=int).dtype is L.int64, None),
    ("ones(b'x')", lambda L: L.ones(b"x"), None),
    ("ones(2, device=b'cpu')", lambda L: L.ones(2, device=b"cpu").tolist(), None),
    ("randn() without a size", lambda L: L.randn(), None),
    ("x.new_ones() without a size", lambda L: _x(L).new_ones(), "missing 1 required positional"),
    ("arange(3, dtype=complex64)", lambda L: L.arange(3, dtype=L.complex64),
     '"arange_cpu" not implemented'),
    ("arange(True, 0.5, dtype=bool): the dtype first", lambda L: L.arange(
        np.bool_(True), 0.5, dtype=L.bool), '"arange_cpu" not implemented'),
    ("range(0, 2, dtype=bool)", lambda L: L.range(0, 2, dtype=L.bool),
     '"range_cpu" not implemented'),
    ("blackman_window(1, dtype=complex64) ok",
     lambda L: L.blackman_window(1, False, dtype=L.complex64).tolist(), None),
    ("hann_window(3, dtype=complex64)", lambda L: L.hann_window(3, dtype=L.complex64),
     '"arange_cpu" not implemented'),
    ("bartlett_window(2, 0): an int for periodic", lambda L: L.bartlett_window(2, 0), None),
    ("kaiser_window(2, beta=1.5) without periodic", lambda L: L.kaiser_window(2, beta=1.5),
     "received an invalid combination of arguments"),
    ("hamming_window(2, True, -1.5, beta=None, pin_memory=True)", lambda L: L.hamming_window(
        2, True, -1.5, beta=None, pin_memory=True), None),
    ("div(x, None, rounding_mode='reflect'): the parser first",
     lambda L: L.div(_x(L), None, rounding_mode="reflect"), None),
    ("div(x, x, rounding_mode=b'x')", lambda L: L.div(_x(L), _x(L), rounding_mode=b"x"),
     "but found 'x'"),
    ("lerp(half, float, 'a'): the parser first",
     lambda L: L.lerp(L.ones(2, dtype=L.float16), L.ones(2), "a"), None),
    ("addcdiv(int tensors, value=2**70): the parser first", lambda L: L.ones(1).addcdiv(
        L.ones(1, dtype=L.int32), L.ones(1, dtype=L.int64), value=2 ** 70),
     "int too big to convert"),
    ("normal(None, std=tensor): a float mean (was an AttributeError)",
     lambda L: L.normal(None, std=_x(L)), None),
    ("normal(tensor, 2.0, 1): no size beside a tensor", lambda L: L.normal(_x(L), 2.0, 1),
     None),
    ("bernoulli(x, None)", lambda L: L.bernoulli(_x(L), None), None),
    ("bernoulli of an empty int8 tensor", lambda L: L.ones(2, 0, dtype=L.int8).bernoulli(
        ).shape == (2, 0), None),
    ("bernoulli(complex, p=1.0)", lambda L: L.bernoulli(L.ones(2, dtype=L.complex64), p=1.0),
     '"bernoulli_scalar_cpu_" not implemented'),
    ("randint_like(x, 3, device=b'x'): bytes read as a device string",
     lambda L: L.randint_like(_x(L), 3, device=b"x"), None),
    ("isclose of shapes that don't broadcast", lambda L: L.isclose(L.ones(2, 3, 4), L.ones(3)),
     "must match the size of tensor b"),
    ("mv of a 0-d input sizes its result first", lambda L: L.ones(()).mv(L.ones(4, 1)),
     "Dimension specified as 0 but tensor has no dimensions"),
    ("rsub(x, 0-d tensor, 3): alpha by position in the Scalar overload",
     lambda L: L.rsub(_x(L), L.tensor(2.0), 3).tolist(), None),
    ("rsub(x, x, 3)", lambda L: L.rsub(_x(L), _x(L), 3), None),
    ("native_batch_norm of a 1-d input reads size(1)", lambda L: L.native_batch_norm(
        L.ones(3), None, None, None, None, True, 0.1, 1e-5), "Dimension out of range"),
]

CASES = (
    FACTORIES
    + VIEWS
    + INDEXING
    + REDUCTIONS
    + LINEAR_ALGEBRA
    + JOINING
    + OUT_AND_INPLACE
    + NN_FUNCTIONAL
    + NN_MODULES
    + OPTIM
    + DTYPES_DEVICES
    + AUTOGRAD
    + SERIALIZATION
    + WARNINGS
    + INDEXING_AND_SHAPES
    + GRID_SAMPLING
    + SORTING
    + INT_LISTS
    + SEARCHING
    + FUZZ_POINTWISE_BLAS_FACTORIES
)
