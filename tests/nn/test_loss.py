"""Every loss of ember.nn.functional and ember.nn against PyTorch: values and input gradients
for each reduction (float32 and float64), class weights, the modules' state and repr, the legacy
size_average / reduce flags, and PyTorch's errors and warnings."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import ember
from nn.compare import check_module
from nn.loss_cases import CASES, WEIGHTED, Arg

DTYPES = ("float32", "float64")


def _tensors(args, lib):
    out = []
    for a in args:
        if isinstance(a, Arg):
            t = lib.from_numpy(a.array.copy())
            if a.grad:
                t.requires_grad_(True)
            out.append(t)
        else:
            out.append(a)
    return out


def _tolerance(dtype):
    return (2e-5, 2e-6) if dtype == "float32" else (1e-10, 1e-12)


def _compare(function, args, kwargs, dtype, seed=0):
    """Values and input gradients (under a random upstream gradient) of ember vs torch."""
    t_args, e_args = _tensors(args, torch), _tensors(args, ember)
    names = list(kwargs)
    t_kwargs = dict(zip(names, _tensors(kwargs.values(), torch), strict=True))
    e_kwargs = dict(zip(names, _tensors(kwargs.values(), ember), strict=True))
    t_out = getattr(torch.nn.functional, function)(*t_args, **t_kwargs)
    e_out = getattr(ember.nn.functional, function)(*e_args, **e_kwargs)
    rtol, atol = _tolerance(dtype)
    assert str(e_out.dtype).replace("ember", "torch") == str(t_out.dtype)
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol,
                               atol=atol)
    upstream = np.random.default_rng(seed).standard_normal(tuple(t_out.shape)).astype(dtype)
    wanted = [i for i, a in enumerate(args) if isinstance(a, Arg) and a.grad]
    t_grads = torch.autograd.grad(t_out, [t_args[i] for i in wanted],
                                  torch.from_numpy(upstream))
    e_grads = ember.autograd.grad(e_out, [e_args[i] for i in wanted],
                                  ember.from_numpy(upstream))
    for i, e, t in zip(wanted, e_grads, t_grads, strict=True):
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=rtol * 10, atol=atol * 10,
                                   err_msg=f"gradient of argument {i}")


CASE_PARAMS = [pytest.param(c, id=c.name) for c in CASES]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASE_PARAMS)
def test_functional(case, dtype):
    rng = np.random.default_rng(1)
    args = case.make(rng, np.dtype(dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for reduction in case.reductions:
            _compare(case.function, args, {**case.kwargs, "reduction": reduction}, dtype)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES
                                  if c.name in WEIGHTED])
def test_functional_class_weight(case):
    rng = np.random.default_rng(2)
    args = case.make(rng, np.dtype("float64"))
    weight = Arg(rng.uniform(0.2, 2.0, WEIGHTED[case.name]))
    for reduction in case.reductions:
        kwargs = {**case.kwargs, "reduction": reduction}
        if case.function == "multilabel_soft_margin_loss":
            _compare(case.function, args + [weight], kwargs, "float64")
        elif case.function == "multi_margin_loss":
            _compare(case.function, args, {**kwargs, "weight": weight}, "float64")
        else:
            _compare(case.function, args + [weight], kwargs, "float64")


@pytest.mark.parametrize("function", ["l1_loss", "mse_loss", "huber_loss"])
def test_elementwise_weight(function):
    rng = np.random.default_rng(3)
    args = [Arg(rng.standard_normal((3, 4)), True), Arg(rng.standard_normal((3, 4)), True)]
    for reduction in ("none", "mean", "sum"):
        _compare(function, args, {"reduction": reduction,
                                  "weight": Arg(rng.uniform(0, 2, (3, 4)))}, "float64")


def test_bce_weights_and_pos_weight():
    rng = np.random.default_rng(4)
    x = Arg(rng.standard_normal((4, 3)), True)
    t = Arg(rng.uniform(0, 1, (4, 3)), True)
    w, pw = Arg(rng.uniform(0, 2, (3,))), Arg(rng.uniform(0, 3, (3,)))
    for reduction in ("none", "mean", "sum"):
        _compare("binary_cross_entropy_with_logits", [x, t],
                 {"weight": w, "pos_weight": pw, "reduction": reduction}, "float64")
        p = Arg(rng.uniform(0.1, 0.9, (4, 3)), True)
        _compare("binary_cross_entropy", [p, Arg(t.array)], {"weight": w,
                                                             "reduction": reduction}, "float64")


def test_cross_entropy_all_ignored_and_empty():
    x = Arg(np.random.default_rng(5).standard_normal((3, 4)), True)
    for t in (np.full(3, -100), np.array([1, -100, -100])):
        for ls in (0.0, 0.2):
            for reduction in ("none", "mean", "sum"):
                _compare("cross_entropy", [x, Arg(t)], {"reduction": reduction,
                                                        "label_smoothing": ls}, "float64")
    for reduction in ("none", "sum"):
        _compare("cross_entropy", [Arg(np.zeros((0, 4)), True), Arg(np.zeros(0, np.int64))],
                 {"reduction": reduction}, "float64")


def test_cross_entropy_double_backward():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 3))
    t = np.array([0, 2, -100, 1])
    w = rng.uniform(0.5, 2, 3)
    results = []
    for lib in (torch, ember):
        xt = lib.from_numpy(x.copy()).requires_grad_(True)
        loss = lib.nn.functional.cross_entropy(xt, lib.from_numpy(t), lib.from_numpy(w),
                                               label_smoothing=0.1)
        (g,) = lib.autograd.grad(loss, xt, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), xt)
        results.append(gg.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-9, atol=1e-12)


def test_nll_double_backward_through_log_softmax():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 3))
    t = np.array([0, 2, 1, 1])
    results = []
    for lib in (torch, ember):
        xt = lib.from_numpy(x.copy()).requires_grad_(True)
        loss = lib.nn.functional.nll_loss(xt.log_softmax(1).square(), lib.from_numpy(t),
                                          reduction="sum")
        (g,) = lib.autograd.grad(loss, xt, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), xt)
        results.append(gg.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-9, atol=1e-12)


# --------------------------------------------------------------------------- modules

MODULE_CASES = [pytest.param(c, id=c.name) for c in CASES if c.module]


@pytest.mark.parametrize("case", MODULE_CASES)
def test_module(case):
    rng = np.random.default_rng(8)
    args = case.make(rng, np.dtype("float32"))
    inputs = [torch.from_numpy(a.array.copy()) if isinstance(a, Arg) else a for a in args]
    for reduction in case.reductions:
        kwargs = {**case.module_kwargs, "reduction": reduction}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_module = getattr(torch.nn, case.module)(**kwargs)
            e_module = getattr(ember.nn, case.module)(**kwargs)
            check_module(t_module, e_module, *inputs, backward=False)
        assert e_module.reduction == t_module.reduction
        assert getattr(e_module, "__constants__", None) == \
            getattr(t_module, "__constants__", None)


@pytest.mark.parametrize("name,kwargs", [
    ("CrossEntropyLoss", {}), ("NLLLoss", {}), ("BCELoss", {}), ("MultiMarginLoss", {}),
    ("MultiLabelSoftMarginLoss", {}), ("BCEWithLogitsLoss", {"pos_weight": True}),
])
def test_module_weight_buffers(name, kwargs):
    w = np.array([0.5, 1.0, 2.0], np.float32)
    t_kwargs = {"weight": torch.from_numpy(w)}
    e_kwargs = {"weight": ember.from_numpy(w)}
    if kwargs.get("pos_weight"):
        t_kwargs["pos_weight"] = torch.from_numpy(w * 2)
        e_kwargs["pos_weight"] = ember.from_numpy(w * 2)
    t_module = getattr(torch.nn, name)(**t_kwargs)
    e_module = getattr(ember.nn, name)(**e_kwargs)
    assert list(e_module.state_dict()) == list(t_module.state_dict())
    for key, value in t_module.state_dict().items():
        np.testing.assert_array_equal(e_module.state_dict()[key].numpy(), value.numpy())
    assert repr(e_module) == repr(t_module)


def test_module_weight_used():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    t = rng.integers(0, 3, 5)
    w = np.array([0.5, 1.0, 2.0], np.float32)
    t_module = torch.nn.CrossEntropyLoss(weight=torch.from_numpy(w), label_smoothing=0.1)
    e_module = ember.nn.CrossEntropyLoss(weight=ember.from_numpy(w), label_smoothing=0.1)
    check_module(t_module, e_module, torch.from_numpy(x), torch.from_numpy(t))


def test_triplet_with_custom_distance():
    rng = np.random.default_rng(10)
    a, p, n = (rng.standard_normal((4, 5)) for _ in range(3))
    results = []
    for lib in (torch, ember):
        similarity = lib.nn.functional.cosine_similarity
        module = lib.nn.TripletMarginWithDistanceLoss(
            distance_function=lambda x, y, similarity=similarity: 1.0 - similarity(x, y),
            margin=0.5, swap=True)
        results.append(module(*(lib.from_numpy(v) for v in (a, p, n))).item())
    assert results[1] == pytest.approx(results[0], rel=1e-12)


# --------------------------------------------------------------------------- legacy flags

@pytest.mark.parametrize("size_average,reduce", [(None, False), (False, None), (True, True),
                                                 (False, True), (None, True)])
def test_legacy_reduction_flags(size_average, reduce):
    rng = np.random.default_rng(11)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        e_module = ember.nn.MSELoss(size_average, reduce)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_module = torch.nn.MSELoss(size_average, reduce)
        assert e_module.reduction == t_module.reduction
        t_value = torch.nn.functional.l1_loss(torch.from_numpy(x), torch.from_numpy(y),
                                              size_average, reduce)
        e_value = ember.nn.functional.l1_loss(ember.from_numpy(x), ember.from_numpy(y),
                                              size_average, reduce)
    np.testing.assert_allclose(e_value.numpy(), t_value.numpy(), rtol=1e-12)


def test_reduction_helpers_match_torch():
    from torch.nn import _reduction as t_reduction

    from ember.nn import _reduction as e_reduction
    for name in ("none", "mean", "sum"):
        assert e_reduction.get_enum(name) == t_reduction.get_enum(name)
    for flags in ((None, None), (True, False), (False, False), (None, False)):
        assert e_reduction.legacy_get_string(*flags, emit_warning=False) == \
            t_reduction.legacy_get_string(*flags, emit_warning=False)
    with pytest.raises(ValueError):
        t_reduction.get_enum("bogus")
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        e_reduction.get_enum("bogus")


# --------------------------------------------------------------------------- errors, warnings

class _Ones:
    """A tensor argument built per library (ERRORS' kwargs)."""

    def __init__(self, n):
        self.n = n


ERRORS = [
    ("nll_loss", lambda l: [l.zeros(3, 4), l.tensor([0, 1, 5])], {}, "Target 5 is out of bounds"),
    ("nll_loss", lambda l: [l.zeros(3, 4), l.tensor([0, -1, 1])], {}, "out of bounds"),
    ("cross_entropy", lambda l: [l.zeros(3, 4), l.tensor([0, 1, 4])], {}, "out of bounds"),
    ("cross_entropy", lambda l: [l.zeros(3, 4), l.tensor([0, 1, 2], dtype=l.int32)], {},
     "expected target dtype to be Long or Byte, but got Int"),
    ("nll_loss", lambda l: [l.zeros(3, 4), l.tensor([0, 1])], {},
     "Expected input batch_size (3) to match target batch_size (2)."),
    ("nll_loss", lambda l: [l.zeros(3, 4), l.zeros(3, 2, dtype=l.int64)], {},
     "0D or 1D target tensor expected, multi-target not supported"),
    ("nll_loss", lambda l: [l.zeros(2, 3, 4, 5), l.zeros(2, 4, 4, dtype=l.int64)], {},
     "size mismatch"),
    ("nll_loss", lambda l: [l.zeros(2, 3, 4), l.zeros(2, 5, dtype=l.int64)], {},
     "Expected target size [2, 4], got [2, 5]"),
    ("nll_loss", lambda l: [l.zeros(3, 4), l.tensor([0, 1, 1]), l.ones(3)], {},
     "weight tensor should be defined either for all 4 classes or no classes"),
    ("nll_loss", lambda l: [l.zeros(3, 4), l.tensor([0, 1, 1])], {"reduction": "avg"},
     "avg is not a valid value for reduction"),
    ("cross_entropy", lambda l: [l.zeros(3, 4), l.zeros(3, 5)], {}, "0D or 1D target"),
    ("cross_entropy", lambda l: [l.zeros(3, 4), l.zeros(3)], {},
     "expected target dtype to be Long or Byte, but got Float"),
    ("cross_entropy", lambda l: [l.zeros(3, 4), l.zeros(3, 4, dtype=l.int64)], {},
     "Expected floating point type for target with class probabilities, got Long"),
    ("nll_loss", lambda l: [l.zeros(3), l.zeros(2, dtype=l.int64)], {},
     "For 1D input, 1D target must have size 1"),
    ("nll_loss", lambda l: [l.zeros(()), l.zeros((), dtype=l.int64)], {},
     "Expected 1 or more dimensions (got 0)"),
    ("nll_loss", lambda l: [l.zeros(3, 4), l.tensor([0, 1, 1], dtype=l.int32), l.ones(3)], {},
     "expected target dtype to be Long or Byte, but got Int"),
    ("cross_entropy", lambda l: [l.zeros(3, 4), l.tensor([0, 1, 1])],
     {"label_smoothing": 1.5}, "label_smoothing must be between 0.0 and 1.0"),
    ("mse_loss", lambda l: [l.zeros(3, 4), l.zeros(5)], {}, "must match"),
    ("mse_loss", lambda l: [l.zeros(3, 4), l.zeros(3, 4)], {"reduction": "avg"}, "avg"),
    ("binary_cross_entropy", lambda l: [l.full((3,), 0.5), l.zeros(4)], {},
     "is different to the input size"),
    ("binary_cross_entropy", lambda l: [l.full((3,), 1.5), l.zeros(3)], {},
     "all elements of input should be between 0 and 1"),
    ("binary_cross_entropy_with_logits", lambda l: [l.zeros(3), l.zeros(4)], {},
     "must be the same as input size"),
    ("smooth_l1_loss", lambda l: [l.zeros(3), l.zeros(3)], {"beta": -1.0},
     "smooth_l1_loss does not support negative values for beta."),
    ("huber_loss", lambda l: [l.zeros(3), l.zeros(3)], {"delta": 0.0},
     "huber_loss does not support non-positive values for delta."),
    ("l1_loss", lambda l: [l.zeros(3), l.zeros(3)], {"weight": _Ones(4)},
     "Weights and input must have the same size."),
    ("kl_div", lambda l: [l.zeros(3), l.zeros(3)], {"reduction": "avg"}, "avg"),
    ("multi_margin_loss", lambda l: [l.zeros(3, 4), l.tensor([0, 1, 1])], {"p": 3},
     "only p == 1 and p == 2 supported"),
    ("gaussian_nll_loss", lambda l: [l.zeros(3, 4), l.zeros(3, 4), l.ones(2)], {},
     "var is of incorrect size"),
    ("gaussian_nll_loss", lambda l: [l.zeros(3, 4), l.zeros(3, 4), l.full((3, 4), -1.0)], {},
     "var has negative entry/entries"),
    ("multi_margin_loss", lambda l: [l.zeros(3, 4), l.tensor([0, 1, 4])], {},
     "target out of range"),
    ("multi_margin_loss", lambda l: [l.zeros(3, 4), l.tensor([0, 1])], {},
     "Expected target size [3], but got [2]. Input has shape [3, 4]."),
    ("multi_margin_loss", lambda l: [l.zeros(2, 3, 4), l.tensor([0, 1])], {},
     "Expected non-empty vector or matrix with optional 0-dim batch size"),
    ("multilabel_margin_loss", lambda l: [l.zeros(3, 4), l.tensor([[0, 1, 7, -1]] * 3)], {},
     "argument #2 'target' is out of range"),
    ("multilabel_margin_loss", lambda l: [l.zeros(3, 4), l.tensor([[0, 1, -1]] * 3)], {},
     "inconsistent target size: [3, 3] for input of size: [3, 4]"),
    ("cosine_embedding_loss", lambda l: [l.zeros(3, 4), l.zeros(3, 4), l.ones(3, 1)], {},
     "0D or 1D target tensor expected, multi-target not supported"),
    ("cosine_embedding_loss", lambda l: [l.zeros(3, 4), l.zeros(3, 4), l.ones(())], {},
     "0D target tensor expects 1D input tensors"),
    ("margin_ranking_loss", lambda l: [l.zeros(3), l.zeros(3), l.ones(3, 1)], {},
     "All input tensors should have same dimension"),
    ("hinge_embedding_loss", lambda l: [l.zeros(3), l.zeros(3)], {"reduction": "x"},
     "x is not a valid value for reduction"),
    ("multilabel_soft_margin_loss", lambda l: [l.zeros(3, 4), l.zeros(3, 4)],
     {"reduction": "x"}, "x is not valid"),
    ("triplet_margin_loss", lambda l: [l.zeros(3, 4), l.zeros(3, 4), l.zeros(4)], {},
     "expected to have the same number of dimensions"),
    ("triplet_margin_with_distance_loss", lambda l: [l.zeros(3, 4)] * 3, {"margin": 0.0},
     "margin must be greater than 0, got 0.0"),
]


@pytest.mark.parametrize("function,make_args,kwargs,match", ERRORS,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_errors_match_torch(function, make_args, kwargs, match):
    outcome = []
    for lib in (torch, ember):
        lib_kwargs = {k: (lib.ones(v.n) if isinstance(v, _Ones) else v)
                      for k, v in kwargs.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                getattr(lib.nn.functional, function)(*make_args(lib), **lib_kwargs)
        outcome.append(info)
    assert outcome[1].type is outcome[0].type, (outcome[1].value, outcome[0].value)
    assert match in str(outcome[1].value)
    assert match in str(outcome[0].value)


def test_nll_weight_dtype_mismatch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
            lib.nn.functional.nll_loss(lib.zeros(3, 4, dtype=lib.float64), lib.tensor([0, 1, 1]),
                                       weight=lib.ones(4))


@pytest.mark.parametrize("function", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_broadcast_warning(function):
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match=r"Using a target size .* that is different to the "
                                             r"input size"):
            getattr(lib.nn.functional, function)(lib.zeros(3, 4), lib.zeros(4))


def test_kl_div_mean_warning():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
            lib.nn.functional.kl_div(lib.zeros(3, 4), lib.zeros(3, 4))


# --------------------------------------------------------------------------- ctc

def _ctc_inputs(rng, dtype):
    steps, batch, classes = 7, 3, 5
    x = rng.standard_normal((steps, batch, classes))
    log_probs = (x - np.log(np.exp(x).sum(2, keepdims=True))).astype(dtype)
    targets = rng.integers(1, classes, (batch, 3))
    targets[0, 1] = targets[0, 0]              # a repeated label needs a blank between
    return log_probs, targets, [7, 5, 6], [3, 2, 0]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
def test_ctc_loss(dtype, layout):
    rng = np.random.default_rng(12)
    log_probs, targets, input_lengths, target_lengths = _ctc_inputs(rng, dtype)
    if layout == "concatenated":
        targets = np.concatenate([targets[b, :n] for b, n in enumerate(target_lengths)])
    for reduction in ("none", "mean", "sum"):
        _compare("ctc_loss", [Arg(log_probs, True), Arg(targets), Arg(np.array(input_lengths)),
                              Arg(np.array(target_lengths))], {"reduction": reduction}, dtype)


def test_ctc_loss_module_unbatched_and_zero_infinity():
    rng = np.random.default_rng(13)
    log_probs, targets, _, _ = _ctc_inputs(rng, "float64")
    # Two frames cannot emit three labels: an infinite loss, zeroed with zero_infinity.
    for zero_infinity in (False, True):
        results = []
        for lib in (torch, ember):
            x = lib.from_numpy(log_probs.copy()).requires_grad_(True)
            module = lib.nn.CTCLoss(blank=0, reduction="sum", zero_infinity=zero_infinity)
            loss = module(x, lib.from_numpy(targets), lib.tensor([2, 7, 7]),
                          lib.tensor([3, 3, 3]))
            if zero_infinity:
                loss.backward()
            results.append((loss.item(), None if x.grad is None else x.grad.numpy()))
        assert results[1][0] == pytest.approx(results[0][0], rel=1e-12)
        if zero_infinity:
            np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-9, atol=1e-12)
    unbatched = [Arg(log_probs[:, 0], True), Arg(targets[0]), Arg(np.array(7)),
                 Arg(np.array(3))]
    for reduction in ("none", "mean"):
        _compare("ctc_loss", unbatched, {"reduction": reduction}, "float64")
    assert repr(ember.nn.CTCLoss()) == repr(torch.nn.CTCLoss())


# --------------------------------------------------------------------------- top level

TOP_LEVEL = [
    ("binary_cross_entropy_with_logits", lambda r: [Arg(r.standard_normal((3, 4)), True),
                                                    Arg(r.uniform(0, 1, (3, 4)))], {}),
    ("kl_div", lambda r: [Arg(r.standard_normal((3, 4)), True), Arg(r.uniform(0, 1, (3, 4)))],
     {"log_target": False}),
    ("kl_div", lambda r: [Arg(r.standard_normal((3, 4)), True), Arg(r.standard_normal((3, 4)))],
     {"log_target": True}),
    ("margin_ranking_loss", lambda r: [Arg(r.standard_normal(5), True),
                                       Arg(r.standard_normal(5), True),
                                       Arg(np.array([1.0, -1, 1, -1, 1])), 0.2], {}),
    ("hinge_embedding_loss", lambda r: [Arg(r.standard_normal(5), True),
                                        Arg(np.array([1.0, -1, 1, -1, 1]))], {}),
    ("cosine_embedding_loss", lambda r: [Arg(r.standard_normal((3, 4)), True),
                                         Arg(r.standard_normal((3, 4)), True),
                                         Arg(np.array([1.0, -1, 1]))], {}),
    ("poisson_nll_loss", lambda r: [Arg(r.standard_normal((3, 4)), True),
                                    Arg(r.uniform(0, 3, (3, 4))), True, False, 1e-8], {}),
    ("triplet_margin_loss", lambda r: [Arg(r.standard_normal((3, 4)), True) for _ in range(3)],
     {}),
    ("cosine_similarity", lambda r: [Arg(r.standard_normal((3, 4)), True),
                                     Arg(r.standard_normal((3, 4)), True)], {}),
    ("pairwise_distance", lambda r: [Arg(r.standard_normal((3, 4)), True),
                                     Arg(r.standard_normal((3, 4)), True)], {}),
    ("pdist", lambda r: [Arg(r.standard_normal((4, 3)), True)], {}),
]


@pytest.mark.parametrize("name,make,kwargs", TOP_LEVEL,
                         ids=[f"{t[0]}-{i}" for i, t in enumerate(TOP_LEVEL)])
def test_top_level_functions(name, make, kwargs):
    """torch.<loss>(..., reduction=<enum>) and the distances at the top level."""
    args = make(np.random.default_rng(14))
    reductions = ([0, 1, 2] if name not in ("cosine_similarity", "pairwise_distance", "pdist")
                  else [None])
    for reduction in reductions:
        extra = {} if reduction is None else {"reduction": reduction}
        results = []
        for lib in (torch, ember):
            tensors = _tensors(args, lib)
            out = getattr(lib, name)(*tensors, **kwargs, **extra)
            wanted = [t for t in tensors if isinstance(t, lib.Tensor) and t.requires_grad]
            grads = lib.autograd.grad(out.sum(), wanted)
            results.append([out.detach().numpy()] + [g.numpy() for g in grads])
        for e, t in zip(results[1], results[0], strict=True):
            np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("function", [
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "soft_margin_loss", "kl_div"])
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"),
                                    ("float32", "int64")])
def test_mixed_dtypes(function, dtypes):
    """The result dtype, or the error, of an input and a target of different dtypes."""
    rng = np.random.default_rng(15)
    x, y = rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0, 1, (3, 4))
    if dtypes[1] == "int64":
        y = y > 0.5
    outcomes = []
    for lib in (torch, ember):
        args = (lib.tensor(x, dtype=getattr(lib, dtypes[0])),
                lib.tensor(y, dtype=getattr(lib, dtypes[1])))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                result = getattr(lib.nn.functional, function)(*args)
                outcomes.append(("ok", str(result.dtype).split(".")[-1], result.item()))
            except RuntimeError as error:
                outcomes.append(("error", str(error)))
    assert outcomes[1][:2] == outcomes[0][:2]
    if outcomes[0][0] == "ok":
        assert outcomes[1][2] == pytest.approx(outcomes[0][2], rel=1e-5)
