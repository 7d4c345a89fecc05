"""Adadelta: steps scaled by running averages of squared gradients and squared updates."""
from __future__ import annotations

from ember.optim._lists import as_real, group_states, run
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
        with step_grad_mode(self):
            for group in self.param_groups:
                params, grads = params_with_grad(group)
                if not params:
                    continue
                states = group_states(self, params, grads, _KEYS, lambda param, grad: {
                    "step": scalar_step(), "square_avg": zeros_state(param),
                    "acc_delta": zeros_state(param)})
                run(group, as_real(params), adadelta_update, as_real(grads),
                    *[as_real([s[key] for s in states]) for key in _KEYS],
                    lr=as_float(group["lr"]), rho=group["rho"], eps=group["eps"],
                    weight_decay=group["weight_decay"], maximize=group["maximize"],
                    single=not group.get("foreach"))
        return loss


_KEYS = ("step", "square_avg", "acc_delta")


def adadelta_update(lists, params, grads, steps, square_avgs, acc_deltas, *, lr, rho, eps,
                    weight_decay, maximize, single) -> None:
    """Adadelta's update over `lists` (NOTE [optimizer updates as ops]): PyTorch's ops and
    order, in its foreach form or its single-tensor form (the same numbers)."""
    lists.increment(steps)
    if maximize:
        grads = lists.neg(grads)
    if weight_decay != 0:
        if maximize and not single:     # (the negated gradients are a fresh copy)
            lists.add_(grads, params, alpha=weight_decay)
        else:
            grads = lists.add(grads, params, alpha=weight_decay)
    lists.mul_(square_avgs, rho)
    lists.addcmul_(square_avgs, grads, grads, 1 - rho)
    std = lists.add_scalar(square_avgs, eps)
    lists.sqrt_(std)
    deltas = lists.add_scalar(acc_deltas, eps)
    lists.sqrt_(deltas)
    lists.div_(deltas, std)
    lists.mul_(deltas, grads)
    lists.mul_(acc_deltas, rho)
    lists.addcmul_(acc_deltas, deltas, deltas, 1 - rho)
    lists.add_(params, deltas, alpha=-lr)
