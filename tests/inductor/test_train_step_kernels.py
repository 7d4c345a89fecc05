"""What the GPT training step's compiled graphs rely on, each against PyTorch's eager ops:
float32 exp as the kernels' own vectorised function (NOTE [float exp in the kernels]: masked
softmax rows, infinities, NaN, the underflow edge), sibling kernels sharing a loop (NOTE [sibling
kernels share a loop]: GELU and its derivative), and the saved values of a compiled forward
leaving as views of its buffers (NOTE [saved values leave as views])."""
import re

import numpy as np
import pytest
import torch

import ember
from ember._inductor import compile_fx, cpp_builder, metrics
from ember.fx.experimental.proxy_tensor import make_fx

pytestmark = pytest.mark.skipif(cpp_builder.compiler() is None, reason="no C compiler")


def _compiled(f, args):
    metrics.reset()
    fn = compile_fx(make_fx(f)(*args), args)
    out = fn(*args)
    assert metrics.compile_failures == 0 and metrics.eager_fallbacks == 0
    return fn, out


def test_exp_matches_pytorch_over_the_float_range():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-110, 95, 20000), rng.uniform(-3, 3, 20000),
                        [-np.inf, np.inf, np.nan, 0.0, -0.0, 88.72, 88.73, -87.33, -87.34,
                         -103.9, -104.0, -200.0, 1e-30, -1e-30]]).astype(np.float32)
    fn, out = _compiled(lambda t: t.exp(), [ember.tensor(x)])
    assert "ember_expf" in fn.kernel_source
    expected = torch.tensor(x).exp().numpy()
    got = out.numpy()
    assert got.dtype == np.float32
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))
    finite = np.isfinite(expected)
    # within float32 rounding of PyTorch's value; results below the smallest normal float are
    # 0 here (NOTE [float exp in the kernels]), within 1.2e-38 of PyTorch's subnormals
    np.testing.assert_allclose(got[finite], expected[finite], rtol=3e-7, atol=1.2e-38)
    assert got[x == -np.inf].tolist() == [0.0]


def test_masked_softmax_rows_match_pytorch():
    rng = np.random.default_rng(1)
    att = rng.standard_normal((2, 3, 8, 8)).astype(np.float32) * 4
    mask = np.tril(np.ones((8, 8), np.float32))

    def f(a, m):
        return a.masked_fill(m == 0, float("-inf")).softmax(-1)
    fn, out = _compiled(f, [ember.tensor(att), ember.tensor(mask)])
    expected = torch.tensor(att).masked_fill(torch.tensor(mask) == 0, float("-inf")) \
        .softmax(-1).numpy()
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-7)
    assert (out.numpy()[..., np.triu_indices(8, 1)[0], np.triu_indices(8, 1)[1]] == 0).all()


def test_gelu_and_its_derivative_share_one_loop():
    rng = np.random.default_rng(2)
    h, b = rng.standard_normal((16, 32)).astype(np.float32), \
        rng.standard_normal(32).astype(np.float32)

    def f(h, b):
        x = h + b       # GELU's derivative as the decomposition of gelu_backward writes it
        cdf = 0.5 * (1 + ember.erf(x * 0.7071067811865476))
        return (ember.nn.functional.gelu(x),
                cdf + x * ember.exp(x * x * -0.5) * 0.3989422804014327)
    fn, (g, d) = _compiled(f, [ember.tensor(h), ember.tensor(b)])
    tx = torch.tensor(h) + torch.tensor(b)
    np.testing.assert_allclose(g.numpy(), torch.nn.functional.gelu(tx).numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(d.numpy(), torch.ops.aten.gelu_backward(
        torch.ones_like(tx), tx).numpy(), rtol=1e-5, atol=1e-6)
    # one loop reads h and b once and stores both results
    assert fn.kernel_count == 1, fn.kernel_source
    body = fn.kernel_source.split("void kernel")[-1]
    assert len(re.findall(r"\] = ", body)) == 2


def test_siblings_do_not_join_across_a_dependency():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 16)).astype(np.float32)

    def f(x):
        a = (x * 2).exp()
        s = a.sum(1, keepdim=True)       # a reduction between: b reads it
        b = (x + s).exp()
        return a, b
    fn, (a, b) = _compiled(f, [ember.tensor(x)])
    tx = torch.tensor(x)
    ta = (tx * 2).exp()
    np.testing.assert_allclose(a.numpy(), ta.numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), (tx + ta.sum(1, keepdim=True)).exp().numpy(),
                               rtol=2e-5)


def _gpt_block(lib):
    nn = lib.nn
    lib.manual_seed(0)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(16)
            self.qkv = nn.Linear(16, 48)
            self.fc = nn.Linear(16, 64)
            self.out = nn.Linear(64, 16)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln(x)).split(c, dim=2)
            q = q.view(b, t, 2, c // 2).transpose(1, 2)
            k = k.view(b, t, 2, c // 2).transpose(1, 2)
            v = v.view(b, t, 2, c // 2).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * 0.25
            mask = lib.tril(lib.ones(t, t)).view(1, 1, t, t)
            att = att.masked_fill(mask == 0, float("-inf")).softmax(-1)
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
            x = x + y
            return x + self.out(nn.functional.gelu(self.fc(x)))
    return Block()


def test_compiled_block_saves_views_and_matches_pytorch_gradients():
    x = np.random.default_rng(4).standard_normal((2, 8, 16)).astype(np.float32)
    results = {}
    for lib in (torch, ember):
        block = _gpt_block(lib)
        if lib is ember:
            block.load_state_dict({k: ember.tensor(v.detach().numpy())
                                   for k, v in tblock.state_dict().items()})
            fn = ember.compile(block)
        else:
            tblock, fn = block, block
        out = fn(lib.tensor(x))
        out.pow(2).sum().backward()
        results[lib.__name__] = (out.detach().numpy(),
                                 {n: p.grad.numpy() for n, p in block.named_parameters()})
    np.testing.assert_allclose(results["ember"][0], results["torch"][0], rtol=1e-4, atol=1e-5)
    for name, g in results["torch"][1].items():
        np.testing.assert_allclose(results["ember"][1][name], g, rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def test_saved_values_leave_the_forward_as_views():
    from ember._functorch.aot_autograd import aot_function
    from ember._functorch.partitioners import min_cut_rematerialization_partition

    seen = {}

    def fw_compiler(gm, examples):
        call = compile_fx(gm, examples)
        seen["fw"] = call
        return call

    def bw_compiler(gm, examples):
        seen["bw_examples"] = examples
        return compile_fx(gm, examples)

    def f(a, w):
        y = (a @ w).t()               # (6, 4): the backward of y * exp(y) reads y, a view
        return (y * y.exp()).sum()
    a = ember.randn(4, 5, requires_grad=True)
    w = ember.randn(5, 6, requires_grad=True)
    compiled = aot_function(f, fw_compiler, bw_compiler,
                            partition_fn=min_cut_rematerialization_partition)
    loss = compiled(a, w)
    loss.backward()
    ta, tw = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (a, w))
    ty = (ta @ tw).t()
    tloss = (ty * ty.exp()).sum()
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-6)
    # y reaches the backward as the transposed view of the matmul's result, not copied
    assert any(isinstance(t, ember.Tensor) and tuple(t.shape) == (6, 4) and
               not t.is_contiguous() for t in seen["bw_examples"])
    for body in seen["fw"].kernel_source.split("void kernel")[1:]:
        statements = [s for s in body.split("\n") if s.strip().endswith(";")]
        assert len(statements) > 2, body      # no kernel is a lone load and store


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cat_of_views_and_pointwise_parts_matches_pytorch(dim):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 3, 2)).astype(np.float32)

    def f(a, b):
        bt = b.permute(2, 1, 0)             # (2, 3, 4) read through an index map
        return ember.cat([a, bt * 2, (a + 1).exp()], dim)
    fn, out = _compiled(f, [ember.tensor(a), ember.tensor(b)])
    ta, tb = torch.tensor(a), torch.tensor(b)
    expected = torch.cat([ta, tb.permute(2, 1, 0) * 2, (ta + 1).exp()], dim)
    assert tuple(out.shape) == tuple(expected.shape)
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)
    assert metrics.extern_calls == 0


def test_cat_with_a_legacy_empty_part_and_mixed_dtypes_matches_pytorch():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(4, dtype=np.int64).reshape(2, 2)

    def f(a, b):
        return ember.cat([a, ember.zeros(0), b], 1)
    fn, out = _compiled(f, [ember.tensor(a), ember.tensor(b)])
    expected = torch.cat([torch.tensor(a), torch.zeros(0), torch.tensor(b)], 1)
    assert out.dtype == ember.float32 and expected.dtype == torch.float32
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


@pytest.mark.parametrize("padding_idx", [-1, 3])
def test_embedding_dense_backward_matches_pytorch(padding_idx):
    rng = np.random.default_rng(6)
    grad = rng.standard_normal((4, 6, 8)).astype(np.float32)
    idx = rng.integers(0, 10, (4, 6))
    idx[0, :3] = 3                        # repeated rows add up

    def f(g, i):
        return ember.ops.aten.embedding_dense_backward.default(g * 2, i, 10, padding_idx,
                                                               False)
    fn, out = _compiled(f, [ember.tensor(grad), ember.tensor(idx)])
    assert metrics.extern_calls == 0
    expected = torch.ops.aten.embedding_dense_backward(torch.tensor(grad) * 2,
                                                       torch.tensor(idx), 10, padding_idx,
                                                       False)
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)


def test_sum_over_the_batch_of_a_broadcast_expression_loops_rows_innermost():
    # NOTE [reductions across rows]: a load that is the same across the last output dim (a
    # per-row statistic, stride 0) does not stop the row order
    rng = np.random.default_rng(7)
    x = rng.standard_normal((16, 8, 32)).astype(np.float32)
    m = rng.standard_normal((16, 8, 1)).astype(np.float32)

    def f(x, m):
        return ((x - m.expand(16, 8, 32)) * 3).sum(0)
    fn, out = _compiled(f, [ember.tensor(x), ember.tensor(m)])
    assert "accs[" in fn.kernel_source
    expected = ((torch.tensor(x) - torch.tensor(m)) * 3).sum(0)
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("reduction", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nll_loss_forward_and_backward_match_pytorch(reduction, dtype):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((7, 5)).astype(dtype)
    t = np.array([0, 4, -100, 1, 1, 3, 2])
    A = ember.ops.aten

    def f(x, t):
        lp = x.log_softmax(1)
        out, total = A.nll_loss_forward.default(lp, t, None, reduction, -100)
        grad = A.nll_loss_backward.default(out * 0 + 2.0, lp, t, None, reduction, -100)
        return out, total, grad
    fn, (out, total, grad) = _compiled(f, [ember.tensor(x), ember.tensor(t)])
    assert metrics.extern_calls == 0
    tl = torch.tensor(x).log_softmax(1)
    eo, etw = torch.ops.aten.nll_loss_forward(tl, torch.tensor(t), None, reduction, -100)
    eg = torch.ops.aten.nll_loss_backward(eo * 0 + 2.0, tl, torch.tensor(t), None, reduction,
                                          -100, etw)
    for got, want in ((out, eo), (total, etw), (grad, eg)):
        assert got.dtype == getattr(ember, str(want.dtype).split(".")[1])
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("bad", [5, -3])
def test_nll_loss_out_of_range_target_raises_as_eager(bad):
    x = np.random.default_rng(9).standard_normal((4, 5)).astype(np.float32)
    A = ember.ops.aten

    def f(x, t):
        return A.nll_loss_forward.default(x.log_softmax(1), t, None, 1, -100)[0]
    fn, _ = _compiled(f, [ember.tensor(x), ember.tensor(np.array([0, 1, 2, -100]))])
    t = np.array([0, bad, 2, 3])
    with pytest.raises(IndexError) as compiled_error:
        fn(ember.tensor(x), ember.tensor(t))
    with pytest.raises(IndexError) as torch_error:
        torch.ops.aten.nll_loss_forward(torch.tensor(x).log_softmax(1), torch.tensor(t), None,
                                        1, -100)
    assert str(compiled_error.value) == str(torch_error.value)


def test_nll_loss_with_every_target_ignored_is_nan_as_pytorch():
    x = np.random.default_rng(10).standard_normal((3, 4)).astype(np.float32)
    t = np.array([-100, -100, -100])

    def f(x, t):
        return ember.ops.aten.nll_loss_forward.default(x, t, None, 1, -100)
    fn, (out, total) = _compiled(f, [ember.tensor(x), ember.tensor(t)])
    eo, etw = torch.ops.aten.nll_loss_forward(torch.tensor(x), torch.tensor(t), None, 1, -100)
    assert np.isnan(out.item()) and np.isnan(eo.item())
    assert total.item() == etw.item() == 0


def test_backward_batched_matmul_reads_a_saved_head_view_swapped_without_copies():
    # NOTE [a copy of a view is saved as the view] + NOTE [batched matmul on the unmerged
    # views]: the backward's bmm takes the saved 4-D head view (swapped) as NumPy's matmul
    # operand; no reshape copy, permute or bmm goes through the dispatcher
    from ember._functorch.aot_autograd import aot_function
    from ember._functorch.partitioners import min_cut_rematerialization_partition
    seen = {}

    def bw_compiler(gm, examples):
        seen["bw"] = call = compile_fx(gm, examples)
        return call

    def f(x, w, b, lib=ember):
        q, k, v = lib.nn.functional.linear(x, w, b).split(8, dim=2)
        q, k, v = (t.view(2, 16, 2, 4).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)).softmax(-1) @ v
        return (att * att).sum() + (x * x).sum()      # (x's own term keeps more saved)
    rng = np.random.default_rng(11)
    arrays = [(rng.standard_normal(s) * 0.5).astype(np.float32)
              for s in ((2, 16, 8), (24, 8), (24,))]
    args = [ember.tensor(a, requires_grad=True) for a in arrays]
    compiled = aot_function(f, compile_fx, bw_compiler,
                            partition_fn=min_cut_rematerialization_partition)
    loss = compiled(*args)
    loss.backward()
    targs = [torch.tensor(a, requires_grad=True) for a in arrays]
    tloss = f(*targs, lib=torch)
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
    for mine, theirs in zip(args, targs):
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-4,
                                   atol=1e-4)
    externs = {v for k, v in seen["bw"].__globals__.items() if re.fullmatch(r"_f\d+", k)}
    assert ember.ops.aten.bmm.default not in externs
    assert ember.ops.aten.permute.default not in externs
    assert "swapaxes(-1, -2)" in seen["bw"].source


def test_cat_of_merged_heads_splits_its_loop_and_matches_pytorch():
    # NOTE [a split innermost loop]: (B, H, T, D) results read as (B, T, H*D)
    rng = np.random.default_rng(12)
    a = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    b = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)

    def f(a, b, lib=ember):
        heads = [(t * 2).transpose(1, 2).reshape(2, 4, 15) for t in (a, b)]
        return lib.cat(heads + [heads[0] + 1], 2)
    fn, out = _compiled(f, [ember.tensor(a), ember.tensor(b)])
    assert "i2o" in fn.kernel_source
    expected = f(torch.tensor(a), torch.tensor(b), lib=torch)
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)
