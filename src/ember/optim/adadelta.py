"""Adadelta: steps scaled by running averages of squared gradients and squared updates."""
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
    zeros_state,
)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_hyper(not (as_float(lr) < 0.0), f"Invalid learning rate: {lr}")
        check_hyper(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        check_hyper(not (eps < 0.0), f"Invalid epsilon value: {eps}")
        check_hyper(not (weight_decay < 0.0), f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Adadelta update of every parameter that has a gradient."""
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            lr, rho, eps = as_float(group["lr"]), group["rho"], group["eps"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = scalar_step()
                    state["square_avg"] = zeros_state(param)
                    state["acc_delta"] = zeros_state(param)
                p, g, _ = begin_update(param, grad, group, state)
                square_avg = array_of(state["square_avg"])
                acc_delta = array_of(state["acc_delta"])
                square_avg *= rho
                square_avg += (1 - rho) * g * g
                std = np.sqrt(square_avg + eps)
                delta = np.sqrt(acc_delta + eps) / std * g
                acc_delta *= rho
                acc_delta += (1 - rho) * delta * delta
                p -= lr * delta
                bump_all(param, state)
        return loss
