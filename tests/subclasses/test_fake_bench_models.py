"""The training benchmark's models (benchmarks/bench_nn_train.py: MLP, LeNet, a small ResNet,
an LSTM language model, a character GPT) built and trained for one step inside a
FakeTensorMode, in ember and in PyTorch: every module's output, the loss, every gradient and
every optimizer state entry has PyTorch's shape, dtype, stride and device, and nothing is
computed (the parameters stay fake)."""
from __future__ import annotations

import importlib.util
import pathlib

import pytest

import ember
from ember._subclasses import fake_tensor as ember_fake

torch = pytest.importorskip("torch")
from torch._subclasses import fake_tensor as torch_fake

_BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "bench_nn_train.py"
_spec = importlib.util.spec_from_file_location("bench_nn_train", _BENCH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

MODELS = list(bench._models(ember))
OPTIMIZERS = {
    "sgd": lambda O, p: O.SGD(p, lr=0.01, momentum=0.9),
    "adam": lambda O, p: O.Adam(p, lr=0.01),
    "adamw foreach": lambda O, p: O.AdamW(p, lr=0.01, foreach=True),
    "rmsprop": lambda O, p: O.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
    "adagrad foreach": lambda O, p: O.Adagrad(p, lr=0.01, foreach=True),
}


def _describe(t):
    return (tuple(t.shape), str(t.dtype).split(".")[-1], tuple(t.stride()), str(t.device),
            type(t).__name__)


def _fake_step(lib, fake, name, optimizer):
    records = []
    with fake.FakeTensorMode():
        model, inputs, target = bench._models(lib)[name]()
        for module_name, module in model.named_modules():
            module.register_forward_hook(
                lambda m, args, out, module_name=module_name: records.append(
                    (module_name, [_describe(o) for o in (out if isinstance(out, tuple)
                                                          else (out,))
                                   if isinstance(o, lib.Tensor)])))
        out = model(*inputs)
        loss = lib.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), target)
        records.append(("loss", [_describe(loss)]))
        loss.backward()
        records += [(f"grad {n}", [_describe(p.grad)]) for n, p in model.named_parameters()]
        opt = OPTIMIZERS[optimizer](lib.optim, model.parameters())
        opt.step()
        for i, p in enumerate(model.parameters()):
            state = opt.state[p]
            records += [(f"state {i} {key}", [_describe(v)]) for key, v in sorted(state.items())
                        if isinstance(v, lib.Tensor)]
        records += [(f"param {n}", [_describe(p)]) for n, p in model.named_parameters()]
    return records


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
@pytest.mark.parametrize("name", MODELS, ids=[m.split(",")[0] for m in MODELS])
def test_a_fake_training_step_matches_torch(name, optimizer):
    ours = _fake_step(ember, ember_fake, name, optimizer)
    theirs = _fake_step(torch, torch_fake, name, optimizer)
    assert any(key.startswith("state") for key, _ in theirs)
    assert all(d[4] == "FakeTensor" for _, described in theirs for d in described)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a == b


def test_masked_writes_run_on_fake_and_meta_tensors():
    # (setitem's index_put_ takes the mask itself: no nonzero, whose shape is the data's)
    def run(lib, fake):
        found = []
        with fake.FakeTensorMode():
            x, y = lib.randn(3, 2), lib.randn(2, 3, 2)
            x[x > 0] = 1.0
            y[:, x < 0] = 2.0
            found += [_describe(x), _describe(y)]
        m = lib.empty(4, 3, device="meta")
        m[m.gt(0)] = 3.0
        found.append(_describe(m))
        with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
            z = lib.empty((), device="meta")
            z[z.gt(0)] = 1.0
        return found

    assert run(ember, ember_fake) == run(torch, torch_fake)


def test_the_compile_benchmarks_sgd_step_runs_on_fake_tensors():
    """shared_models.sgd_step (the compile benchmarks' plain in-place SGD) on the character
    GPT inside a FakeTensorMode: the loss, gradients and updated parameters as PyTorch's."""
    import sys
    sys.path.insert(0, str(_BENCH.parent))
    import shared_models

    def run(lib, fake):
        with fake.FakeTensorMode():
            lib.manual_seed(0)
            model = shared_models.char_gpt_class(lib)(vocab=11, width=16, heads=2, layers=1,
                                                      block=8)
            params = list(model.parameters())
            x = lib.randint(0, 11, (2, 8))
            y = lib.randint(0, 11, (2, 8))

            def loss_fn(x, y):
                out = model(x)
                return lib.nn.functional.cross_entropy(out.reshape(-1, 11), y.reshape(-1))
            loss = shared_models.sgd_step(lib, loss_fn, params, x, y)()
            return ([_describe(loss)] + [_describe(p.grad) for p in params] +
                    [_describe(p) for p in params])

    theirs = run(torch, torch_fake)
    assert all(d[4] == "FakeTensor" for d in theirs)
    assert run(ember, ember_fake) == theirs
