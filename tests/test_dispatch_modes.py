"""The dispatch stack's levels against PyTorch: TorchFunctionMode, TorchDispatchMode, Tensor
subclasses (plain-acting, default, overriding __torch_function__)."""
import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode as TorchTFMode
from torch.utils._python_dispatch import TorchDispatchMode as TorchTDMode

import ember
from ember.overrides import TorchFunctionMode, handle_torch_function, has_torch_function
from ember.utils._python_dispatch import TorchDispatchMode

W = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
X = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)


def _function_logger(base):
    class Logger(base):
        def __init__(self):
            super().__init__()
            self.log = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.log.append(func)
            return func(*args, **(kwargs or {}))
    return Logger()


def _dispatch_logger(base):
    class Logger(base):
        def __init__(self):
            super().__init__()
            self.log = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.log.append((str(func), func.overloadpacket.__name__, types))
            return func(*args, **(kwargs or {}))
    return Logger()


def _step(lib, mode, matmul=True):
    """A training step: forward, backward, an in-place SGD update under no_grad."""
    w = lib.tensor(W, requires_grad=True)
    x = lib.tensor(X) if matmul else lib.tensor(W[:2] * 0 + X[:, :3])
    phases = {}
    with mode:
        loss = ((x @ w) if matmul else (x * w[:2])).relu().sum()
        phases["forward"], mode.log[:] = list(mode.log), []
        loss.backward()
        phases["backward"], mode.log[:] = list(mode.log), []
        with lib.no_grad():
            w -= 0.1 * w.grad
            w.add_(w.grad, alpha=-0.1)
        w.grad.zero_()
        phases["update"] = list(mode.log)
    return w, loss, phases


_DUNDERS = {"__matmul__": "matmul", "__rmul__": "mul", "__mul__": "mul", "__isub__": "sub_",
            "__iadd__": "add_", "__add__": "add", "__sub__": "sub"}


def _ember_names(funcs):
    """Each logged function's name on ember.Tensor (the shortest plain name of an alias)."""
    public = {}
    for name in dir(ember.Tensor):
        key = id(getattr(ember.Tensor, name, None))
        rank = (name.startswith("__"), len(name), name)
        if key not in public or rank < public[key][0]:
            public[key] = (rank, name)
    names = []
    for f in funcs:
        name = public[id(f)][1] if id(f) in public else f.__name__
        names.append(_DUNDERS.get(name, name))
    return names


def _torch_names(funcs):
    # (no_grad's `_set_grad_enabled` calls too: NOTE [grad mode switches reach function modes])
    return [_DUNDERS.get(f.__name__, f.__name__) for f in funcs]


def test_function_mode_logs_the_public_calls_torch_logs():
    _, _, ember_phases = _step(ember, _function_logger(TorchFunctionMode))
    _, _, torch_phases = _step(torch, _function_logger(TorchTFMode))
    for phase in ("forward", "backward", "update"):
        assert _ember_names(ember_phases[phase]) == _torch_names(torch_phases[phase]), phase


def test_function_mode_leaves_the_step_unchanged():
    w_mode, loss_mode, _ = _step(ember, _function_logger(TorchFunctionMode))
    w_torch, loss_torch, _ = _step(torch, _function_logger(TorchTFMode))
    np.testing.assert_allclose(w_mode.detach().numpy(), w_torch.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(float(loss_mode), float(loss_torch), rtol=1e-6)


@pytest.mark.parametrize("matmul", [False, True])
def test_dispatch_mode_sees_aten_ops_below_autograd(matmul):
    w_e, loss_e, ember_phases = _step(ember, _dispatch_logger(TorchDispatchMode), matmul)
    w_t, loss_t, torch_phases = _step(torch, _dispatch_logger(TorchTDMode), matmul)
    # Gradients and the update are right with the mode calling func(*args) below autograd.
    np.testing.assert_allclose(w_e.detach().numpy(), w_t.detach().numpy(), rtol=1e-5)
    # The update is the same aten ops, in-place forms included.
    assert [e[0] for e in ember_phases["update"]] == [t[0] for t in torch_phases["update"]]
    assert all(e[2] == () for e in ember_phases["update"])
    # Forward: the same op packets (matmul decomposes into mm above autograd, NOTE
    # [composites decompose under modes]; saving relu's output logs a detach, NOTE [saved
    # outputs are detached under modes]).
    torch_forward = [t[1] for t in torch_phases["forward"]]
    ember_forward = [e[1] for e in ember_phases["forward"]]
    assert ember_forward == torch_forward
    assert ember_phases["backward"]      # the derivative formulas' ops reach the mode too


def test_dispatch_mode_func_looks_like_an_aten_overload():
    seen = []

    class Keep(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))
    a = ember.ones(3)
    with Keep():
        a.add(a, alpha=2)
        a.mul_(2)
    add, mul_ = seen
    t_add, t_mul_ = torch.ops.aten.add.Tensor, torch.ops.aten.mul_.Tensor
    assert add is ember.ops.aten.add.Tensor
    assert (add.__name__, str(add), add.overloadpacket.__name__) == \
        (t_add.__name__, str(t_add), t_add.overloadpacket.__name__)
    assert (mul_.__name__, str(mul_), mul_.overloadpacket.__name__) == \
        (t_mul_.__name__, str(t_mul_), t_mul_.overloadpacket.__name__)


def test_nested_function_modes_see_calls_innermost_first():
    for lib, base in ((ember, TorchFunctionMode), (torch, TorchTFMode)):
        order = []

        class Tag(base):
            def __init__(self, tag):
                super().__init__()
                self.tag = tag

            def __torch_function__(self, func, types, args=(), kwargs=None):
                order.append(self.tag)
                return func(*args, **(kwargs or {}))
        a = lib.ones(2)
        with Tag("outer"), Tag("inner"):
            lib.add(a, a)
        if lib is ember:
            ember_order = order
    assert ember_order == order


# --------------------------------------------------------------------------- subclasses

def _parameter_like(lib, requires_grad):
    if lib is torch:
        return torch.nn.Parameter(torch.ones(3), requires_grad=requires_grad)

    class Parameter(ember.Tensor):
        __torch_function__ = ember._C._disabled_torch_function_impl
    return ember.Tensor._make_subclass(Parameter, ember.ones(3), requires_grad)


def test_parameter_like_results_are_plain_tensors_with_gradients():
    for lib in (ember, torch):
        p = _parameter_like(lib, True)
        out = p * p + p
        assert type(out) is lib.Tensor
        assert type(p.sum()) is lib.Tensor and type(p.view(-1)) is lib.Tensor
        out.sum().backward()
        if lib is ember:
            ember_grad = p.grad.numpy()
    np.testing.assert_allclose(ember_grad, p.grad.numpy())


def test_subclass_with_default_torch_function_keeps_its_type():
    types = {}
    for lib in (ember, torch):
        class Sub(lib.Tensor):
            pass
        s = lib.ones(3).as_subclass(Sub)
        types[lib.__name__] = [type(r).__name__ for r in
                               (s + 1, s.sum(), lib.add(s, s), s.view(-1), lib.ones(3) * s)]
    assert types["ember"] == types["torch"]


def _tagged_class(lib):
    class Tagged(lib.Tensor):
        """Carries a tag through every op that has a tagged input (the docs' example)."""

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            tags = [a.tag for a in args if isinstance(a, Tagged) and hasattr(a, "tag")]
            result = super().__torch_function__(func, types, args, kwargs or {})
            if isinstance(result, Tagged) and tags:
                result.tag = tags[0]
            return result
    return Tagged


def test_overriding_subclass_propagates_its_tag_as_in_torch():
    seen = {}
    for lib in (ember, torch):
        tagged = _tagged_class(lib)
        t = lib.tensor([1.0, -2.0, 3.0]).as_subclass(tagged)
        t.tag = "metres"
        results = [t + 1, t * t, t.relu(), lib.add(t, t), t.sum(), lib.ones(3) + t]
        seen[lib.__name__] = [(type(r).__name__, getattr(r, "tag", None),
                               np.asarray(r.detach().tolist()).tolist()) for r in results]
    assert seen["ember"] == seen["torch"]


def test_has_and_handle_torch_function_match_torch():
    answers = {}
    for lib, mod in ((ember, ember.overrides), (torch, torch.overrides)):
        tagged = _tagged_class(lib)
        plain = lib.ones(2)
        t = lib.ones(2).as_subclass(tagged)
        t.tag = "x"
        result = mod.handle_torch_function(lib.add, (plain, t), plain, t)
        answers[lib.__name__] = (mod.has_torch_function((plain,)),
                                 mod.has_torch_function((plain, t)),
                                 type(result).__name__, result.tag)
    assert answers["ember"] == answers["torch"]
    assert has_torch_function((ember.ones(1),)) is False
    assert handle_torch_function is ember.overrides.handle_torch_function


def _tree_map(f, x):
    if isinstance(x, (list, tuple)):
        return type(x)(_tree_map(f, v) for v in x)
    if isinstance(x, dict):
        return {k: _tree_map(f, v) for k, v in x.items()}
    return f(x)


def _wrapper_run(lib):
    """A wrapper subclass (no data of its own) that logs and unwraps in __torch_dispatch__."""
    log = []

    class Wrapper(lib.Tensor):
        __torch_function__ = lib._C._disabled_torch_function_impl

        @staticmethod
        def __new__(cls, elem):
            r = lib.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype,
                                                  device=elem.device,
                                                  requires_grad=elem.requires_grad)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            log.append(func.overloadpacket.__name__)

            def unwrap(v):
                return v.elem if isinstance(v, Wrapper) else v

            def rewrap(v):
                return Wrapper(v) if isinstance(v, lib.Tensor) else v
            return _tree_map(rewrap, func(*_tree_map(unwrap, args),
                                          **_tree_map(unwrap, kwargs or {})))
    x = Wrapper(lib.tensor([1.0, -2.0, 3.0], requires_grad=True))
    y = (x * x).relu().sum()
    forward = [n for n in log if n != "detach"]     # torch's detach: relu saving its output
    y.backward()
    return (type(y).__name__, y.elem.item(), y.requires_grad, type(x.grad).__name__,
            x.grad.elem.tolist(), forward)


def test_wrapper_subclass_answers_ops_in_torch_dispatch_below_autograd():
    assert _wrapper_run(ember) == _wrapper_run(torch)
