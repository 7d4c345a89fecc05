"""Optimizer subclasses that never call `Optimizer.__init__` (wrappers such as Lookahead) work
as in PyTorch (NOTE [optimizers without Optimizer.__init__]): stepping, zero_grad, schedulers,
state_dict and hooks, compared with PyTorch running the same program."""
from collections import defaultdict

import numpy as np
import torch

import ember


def _program(lib):
    class Lookahead(lib.optim.Optimizer):
        def __init__(self, optimizer, k=2, alpha=0.5):
            self.optimizer = optimizer
            self.k, self.alpha = k, alpha
            self.param_groups = optimizer.param_groups
            self.defaults = optimizer.defaults
            self.state = defaultdict(dict)
            self.steps = 0
            self.slow = [p.detach().clone() for g in self.param_groups for p in g["params"]]

        def step(self, closure=None):
            loss = self.optimizer.step(closure)
            self.steps += 1
            if self.steps % self.k == 0:
                fast = [p for g in self.param_groups for p in g["params"]]
                with lib.no_grad():
                    for s, p in zip(self.slow, fast):
                        s.add_(p - s, alpha=self.alpha)
                        p.copy_(s)
            return loss

    lib.manual_seed(0)
    w = lib.nn.Parameter(lib.tensor([[1.0, -2.0], [0.5, 3.0]]))
    opt = Lookahead(lib.optim.SGD([w], lr=0.1, momentum=0.9))
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    seen = []
    x = lib.tensor([[0.3, -1.0], [2.0, 0.1]])
    for _ in range(5):
        opt.zero_grad()
        loss = (w @ x).pow(2).sum()
        loss.backward()
        opt.step()
        seen.append(opt.steps)
        sched.step()
    return w.detach().numpy(), opt.param_groups[0]["lr"], seen, len(opt.optimizer.state)


def test_wrapper_without_init_runs_as_in_pytorch():
    mine, theirs = _program(ember), _program(torch)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-5)
    assert mine[1:] == theirs[1:]


def test_missing_attribute_is_still_an_attribute_error():
    class Bare(ember.optim.Optimizer):
        def __init__(self):
            pass

    import pytest
    with pytest.raises(AttributeError, match="'Bare' object has no attribute 'param_groups'"):
        Bare().param_groups  # noqa: B018
