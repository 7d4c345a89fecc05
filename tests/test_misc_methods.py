"""Tensor methods of src/ember/_ops/misc.py and activation.py that the OpInfo table can't drive
(they rewrite metadata, call Python back per element, or are in-place functions), against
PyTorch: resize_, resize_as_, apply_, map_, dim_order, ember.relu_, and grad_fn names."""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _both(fn):
    """fn(lib) for ember and torch: (result or exception class) of each."""
    out = []
    for lib in (ember, torch):
        try:
            out.append(fn(lib))
        except Exception as exc:  # noqa: BLE001 -- the class is what we compare
            out.append(type(exc))
    return out


def _same(fn):
    got, expected = _both(fn)
    if isinstance(expected, type):
        assert isinstance(got, type) and issubclass(got, expected), (got, expected)
        return
    assert not isinstance(got, type), f"ember raised {got.__name__}"
    if isinstance(expected, torch.Tensor):
        assert tuple(got.shape) == tuple(expected.shape)
        assert got.stride() == expected.stride()
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    else:
        assert got == expected


@pytest.mark.parametrize("case", [
    lambda t: t.arange(6.).resize_(2, 3),
    lambda t: t.arange(6.).resize_((3, 2)),
    lambda t: t.arange(6.).resize_([2, 2]),
    lambda t: t.arange(6.).resize_(t.Size([6])),
    lambda t: t.arange(6.).resize_(2, 2).resize_(6),
    lambda t: t.arange(6.).resize_(()),
    lambda t: t.arange(6.).resize_(0).resize_(3),
    lambda t: t.arange(6.).reshape(2, 3).t().resize_(3, 2),
    lambda t: t.arange(6.).reshape(2, 3).t().resize_(6),
    lambda t: t.arange(6.)[2:4].resize_(4),
    lambda t: t.arange(6.).resize_as_(t.zeros(3, 2, dtype=t.int64)),
    lambda t: t.zeros(2).resize_(-1),
    lambda t: t.zeros(2).resize_(2.0),
    lambda t: t.zeros(2).resize_(),
    lambda t: t.zeros(2, requires_grad=True).resize_(2),
    lambda t: t.zeros(2).resize_as_((2,)),
], ids=lambda f: "")
def test_resize_matches_pytorch(case):
    _same(case)


def test_resize_larger_keeps_old_values_at_the_front():
    for lib in (ember, torch):
        x = lib.arange(6.).resize_(3, 3)
        assert x.stride() == (3, 1)
        np.testing.assert_array_equal(x.reshape(-1)[:6].numpy(), np.arange(6.))


def test_resize_smaller_is_a_view_of_the_same_storage():
    base = ember.arange(6.)
    view = base[:4]
    view.resize_(2, 2)
    view[0, 0] = 100
    assert base[0].item() == 100
    assert view._version == base._version and base._version >= 1


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int8", "int64", "bool",
                                   "complex64"])
def test_apply_passes_python_numbers_in_logical_order(dtype):
    def run(lib):
        seen = []
        x = lib.arange(6).reshape(2, 3).t().to(getattr(lib, dtype))

        def record(v):
            seen.append((type(v).__name__, v))
            return v
        x.apply_(record)
        return seen
    got, expected = _both(run)
    assert got == expected


@pytest.mark.parametrize("case", [
    lambda t: t.arange(4).apply_(lambda v: v * 2.5),
    lambda t: t.arange(4.).reshape(2, 2).t().apply_(lambda v: v * 2.5),
    lambda t: t.tensor(3.).apply_(lambda v: v + 1),
    lambda t: t.arange(2.).apply_(lambda v: t.tensor(v + 1)),
    lambda t: t.arange(2.).apply_(lambda v: "a"),
    lambda t: t.arange(2, dtype=t.int8).apply_(lambda v: 300),
    lambda t: t.arange(2., requires_grad=True).apply_(lambda v: v),
    lambda t: t.zeros(2, device="meta").apply_(lambda v: v).shape,
    lambda t: t.zeros(2, device="meta").map_(t.zeros(2, device="meta"), lambda a, b: a).shape,
    lambda t: t.arange(6.).reshape(2, 3).map_(t.tensor([1., 2, 3]), lambda a, b: a * b),
    lambda t: t.arange(3.).map_(t.tensor(2.), lambda a, b: a - b),
    lambda t: t.tensor(3.).map_(t.tensor(2.), lambda a, b: a * b),
    lambda t: t.arange(3.).map_(t.ones(2, 3), lambda a, b: a * b),
    lambda t: t.arange(3.).map_(t.ones(3, dtype=t.int64), lambda a, b: a * b),
    lambda t: t.arange(3.).map_(2, lambda a, b: a * b),
    lambda t: t.arange(3.).map_(t.tensor(2., requires_grad=True), lambda a, b: a),
], ids=lambda f: "")
def test_apply_and_map_match_pytorch(case):
    _same(case)


def test_apply_leaves_the_version_alone():
    x = ember.zeros(3)
    x.apply_(lambda v: v + 1)
    assert x._version == 0 and x.tolist() == [1.0, 1.0, 1.0]


def _layouts(lib):
    yield lib.zeros(2, 3, 4)
    yield lib.zeros(2, 3, 4).permute(2, 0, 1)
    yield lib.zeros(2, 3, 4, 5).to(memory_format=lib.channels_last)
    yield lib.zeros(1, 2, 3, 4)
    yield lib.zeros(())
    yield lib.zeros(3, 1).expand(3, 4)
    yield lib.zeros(1, 3).expand(4, 3)
    yield lib.zeros(4, 6)[:, ::2].t()
    yield lib.zeros(2, 3, 4).transpose(0, 2)[::2]


@pytest.mark.parametrize("check", [False, True, "formats", "channels_last", "empty list"])
def test_dim_order_matches_pytorch(check):
    def run(lib):
        answers = []
        for x in _layouts(lib):
            arg = {"formats": [lib.contiguous_format, lib.channels_last],
                   "channels_last": [lib.channels_last], "empty list": []}.get(check, check)
            try:
                answers.append(x.dim_order(ambiguity_check=arg))
            except RuntimeError:
                answers.append("RuntimeError")
        return answers
    got, expected = _both(run)
    assert got == expected


def test_dim_order_refuses_other_checks():
    _same(lambda t: t.zeros(2).dim_order(ambiguity_check=3))
    _same(lambda t: t.zeros(2).dim_order(ambiguity_check=["x"]))
    _same(lambda t: t.zeros(2).dim_order(True))


def test_relu_function_writes_in_place():
    for lib in (ember, torch):
        x = lib.tensor([-1.0, 2.0, -3.0])
        assert lib.relu_(x) is x
        assert x.tolist() == [0.0, 2.0, 0.0]


@pytest.mark.parametrize("name,expected", [
    ("relu", "ReluBackward0"), ("softmax", "SoftmaxBackward0"),
    ("log_softmax", "LogSoftmaxBackward0"), ("diff", "SubBackward0"),
])
def test_grad_fn_names(name, expected):
    x = ember.randn(3, 4, requires_grad=True)
    args = (1,) if "softmax" in name else ()
    assert type(getattr(ember, name)(x, *args).grad_fn).__name__ == expected


def test_relu_in_place_gradient_matches_pytorch():
    data = np.array([[-1.0, 2.0], [3.0, -4.0]])

    def run(lib):
        x = lib.tensor(data, requires_grad=True)
        y = (x * 2).relu_()
        (y * lib.tensor(data)).sum().backward()
        return type(y.grad_fn).__name__, x.grad.tolist()
    got, expected = _both(run)
    assert got == expected


def test_softmax_with_dtype_gradient_reaches_the_input_dtype():
    x = ember.randn(2, 3, requires_grad=True)
    y = ember.softmax(x, 1, dtype=ember.float64)
    assert y.dtype == ember.float64
    (grad,) = ember.autograd.grad(y[:, 0].sum(), x)
    assert grad.dtype == ember.float32
