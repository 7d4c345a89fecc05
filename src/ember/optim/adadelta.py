"""Adadelta: steps scaled by running averages of squared gradients and squared updates."""
from __future__ import annotations

import numpy as np

from ember.optim._foreach import begin_block, split_update
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
        for index, group in enumerate(self.param_groups):
            params, grads = params_with_grad(group)
            if not params:
                continue
            buckets, params, grads = split_update(self, index, params, grads,
                                                  ("square_avg", "acc_delta"), _init_state)
            for bucket in buckets:
                _adadelta_flat(bucket, group)
            if params:
                self._step_each(group, params, grads)
        return loss

    def _step_each(self, group, params, grads):
        """The per-parameter update (foreach=False, large or complex parameters)."""
        lr, rho, eps = as_float(group["lr"]), group["rho"], group["eps"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            _init_state(param, state)
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


def _init_state(param, state) -> None:
    if len(state) == 0:
        state["step"] = scalar_step()
        state["square_avg"] = zeros_state(param)
        state["acc_delta"] = zeros_state(param)


def _adadelta_flat(bucket, group) -> None:
    """The update of `_step_each` on a bucket's flat buffers, block by block (NOTE [flat
    optimizer state]): the same operations in the same order, so the same numbers."""
    xp = bucket.xp
    lr, rho, eps = as_float(group["lr"]), group["rho"], group["eps"]
    gather = group["weight_decay"] != 0
    p, g = bucket.gather(params=gather)       # else p receives the change
    bucket.steps += 1
    square_avg_all, acc_delta_all = bucket.flat["square_avg"], bucket.flat["acc_delta"]
    chunks, (scratch1, scratch2) = bucket.chunks()
    for a, b in chunks:
        pc, gc = p[a:b], g[a:b]
        t1, t2 = scratch1[:b - a], scratch2[:b - a]
        begin_block(xp, group, pc, gc, t1)
        square_avg, acc_delta = square_avg_all[a:b], acc_delta_all[a:b]
        square_avg *= rho
        xp.multiply(gc, 1 - rho, out=t1)
        t1 *= gc
        square_avg += t1
        xp.add(square_avg, eps, out=t1)
        xp.sqrt(t1, out=t1)                   # std
        xp.add(acc_delta, eps, out=t2)
        xp.sqrt(t2, out=t2)
        t2 /= t1
        t2 *= gc                              # delta
        acc_delta *= rho
        xp.multiply(t2, 1 - rho, out=t1)
        t1 *= t2
        acc_delta += t1
        if gather:
            t2 *= lr
            pc -= t2
        else:
            xp.multiply(t2, lr, out=pc)
    bucket.scatter("copy" if gather else "subtract")
