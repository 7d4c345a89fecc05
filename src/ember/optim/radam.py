"""RAdam: Adam with the variance of the adaptive step rectified in early steps."""
from __future__ import annotations

import math

import numpy as np

from ember.optim._foreach import begin_block, block, lerp_block, split_update
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
        for index, group in enumerate(self.param_groups):
            params, grads = params_with_grad(group)
            if not params:
                continue
            buckets, params, grads = split_update(self, index, params, grads,
                                                  ("exp_avg", "exp_avg_sq"), _init_state)
            for bucket in buckets:
                _radam_flat(bucket, group)
            if params:
                self._step_each(group, params, grads)
        return loss

    def _step_each(self, group, params, grads):
        """The per-parameter update (foreach=False, large or complex parameters)."""
        lr, eps = as_float(group["lr"]), group["eps"]
        beta1, beta2 = group["betas"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            _init_state(param, state)
            p, g, step = begin_update(param, grad, group, state, lr,
                                      group["decoupled_weight_decay"])
            exp_avg, exp_avg_sq = array_of(state["exp_avg"]), array_of(state["exp_avg_sq"])
            lerp_(exp_avg, g, 1 - beta1)
            exp_avg_sq *= beta2
            exp_avg_sq += (1 - beta2) * g * g
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            corrected = exp_avg / bias_correction1
            rect = _rectification(beta2, step)
            if rect is not None:
                adaptive_lr = math.sqrt(bias_correction2) / (np.sqrt(exp_avg_sq) + eps)
                p -= corrected * lr * adaptive_lr * rect
            else:
                p -= corrected * lr
            bump_all(param, state)


def _init_state(param, state) -> None:
    if len(state) == 0:
        state["step"] = scalar_step()
        state["exp_avg"] = zeros_state(param)
        state["exp_avg_sq"] = zeros_state(param)


def _rectification(beta2, step):
    """The variance rectification term of a step, or None while the variance is intractable
    (the length of the approximated moving average is 5 or less)."""
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / (1 - beta2 ** step)
    if rho_t > 5.0:
        return math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                         / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
    return None


def _radam_flat(bucket, group) -> None:
    """The update of `_step_each` on a bucket's flat buffers, block by block (NOTE [flat
    optimizer state]): the same operations in the same order, so the same numbers. Whether a
    parameter's step is rectified depends on its step count: with counts that differ, the
    unrectified parameters' elements take the rectified formula's factors as exactly 1."""
    xp = bucket.xp
    lr, eps = as_float(group["lr"]), group["eps"]
    beta1, beta2 = group["betas"]
    gather = group["weight_decay"] != 0
    p, g = bucket.gather(params=gather)       # else p receives the change
    steps = bucket.steps
    steps += 1
    dtype = p.dtype
    bias_correction1 = bucket.per_parameter(lambda step: 1 - beta1 ** step, steps, dtype=dtype)
    rects = [_rectification(beta2, float(s)) for s in steps] if steps.min() != steps.max() \
        else [_rectification(beta2, float(steps[0]))]
    rectified = [r is not None for r in rects]
    mixed = any(rectified) and not all(rectified)
    if mixed:
        rect = bucket.per_element([1.0 if r is None else r for r in rects], dtype)
        unrectified = bucket.per_element([not r for r in rectified], bool)
        sqrt_bias_correction2 = bucket.per_element(
            [math.sqrt(1 - beta2 ** float(s)) for s in steps], dtype)
    elif rectified[0]:
        rect = bucket.per_parameter(lambda step: _rectification(beta2, step), steps,
                                    dtype=dtype)
        sqrt_bias_correction2 = bucket.per_parameter(
            lambda step: math.sqrt(1 - beta2 ** step), steps, dtype=dtype)
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
        change = t2 if gather else pc
        xp.divide(exp_avg, block(bias_correction1, a, b), out=change)
        change *= lr
        if any(rectified):
            xp.sqrt(exp_avg_sq, out=t1)
            t1 += eps
            xp.divide(block(sqrt_bias_correction2, a, b), t1, out=t1)
            if mixed:
                xp.copyto(t1, 1, where=unrectified[a:b])
            change *= t1
            change *= block(rect, a, b)
        if gather:
            pc -= change
    bucket.scatter("copy" if gather else "subtract")
