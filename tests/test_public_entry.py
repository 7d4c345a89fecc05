"""Every public call reaches __torch_function__ under its public name, as in PyTorch: a logging
TorchFunctionMode over a training step lists the same functions in the same order as PyTorch's
(NOTE [the public entry], NOTE [the public function reaches level 1]); a Tensor subclass sees
nn.functional composites by their names; the dispatcher finds no caller by walking frames."""
import pathlib
import re

import numpy as np
import pytest
import torch

import ember
from ember._core.registry import FRONTENDS


def _logger(lib):
    base = ember.overrides.TorchFunctionMode if lib is ember else torch.overrides.TorchFunctionMode

    class Log(base):
        def __init__(self):
            super().__init__()
            self.log = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.log.append(func)
            return func(*args, **(kwargs or {}))
    return Log()


# NOTE [the function __torch_function__ sees]: PyTorch shows a few functions under another
# spelling of the same public name; only that representation is normalised.
def _name(func):
    return func.__name__


def _net(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.pool = nn.MaxPool2d(2)
            self.avg = nn.AvgPool2d(1)
            self.emb = nn.Embedding(10, 8)
            self.ln = nn.LayerNorm(8)
            self.fc = nn.Linear(4 * 4 * 4 + 8, 5)
            self.drop = nn.Dropout(0.1)
            self.act = nn.GELU()
            self.relu = nn.ReLU()

        def forward(self, x, idx):
            h = self.avg(self.pool(self.relu(self.bn(self.conv(x)))))
            h = h.flatten(1)
            e = self.act(self.ln(self.emb(idx))).mean(1)
            h = lib.cat([h, e], 1)
            return self.fc(self.drop(h))
    return Net()


def _training_step(lib):
    """Factories, random ops, model, losses, backward and Module.zero_grad (property reads
    and writes of `.grad` included) under a logging mode: the names it saw per phase, and the
    loss. (The optimizer's step: test_training_steps_with_an_optimizer_reach_the_mode_as_in_torch.)"""
    F = lib.nn.functional
    lib.manual_seed(0)
    model = _net(lib)
    mode = _logger(lib)
    phases = {}
    with mode:
        x = lib.randn(2, 3, 8, 8)
        idx = lib.randint(0, 10, (2, 3))
        y = lib.tensor([1, 3])
        z = lib.zeros(2, 5) + lib.ones(5) * lib.full((2, 5), 0.5)
        r = lib.rand(2, 5) + lib.arange(5) + lib.empty(2, 5).fill_(0) + lib.zeros_like(z)
        r = r + lib.randn_like(r) * 0 + lib.linspace(0, 1, 5) + lib.randperm(5) * 0
        phases["factories"], mode.log[:] = [_name(f) for f in mode.log], []
        out = model(x, idx)
        phases["model"], mode.log[:] = [_name(f) for f in mode.log], []
        loss = F.cross_entropy(out, y) + F.mse_loss(out, z) + F.kl_div(
            F.log_softmax(out, 1), F.softmax(r, 1), reduction="batchmean")
        phases["loss"], mode.log[:] = [_name(f) for f in mode.log], []
        loss.backward()
        phases["backward"], mode.log[:] = [_name(f) for f in mode.log], []
        model.zero_grad(set_to_none=False)
        model.zero_grad()
        phases["zero_grad"], mode.log[:] = [_name(f) for f in mode.log], []
    return phases, float(loss.detach())


def test_training_step_reaches_the_mode_as_in_torch():
    ember_phases, ember_loss = _training_step(ember)
    torch_phases, torch_loss = _training_step(torch)
    for phase in ("factories", "model", "loss", "backward", "zero_grad"):
        assert ember_phases[phase] == torch_phases[phase], phase
    assert "kl_div" in ember_phases["loss"] and "zeros" in ember_phases["factories"]
    assert np.isfinite(ember_loss) and np.isfinite(torch_loss)


OPTIMIZERS = {
    "SGD": {"lr": 0.1},
    "SGD momentum": {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01},
    "Adam": {"lr": 0.1},
    "AdamW": {"lr": 0.1},
}


def _optimizer_steps(lib, name):
    """Two whole training steps (optimizer.zero_grad, model, loss, backward, optimizer.step)
    under a logging mode, the optimizer's foreach left at its default: the names per phase
    (NOTE [an observed step reads as PyTorch's], NOTE [grad mode switches reach function
    modes])."""
    lib.manual_seed(0)
    model = _net(lib)
    optimizer = getattr(lib.optim, name.split()[0])(model.parameters(), **OPTIMIZERS[name])
    x = lib.randn(2, 3, 8, 8)
    idx = lib.randint(0, 10, (2, 3))
    phases = []
    mode = _logger(lib)
    with mode:
        for _ in range(2):      # the first step makes the optimizer's state
            optimizer.zero_grad()
            loss = lib.nn.functional.mse_loss(model(x, idx), lib.zeros(2, 5))
            loss.backward()
            phases.append([_name(f) for f in mode.log])
            mode.log[:] = []
            optimizer.step()
            phases.append([_name(f) for f in mode.log])
            mode.log[:] = []
    return phases, [p.detach().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_training_steps_with_an_optimizer_reach_the_mode_as_in_torch(name):
    ember_phases, ember_params = _optimizer_steps(ember, name)
    torch_phases, torch_params = _optimizer_steps(torch, name)
    assert "_set_grad_enabled" in torch_phases[1] and "__get__" in torch_phases[1]
    for i, (ours, theirs) in enumerate(zip(ember_phases, torch_phases)):
        assert ours == theirs, f"phase {i}"
    assert all(np.isfinite(p).all() for p in ember_params + torch_params)


def _frontend_calls():
    """(public name, frontend) for every hand-written `ember.*` function."""
    found = {}
    for name, frontend in sorted(FRONTENDS.items()):
        if frontend.is_function and callable(frontend.function) and \
                getattr(ember, name, None) is frontend.function:
            found[name] = frontend.function
    return sorted(found.items())


class _Stop(Exception):
    pass


@pytest.mark.parametrize("name, function", _frontend_calls(), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_each_frontend_reaches_the_mode_under_its_own_function(name, function):
    """At the entry the mode gets the public function itself, before any argument is looked
    at (NOTE [the public entry]), whatever arguments the call has."""
    seen = []

    class Stop(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            raise _Stop
    args, kwargs = _some_arguments(function, ember.ones(2))
    with Stop(), pytest.raises(_Stop):
        function(*args, **kwargs)
    assert seen[0] is function


def _methods():
    """(public name, function) for every hand-written method, in-place method and dunder of a
    frontend (a dunder is handed over as the method it stands for)."""
    found = {}
    for name, frontend in sorted(FRONTENDS.items()):
        forms = {name: frontend.method, name + "_": frontend.inplace_method,
                 **frontend.dunders}
        for public, fn in forms.items():
            if callable(fn) and hasattr(fn, "__code__") and fn is not frontend.function:
                found[public] = fn
    return sorted(found.items())


@pytest.mark.parametrize("name, method", _methods(), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_each_frontend_method_reaches_the_mode_under_its_own_function(name, method):
    from ember._core.dispatch.stack import reported
    seen = []

    class Stop(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            raise _Stop
    args, kwargs = _some_arguments(method, ember.ones(2))
    with Stop(), pytest.raises(_Stop):
        method(*args, **kwargs)
    assert seen[0] is reported(method)
    assert len(_methods()) > 20


def _some_arguments(function, value):
    """`value` for every required parameter of `function`."""
    inner = getattr(function, "__wrapped__", function)
    code = inner.__code__
    required = code.co_argcount - len(inner.__defaults__ or ())
    keyword_only = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    given = inner.__kwdefaults__ or {}
    return [value] * required, {n: value for n in keyword_only if n not in given}


def _functional_names():
    F = ember.nn.functional
    return sorted(n for n in dir(F) if not n.startswith("_") and callable(getattr(F, n))
                  and not isinstance(getattr(F, n), type) and n in dir(torch.nn.functional)
                  and n not in ("handle_torch_function", "has_torch_function",
                                "has_torch_function_unary", "has_torch_function_variadic",
                                # helpers, not layers' functions (PyTorch's neither)
                                "boolean_dispatch", "assert_int_or_pair"))


def test_every_functional_reaches_the_mode_under_its_public_name():
    F = ember.nn.functional
    seen = []

    class Stop(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            raise _Stop
    missed = []
    for name in _functional_names():
        function = getattr(F, name)
        seen.clear()
        args, kwargs = _some_arguments(function, ember.ones(2, 2))
        try:
            with Stop():
                function(*args, **kwargs)
        except _Stop:
            pass
        if not seen or seen[0] is not function:
            missed.append(name)
    assert missed == []
    assert len(_functional_names()) > 120


def _composites_seen(lib):
    """The names an overriding subclass is handed for a few nn.functional composites."""
    F = lib.nn.functional
    names = []

    class Seen(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            names.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})
    a = lib.tensor([[0.1, 0.7, 0.2], [0.3, 0.3, 0.4]]).as_subclass(Seen)
    b = lib.tensor([[0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]).as_subclass(Seen)
    results = [F.kl_div(a.log(), b, reduction="batchmean"), F.mse_loss(a, b),
               F.smooth_l1_loss(a, b), F.normalize(a), F.cosine_similarity(a, b),
               F.softmin(a, 1), F.glu(lib.cat([a, b], 1)), F.hardswish(a)]
    kinds = [type(r).__name__ for r in results]
    values = [np.asarray(r.detach().tolist()) for r in results]
    return names, kinds, values


def test_subclass_sees_functional_composites_by_name():
    ember_names, ember_kinds, ember_values = _composites_seen(ember)
    torch_names, torch_kinds, torch_values = _composites_seen(torch)
    assert ember_names == torch_names
    assert "kl_div" in ember_names and "xlogy" not in ember_names
    assert ember_kinds == torch_kinds
    for e, t in zip(ember_values, torch_values):
        np.testing.assert_allclose(e, t, rtol=1e-5, atol=1e-6)


def test_frontends_named_today_by_their_public_names():
    """squeeze, unique and kl_div once reached a mode as internal ops (`_squeeze_method`,
    `_unique2.default`, `xlogy`)."""
    seen = {}
    for lib in (ember, torch):
        mode = _logger(lib)
        t = lib.tensor([[1.0], [2.0], [2.0]])
        with mode:
            t.squeeze()
            lib.squeeze(t, 1)
            lib.unique(t)
            t.unique()
            lib.nn.functional.kl_div(t.log(), t, reduction="sum")
        seen[lib.__name__] = [_name(f) for f in mode.log]
    assert seen["ember"] == seen["torch"]


def test_dispatch_walks_no_frames():
    """NOTE [the public function reaches level 1]: the dispatch package names no frame."""
    package = pathlib.Path(ember.__file__).parent / "_core" / "dispatch"
    offenders = [p.name for p in sorted(package.glob("*.py"))
                 if re.search(r"_getframe|f_back|inspect\.(stack|currentframe)", p.read_text())]
    assert offenders == []


def test_plain_calls_take_the_fast_path():
    """With no mode open the bindings don't hand the dispatcher their function (`state.slow`),
    and hand-written functions test `state.entry` alone (NOTE [the public entry])."""
    import ember.nn
    from ember._core.dispatch.process_state import state
    assert state.entry is (state.slow or state.entry_subclass)
    with _logger(ember):
        assert state.entry is True and state.slow is True
    assert state.entry is (state.slow or state.entry_subclass)


METHOD_CALLS = {
    "operators": lambda i, f: (f + 1, 2 - f, 2 / f, +f, -f, abs(f), ~i, f @ f, 2 ** f, i // 2,
                               f == i, 1 < f),
    "indexing": lambda i, f: (f[0], f[1:], f.__setitem__(0, 1.0)),
    "sizes": lambda i, f: (len(f), f.size(), f.size(0), f.dim(), f.numel(), f.nelement(),
                           f.ndimension(), f.stride(), f.element_size(), f.is_contiguous()),
    "conversions": lambda i, f: (f.sum().item(), f.tolist(), f.numpy(), np.asarray(f), bool(f[0]),
                                 int(f[0]), float(f[0]), [0, 1, 2, 3][i[0]], format(f[0], ".2f"),
                                 repr(f)),
    "casts": lambda i, f: (f.to(T_float64(f)), f.double(), f.float(), f.half(), f.int(),
                           f.long(), f.bool(), f.cpu(), f.type(), f.requires_grad_(False)),
    "iteration": lambda i, f: (list(f), 2.0 in f),
    "views": lambda i, f: (f.squeeze(), f.unsqueeze(0), f.view(-1), f.flatten(), f.t(),
                           f.detach(), f.clone(), f.contiguous()),
}


def T_float64(t):
    return ember.float64 if isinstance(t, ember.Tensor) else torch.float64


@pytest.mark.parametrize("group", sorted(METHOD_CALLS))
def test_tensor_methods_and_operators_reach_the_mode_as_in_torch(group):
    seen = {}
    for lib in (ember, torch):
        mode = _logger(lib)
        i, f = lib.tensor([1, 2, 3]), lib.tensor([1.0, 2.0, 3.0])
        with mode:
            METHOD_CALLS[group](i, f)
        seen[lib.__name__] = [_name(func) for func in mode.log]
    assert seen["ember"] == seen["torch"]
    assert seen["ember"]
