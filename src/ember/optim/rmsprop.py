"""RMSprop (plain or centered, with momentum)."""
from __future__ import annotations

import numpy as np

from ember.optim.optimizer import (
    Optimizer,
    array_of,
    as_float,
    begin_update,
    bump_all,
    check_hyper,
    lerp_,
    params_with_grad,
    run_closure,
    scalar_step,
    zeros_state,
)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Divides the gradient by a running root mean square of recent gradients."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_hyper(not (as_float(lr) < 0.0), f"Invalid learning rate: {lr}")
        check_hyper(not (eps < 0.0), f"Invalid epsilon value: {eps}")
        check_hyper(not (momentum < 0.0), f"Invalid momentum value: {momentum}")
        check_hyper(not (weight_decay < 0.0), f"Invalid weight_decay value: {weight_decay}")
        check_hyper(not (alpha < 0.0), f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One RMSprop update of every parameter that has a gradient."""
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            lr, alpha, eps = as_float(group["lr"]), group["alpha"], group["eps"]
            momentum = group["momentum"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = scalar_step()
                    state["square_avg"] = zeros_state(param)
                    if momentum > 0:
                        state["momentum_buffer"] = zeros_state(param)
                    if group["centered"]:
                        state["grad_avg"] = zeros_state(param)
                p, g, _ = begin_update(param, grad, group, state)
                square_avg = array_of(state["square_avg"])
                square_avg *= alpha
                square_avg += (1 - alpha) * g * g
                if group["centered"]:
                    grad_avg = array_of(state["grad_avg"])
                    lerp_(grad_avg, g, 1 - alpha)
                    avg = np.sqrt(square_avg + (-1) * grad_avg * grad_avg)
                else:
                    avg = np.sqrt(square_avg)
                avg += eps
                if momentum > 0:
                    buf = array_of(state["momentum_buffer"])
                    buf *= momentum
                    buf += g / avg
                    p -= lr * buf
                else:
                    p += (-lr * g) / avg
                bump_all(param, state)
        return loss
