"""Rprop: per-coordinate step sizes grown or shrunk by the sign agreement of gradients."""
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
        loss = run_closure(closure)
        for index, group in enumerate(self.param_groups):
            params, grads = params_with_grad(group)
            if not params:
                continue
            lr = as_float(group["lr"])

            def init_state(param, state, lr=lr):
                from ember import full_like
                if len(state) == 0:
                    state["step"] = scalar_step()
                    state["prev"] = zeros_state(param)
                    state["step_size"] = full_like(param.grad, lr)

            buckets, params, grads = split_update(self, index, params, grads,
                                                  ("prev", "step_size"), init_state)
            for bucket in buckets:
                _rprop_flat(bucket, group)
            if params:
                self._step_each(group, params, grads, init_state)
        return loss

    def _step_each(self, group, params, grads, init_state):
        """The per-parameter update (foreach=False, large or complex parameters)."""
        eta_minus, eta_plus = group["etas"]
        step_min, step_max = group["step_sizes"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            init_state(param, state)
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


def _rprop_flat(bucket, group) -> None:
    """The update of `_step_each` on a bucket's flat buffers, block by block (NOTE [flat
    optimizer state]): the same operations in the same order, so the same numbers (eta_minus
    < 1 < eta_plus, so a factor of eta_minus is exactly a sign disagreement)."""
    xp = bucket.xp
    eta_minus, eta_plus = group["etas"]
    step_min, step_max = group["step_sizes"]
    p, g = bucket.gather(params=False)        # p receives the change
    bucket.steps += 1
    prev_all, step_size_all = bucket.flat["prev"], bucket.flat["step_size"]
    chunks, (scratch1, scratch2) = bucket.chunks()
    for a, b in chunks:
        pc, gc = p[a:b], g[a:b]
        t1, factor = scratch1[:b - a], scratch2[:b - a]
        begin_block(xp, group, pc, gc, t1)
        prev, step_size = prev_all[a:b], step_size_all[a:b]
        xp.multiply(gc, prev, out=t1)
        xp.sign(t1, out=t1)                   # the sign agreement
        factor.fill(1)
        xp.copyto(factor, eta_plus, where=t1 > 0)
        disagree = t1 < 0
        xp.copyto(factor, eta_minus, where=disagree)
        step_size *= factor
        xp.clip(step_size, step_min, step_max, out=step_size)
        xp.copyto(gc, 0, where=disagree)
        xp.sign(gc, out=pc)
        pc *= step_size
        xp.copyto(prev, gc)
    bucket.scatter("subtract")
