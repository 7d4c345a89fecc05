"""RAdam: Adam with the variance of the adaptive step rectified in early steps."""
from __future__ import annotations

import math

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

__all__ = ["RAdam"]


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_adam_hypers(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One RAdam update of every parameter that has a gradient."""
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
                    state["exp_avg_sq"] = zeros_state(param)
                p, g, step = begin_update(param, grad, group, state, lr,
                                          group["decoupled_weight_decay"])
                exp_avg, exp_avg_sq = array_of(state["exp_avg"]), array_of(state["exp_avg_sq"])
                lerp_(exp_avg, g, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq += (1 - beta2) * g * g
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                corrected = exp_avg / bias_correction1
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                                     / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                    adaptive_lr = math.sqrt(bias_correction2) / (np.sqrt(exp_avg_sq) + eps)
                    p -= corrected * lr * adaptive_lr * rect
                else:
                    p -= corrected * lr
                bump_all(param, state)
        return loss
