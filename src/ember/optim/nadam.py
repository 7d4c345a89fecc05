"""NAdam: Adam with Nesterov momentum (and its momentum-decay schedule)."""
from __future__ import annotations

import numpy as np

from ember.optim._foreach import begin_block, block, lerp_block, split_update
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
        for index, group in enumerate(self.param_groups):
            params, grads = params_with_grad(group)
            if not params:
                continue
            buckets, params, grads = split_update(self, index, params, grads,
                                                  ("exp_avg", "exp_avg_sq"), _init_state,
                                                  scalar_keys=("mu_product",))
            for bucket in buckets:
                _nadam_flat(bucket, group)
            if params:
                self._step_each(group, params, grads)
        return loss

    def _step_each(self, group, params, grads):
        """The per-parameter update (foreach=False, large or complex parameters)."""
        lr, eps = as_float(group["lr"]), group["eps"]
        beta1, beta2 = group["betas"]
        momentum_decay = group["momentum_decay"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            _init_state(param, state)
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


def _init_state(param, state) -> None:
    if len(state) == 0:
        state["step"] = scalar_step()
        state["mu_product"] = scalar_step(1.0)
        state["exp_avg"] = zeros_state(param)
        state["exp_avg_sq"] = zeros_state(param)


def _nadam_flat(bucket, group) -> None:
    """The update of `_step_each` on a bucket's flat buffers, block by block (NOTE [flat
    optimizer state]): the same operations in the same order, so the same numbers."""
    xp = bucket.xp
    lr, eps = as_float(group["lr"]), group["eps"]
    beta1, beta2 = group["betas"]
    momentum_decay = group["momentum_decay"]
    p, g = bucket.gather()          # the update adds two terms to the parameters in turn
    steps, products = bucket.steps, bucket.scalars["mu_product"]
    steps += 1

    def mu_at(step):
        return beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))

    if steps.min() == steps.max():
        products *= mu_at(float(steps[0]))
    else:       # parameters that joined later have their own counts
        products *= xp.asarray([mu_at(float(s)) for s in steps], dtype=products.dtype)
    dtype = p.dtype
    bias_correction2 = bucket.per_parameter(lambda step: 1 - beta2 ** step, steps, dtype=dtype)
    gradient_factor = bucket.per_parameter(
        lambda step, product: -lr * (1.0 - mu_at(step)) / (1.0 - product),
        steps, products, dtype=dtype)
    average_factor = bucket.per_parameter(
        lambda step, product: (-lr * mu_at(step + 1)) / (1.0 - product * mu_at(step + 1)),
        steps, products, dtype=dtype)
    decoupled = group["decoupled_weight_decay"]
    exp_avg_all, exp_avg_sq_all = bucket.flat["exp_avg"], bucket.flat["exp_avg_sq"]
    chunks, (scratch1, scratch2) = bucket.chunks()
    for a, b in chunks:
        pc, gc = p[a:b], g[a:b]
        t1, t2 = scratch1[:b - a], scratch2[:b - a]
        begin_block(xp, group, pc, gc, t1, lr, decoupled)
        exp_avg, exp_avg_sq = exp_avg_all[a:b], exp_avg_sq_all[a:b]
        lerp_block(xp, exp_avg, gc, 1 - beta1, t1)
        exp_avg_sq *= beta2
        xp.multiply(gc, 1 - beta2, out=t1)
        t1 *= gc
        exp_avg_sq += t1
        xp.divide(exp_avg_sq, block(bias_correction2, a, b), out=t1)
        xp.sqrt(t1, out=t1)
        t1 += eps
        xp.multiply(gc, block(gradient_factor, a, b), out=t2)
        t2 /= t1
        pc += t2
        xp.multiply(exp_avg, block(average_factor, a, b), out=t2)
        t2 /= t1
        pc += t2
    bucket.scatter("copy")
