"""ember.autocast against torch.autocast on CPU: result dtypes and values of the ops with a
policy, gradients through the casts, the weight cache, nesting, the state functions and the
errors and warnings."""
import warnings

import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)


def arr(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def both(values, dtype="float32", requires_grad=False):
    t = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=requires_grad)
    e = ember.tensor(values, dtype=getattr(ember, dtype), requires_grad=requires_grad)
    return t, e


def same_dtype(t_value, e_value):
    return str(t_value.dtype).split(".")[1] == str(e_value.dtype).split(".")[1]


def close(t_value, e_value):
    expected = t_value.detach().float().numpy()
    got = np.asarray(e_value.detach().float().numpy())
    np.testing.assert_allclose(got, expected, rtol=2e-2, atol=2e-2)


# name -> (function of the library's namespace and the inputs, input shapes)
CASES = {
    "mm": (lambda L, a, b: L.mm(a, b), [(3, 4), (4, 5)]),
    "bmm": (lambda L, a, b: L.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
    "matmul": (lambda L, a, b: L.matmul(a, b), [(3, 4), (4,)]),
    "addmm": (lambda L, c, a, b: L.addmm(c, a, b), [(3, 5), (3, 4), (4, 5)]),
    "addbmm": (lambda L, c, a, b: L.addbmm(c, a, b), [(3, 5), (2, 3, 4), (2, 4, 5)]),
    "baddbmm": (lambda L, c, a, b: L.baddbmm(c, a, b), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    "linear": (lambda L, x, w, b: L.nn.functional.linear(x, w, b), [(2, 3), (5, 3), (5,)]),
    "conv2d": (lambda L, x, w: L.nn.functional.conv2d(x, w), [(1, 2, 5, 5), (3, 2, 3, 3)]),
    "conv_transpose1d": (lambda L, x, w: L.nn.functional.conv_transpose1d(x, w),
                         [(1, 2, 5), (2, 3, 3)]),
    "einsum": (lambda L, a, b: L.einsum("ij,jk->ik", a, b), [(3, 4), (4, 5)]),
    "tensordot": (lambda L, a, b: L.tensordot(a, b, dims=1), [(3, 4), (4, 5)]),
    "multi_dot": (lambda L, a, b, c: L.chain_matmul(a, b, c), [(3, 4), (4, 5), (5, 2)]),
    "mv (none)": (lambda L, a, b: L.mv(a, b), [(3, 4), (4,)]),
    "addmv (none)": (lambda L, c, a, b: L.addmv(c, a, b), [(3,), (3, 4), (4,)]),
    "exp (none)": (lambda L, a: L.exp(a), [(3,)]),
    "softmax (none)": (lambda L, a: L.softmax(a, 0), [(3,)]),
    "layer_norm (none)": (lambda L, a: L.nn.functional.layer_norm(a, (3,)), [(2, 3)]),
    "cdist": (lambda L, a, b: L.cdist(a, b), [(3, 4), (2, 4)]),
    "trace": (lambda L, a: L.trace(a), [(3, 3)]),
    "prod": (lambda L, a: L.prod(a, 0), [(3, 2)]),
    "quantile": (lambda L, a: L.quantile(a, 0.3), [(5,)]),
    "cross_entropy": (lambda L, a: L.nn.functional.cross_entropy(a, L.tensor([0, 2])),
                      [(2, 3)]),
    "nll_loss": (lambda L, a: L.nn.functional.nll_loss(a, L.tensor([0, 2])), [(2, 3)]),
    "avg_pool3d": (lambda L, a: L.nn.functional.avg_pool3d(a, 2), [(1, 1, 4, 4, 4)]),
    "max_pool3d": (lambda L, a: L.nn.functional.max_pool3d(a, 2), [(1, 1, 4, 4, 4)]),
    "adaptive_avg_pool3d": (lambda L, a: L.nn.functional.adaptive_avg_pool3d(a, 2),
                            [(1, 1, 4, 4, 4)]),
    "reflection_pad2d": (lambda L, a: L.nn.functional.pad(a, (1, 1, 1, 1), mode="reflect"),
                         [(1, 2, 4, 4)]),
    "replication_pad1d": (lambda L, a: L.nn.functional.pad(a, (1, 2), mode="replicate"),
                          [(1, 2, 4)]),
    "grid_sample": (lambda L, a, g: L.nn.functional.grid_sample(a, g, align_corners=False),
                    [(1, 1, 4, 4), (1, 2, 2, 2)]),
    "cat": (lambda L, a, b: L.cat([a, b]), [(2,), (3,)]),
    "stack": (lambda L, a, b: L.stack([a, b]), [(2,), (2,)]),
    "vstack": (lambda L, a, b: L.vstack([a, b]), [(2,), (2,)]),
    "index_copy": (lambda L, a, b: L.index_copy(a, 0, L.tensor([1]), b), [(3, 2), (1, 2)]),
}

# input dtype patterns: all float32, all in the autocast dtype, mixed
PATTERNS = ("float32", "low", "mixed")
# PyTorch refuses mixed dtypes in these two before autocast's cast is reached (its policy sits
# on the mm they call); ember's own versions promote mixed dtypes with or without autocast.
NOT_MIXED = {"multi_dot", "tensordot"}


@pytest.mark.parametrize("low", ["bfloat16", "float16"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_op_dtype_and_values_match_torch(name, pattern, low):
    if pattern == "mixed" and name in NOT_MIXED:
        pytest.skip("PyTorch's own dtype check, not autocast (see NOT_MIXED)")
    fn, shapes = CASES[name]
    values = [arr(*s) for s in shapes]
    if name == "grid_sample":
        values[1] = np.tanh(values[1])
    dtypes = ["float32" if pattern == "float32" else low for _ in values]
    if pattern == "mixed":
        dtypes[0] = "float32"
    pairs = [both(v, d) for v, d in zip(values, dtypes)]
    try:
        with torch.autocast("cpu", dtype=getattr(torch, low)):
            expected = fn(torch, *[p[0] for p in pairs])
    except RuntimeError:        # mixed inputs to an op without a policy: ember refuses too
        with ember.autocast("cpu", dtype=getattr(ember, low)), pytest.raises(RuntimeError):
            fn(ember, *[p[1] for p in pairs])
        return
    with ember.autocast("cpu", dtype=getattr(ember, low)):
        got = fn(ember, *[p[1] for p in pairs])
    assert same_dtype(expected, got), (expected.dtype, got.dtype)
    close(expected, got)


def test_promote_of_half_and_bfloat16_raises_as_torch():
    t_a, e_a = both(arr(2), "bfloat16")
    t_b, e_b = both(arr(2), "float16")
    with torch.autocast("cpu"), pytest.raises(RuntimeError) as t_err:
        torch.cat([t_a, t_b])
    with ember.autocast("cpu"), pytest.raises(RuntimeError) as e_err:
        ember.cat([e_a, e_b])
    assert str(e_err.value) == str(t_err.value).splitlines()[0]


def test_float64_is_left_alone():
    t_a, e_a = both(arr(3, 3), "float64")
    with torch.autocast("cpu"):
        expected = torch.mm(t_a, t_a)
    with ember.autocast("cpu"):
        got = ember.mm(e_a, e_a)
    assert same_dtype(expected, got)


def test_gradients_flow_back_to_float32_leaves():
    values = [arr(4, 3), arr(5, 3), arr(5), arr(4, 5)]
    results = []
    for L in (torch, ember):
        x, w, b, _ = [L.tensor(v, requires_grad=i < 3) for i, v in enumerate(values)]
        with L.autocast("cpu"):
            hidden = L.nn.functional.linear(x, w, b)
            out = L.mm(hidden, hidden.t())
            loss = L.nn.functional.cross_entropy(out, L.tensor([0, 1, 2, 3]))
        loss.backward()
        results.append((hidden, out, loss, x.grad, w.grad, b.grad))
    for expected, got in zip(*results):
        assert same_dtype(expected, got)
        close(expected, got)


def test_weight_cache_casts_a_parameter_once_per_region():
    w = ember.nn.Parameter(ember.tensor(arr(3, 3)))
    x = ember.tensor(arr(2, 3))
    with ember.autocast("cpu"):
        first = ember.mm(x, w)
        second = ember.mm(x, w)
        assert first.grad_fn.next_functions[1][0] is second.grad_fn.next_functions[1][0]
        with ember.autocast("cpu", cache_enabled=False):
            third = ember.mm(x, w)
        assert third.grad_fn.next_functions[1][0] is not first.grad_fn.next_functions[1][0]
    with ember.autocast("cpu"):
        fourth = ember.mm(x, w)
    assert fourth.grad_fn.next_functions[1][0] is not first.grad_fn.next_functions[1][0]


def test_a_cast_made_under_no_grad_is_not_reused_with_grad_on():
    for L in (torch, ember):
        w = L.nn.Parameter(L.tensor(arr(3, 3)))
        x = L.tensor(arr(2, 3))
        with L.autocast("cpu"):
            with L.no_grad():
                L.mm(x, w)
            out = L.mm(x, w)
        out.float().sum().backward()
        assert w.grad is not None and w.grad.dtype == L.float32


def test_autocast_state_is_per_thread():
    import threading
    seen = []

    def other():
        seen.append((ember.is_autocast_enabled("cpu"), ember.mm(a, a).dtype))
    a = ember.ones(2, 2)
    with ember.autocast("cpu"):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert ember.mm(a, a).dtype == ember.bfloat16
    assert seen == [(False, ember.float32)]


def test_nesting_disabling_and_state_functions_follow_torch():
    for L in (torch, ember):
        assert not L.is_autocast_enabled("cpu")
        assert L.get_autocast_dtype("cpu") == L.bfloat16
        assert L.get_autocast_dtype("cuda") == L.float16
        a = L.ones(2, 2)
        with L.autocast("cpu", dtype=L.float16):
            assert L.is_autocast_enabled("cpu") and not L.is_autocast_enabled()
            assert L.get_autocast_dtype("cpu") == L.float16
            with L.autocast("cpu", enabled=False):
                assert not L.is_autocast_enabled("cpu")
                assert L.mm(a, a).dtype == L.float32
                with L.autocast("cpu"):     # the dtype in force is the outer one
                    assert L.mm(a, a).dtype == L.float16
            assert L.mm(a, a).dtype == L.float16
        assert L.mm(a, a).dtype == L.float32
        L.set_autocast_enabled("cpu", True)
        assert L.mm(a, a).dtype == L.bfloat16
        L.set_autocast_enabled("cpu", False)
        assert L.mm(a, a).dtype == L.float32
        assert L.is_autocast_cache_enabled()
        assert L.amp.is_autocast_available("cpu") and not L.amp.is_autocast_available("meta")


def test_decorator_form():
    for L in (torch, ember):
        @L.autocast("cpu")
        def run(a, L=L):
            return L.mm(a, a)
        assert run(L.ones(2, 2)).dtype == L.bfloat16
        assert L.mm(L.ones(2, 2), L.ones(2, 2)).dtype == L.float32


def test_plain_path_is_back_after_the_region():
    from ember._core.dispatch import state
    assert not state.slow
    with ember.autocast("cpu"):
        assert state.slow
    assert not state.slow


def capture(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn()
        except Exception as exc:    # noqa: BLE001  (the class and text are compared)
            return ("raised", type(exc).__name__, str(exc).split(" (Triggered")[0]), []
    return result, [(w.category.__name__, str(w.message).split(" (Triggered")[0])
                    for w in caught]


@pytest.mark.parametrize("call", [
    lambda L: L.autocast("cpu", dtype=L.float64)._enabled,
    lambda L: L.autocast("cuda")._enabled,
    lambda L: L.autocast(1),
    lambda L: L.autocast("meta"),
    lambda L: L.autocast("cpu")(3),
    lambda L: L.cpu.amp.autocast()._enabled,
    lambda L: L.cuda.amp.autocast()._enabled,
    lambda L: L.amp.custom_fwd(device_type=1),
    lambda L: L.get_autocast_cpu_dtype() == L.bfloat16,
])
def test_errors_and_warnings_match_torch(call):
    expected = capture(lambda: call(torch))
    got = capture(lambda: call(ember))
    assert got == expected


def test_custom_fwd_casts_inputs_and_bwd_restores_the_state():
    seen = {}
    for L in (torch, ember):
        class Square(L.autograd.Function):
            @staticmethod
            @L.amp.custom_fwd(device_type="cpu", cast_inputs=L.float32)
            def forward(ctx, x, L=L):
                ctx.save_for_backward(x)
                seen[L.__name__, "fwd"] = (x.dtype, L.is_autocast_enabled("cpu"))
                return x * x

            @staticmethod
            @L.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad, L=L):
                seen[L.__name__, "bwd"] = L.is_autocast_enabled("cpu")
                (x,) = ctx.saved_tensors
                return 2 * x * grad

        x = L.ones(3, dtype=L.bfloat16, requires_grad=True)
        with L.autocast("cpu"):
            y = Square.apply(x)
        y.sum().backward()
        seen[L.__name__, "grad"] = x.grad.dtype
    for key in ("fwd", "bwd", "grad"):
        assert str(seen["torch", key]).replace("torch", "L") == \
            str(seen["ember", key]).replace("ember", "L")


def test_training_step_with_grad_scaler_matches_torch():
    values = [arr(8, 6), arr(8), arr(3, 8), arr(3), arr(10, 6)]
    labels = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0]
    runs = []
    for L in (torch, ember):
        w1, b1, w2, b2 = [L.nn.Parameter(L.tensor(v)) for v in values[:4]]
        x = L.tensor(values[4])
        opt = L.optim.SGD([w1, b1, w2, b2], lr=0.1, momentum=0.9)
        scaler = L.amp.GradScaler("cpu", init_scale=2.0 ** 8)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            with L.autocast("cpu"):
                hidden = L.relu(L.nn.functional.linear(x, w1, b1))
                logits = L.nn.functional.linear(hidden, w2, b2)
                loss = L.nn.functional.cross_entropy(logits, L.tensor(labels))
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            losses.append(loss)
        runs.append(losses + [w1.grad, w1, b2])
    for expected, got in zip(*runs):
        assert same_dtype(expected, got)
        close(expected, got)


_LOSSES = {
    "mse_loss": lambda F, a, b, y, t: F.mse_loss(a, b),
    "l1_loss": lambda F, a, b, y, t: F.l1_loss(a, b),
    "smooth_l1_loss": lambda F, a, b, y, t: F.smooth_l1_loss(a, b),
    "huber_loss": lambda F, a, b, y, t: F.huber_loss(a, b),
    "kl_div": lambda F, a, b, y, t: F.kl_div(a, b, reduction="batchmean"),
    "binary_cross_entropy": lambda F, a, b, y, t: F.binary_cross_entropy(a, b),
    "binary_cross_entropy_with_logits": lambda F, a, b, y, t:
        F.binary_cross_entropy_with_logits(a, b),
    "poisson_nll_loss": lambda F, a, b, y, t: F.poisson_nll_loss(a, b),
    "cosine_embedding_loss": lambda F, a, b, y, t: F.cosine_embedding_loss(a, b, y),
    "hinge_embedding_loss": lambda F, a, b, y, t: F.hinge_embedding_loss(a, b),
    "margin_ranking_loss": lambda F, a, b, y, t: F.margin_ranking_loss(a[:, 0], b[:, 0], y),
    "soft_margin_loss": lambda F, a, b, y, t: F.soft_margin_loss(a, b),
    "triplet_margin_loss": lambda F, a, b, y, t: F.triplet_margin_loss(a, b, a),
    "multi_margin_loss": lambda F, a, b, y, t: F.multi_margin_loss(a, t),
    "multilabel_soft_margin_loss": lambda F, a, b, y, t: F.multilabel_soft_margin_loss(a, b),
    "gaussian_nll_loss": lambda F, a, b, y, t: F.gaussian_nll_loss(a, b, a + 1),
}


@pytest.mark.parametrize("name", list(_LOSSES))
def test_composite_losses_follow_the_policy(name):
    """Losses ember composes from several ops run in float32 under autocast where PyTorch's
    do (and stay in the lower dtype where PyTorch's do), gradients in the inputs' dtype."""
    got = []
    for lib in (torch, ember):
        a = lib.tensor([[0.2, 0.7, 0.4], [0.9, 0.3, 0.5]]).bfloat16().requires_grad_()
        b = lib.tensor([[0.1, 0.8, 0.6], [0.5, 0.2, 0.3]]).bfloat16()
        y = lib.tensor([1.0, -1.0]).bfloat16()
        t = lib.tensor([0, 2])
        with lib.autocast("cpu", dtype=lib.bfloat16):
            loss = _LOSSES[name](lib.nn.functional, a, b, y, t)
        loss.backward()
        got.append((str(loss.dtype).split(".")[1], str(a.grad.dtype).split(".")[1]))
    assert got[1] == got[0]
