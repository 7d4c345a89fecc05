"""Rprop: per-coordinate step sizes grown or shrunk by the sign agreement of gradients."""
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

__all__ = ["Rprop"]


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_hyper(not (as_float(lr) < 0.0), f"Invalid learning rate: {lr}")
        check_hyper(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Rprop update of every parameter that has a gradient."""
        from ember import full_like
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            eta_minus, eta_plus = group["etas"]
            step_min, step_max = group["step_sizes"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = scalar_step()
                    state["prev"] = zeros_state(param)
                    state["step_size"] = full_like(grad, as_float(group["lr"]))
                p, g, _ = begin_update(param, grad, group, state)
                prev, step_size = array_of(state["prev"]), array_of(state["step_size"])
                agreement = np.sign(g * prev)
                factor = np.where(agreement > 0, eta_plus,
                                  np.where(agreement < 0, eta_minus, 1)).astype(g.dtype)
                step_size *= factor
                np.clip(step_size, step_min, step_max, out=step_size)
                g = np.where(factor == eta_minus, 0, g).astype(g.dtype)
                p -= np.sign(g) * step_size
                prev[...] = g
                bump_all(param, state)
        return loss
