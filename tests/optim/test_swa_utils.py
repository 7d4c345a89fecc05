"""swa_utils against PyTorch: AveragedModel (SWA and EMA, with and without buffers) and the
SWALR schedule."""
import numpy as np
import pytest
import torch

import ember


def _model(lib):
    class Tiny(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.tensor([[1.0, -2.0], [0.5, 3.0]]))
            self.b = lib.nn.Parameter(lib.tensor([0.1, 0.2]))
            self.register_buffer("count", lib.tensor([1.0, 2.0]))

        def forward(self, x):
            return x @ self.w + self.b
    return Tiny()


@pytest.mark.parametrize("how", ["swa", "ema", "avg_fn", "buffers"])
def test_averaged_model_matches_pytorch(how):
    def run(lib):
        swa = lib.optim.swa_utils
        model = _model(lib)
        kwargs = {"swa": {}, "ema": {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.9)},
                  "avg_fn": {"avg_fn": swa.get_ema_avg_fn(0.8)},
                  "buffers": {"use_buffers": True}}[how]
        averaged = swa.AveragedModel(model, **kwargs)
        for step in range(4):
            with lib.no_grad():
                for p in model.parameters():
                    p.mul_(0.5).add_(step)
                model.count.add_(1.0)
            averaged.update_parameters(model)
        out = averaged(lib.ones(1, 2))
        return ({k: v.numpy() for k, v in averaged.state_dict().items()}, out.detach().numpy(),
                repr(averaged))
    ours, theirs = run(ember), run(torch)
    assert list(ours[0]) == list(theirs[0])
    for key in theirs[0]:
        np.testing.assert_allclose(ours[0][key], theirs[0][key], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)


@pytest.mark.parametrize("kwargs", [{"swa_lr": 0.05, "anneal_epochs": 3},
                                    {"swa_lr": [0.05, 0.5], "anneal_epochs": 0,
                                     "anneal_strategy": "linear"}])
def test_swalr_matches_pytorch(kwargs):
    def run(lib):
        groups = [{"params": [lib.nn.Parameter(lib.ones(1))], "lr": 0.1 * (i + 1)}
                  for i in range(2)]
        opt = lib.optim.SGD(groups, lr=0.1)
        sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
        out = []
        for _ in range(6):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr())
        return out, sched.state_dict()
    ours, theirs = run(ember), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    assert ours[1] == theirs[1]


def test_bad_decay_and_strategy_raise_as_pytorch():
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="Invalid decay value 2"):
            lib.optim.swa_utils.get_ema_multi_avg_fn(2)
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        with pytest.raises(ValueError, match="anneal_strategy must be one of"):
            lib.optim.swa_utils.SWALR(opt, 0.1, anneal_strategy="step")
