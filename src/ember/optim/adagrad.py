"""Adagrad: per-coordinate steps shrinking with the sum of squared gradients."""
from __future__ import annotations

import numpy as np

from ember.optim.optimizer import (
    Optimizer,
    array_of,
    as_float,
    begin_update,
    bump_all,
    check_hyper,
    params_with_grad,
    run_closure,
    scalar_step,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad; its state (step, sum) exists from construction, as in PyTorch."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        check_hyper(not (as_float(lr) < 0.0), f"Invalid learning rate: {lr}")
        check_hyper(not (lr_decay < 0.0), f"Invalid lr_decay value: {lr_decay}")
        check_hyper(not (weight_decay < 0.0), f"Invalid weight_decay value: {weight_decay}")
        check_hyper(not (initial_accumulator_value < 0.0),
                    f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        check_hyper(not (eps < 0.0), f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        from ember import full_like
        for group in self.param_groups:
            for param in group["params"]:
                state = self.state[param]
                state["step"] = scalar_step()
                state["sum"] = full_like(param, group["initial_accumulator_value"])

    def step(self, closure=None):
        """One Adagrad update of every parameter that has a gradient."""
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            lr, lr_decay, eps = as_float(group["lr"]), group["lr_decay"], group["eps"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                p, g, step = begin_update(param, grad, group, state)
                clr = lr / (1 + (step - 1) * lr_decay)
                total = array_of(state["sum"])
                total += g * g
                std = np.sqrt(total) + eps
                p += (-clr * g) / std
                bump_all(param, state)
        return loss
