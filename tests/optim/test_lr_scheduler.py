"""Every learning-rate scheduler against PyTorch's: the same sequence of rates (and momenta),
state dict keys and values, warnings and errors."""
import warnings

import pytest
import torch

import ember


class _Scale:
    """A callable object (its __dict__ goes into the state dict)."""

    def __init__(self, base):
        self.base = base

    def __call__(self, epoch):
        return self.base ** epoch


def _optimizer(lib, kind="SGD", groups=2):
    params = [{"params": [lib.nn.Parameter(lib.ones(2))], "lr": 0.1 * (i + 1)}
              for i in range(groups)]
    if kind == "SGD":
        return lib.optim.SGD(params, lr=0.1, momentum=0.9)
    return lib.optim.Adam(params, lr=0.1)


CASES = [
    ("LambdaLR", {"lr_lambda": lambda e: 0.95 ** e}, "SGD"),
    ("LambdaLR", {"lr_lambda": _Scale(0.9)}, "SGD"),
    ("MultiplicativeLR", {"lr_lambda": lambda e: 0.9}, "SGD"),
    ("StepLR", {"step_size": 3, "gamma": 0.5}, "SGD"),
    ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}, "SGD"),
    ("ConstantLR", {"factor": 0.25, "total_iters": 4}, "SGD"),
    ("LinearLR", {"start_factor": 0.2, "end_factor": 0.9, "total_iters": 6}, "SGD"),
    ("ExponentialLR", {"gamma": 0.8}, "SGD"),
    ("PolynomialLR", {"total_iters": 8, "power": 2.0}, "SGD"),
    ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.001}, "SGD"),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.01}, "SGD"),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3}, "SGD"),
    ("CyclicLR", {"base_lr": [0.01, 0.02], "max_lr": 0.2, "step_size_up": 2,
                  "step_size_down": 4, "mode": "triangular2"}, "Adam"),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "mode": "exp_range",
                  "gamma": 0.9, "cycle_momentum": False}, "SGD"),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 25}, "SGD"),
    ("OneCycleLR", {"max_lr": [0.5, 0.3], "epochs": 5, "steps_per_epoch": 5,
                    "anneal_strategy": "linear", "three_phase": True}, "Adam"),
]


def _trace(lib, name, kwargs, kind, steps=24):
    opt = _optimizer(lib, kind)
    scheduler = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
    trace = []
    for _ in range(steps):
        opt.step()
        scheduler.step()
        group = opt.param_groups[0]
        trace.append((scheduler.get_last_lr(), group.get("momentum"), group.get("betas")))
    return trace, scheduler


def _comparable_state(state):
    return {k: v for k, v in state.items() if k not in ("lr_lambdas", "_scale_fn_custom")}


@pytest.mark.parametrize("name,kwargs,kind", CASES, ids=[f"{c[0]}-{i}" for i, c in
                                                         enumerate(CASES)])
def test_schedule_matches_pytorch(name, kwargs, kind):
    ours, e_sched = _trace(ember, name, kwargs, kind)
    theirs, t_sched = _trace(torch, name, kwargs, kind)
    assert len(ours) == len(theirs)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        assert a[0] == pytest.approx(b[0], rel=1e-12, abs=1e-15), step
        assert a[1] == pytest.approx(b[1]) and a[2] == pytest.approx(b[2]), step
    e_state, t_state = e_sched.state_dict(), t_sched.state_dict()
    assert list(e_state) == list(t_state)
    assert e_state.get("lr_lambdas") == t_state.get("lr_lambdas")
    for key, value in _comparable_state(t_state).items():
        assert _same(e_state[key], value), key


def _same(a, b):
    """Equal, floats to 12 digits (inside lists and tuples too)."""
    if isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12)
    if isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("name,kwargs", [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.8}),
    ("CosineAnnealingLR", {"T_max": 5}),
    ("LinearLR", {"total_iters": 6}),
    ("PolynomialLR", {"total_iters": 8}),
    ("ConstantLR", {"total_iters": 4}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2}),
])
def test_explicit_epochs_use_the_closed_form_and_warn(name, kwargs):
    def run(lib):
        opt = _optimizer(lib)
        scheduler = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
        out = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in (3, 7, 1, 10, 4):
                opt.step()
                scheduler.step(epoch)
                out.append(scheduler.get_last_lr())
        return out, sorted({str(w.message)[:40] for w in caught})
    ours, theirs = run(ember), run(torch)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[0], theirs[0]):
        assert a == pytest.approx(b, rel=1e-12)


def test_sequential_and_chained_match_pytorch():
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler
        seq = sched.SequentialLR(opt, [sched.LinearLR(opt, 0.1, total_iters=3),
                                       sched.ExponentialLR(opt, 0.9),
                                       sched.StepLR(opt, 2, 0.5)], milestones=[3, 7])
        out = []
        for _ in range(14):
            opt.step()
            seq.step()
            out.append(seq.get_last_lr())
        opt2 = _optimizer(lib)
        chain = sched.ChainedScheduler([sched.ConstantLR(opt2, 0.5, total_iters=4),
                                        sched.ExponentialLR(opt2, 0.9)])
        for _ in range(8):
            opt2.step()
            chain.step()
            out.append(chain.get_last_lr())
        return out, list(seq.state_dict()), list(chain.state_dict())
    ours, theirs = run(ember), run(torch)
    assert ours[1:] == theirs[1:]
    for a, b in zip(ours[0], theirs[0]):
        assert a == pytest.approx(b, rel=1e-12)


def test_reduce_on_plateau_matches_pytorch():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.9]

    def run(lib, **kwargs):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        out = []
        for m in metrics:
            opt.step()
            sched.step(m)
            out.append(sched.get_last_lr())
        return out, sched.state_dict()
    for kwargs in ({"patience": 1}, {"mode": "max", "patience": 2, "cooldown": 1,
                                     "factor": 0.5, "min_lr": [0.04, 0.0]},
                   {"threshold_mode": "abs", "threshold": 0.05, "patience": 0}):
        ours, theirs = run(ember, **kwargs), run(torch, **kwargs)
        assert ours[0] == theirs[0]
        assert ours[1] == theirs[1]


def _error(lib, fn):
    try:
        fn(lib)
    except Exception as exc:  # noqa: BLE001 - class and message compared
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("case", [
    lambda lib: lib.optim.lr_scheduler.StepLR(_optimizer(lib), 2, last_epoch=3),
    lambda lib: lib.optim.lr_scheduler.ConstantLR(_optimizer(lib), factor=2),
    lambda lib: lib.optim.lr_scheduler.LinearLR(_optimizer(lib), start_factor=0),
    lambda lib: lib.optim.lr_scheduler.LambdaLR(_optimizer(lib), [lambda e: 1.0]),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_optimizer(lib), 0.1),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(_optimizer(lib), 0.1, total_steps=5,
                                                  pct_start=1),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(lib.optim.Adagrad([lib.nn.Parameter(
        lib.ones(1))]), 0.1, 1.0),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_optimizer(lib), 0),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(lib), factor=1.0),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(lib), mode="avg"),
    lambda lib: lib.optim.lr_scheduler.StepLR(object(), 2),
])
def test_bad_arguments_raise_as_pytorch(case):
    assert _error(ember, case) == _error(torch, case)


def test_step_order_and_get_lr_warnings_match_pytorch():
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()
            sched.get_lr()
        return [str(w.message) for w in caught]
    assert run(ember) == run(torch)


def test_one_cycle_past_total_steps_raises():
    for lib in (ember, torch):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=2)
        opt.step()
        sched.step()
        sched.step()
        with pytest.raises(ValueError, match="Tried to step 3 times"):
            sched.step()
