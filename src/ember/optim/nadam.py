"""NAdam: Adam with Nesterov momentum (and its momentum-decay schedule)."""
from __future__ import annotations

import numpy as np

from ember.optim.adam import check_adam_hypers
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

__all__ = ["NAdam"]


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_adam_hypers(lr, betas, eps, weight_decay)
        check_hyper(not (momentum_decay < 0.0),
                    f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One NAdam update of every parameter that has a gradient."""
        loss = run_closure(closure)
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            lr, eps = as_float(group["lr"]), group["eps"]
            beta1, beta2 = group["betas"]
            momentum_decay = group["momentum_decay"]
            for param, grad in zip(params, grads):
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = scalar_step()
                    state["mu_product"] = scalar_step(1.0)
                    state["exp_avg"] = zeros_state(param)
                    state["exp_avg_sq"] = zeros_state(param)
                p, g, step = begin_update(param, grad, group, state, lr,
                                          group["decoupled_weight_decay"])
                bias_correction2 = 1 - beta2 ** step
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product = state["mu_product"]._data
                mu_product *= mu
                exp_avg, exp_avg_sq = array_of(state["exp_avg"]), array_of(state["exp_avg_sq"])
                lerp_(exp_avg, g, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq += (1 - beta2) * g * g
                denom = np.sqrt(exp_avg_sq / bias_correction2)
                product = float(mu_product)
                product_next = product * mu_next
                denom += eps
                p += (-lr * (1.0 - mu) / (1.0 - product)) * g / denom
                p += ((-lr * mu_next) / (1.0 - product_next)) * exp_avg / denom
                bump_all(param, state)
        return loss
