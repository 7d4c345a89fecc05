"""The autograd engine's behaviour against PyTorch's: recording, leaves, grad accumulation,
retain_graph, version counters, hooks, grad modes, higher order, long chains."""
import threading

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def both(fn):
    """Run fn(lib) for ember and torch and return both results."""
    return fn(ember), fn(torch)


def as_list(t):
    return None if t is None else np.asarray(t.detach().numpy()).tolist()


def test_recording_only_when_an_input_requires_grad():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0])
        c = a * b
        d = b * b
        return (c.requires_grad, c.is_leaf, c.grad_fn.name(), d.requires_grad, d.grad_fn,
                a.is_leaf, a.grad_fn)
    ours, theirs = both(run)
    assert ours == theirs


def test_next_functions_and_accumulate_grad():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        c = (a * b).sum()
        fns = c.grad_fn.next_functions
        return (c.grad_fn.name(), [(f.name(), nr) for f, nr in fns],
                [(g.name(), nr) for g, nr in fns[0][0].next_functions],
                fns[0][0].next_functions[0][0].variable is a)
    ours, theirs = both(run)
    assert ours == theirs


def test_gradients_accumulate_across_backward_calls():
    def run(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (a * a).sum().backward()
        first = as_list(a.grad)
        (a * 3.0).sum().backward()
        return first, as_list(a.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_second_backward_without_retain_graph_raises():
    for lib in (ember, torch):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        out = (a * a).sum()
        out.backward(retain_graph=True)
        out.backward()
        with pytest.raises(RuntimeError, match="second time"):
            out.backward()


def test_modified_saved_tensor_raises_at_backward():
    for lib in (ember, torch):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1.0
        c = b * b
        b.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            c.sum().backward()


def test_inplace_on_leaf_requiring_grad_raises():
    for lib in (ember, torch):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            a.add_(1)


def test_inplace_op_rewires_history():
    def run(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 2.0
        b.mul_(a)
        b.add_(1.0)
        b.sum().backward()
        return as_list(a.grad), b.grad_fn.name()
    ours, theirs = both(run)
    assert ours == theirs


def test_inplace_op_on_its_own_saved_input_raises():
    for lib in (ember, torch):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 2.0
        b.mul_(b)
        with pytest.raises(RuntimeError, match="output 0 of MulBackward0|output 0 of Mul,"):
            b.sum().backward()


def test_tensor_hooks_change_the_gradient():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 3.0
        seen = []
        b.register_hook(lambda g: seen.append(as_list(g)))
        handle = a.register_hook(lambda g: g * 10)
        (b * b).sum().backward()
        first = as_list(a.grad)
        handle.remove()
        a.grad = None
        (a * 1.0).sum().backward()
        return seen, first, as_list(a.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_retain_grad_on_non_leaf():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * a
        b.retain_grad()
        b.sum().backward()
        return as_list(b.grad), b.retains_grad, a.retains_grad
    ours, theirs = both(run)
    assert ours == theirs


def test_node_hooks_and_prehooks():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2.0
        calls = []
        b.grad_fn.register_prehook(lambda gout: calls.append("pre") or None)
        b.grad_fn.register_hook(lambda gin, gout: calls.append("post") or None)
        b.sum().backward()
        return calls, as_list(a.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_post_accumulate_grad_hook():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        a.register_post_accumulate_grad_hook(lambda t: seen.append(as_list(t.grad)))
        (a * 5.0).sum().backward()
        return seen
    ours, theirs = both(run)
    assert ours == theirs


def test_autograd_grad_does_not_touch_dot_grad_and_allow_unused():
    for lib in (ember, torch):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([1.0, 2.0], requires_grad=True)
        out = (a * a).sum()
        (ga,) = lib.autograd.grad(out, a, retain_graph=True)
        assert a.grad is None
        assert as_list(ga) == [2.0, 4.0]
        with pytest.raises(RuntimeError, match="allow_unused"):
            lib.autograd.grad(out, [a, b], retain_graph=True)
        ga2, gb = lib.autograd.grad(out, [a, b], allow_unused=True, retain_graph=True)
        assert gb is None
        _, gz = lib.autograd.grad(out, [a, b], materialize_grads=True)
        assert as_list(gz) == [0.0, 0.0]


def test_higher_order_gradients():
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = (x * x * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        return as_list(g), as_list(h), g.requires_grad
    ours, theirs = both(run)
    assert ours == theirs


def test_backward_with_inputs_only_accumulates_those():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        (a * b).sum().backward(inputs=[a])
        return as_list(a.grad), as_list(b.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_implicit_grad_needs_a_scalar():
    for lib in (ember, torch):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="scalar outputs"):
            (a * 2.0).backward()
        with pytest.raises(RuntimeError, match="does not require grad"):
            lib.tensor([1.0]).sum().backward()


def test_long_chain_has_no_recursion_limit():
    x = ember.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_grad_modes_nest_and_decorate():
    x = ember.tensor([1.0], requires_grad=True)
    with ember.no_grad():
        assert not (x * 2).requires_grad
        with ember.enable_grad():
            assert (x * 2).requires_grad
        assert not ember.is_grad_enabled()
    assert ember.is_grad_enabled()

    @ember.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad
    with ember.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    ember.set_grad_enabled(False)
    assert not ember.is_grad_enabled()
    ember.set_grad_enabled(True)
    with ember.inference_mode():
        assert ember.is_inference_mode_enabled()
        assert not (x * 2).requires_grad
    assert not ember.is_inference_mode_enabled()


def test_grad_mode_is_thread_local():
    seen = {}

    def worker():
        seen["enabled"] = ember.is_grad_enabled()
    with ember.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen["enabled"] is True


def test_custom_function_matches_pytorch():
    def run(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_backward(x)
                ctx.k = k
                return x * x * x * k

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * 3.0 * x * x * ctx.k, None
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = Cube.apply(x, 2.0)
        y.sum().backward()
        return as_list(x.grad), y.grad_fn.name(), ctx_needs(Cube, lib)

    def ctx_needs(cls, lib):
        class Probe(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                Probe.seen = ctx.needs_input_grad
                return a * 1.0

            @staticmethod
            def backward(ctx, g):
                return g, None
        Probe.apply(lib.tensor([1.0], requires_grad=True), lib.tensor([1.0]))
        return Probe.seen
    ours, theirs = both(run)
    assert ours == theirs


def test_custom_function_setup_context_style():
    def run(lib):
        class Mul(lib.autograd.Function):
            @staticmethod
            def forward(a, b):
                return a * b

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(*inputs)

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g * b, g * a
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        Mul.apply(a, b).sum().backward()
        return as_list(a.grad), as_list(b.grad)
    ours, theirs = both(run)
    assert ours == theirs


def test_custom_function_wrong_gradient_count():
    class Bad(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g
    a = ember.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        Bad.apply(a, ember.tensor([2.0], requires_grad=True)).sum().backward()


def test_gradcheck_passes_and_fails():
    x = ember.tensor([0.5, -1.5, 2.0], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: (t * t * t).sum(), (x,))
    assert ember.autograd.gradgradcheck(lambda t: (t * t * t).sum(), (x,))

    class Wrong(ember.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * t

        @staticmethod
        def backward(ctx, g):
            return g * 3.0
    with pytest.raises(ember.autograd.GradcheckError, match="Jacobian mismatch"):
        ember.autograd.gradcheck(Wrong.apply, (x,))
    assert ember.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False) is False


def test_variable_wraps_a_tensor_as_in_old_pytorch():
    def run(lib):
        x = lib.ones(2)
        v = lib.autograd.Variable(x, requires_grad=True)
        (v * 3.0).sum().backward()
        return (isinstance(x, lib.autograd.Variable), v.requires_grad, v.is_leaf,
                as_list(v.grad), repr(v.grad_fn))
    ours, theirs = both(run)
    assert ours == theirs


def test_gradcheck_on_complex_functions_agrees_with_pytorch():
    values = [0.5 + 1.0j, -1.5 + 0.25j, 2.0 - 0.5j]

    def functions(lib):
        return [lambda z: z * z, lambda z: (z * z.conj()).real, lambda z: z.abs(),
                lambda z: z.exp() * 2.0, lambda z: lib.view_as_real(z * 1.0)]
    for ours, theirs in zip(functions(ember), functions(torch)):
        z = ember.tensor(values, dtype=ember.complex128, requires_grad=True)
        t = torch.tensor(values, dtype=torch.complex128, requires_grad=True)
        assert ember.autograd.gradcheck(ours, (z,)) == torch.autograd.gradcheck(theirs, (t,))
        assert ember.autograd.gradgradcheck(ours, (z,))

    class WrongConjugate(ember.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return g * 2 * z       # PyTorch's convention needs conj(2 z)
    z = ember.tensor(values, dtype=ember.complex128, requires_grad=True)
    assert not ember.autograd.gradcheck(WrongConjugate.apply, (z,), raise_exception=False)


def test_mark_dirty_mark_non_differentiable_detach_and_data():
    def run(lib):
        out = []
        class AddOneInPlace(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x
            @staticmethod
            def backward(ctx, g):
                return g * 2
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        c = AddOneInPlace.apply(b)
        out.append((c is b, c.grad_fn.name(), b.tolist()))
        c.sum().backward()
        out.append(a.grad.tolist())
        class SortWithIdx(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                v, i = x.sort()
                ctx.mark_non_differentiable(i)
                ctx.save_for_backward(i)
                return v, i
            @staticmethod
            def backward(ctx, gv, gi):
                (i,) = ctx.saved_tensors
                return lib.zeros_like(gv).scatter(0, i, gv)
        x = lib.tensor([3.0, 1.0, 2.0], requires_grad=True)
        v, i = SortWithIdx.apply(x)
        out.append((v.requires_grad, i.requires_grad))
        (v * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        out.append(x.grad.tolist())
        y = x * 2
        y.detach_()
        out.append((y.requires_grad, y.grad_fn, y.is_leaf))
        d = x.data
        out.append((d.requires_grad, d.is_leaf))
        d.mul_(2)
        out.append(x.tolist())
        return out
    assert run(ember) == run(torch)


def test_grad_with_batched_grad_outputs():
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = lib.tensor([0.5, -1.0], requires_grad=True)
        y = (x ** 2).sum() * w
        gx, gw = lib.autograd.grad(y, (x, w), lib.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 3.0]]),
                                   is_grads_batched=True)
        with pytest.raises(RuntimeError, match="is_grads_batched"):
            lib.autograd.grad(y, x, lib.ones(3, 3), is_grads_batched=True)
        return as_list(gx), as_list(gw)
    ours, theirs = both(run)
    assert ours == theirs


def test_gradcheck_checks_forward_mode_when_asked():
    x = ember.tensor([0.5, -1.5, 2.0], dtype=ember.float64, requires_grad=True)
    z = ember.tensor([0.5 + 1j, -1.5], dtype=ember.complex128, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: (t.sin() * t).cumsum(0), (x,),
                                    check_forward_ad=True)
    assert ember.autograd.gradcheck(lambda t: t * t.exp(), (z,), check_forward_ad=True)

    class Wrong(ember.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * t

        @staticmethod
        def backward(ctx, g):
            return g * 3.0
    assert not ember.autograd.gradcheck(Wrong.apply, (x,), check_forward_ad=True,
                                        check_backward_ad=False, raise_exception=False)
