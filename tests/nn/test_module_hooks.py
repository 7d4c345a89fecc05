"""Module hooks against torch: forward pre-hooks and hooks (kwargs, prepend, always_call,
replaced values, removal), global hooks, full backward hooks and pre-hooks (the gradients they
see, replacing them, non-tensor and non-differentiable positions), the deprecated backward hook,
and the errors."""
from __future__ import annotations

import warnings

import pytest
import torch
from tests.nn.test_module import assert_same, both, zoo

import ember


def _scaled(lib):
    class Scaled(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.tensor([1.0, 2.0, 3.0]))

        def forward(self, x, y=None, *, shift=0.0):
            out = x * self.weight + shift
            return out if y is None else (out, y * 2)
    return Scaled()


def test_forward_hooks_order_results_and_removal():
    def run(lib):
        model = _scaled(lib)
        log = []
        model.register_forward_pre_hook(lambda m, args: log.append(("pre", len(args))))
        model.register_forward_pre_hook(lambda m, args: (args[0] * 10,))
        model.register_forward_pre_hook(lambda m, args: log.append("first"), prepend=True)
        model.register_forward_pre_hook(
            lambda m, args, kwargs: (args, {**kwargs, "shift": 1.0}), with_kwargs=True)
        handle = model.register_forward_hook(lambda m, args, out: out + 100)
        model.register_forward_hook(
            lambda m, args, kwargs, out: log.append(("post", sorted(kwargs))), with_kwargs=True)
        model.register_forward_hook(lambda m, args, out: log.append("front"), prepend=True)
        first = model(lib.ones(3))
        handle.remove()
        second = model(lib.ones(3))
        return first, second, log
    assert_same(run)


def test_forward_pre_hook_may_return_a_single_value():
    def run(lib):
        model = _scaled(lib)
        model.register_forward_pre_hook(lambda m, args: args[0] + 1)
        return model(lib.ones(3))
    assert_same(run)


def test_forward_pre_hook_with_kwargs_bad_result_raises_like_torch():
    def run(lib):
        model = _scaled(lib)
        model.register_forward_pre_hook(lambda m, args, kwargs: 3, with_kwargs=True)
        return model(lib.ones(3))
    assert_same(run)


def test_always_call_hooks_run_when_forward_raises():
    def run(lib):
        model = _scaled(lib)
        log = []
        model.register_forward_hook(lambda m, args, out: log.append(("always", out)),
                                    always_call=True)
        model.register_forward_hook(lambda m, args, out: log.append("normal"))
        module_ns = lib.nn.modules.module
        handle = module_ns.register_module_forward_hook(
            lambda m, args, out: log.append(("global", out)), always_call=True)
        try:
            model(lib.ones(4))
        except RuntimeError:
            log.append("raised")
        finally:
            handle.remove()
        return log
    assert_same(run)


def test_global_forward_hooks_run_before_module_hooks():
    def run(lib):
        module_ns = lib.nn.modules.module
        log = []
        model = zoo(lib)["Net"]()
        model.register_forward_pre_hook(lambda m, args: log.append(("own pre", type(m).__name__)))
        handles = [
            module_ns.register_module_forward_pre_hook(
                lambda m, args: log.append(("pre", type(m).__name__))),
            module_ns.register_module_forward_hook(
                lambda m, args, out: log.append(("post", type(m).__name__, tuple(out.shape)))),
            module_ns.register_module_forward_hook(
                lambda m, args, kwargs, out: log.append(("kwargs", sorted(kwargs))),
                with_kwargs=True),
        ]
        try:
            model(lib.ones(2, 3))
        finally:
            for handle in handles:
                handle.remove()
        model(lib.ones(2, 3))
        return log
    assert_same(run)


def test_handles_work_as_context_managers():
    def run(lib):
        model = _scaled(lib)
        with model.register_forward_hook(lambda m, args, out: out * 0):
            inside = model(lib.ones(3))
        return inside, model(lib.ones(3)), len(model._forward_hooks)
    assert_same(run)


# -- backward hooks ----------------------------------------------------------------------------

def _backward_run(lib, hook_kind, replace=None, inputs_need_grad=True):
    model = _scaled(lib)
    log = []

    def full_hook(module, grad_input, grad_output):
        log.append(("hook", grad_input, grad_output))
        if replace == "input":
            return tuple(None if g is None else g * 3 for g in grad_input)
        return None

    def pre_hook(module, grad_output):
        log.append(("pre", grad_output))
        if replace == "output":
            return tuple(None if g is None else g * 5 for g in grad_output)
        return None

    if hook_kind in ("full", "both"):
        model.register_full_backward_hook(full_hook)
    if hook_kind in ("pre", "both"):
        model.register_full_backward_pre_hook(pre_hook)
    x = lib.tensor([1.0, -1.0, 2.0], requires_grad=inputs_need_grad)
    y = lib.tensor([0.5, 0.5, 0.5], requires_grad=inputs_need_grad)
    out, _ = model(x, y)
    (out * lib.tensor([1.0, 2.0, 3.0])).sum().backward(retain_graph=True)
    grads_first = (x.grad, y.grad, model.weight.grad)
    return log, grads_first, out.grad_fn.name() if out.grad_fn is not None else None


@pytest.mark.parametrize("hook_kind", ["full", "pre", "both"])
@pytest.mark.parametrize("replace", [None, "input", "output"])
def test_full_backward_hooks_match_torch(hook_kind, replace):
    assert_same(lambda lib: _backward_run(lib, hook_kind, replace))


def test_full_backward_hook_with_no_input_needing_grad_fires_on_outputs():
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = _backward_run(lib, "full", inputs_need_grad=False)
        return result, [str(w.message) for w in caught]
    assert_same(run)


def test_full_backward_hook_sees_none_for_non_tensor_arguments():
    def run(lib):
        class TakesFlag(lib.nn.Module):
            def forward(self, x, flag, z):
                return x * 2 + z if flag else x
        model = TakesFlag()
        seen = []
        model.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
        x = lib.ones(2, requires_grad=True)
        z = lib.ones(2)                    # needs no gradient
        model(x, True, z).sum().backward()
        return seen, x.grad
    assert_same(run)


def test_backward_hook_invalid_results_raise_like_torch():
    def run(lib, which):
        model = _scaled(lib)
        if which == "full":
            model.register_full_backward_hook(lambda m, gi, go: (None,) * 5)
        else:
            model.register_full_backward_pre_hook(lambda m, go: (None,) * 5)
        x = lib.ones(3, requires_grad=True)
        model(x).sum().backward()
    assert_same(lambda lib: run(lib, "full"))
    assert_same(lambda lib: run(lib, "pre"))


def test_mixing_backward_hook_kinds_raises_like_torch():
    def run(lib):
        model = _scaled(lib)
        model.register_backward_hook(lambda m, gi, go: None)
        model.register_full_backward_hook(lambda m, gi, go: None)
    assert_same(run)

    def run_other_way(lib):
        model = _scaled(lib)
        model.register_full_backward_hook(lambda m, gi, go: None)
        model.register_backward_hook(lambda m, gi, go: None)
    assert_same(run_other_way)


def test_deprecated_backward_hook_sees_the_last_node():
    # The last operation multiplies two tensors: its node has two inputs in both libraries.
    # (ember's node for `tensor + python_scalar` has one input where PyTorch's has two.)
    def run(lib):
        class Product(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = lib.nn.Parameter(lib.tensor([1.0, 2.0, 3.0]))

            def forward(self, x):
                return x * self.weight
        model = Product()
        seen = []
        model.register_backward_hook(lambda m, gi, go: seen.append((len(gi), go)))
        x = lib.ones(3, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model(x).sum().backward()
        return seen, x.grad, sorted({w.category.__name__ for w in caught})
    assert_same(run)


def test_global_full_backward_hooks_match_torch():
    def run(lib):
        module_ns = lib.nn.modules.module
        seen = []
        handles = [
            module_ns.register_module_full_backward_hook(
                lambda m, gi, go: seen.append(("hook", type(m).__name__, gi, go))),
            module_ns.register_module_full_backward_pre_hook(
                lambda m, go: seen.append(("pre", type(m).__name__, go))),
        ]
        try:
            model = zoo(lib)["Net"]()
            x = lib.ones(1, 3, requires_grad=True)
            model(x).sum().backward()
        finally:
            for handle in handles:
                handle.remove()
        return seen
    assert_same(run)


def test_global_backward_hook_kinds_cannot_mix():
    module_ns = ember.nn.modules.module
    handle = module_ns.register_module_full_backward_hook(lambda m, gi, go: None)
    try:
        with pytest.raises(RuntimeError, match="global Module hook"):
            module_ns.register_module_backward_hook(lambda m, gi, go: None)
    finally:
        handle.remove()
    torch_ns = torch.nn.modules.module
    torch_handle = torch_ns.register_module_full_backward_hook(lambda m, gi, go: None)
    try:
        with pytest.raises(RuntimeError, match="global Module hook"):
            torch_ns.register_module_backward_hook(lambda m, gi, go: None)
    finally:
        torch_handle.remove()


def test_hook_tables_stay_empty_after_removal_so_calls_are_plain_again():
    model = _scaled(ember)
    handles = [model.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True),
               model.register_forward_pre_hook(lambda *a: None, with_kwargs=True),
               model.register_full_backward_hook(lambda *a: None)]
    for handle in handles:
        handle.remove()
    for table in ("_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                  "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_backward_hooks"):
        assert not getattr(model, table), table


def test_registration_returns_handles_with_increasing_ids():
    torch_result, ember_result = both(lambda lib: [
        type(h).__name__ for h in (_scaled(lib).register_forward_hook(lambda *a: None),)])
    assert torch_result == ember_result
