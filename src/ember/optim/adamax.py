"""Adamax: Adam with the infinity norm in place of the second moment."""
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
        for index, group in enumerate(self.param_groups):
            params, grads = params_with_grad(group)
            if not params:
                continue
            buckets, params, grads = split_update(self, index, params, grads,
                                                  ("exp_avg", "exp_inf"), _init_state)
            for bucket in buckets:
                _adamax_flat(bucket, group)
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
            p, g, step = begin_update(param, grad, group, state)
            exp_avg, exp_inf = array_of(state["exp_avg"]), array_of(state["exp_inf"])
            lerp_(exp_avg, g, 1 - beta1)
            exp_inf *= beta2
            np.maximum(exp_inf, np.abs(g) + eps, out=exp_inf)
            clr = lr / (1 - beta1 ** step)
            p += (-clr * exp_avg) / exp_inf
            bump_all(param, state)


def _init_state(param, state) -> None:
    if len(state) == 0:
        state["step"] = scalar_step()
        state["exp_avg"] = zeros_state(param)
        state["exp_inf"] = zeros_state(param)


def _adamax_flat(bucket, group) -> None:
    """The update of `_step_each` on a bucket's flat buffers, block by block (NOTE [flat
    optimizer state]): the same operations in the same order, so the same numbers."""
    xp = bucket.xp
    lr, eps = as_float(group["lr"]), group["eps"]
    beta1, beta2 = group["betas"]
    gather = group["weight_decay"] != 0
    p, g = bucket.gather(params=gather)       # else p receives the change
    bucket.steps += 1
    neg_clr = bucket.per_parameter(lambda step: -(lr / (1 - beta1 ** step)), bucket.steps,
                                   dtype=p.dtype)
    exp_avg_all, exp_inf_all = bucket.flat["exp_avg"], bucket.flat["exp_inf"]
    chunks, (scratch1, scratch2) = bucket.chunks()
    for a, b in chunks:
        pc, gc = p[a:b], g[a:b]
        t1, t2 = scratch1[:b - a], scratch2[:b - a]
        begin_block(xp, group, pc, gc, t1)
        exp_avg, exp_inf = exp_avg_all[a:b], exp_inf_all[a:b]
        lerp_block(xp, exp_avg, gc, 1 - beta1, t1)
        exp_inf *= beta2
        xp.abs(gc, out=t1)
        t1 += eps
        xp.maximum(exp_inf, t1, out=exp_inf)
        xp.multiply(exp_avg, block(neg_clr, a, b), out=t2)
        if gather:
            t2 /= exp_inf
            pc += t2
        else:
            xp.divide(t2, exp_inf, out=pc)
    bucket.scatter("copy" if gather else "add")
