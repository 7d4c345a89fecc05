"""Autograd, nn modules, optimizers, autocast and whole training steps on 'cuda' against the same
on 'cpu' (ember's CPU result is the oracle), and `python -m ember.run` of a script that calls
`.cuda()`. Skipped without CUDA (see cuda_support.py)."""
from __future__ import annotations

import copy
import os
import subprocess
import sys
import textwrap

import pytest
from cuda_support import assert_on_cuda, assert_same, requires_cuda

import ember
import ember.nn.functional as F
from ember import nn

pytestmark = requires_cuda


# ------------------------------------------------------------------ autograd of composites


COMPOSITES = {
    "mlp": lambda x, w: (x @ w).tanh().pow(2).mean(),
    "softmax_xent": lambda x, w: -(x @ w).log_softmax(1)[:, 0].sum(),
    "norm_div": lambda x, w: (x / x.norm(dim=1, keepdim=True)).sum() * w.sum(),
    "indexing": lambda x, w: (x[:, [0, 2]] * w[1:3, :4].T).sigmoid().sum(),
    "where_clamp": lambda x, w: ember.where(x > 0, x, x.exp() - 1).clamp(-0.5, 2).sum() + w.abs(
        ).max(),
    "cat_stack": lambda x, w: ember.stack([x.sum(0), w.sum(1)[:3]]).cumsum(1).prod(),
    "einsum_var": lambda x, w: ember.einsum("ij,jk->ik", x, w).var(0).sum(),
    "scatter_gather": lambda x, w: x.gather(1, ember.tensor([[0], [1], [2], [0]]).to(x.device))
    .sum() + w.sum(),
    "second_order": None,
}


@pytest.mark.parametrize("name", [n for n, f in COMPOSITES.items() if f is not None])
def test_backward_of_composites(name):
    ember.manual_seed(0)
    x, w = ember.randn(4, 3, dtype=ember.float64), ember.randn(3, 5, dtype=ember.float64)
    grads = []
    for device in ("cpu", "cuda"):
        xd = x.to(device).detach().requires_grad_()
        wd = w.to(device).detach().requires_grad_()
        loss = COMPOSITES[name](xd, wd)
        loss.backward()
        assert loss.device.type == device
        grads.append((loss.detach(), xd.grad, wd.grad))
    assert_same(grads[1], grads[0], 1e-9, 1e-9, name)


def test_double_backward_on_cuda():
    results = []
    for device in ("cpu", "cuda"):
        x = ember.linspace(-2, 2, 7, dtype=ember.float64, device=device).requires_grad_()
        y = (x.sin() * x ** 3).sum()
        (g,) = ember.autograd.grad(y, x, create_graph=True)
        (h,) = ember.autograd.grad(g.sum(), x)
        results.append((g.detach(), h))
    assert_same(results[1], results[0], 1e-10, 1e-10, "double backward")


def test_gradcheck_on_cuda():
    x = ember.randn(3, 4, dtype=ember.float64, device="cuda", requires_grad=True)
    w = ember.randn(4, 2, dtype=ember.float64, device="cuda", requires_grad=True)
    assert ember.autograd.gradcheck(lambda x, w: (x @ w).tanh().sum(1), (x, w))


# ------------------------------------------------------------------ nn modules


def _lstm():
    return nn.LSTM(4, 6, num_layers=2, batch_first=True, bidirectional=True)


MODULES = {
    "Linear": (lambda: nn.Linear(5, 3), lambda: ember.randn(4, 5)),
    "Conv2d": (lambda: nn.Conv2d(3, 4, 3, padding=1, stride=2), lambda: ember.randn(2, 3, 9, 9)),
    "Conv2d_groups": (lambda: nn.Conv2d(4, 4, 3, groups=2, dilation=2),
                      lambda: ember.randn(2, 4, 8, 8)),
    "ConvTranspose2d": (lambda: nn.ConvTranspose2d(3, 2, 3, stride=2),
                        lambda: ember.randn(2, 3, 5, 5)),
    "Conv1d": (lambda: nn.Conv1d(3, 4, 5, padding="same"), lambda: ember.randn(2, 3, 11)),
    "BatchNorm2d": (lambda: nn.BatchNorm2d(3), lambda: ember.randn(4, 3, 5, 5)),
    "BatchNorm2d_eval": (lambda: nn.BatchNorm2d(3).eval(), lambda: ember.randn(4, 3, 5, 5)),
    "LayerNorm": (lambda: nn.LayerNorm(6), lambda: ember.randn(3, 4, 6)),
    "GroupNorm": (lambda: nn.GroupNorm(2, 4), lambda: ember.randn(3, 4, 5)),
    "Embedding": (lambda: nn.Embedding(10, 4, padding_idx=0),
                  lambda: ember.tensor([[0, 3, 9], [1, 1, 2]])),
    "EmbeddingBag": (lambda: nn.EmbeddingBag(10, 4, mode="mean"),
                     lambda: ember.tensor([[0, 3, 9], [1, 1, 2]])),
    "LSTM": (_lstm, lambda: ember.randn(3, 5, 4)),
    "GRU": (lambda: nn.GRU(4, 5), lambda: ember.randn(6, 2, 4)),
    "MultiheadAttention": (lambda: nn.MultiheadAttention(8, 2, batch_first=True),
                           lambda: ember.randn(2, 5, 8)),
    "TransformerEncoderLayer": (
        lambda: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                           batch_first=True),
        lambda: ember.randn(2, 5, 8)),
    "MaxPool2d": (lambda: nn.MaxPool2d(2), lambda: ember.randn(2, 3, 6, 6)),
    "AvgPool2d": (lambda: nn.AvgPool2d(3, stride=2, padding=1), lambda: ember.randn(2, 3, 7, 7)),
    "AdaptiveAvgPool2d": (lambda: nn.AdaptiveAvgPool2d((2, 3)), lambda: ember.randn(2, 3, 7, 8)),
    "Upsample": (lambda: nn.Upsample(scale_factor=2, mode="bilinear"),
                 lambda: ember.randn(1, 2, 3, 4)),
    "Sequential_CNN": (lambda: nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2),
                                             nn.Flatten(), nn.Linear(36, 3)),
                       lambda: ember.randn(2, 1, 8, 8)),
    "activations": (lambda: nn.Sequential(nn.GELU(), nn.SiLU(), nn.Softplus(), nn.ELU(),
                                          nn.Hardswish(), nn.LeakyReLU(0.1), nn.Mish()),
                    lambda: ember.randn(3, 7)),
}


def _first_tensor(out):
    while isinstance(out, (tuple, list)):
        out = out[0]
    return out


@pytest.mark.parametrize("name", MODULES)
def test_module_forward_backward_matches_cpu(name):
    make_module, make_input = MODULES[name]
    ember.manual_seed(0)
    module = make_module()
    x = make_input()
    gpu_module = copy.deepcopy(module).cuda()
    assert all(p.device.type == "cuda" for p in gpu_module.parameters())
    assert all(b.device.type == "cuda" for b in gpu_module.buffers())
    results = []
    for mod, device in ((module, "cpu"), (gpu_module, "cuda")):
        xd = x.to(device).detach()
        if xd.is_floating_point():
            xd.requires_grad_()
        out = _first_tensor(mod(xd) if name != "MultiheadAttention" else mod(xd, xd, xd))
        weights = ember.linspace(-1, 1, out.numel()).reshape(out.shape).to(device)
        (out * weights).sum().backward()
        grads = {n: p.grad for n, p in mod.named_parameters()}
        results.append((out.detach(), xd.grad if xd.is_floating_point() else None, grads,
                        dict(mod.named_buffers())))
    (out, x_grad, grads, buffers), (cpu_out, cpu_x_grad, cpu_grads, cpu_buffers) = \
        results[1], results[0]
    assert_same(out, cpu_out, 1e-4, 1e-4, f"{name} output")
    if cpu_x_grad is not None:
        assert_same(x_grad, cpu_x_grad, 1e-4, 1e-4, f"{name} input grad")
    for key, expected in cpu_grads.items():
        assert (grads[key] is None) == (expected is None), f"{name} grad of {key}"
        if expected is not None:
            assert_same(grads[key], expected, 1e-4, 1e-4, f"{name} grad of {key}")
    for key, expected in cpu_buffers.items():
        assert_same(buffers[key], expected, 1e-5, 1e-5, f"{name} buffer {key}")


LOSSES = {
    "cross_entropy": lambda x, t: F.cross_entropy(x, t),
    "cross_entropy_smooth_weight": lambda x, t: F.cross_entropy(
        x, t, weight=ember.linspace(0.5, 1.5, 5).to(x.device), label_smoothing=0.1),
    "cross_entropy_ignore": lambda x, t: F.cross_entropy(x, t, ignore_index=2,
                                                         reduction="sum"),
    "nll_loss": lambda x, t: F.nll_loss(x.log_softmax(1), t),
    "mse": lambda x, t: F.mse_loss(x, x.detach().flip(0)),
    "bce_logits": lambda x, t: F.binary_cross_entropy_with_logits(x, (x.detach() > 0).float()),
    "smooth_l1": lambda x, t: F.smooth_l1_loss(x, x.detach() * 0.5),
    "kl_div": lambda x, t: F.kl_div(x.log_softmax(1), x.detach().softmax(0),
                                    reduction="batchmean"),
}


@pytest.mark.parametrize("name", LOSSES)
def test_losses_match_cpu(name):
    ember.manual_seed(0)
    x, target = ember.randn(6, 5), ember.tensor([0, 4, 2, 1, 2, 3])
    results = []
    for device in ("cpu", "cuda"):
        xd = x.to(device).detach().requires_grad_()
        loss = LOSSES[name](xd, target.to(device))
        loss.backward()
        results.append((loss.detach(), xd.grad))
    assert_same(results[1], results[0], 1e-5, 1e-5, name)


# ------------------------------------------------------------------ optimizers


OPTIMIZERS = {
    "SGD": lambda p: ember.optim.SGD(p, lr=0.1),
    "SGD_momentum_nesterov": lambda p: ember.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True,
                                                       weight_decay=1e-2),
    "SGD_foreach": lambda p: ember.optim.SGD(p, lr=0.1, momentum=0.9, foreach=True),
    "Adam": lambda p: ember.optim.Adam(p, lr=1e-2, foreach=False),
    "Adam_foreach": lambda p: ember.optim.Adam(p, lr=1e-2, foreach=True),
    "AdamW_amsgrad": lambda p: ember.optim.AdamW(p, lr=1e-2, amsgrad=True),
    "RMSprop": lambda p: ember.optim.RMSprop(p, lr=1e-2, momentum=0.5),
    "Adagrad": lambda p: ember.optim.Adagrad(p, lr=0.1),
}


def _mlp():
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(),
                         nn.Linear(16, 4))


def _train(model, make_optimizer, device, steps=3):
    """`steps` SGD-style training steps of `model` on `device`; its losses."""
    ember.manual_seed(1)
    data, target = ember.randn(32, 8), ember.randint(0, 4, (32,))
    data, target = data.to(device), target.to(device)
    optimizer = make_optimizer(model.parameters())
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(data), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return losses, optimizer


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_steps_match_cpu(name):
    ember.manual_seed(0)
    model = _mlp()
    gpu_model = copy.deepcopy(model).cuda()
    cpu_losses, _ = _train(model, OPTIMIZERS[name], "cpu")
    gpu_losses, optimizer = _train(gpu_model, OPTIMIZERS[name], "cuda")
    assert_same(gpu_losses, cpu_losses, 1e-5, 1e-5, f"{name} losses")
    for (key, p), (_, q) in zip(gpu_model.named_parameters(), model.named_parameters()):
        assert_same(p.detach(), q.detach(), 1e-5, 1e-5, f"{name} {key} after 3 steps")
    for state in optimizer.state.values():
        for key, value in state.items():
            if isinstance(value, ember.Tensor) and value.dim() > 0:
                assert value.device.type == "cuda", f"{name}: state {key} on {value.device}"


def test_training_loop_on_cuda_matches_cpu():
    """A whole small training run (MLP, Adam, 3 steps, then eval) on CUDA equals the CPU's."""
    ember.manual_seed(0)
    model = _mlp()
    gpu_model = copy.deepcopy(model).to("cuda")
    make = lambda p: ember.optim.Adam(p, lr=1e-2)
    cpu_losses, _ = _train(model, make, "cpu")
    gpu_losses, _ = _train(gpu_model, make, "cuda")
    assert_same(gpu_losses, cpu_losses, 1e-5, 1e-5, "losses")
    assert float(gpu_losses[-1]) < float(gpu_losses[0])
    with ember.no_grad():
        x = ember.randn(5, 8)
        assert_same(gpu_model.eval()(x.cuda()), model.eval()(x), 1e-5, 1e-5, "eval")


def test_clip_grad_norm_on_cuda():
    norms = []
    for device in ("cpu", "cuda"):
        ember.manual_seed(0)
        model = _mlp().to(device)
        model(ember.randn(4, 8).to(device)).pow(2).sum().backward()
        norms.append(nn.utils.clip_grad_norm_(model.parameters(), 0.5))
    assert_same(norms[1], norms[0], 1e-5, 1e-5, "clip_grad_norm_")


# ------------------------------------------------------------------ autocast


def test_autocast_cuda_runs_matmul_in_float16():
    ember.manual_seed(0)
    a, b = ember.randn(8, 16), ember.randn(16, 4)
    linear = nn.Linear(16, 4).cuda()
    with ember.autocast("cuda"):
        assert ember.is_autocast_enabled("cuda")
        product = a.cuda() @ b.cuda()
        out = linear(a.cuda())
        total = out.float().softmax(1)          # softmax runs in float32 under autocast
    assert product.dtype is ember.float16 and product.device.type == "cuda"
    assert out.dtype is ember.float16 and total.dtype is ember.float32
    expected = (a.half().float() @ b.half().float())
    assert_same(product.float(), expected, 1e-2, 1e-2, "autocast matmul")
    out.float().sum().backward()
    assert linear.weight.grad.dtype is ember.float32
    assert linear.weight.grad.device.type == "cuda"


def test_autocast_cuda_leaves_cpu_alone_and_bfloat16():
    a = ember.randn(4, 4)
    with ember.autocast("cuda"):
        assert (a @ a).dtype is ember.float32          # a CPU op: the cuda region skips it
    with ember.autocast("cuda", dtype=ember.bfloat16):
        got = a.cuda() @ a.cuda()
    assert got.dtype is ember.bfloat16
    assert_same(got.float(), (a.bfloat16().float() @ a.bfloat16().float()), 5e-2, 2e-2,
                "bf16")


def test_grad_scaler_on_cuda():
    ember.manual_seed(0)
    model = nn.Linear(4, 2).cuda()
    optimizer = ember.optim.SGD(model.parameters(), lr=0.1)
    scaler = ember.amp.GradScaler("cuda")
    before = model.weight.detach().clone()
    with ember.autocast("cuda"):
        loss = model(ember.randn(3, 4, device="cuda")).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    assert scaler.get_scale() == 2.0 ** 16
    assert not ember.equal(model.weight.detach().cpu(), before.cpu())


# ------------------------------------------------------------------ python -m ember.run


def test_ember_run_script_using_cuda(tmp_path):
    script = tmp_path / "uses_cuda.py"
    script.write_text(textwrap.dedent("""
        import torch
        import torch.nn as nn
        assert torch.cuda.is_available()
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1)).cuda()
        x = torch.randn(16, 3).cuda()
        y = x.sum(1, keepdim=True)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        for step in range(20):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
        print(loss.device, next(model.parameters()).is_cuda, torch.cuda.device_count() >= 1)
        print(round(loss.item(), 6))
    """))
    src = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (src, os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run([sys.executable, "-m", "ember.run", str(script)], capture_output=True,
                          text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.split("\n")
    assert lines[0] == "cuda:0 True True", done.stdout
    # The same program on ember's CPU gives the same loss (ember's CPU is the oracle).
    cpu_script = tmp_path / "uses_cpu.py"
    cpu_script.write_text(script.read_text().replace(".cuda()", "").replace(
        "assert torch.cuda.is_available()", ""))
    on_cpu = subprocess.run([sys.executable, "-m", "ember.run", str(cpu_script)],
                            capture_output=True, text=True, env=env, timeout=300, check=False)
    assert on_cpu.returncode == 0, on_cpu.stderr[-2000:]
    assert abs(float(lines[1]) - float(on_cpu.stdout.split("\n")[1])) < 1e-4, (
        done.stdout, on_cpu.stdout)


def test_results_stay_on_cuda():
    x = ember.randn(3, 4, device="cuda")
    assert_on_cuda([x + 1, x.sum(), x.max(1), x.T @ x, x.softmax(0), x[0], x.argmax()])
