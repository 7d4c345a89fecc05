"""Every registered decomposition against its op on the op table's samples: the same values,
dtypes and shapes, and (float64 calls of differentiable ops) the same gradients as the op's own
derivative formulas. The op itself is checked against PyTorch by tests/test_ops.py, so the
decomposition equals PyTorch's op through it."""
from __future__ import annotations

import numpy as np
import pytest
from opinfo import core

import ember
from decomp.samples import captured
from ember._decomp import decomposition_table
from ember.ops import aten

# Calls for the ops no OpInfo sample reaches in the forward (backward helpers, factories).
_rng = np.random.default_rng(0)


def _t(*shape, dtype=np.float64):
    return ember.tensor(_rng.standard_normal(shape).astype(dtype))


EXTRA_CALLS = {
    # (the public norms reach modes as linalg_vector_norm: NOTE [overload forms])
    aten.norm.ScalarOpt_dim_dtype: [((_t(3, 4), 2, [1], False), {}),
                                    ((_t(3, 4), 3.0, [0, 1], True), {}),
                                    ((_t(5), 1, [0], False), {"dtype": ember.float64})],
    aten.gelu_backward.default: [((_t(3, 4), _t(3, 4)), {}),
                                 ((_t(3, 4), _t(3, 4)), {"approximate": "tanh"})],
    aten.threshold_backward.default: [((_t(3, 4), _t(3, 4), 0.0), {}),
                                      ((_t(5), _t(5), 0.5), {})],
    aten.native_channel_shuffle.default: [((_t(2, 6, 3), 3), {})],
    aten.zero.default: [((_t(2, 3),), {})],
    # The losses' gradient kernels (NOTE [elementwise loss kernels]); enum 0 none, 1 mean, 2 sum.
    **{op: [((_t(3, 4), _t(3, 4), _t(3, 4), r) + extra, {}) for r in (0, 1, 2)]
       for op, extra in ((aten.mse_loss_backward.default, ()),
                         (aten.smooth_l1_loss_backward.default, (0.7,)),
                         (aten.huber_loss_backward.default, (0.7,)),
                         (aten.soft_margin_loss_backward.default, ()))},
    aten.binary_cross_entropy_backward.default: [
        ((_t(3, 4), _t(3, 4).sigmoid(), _t(3, 4).sigmoid(), w, r), {})
        for w in (None, _t(3, 4).abs()) for r in (0, 1, 2)],
    aten.log_sigmoid.default: [((_t(3, 4),), {})],
    aten.log_sigmoid_backward.default: [
        ((_t(3, 4), x, aten.log_sigmoid_forward.default(x)[1]), {}) for x in (_t(3, 4),)],
    aten.zeros.default: [(([2, 3],), {"dtype": ember.float64}), (([0, 4],), {})],
}

# Decompositions that hold after autograd only (as PyTorch's do): their gradient is not the
# op's where the op's derivative treats a case specially.
VALUES_ONLY = {
    # embedding's derivative leaves padding_idx's row without gradient and scales by
    # frequency; the lookup's index_select does neither.
    aten.embedding.default: lambda args, kwargs: (
        (args[2] if len(args) > 2 else kwargs.get("padding_idx", -1)) != -1
        or (args[3] if len(args) > 3 else kwargs.get("scale_grad_by_freq", False))),
    # hardtanh's derivative is zero at the bounds, clamp's passes the gradient there.
    aten.hardtanh.default: lambda args, kwargs: True,
    # PyTorch's log_sigmoid_forward has a non-differentiable buffer (exp(-|x|)); the
    # decomposition's is an ordinary tensor with a gradient.
    aten.log_sigmoid_forward.default: lambda args, kwargs: True,
    # ... and log_sigmoid_backward's derivative in `self` is the whole second derivative (the
    # buffer taken as following self, as PyTorch's formula does); the decomposition's reads
    # self only through a sign test.
    aten.log_sigmoid_backward.default: lambda args, kwargs: True,
    # At 0, inf and NaN the op's derivative is a limit; `where` over the decomposition's
    # branches gives NaN (0 * inf) there. Other points are compared.
    aten.sinc.default: lambda args, kwargs: _special(args),
    aten.special_entr.default: lambda args, kwargs: _special(args),
    aten.xlogy.Tensor: lambda args, kwargs: _special(args),
    aten.special_xlog1py.default: lambda args, kwargs: _special(args),
    # logit's derivative is 0 outside [eps, 1 - eps]; the clamp's passes nothing there either
    # but the division at the clamped ends differs; and 0, 1 are limits as above.
    aten.logit.default: lambda args, kwargs: _special(args) or len(args) > 1
    or kwargs.get("eps") is not None,
    # Where the input is NaN, clamp_min/clamp_max's derivative passes nothing; minimum's and
    # maximum's (the decompositions) pass the gradient, as PyTorch's formulas do.
    aten.clamp_min.Tensor: lambda args, kwargs: _special(args),
    aten.clamp_max.Tensor: lambda args, kwargs: _special(args),
}

# Ops without a derivative in PyTorch (and ember): no gradient to compare.
NO_DERIVATIVE = {aten.floor_divide.default, aten.heaviside.default}

# Ops whose later outputs PyTorch marks non-differentiable (mean and rstd of the norms).
FIRST_OUTPUT_ONLY = {aten.native_layer_norm.default, aten.native_group_norm.default,
                     aten.native_batch_norm.default}


def _special(args):
    """Whether a tensor argument holds 0, an infinity or NaN."""
    for a in _flat(list(args)):
        if isinstance(a, ember.Tensor) and a.is_floating_point() and a.numel():
            values = _numpy(a)
            if not np.isfinite(values).all() or (values == 0).any():
                return True
    return False

# Results whose values are unspecified (empty allocations): shapes and dtypes compared.
UNINITIALISED = {aten.new_empty.default}


def _calls(op):
    return captured().get(op, []) + EXTRA_CALLS.get(op, [])


def _dtype_name(t):
    return str(t.dtype).replace("ember.", "")


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [v for item in value for v in _flat(item)]
    return [value]


def _assert_same(got, want, factor, where):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want), f"{where}: {len(got)} results, the op gives {len(want)}"
    for g, w in zip(got, want):
        if not isinstance(w, ember.Tensor):
            assert g == w, f"{where}: {g!r} != {w!r}"
            continue
        assert isinstance(g, ember.Tensor), f"{where}: {type(g).__name__} for a tensor"
        assert g.dtype == w.dtype, f"{where}: dtype {g.dtype}, the op gives {w.dtype}"
        assert tuple(g.shape) == tuple(w.shape), f"{where}: shape {g.shape} vs {w.shape}"
        atol, rtol = core.tolerance(_dtype_name(w))
        np.testing.assert_allclose(_numpy(g), _numpy(w), atol=atol * factor,
                                   rtol=rtol * factor, equal_nan=True, err_msg=where)


def _numpy(t):
    t = t.detach()
    if t.dtype in (ember.float16, ember.bfloat16):
        t = t.float()
    return t.numpy()


def _leaves(op, args, kwargs):
    """The float64 tensors of a call that the op differentiates, as fresh leaves that require
    grad (same strides)."""
    leaves = []
    names = [p.name for p in op.schema.arguments]
    wanted = set(op.derivatives or ())

    def swap(value):
        if isinstance(value, ember.Tensor) and value.dtype == ember.float64:
            leaf = value.detach().requires_grad_(True)
            leaves.append(leaf)
            return leaf
        if isinstance(value, list):
            return [swap(v) for v in value]
        return value
    new_args = tuple(swap(v) if names[i] in wanted else v for i, v in enumerate(args))
    new_kwargs = {k: swap(v) if k in wanted else v for k, v in kwargs.items()}
    return new_args, new_kwargs, leaves


def _gradients(op, fn, args, kwargs, leaves, seed):
    outs = [o for o in _flat(fn(*args, **kwargs))
            if isinstance(o, ember.Tensor) and o.is_floating_point()]
    if op in FIRST_OUTPUT_ONLY:
        outs = outs[:1]
    rng = np.random.default_rng(seed)
    grads = [ember.tensor(rng.standard_normal(tuple(o.shape))) for o in outs]
    pairs = [(o, g) for o, g in zip(outs, grads) if o.requires_grad]
    if not pairs:
        return [None] * len(leaves)      # no history: zero gradient everywhere
    rng = np.random.default_rng(seed)
    grads = [ember.tensor(rng.standard_normal(tuple(o.shape))) for o in outs]
    return ember.autograd.grad([o for o, _ in pairs], leaves, [g for _, g in pairs],
                               allow_unused=True)


OPS = sorted(decomposition_table, key=str)


@pytest.mark.parametrize("op", OPS, ids=str)
def test_decomposition_equals_op(op):
    decomposition = decomposition_table[op]
    calls = _calls(op)
    assert calls, f"no sample reaches {op}: add an OpInfo sample or an EXTRA_CALLS entry"
    checked = 0
    for i, (args, kwargs) in enumerate(calls):
        where = f"{op} call {i}"
        want, refused = _run(op, args, kwargs)
        if refused is not None:
            continue        # outside the op's domain (an error sample's call)
        got = decomposition(*args, **kwargs)
        if op in UNINITIALISED:
            got, want = (ember.zeros_like(v) for v in (got, want))
        _assert_same(got, want, 1, where)
        checked += 1
    assert checked, f"{op}: the op refused every call"


def _run(op, args, kwargs):
    try:
        return op(*args, **kwargs), None
    except Exception as exc:  # noqa: BLE001 -- the call is outside the op's domain
        return None, exc


def _gradient_calls(op):
    skip = VALUES_ONLY.get(op)
    return [(args, kwargs) for args, kwargs in _calls(op) if _run(op, args, kwargs)[1] is None
            if any(isinstance(v, ember.Tensor) and v.dtype == ember.float64
                   for v in _flat(list(args) + list(kwargs.values())))
            and not (skip and skip(args, kwargs))]


DIFFERENTIABLE = [op for op in OPS if op.differentiable and op.derivatives
                  and op not in NO_DERIVATIVE and _gradient_calls(op)]


@pytest.mark.parametrize("op", DIFFERENTIABLE, ids=str)
def test_decomposition_gradient_equals_op(op):
    decomposition = decomposition_table[op]
    factor = core.GRAD_FACTOR      # the chain of rounded pieces, NOTE [tolerances by dtype]
    checked = 0
    for i, (args, kwargs) in enumerate(_gradient_calls(op)):
        a1, k1, leaves1 = _leaves(op, args, kwargs)
        if not leaves1:
            continue
        want = _gradients(op, op, a1, k1, leaves1, i)
        a2, k2, leaves2 = _leaves(op, args, kwargs)
        got = _gradients(op, decomposition, a2, k2, leaves2, i)
        for g, w, leaf in zip(got, want, leaves1):
            # No gradient (an unused input, or no history) is a zero one.
            g = ember.zeros_like(leaf) if g is None else g
            w = ember.zeros_like(leaf) if w is None else w
            _assert_same(g, w, factor, f"{op} call {i} gradient")
        checked += 1
    assert checked, f"{op}: no call had a differentiable input"
