"""Adam (with amsgrad, maximize, and L2 or decoupled weight decay); AdamW is Adam with
decoupled weight decay on by default (adamw.py)."""
from __future__ import annotations

import numpy as np

from ember.optim._foreach import split_update
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

__all__ = ["Adam"]


def check_adam_hypers(lr, betas, eps, weight_decay) -> None:
    check_hyper(not (as_float(lr) < 0.0), f"Invalid learning rate: {lr}")
    check_hyper(not (eps < 0.0), f"Invalid epsilon value: {eps}")
    check_hyper(0.0 <= as_float(betas[0]) < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
    check_hyper(0.0 <= as_float(betas[1]) < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
    check_hyper(not (weight_decay < 0.0), f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    """Adam: moving averages of the gradient and its square, bias-corrected."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_adam_hypers(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable,
                    "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

    def step(self, closure=None):
        """One Adam update of every parameter that has a gradient; returns closure's loss."""
        loss = run_closure(closure)
        for index, group in enumerate(self.param_groups):
            params, grads = params_with_grad(group)
            if not params:
                continue
            amsgrad = group["amsgrad"]

            def init_state(param, state, amsgrad=amsgrad):
                if len(state) == 0:
                    state["step"] = scalar_step()
                    state["exp_avg"] = zeros_state(param)
                    state["exp_avg_sq"] = zeros_state(param)
                if amsgrad and state.get("max_exp_avg_sq") is None:
                    state["max_exp_avg_sq"] = zeros_state(param)

            keys = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if amsgrad else \
                ("exp_avg", "exp_avg_sq")
            buckets, params, grads = split_update(self, index, params, grads, keys, init_state)
            for bucket in buckets:
                _adam_flat(bucket, group)
            if params:
                self._step_each(group, params, grads, init_state)
        return loss

    def _step_each(self, group, params, grads, init_state):
        """The per-parameter update (foreach=False, large or complex parameters)."""
        lr = as_float(group["lr"])
        beta1, beta2 = (as_float(b) for b in group["betas"])
        eps = group["eps"]
        amsgrad = group["amsgrad"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            if len(state) == 0:
                init_state(param, state)
            p, g, step = begin_update(param, grad, group, state, lr,
                                      group["decoupled_weight_decay"])
            exp_avg = array_of(state["exp_avg"])
            exp_avg_sq = array_of(state["exp_avg_sq"])
            lerp_(exp_avg, g, 1 - beta1)
            exp_avg_sq *= beta2
            exp_avg_sq += (1 - beta2) * g * g
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5
            if amsgrad:
                max_sq = array_of(state["max_exp_avg_sq"])
                np.maximum(max_sq, exp_avg_sq, out=max_sq)
                denom = np.sqrt(max_sq) / bias_correction2_sqrt
            else:
                denom = np.sqrt(exp_avg_sq) / bias_correction2_sqrt
            denom += eps
            p += (-step_size * exp_avg) / denom
            bump_all(param, state)


def _adam_flat(bucket, group) -> None:
    """The update of `_step_each` on a bucket's flat buffers, block by block (NOTE [flat
    optimizer state]): the same operations in the same order, so the same numbers."""
    lr = as_float(group["lr"])
    beta1, beta2 = (as_float(b) for b in group["betas"])
    xp = bucket.xp
    weight_decay = group["weight_decay"]
    p, g = bucket.gather(params=weight_decay != 0)   # else p receives the change
    steps = bucket.steps
    steps += 1
    if steps.min() == steps.max():
        first = float(steps[0])
        neg_step_size = -(lr / (1 - beta1 ** first))
        bias_correction2_sqrt = (1 - beta2 ** first) ** 0.5
    else:       # parameters that joined later have their own counts
        counts = [float(s) for s in steps]
        neg_step_size = bucket.per_element([-(lr / (1 - beta1 ** c)) for c in counts], p.dtype)
        bias_correction2_sqrt = bucket.per_element(
            [(1 - beta2 ** c) ** 0.5 for c in counts], p.dtype)
    per_element = not isinstance(neg_step_size, float)
    decoupled = group["decoupled_weight_decay"]
    maximize, amsgrad, eps = group["maximize"], group["amsgrad"], group["eps"]
    exp_avg_all = bucket.flat["exp_avg"]
    exp_avg_sq_all = bucket.flat["exp_avg_sq"]
    max_sq_all = bucket.flat["max_exp_avg_sq"] if amsgrad else None
    chunks, (scratch1, scratch2) = bucket.chunks()
    for a, b in chunks:
        pc, gc = p[a:b], g[a:b]
        t1, t2 = scratch1[:b - a], scratch2[:b - a]
        exp_avg, exp_avg_sq = exp_avg_all[a:b], exp_avg_sq_all[a:b]
        if maximize:
            xp.negative(gc, out=gc)
        if weight_decay != 0:
            if decoupled:
                pc *= 1 - lr * weight_decay
            else:
                xp.multiply(pc, weight_decay, out=t1)
                gc += t1
        # lerp_(exp_avg, g, 1 - beta1), written into scratch
        weight = 1 - beta1
        xp.subtract(gc, exp_avg, out=t1)
        if abs(weight) < 0.5:
            t1 *= weight
            exp_avg += t1
        else:
            t1 *= 1 - weight
            xp.subtract(gc, t1, out=exp_avg)
        exp_avg_sq *= beta2
        xp.multiply(gc, 1 - beta2, out=t1)
        t1 *= gc
        exp_avg_sq += t1
        if amsgrad:
            max_sq = max_sq_all[a:b]
            xp.maximum(max_sq, exp_avg_sq, out=max_sq)
            xp.sqrt(max_sq, out=t1)
        else:
            xp.sqrt(exp_avg_sq, out=t1)
        t1 /= bias_correction2_sqrt[a:b] if per_element else bias_correction2_sqrt
        t1 += eps
        xp.multiply(exp_avg, neg_step_size[a:b] if per_element else neg_step_size, out=t2)
        if weight_decay != 0:
            t2 /= t1
            pc += t2
        else:
            xp.divide(t2, t1, out=pc)
    bucket.scatter("copy" if weight_decay != 0 else "add")
