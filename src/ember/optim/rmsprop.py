"""RMSprop (plain or centered, with momentum)."""
from __future__ import annotations

import numpy as np

from ember.optim._foreach import begin_block, lerp_block, split_update
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

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Divides the gradient by a running root mean square of recent gradients."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_hyper(not (as_float(lr) < 0.0), f"Invalid learning rate: {lr}")
        check_hyper(not (eps < 0.0), f"Invalid epsilon value: {eps}")
        check_hyper(not (momentum < 0.0), f"Invalid momentum value: {momentum}")
        check_hyper(not (weight_decay < 0.0), f"Invalid weight_decay value: {weight_decay}")
        check_hyper(not (alpha < 0.0), f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One RMSprop update of every parameter that has a gradient."""
        loss = run_closure(closure)
        for index, group in enumerate(self.param_groups):
            params, grads = params_with_grad(group)
            if not params:
                continue
            momentum, centered = group["momentum"], group["centered"]

            def init_state(param, state, momentum=momentum, centered=centered):
                if len(state) == 0:
                    state["step"] = scalar_step()
                    state["square_avg"] = zeros_state(param)
                    if momentum > 0:
                        state["momentum_buffer"] = zeros_state(param)
                    if centered:
                        state["grad_avg"] = zeros_state(param)

            keys = ("square_avg",) + (("momentum_buffer",) if momentum > 0 else ()) + \
                (("grad_avg",) if centered else ())
            buckets, params, grads = split_update(self, index, params, grads, keys, init_state)
            for bucket in buckets:
                _rmsprop_flat(bucket, group)
            if params:
                self._step_each(group, params, grads, init_state)
        return loss

    def _step_each(self, group, params, grads, init_state):
        """The per-parameter update (foreach=False, large or complex parameters)."""
        lr, alpha, eps = as_float(group["lr"]), group["alpha"], group["eps"]
        momentum = group["momentum"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            init_state(param, state)
            p, g, _ = begin_update(param, grad, group, state)
            square_avg = array_of(state["square_avg"])
            square_avg *= alpha
            square_avg += (1 - alpha) * g * g
            if group["centered"]:
                grad_avg = array_of(state["grad_avg"])
                lerp_(grad_avg, g, 1 - alpha)
                avg = np.sqrt(square_avg + (-1) * grad_avg * grad_avg)
            else:
                avg = np.sqrt(square_avg)
            avg += eps
            if momentum > 0:
                buf = array_of(state["momentum_buffer"])
                buf *= momentum
                buf += g / avg
                p -= lr * buf
            else:
                p += (-lr * g) / avg
            bump_all(param, state)


def _rmsprop_flat(bucket, group) -> None:
    """The update of `_step_each` on a bucket's flat buffers, block by block (NOTE [flat
    optimizer state]): the same operations in the same order, so the same numbers."""
    xp = bucket.xp
    lr, alpha, eps = as_float(group["lr"]), group["alpha"], group["eps"]
    momentum, centered = group["momentum"], group["centered"]
    gather = group["weight_decay"] != 0
    p, g = bucket.gather(params=gather)       # else p receives the change
    bucket.steps += 1
    square_avg_all = bucket.flat["square_avg"]
    chunks, (scratch1, scratch2) = bucket.chunks()
    for a, b in chunks:
        pc, gc = p[a:b], g[a:b]
        t1, t2 = scratch1[:b - a], scratch2[:b - a]
        begin_block(xp, group, pc, gc, t1)
        square_avg = square_avg_all[a:b]
        square_avg *= alpha
        xp.multiply(gc, 1 - alpha, out=t1)
        t1 *= gc
        square_avg += t1
        if centered:
            grad_avg = bucket.flat["grad_avg"][a:b]
            lerp_block(xp, grad_avg, gc, 1 - alpha, t1)
            xp.multiply(grad_avg, -1, out=t1)
            t1 *= grad_avg
            xp.add(square_avg, t1, out=t1)
            xp.sqrt(t1, out=t1)
        else:
            xp.sqrt(square_avg, out=t1)
        t1 += eps
        if momentum > 0:
            buf = bucket.flat["momentum_buffer"][a:b]
            buf *= momentum
            xp.divide(gc, t1, out=t2)
            buf += t2
            if gather:
                xp.multiply(buf, lr, out=t2)
                pc -= t2
            else:
                xp.multiply(buf, lr, out=pc)
        else:
            xp.multiply(gc, -lr, out=t2)
            if gather:
                t2 /= t1
                pc += t2
            else:
                xp.divide(t2, t1, out=pc)
    bucket.scatter("copy" if gather else ("subtract" if momentum > 0 else "add"))
