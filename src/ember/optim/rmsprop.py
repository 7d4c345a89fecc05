"""RMSprop (plain or centered, with momentum)."""
from __future__ import annotations

from ember.optim._lists import as_real, keep_flat, run
from ember.optim.optimizer import (
    Optimizer,
    as_float,
    check_hyper,
    params_with_grad,
    run_closure,
    scalar_step,
    step_grad_mode,
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
        with step_grad_mode(self):
            for group in self.param_groups:
                params, grads = params_with_grad(group)
                if not params:
                    continue
                momentum, centered = group["momentum"], group["centered"]
                keys = ("step", "square_avg") + (("momentum_buffer",) if momentum > 0 else ()) \
                    + (("grad_avg",) if centered else ())
                states = []
                for param in params:
                    state = self.state[param]
                    if len(state) == 0:
                        state["step"] = scalar_step()
                        state["square_avg"] = zeros_state(param)
                        if momentum > 0:
                            state["momentum_buffer"] = zeros_state(param)
                        if centered:
                            state["grad_avg"] = zeros_state(param)
                    states.append(state)
                keep_flat(params, states, keys)
                columns = {key: as_real([s[key] for s in states]) for key in keys}
                none = [None] * len(params)
                run(group, as_real(params), rmsprop_update, as_real(grads), columns["step"],
                    columns["square_avg"], columns.get("grad_avg", none),
                    columns.get("momentum_buffer", none),
                    lr=as_float(group["lr"]), alpha=group["alpha"], eps=group["eps"],
                    weight_decay=group["weight_decay"], momentum=momentum, centered=centered,
                    maximize=group["maximize"])
        return loss


def rmsprop_update(lists, params, grads, steps, square_avgs, grad_avgs, momentum_buffers, *,
                   lr, alpha, eps, weight_decay, momentum, centered, maximize) -> None:
    """RMSprop's update over `lists` (NOTE [optimizer updates as ops]): PyTorch's arithmetic and
    order, in its foreach form or its single-tensor form."""
    if maximize:
        grads = lists.neg(grads)
    lists.increment(steps)
    if weight_decay != 0:
        if maximize and lists.foreach:      # (the negated gradients are a fresh copy)
            lists.add_(grads, params, alpha=weight_decay)
        else:
            grads = lists.add(grads, params, alpha=weight_decay)
    lists.mul_(square_avgs, alpha)
    lists.addcmul_(square_avgs, grads, grads, 1 - alpha)
    if centered:
        lists.lerp_(grad_avgs, grads, 1 - alpha)
        avg = lists.addcmul(square_avgs, grad_avgs, grad_avgs, -1)
        lists.sqrt_(avg)
    else:
        avg = lists.sqrt(square_avgs)
    lists.add_scalar_(avg, eps)
    if momentum > 0:
        lists.mul_(momentum_buffers, momentum)
        lists.addcdiv_(momentum_buffers, grads, avg)
        lists.add_(params, momentum_buffers, alpha=-lr)
    else:
        lists.addcdiv_(params, grads, avg, -lr)
