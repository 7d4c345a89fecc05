"""Adagrad: per-coordinate steps shrinking with the sum of squared gradients."""
from __future__ import annotations

import numpy as np

from ember.optim._foreach import begin_block, block, split_update
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
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad; its state (step, sum) exists from construction, as in PyTorch."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        check_hyper(not (as_float(lr) < 0.0), f"Invalid learning rate: {lr}")
        check_hyper(not (lr_decay < 0.0), f"Invalid lr_decay value: {lr_decay}")
        check_hyper(not (weight_decay < 0.0), f"Invalid weight_decay value: {weight_decay}")
        check_hyper(not (initial_accumulator_value < 0.0),
                    f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        check_hyper(not (eps < 0.0), f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        from ember import full_like
        for group in self.param_groups:
            for param in group["params"]:
                state = self.state[param]
                state["step"] = scalar_step()
                state["sum"] = full_like(param, group["initial_accumulator_value"])

    def step(self, closure=None):
        """One Adagrad update of every parameter that has a gradient."""
        loss = run_closure(closure)
        for index, group in enumerate(self.param_groups):
            params, grads = params_with_grad(group)
            if not params:
                continue
            buckets, params, grads = split_update(self, index, params, grads, ("sum",),
                                                  _no_new_state)
            for bucket in buckets:
                _adagrad_flat(bucket, group)
            if params:
                self._step_each(group, params, grads)
        return loss

    def _step_each(self, group, params, grads):
        """The per-parameter update (foreach=False, large or complex parameters)."""
        lr, lr_decay, eps = as_float(group["lr"]), group["lr_decay"], group["eps"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            p, g, step = begin_update(param, grad, group, state)
            clr = lr / (1 + (step - 1) * lr_decay)
            total = array_of(state["sum"])
            total += g * g
            std = np.sqrt(total) + eps
            p += (-clr * g) / std
            bump_all(param, state)


def _no_new_state(param, state) -> None:
    """Adagrad's state exists from construction (a state dict without it fails, as in
    PyTorch, at the first use)."""
    raise KeyError("sum")


def _adagrad_flat(bucket, group) -> None:
    """The update of `_step_each` on a bucket's flat buffers, block by block (NOTE [flat
    optimizer state]): the same operations in the same order, so the same numbers."""
    xp = bucket.xp
    lr, lr_decay, eps = as_float(group["lr"]), group["lr_decay"], group["eps"]
    gather = group["weight_decay"] != 0
    p, g = bucket.gather(params=gather)       # else p receives the change
    bucket.steps += 1
    neg_clr = bucket.per_parameter(lambda step: -(lr / (1 + (step - 1) * lr_decay)),
                                   bucket.steps, dtype=p.dtype)
    sum_all = bucket.flat["sum"]
    chunks, (scratch1, scratch2) = bucket.chunks()
    for a, b in chunks:
        pc, gc = p[a:b], g[a:b]
        t1, t2 = scratch1[:b - a], scratch2[:b - a]
        begin_block(xp, group, pc, gc, t1)
        total = sum_all[a:b]
        xp.multiply(gc, gc, out=t1)
        total += t1
        xp.sqrt(total, out=t1)
        t1 += eps
        xp.multiply(gc, block(neg_clr, a, b), out=t2)
        if gather:
            t2 /= t1
            pc += t2
        else:
            xp.divide(t2, t1, out=pc)
    bucket.scatter("copy" if gather else "add")
