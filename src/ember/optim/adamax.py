"""Adamax: Adam with the infinity norm in place of the second moment."""
from __future__ import annotations

import numpy as np

from ember.optim.adam import check_adam_hypers
from ember.optim.optimizer import (
    Optimizer,
    array_of,
    as_float,
    begin_update,
    bump_all,
    lerp_,
    params_with_grad,
    run_closure,
    scalar_step,
    zeros_state,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_adam_hypers(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Adamax update of every parameter that has a gradient."""
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            lr, eps = as_float(group["lr"]), group["eps"]
            beta1, beta2 = group["betas"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = scalar_step()
                    state["exp_avg"] = zeros_state(param)
                    state["exp_inf"] = zeros_state(param)
                p, g, step = begin_update(param, grad, group, state)
                exp_avg, exp_inf = array_of(state["exp_avg"]), array_of(state["exp_inf"])
                lerp_(exp_avg, g, 1 - beta1)
                exp_inf *= beta2
                np.maximum(exp_inf, np.abs(g) + eps, out=exp_inf)
                clr = lr / (1 - beta1 ** step)
                p += (-clr * exp_avg) / exp_inf
                bump_all(param, state)
        return loss
