"""Adamax: Adam with the infinity norm in place of the second moment."""
from __future__ import annotations

from ember.optim._lists import as_real, group_states, run
from ember.optim.adam import check_adam_hypers
from ember.optim.optimizer import (
    Optimizer,
    as_float,
    params_with_grad,
    run_closure,
    scalar_step,
    step_grad_mode,
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
        with step_grad_mode(self):
            for group in self.param_groups:
                params, grads = params_with_grad(group)
                if not params:
                    continue
                states = group_states(self, params, grads, _KEYS, lambda param, grad: {
                    "step": scalar_step(), "exp_avg": zeros_state(param),
                    "exp_inf": zeros_state(param)})
                run(group, as_real(params), adamax_update, as_real(grads),
                    *[as_real([s[key] for s in states]) for key in _KEYS],
                    lr=as_float(group["lr"]), betas=tuple(as_float(b) for b in group["betas"]),
                    eps=group["eps"], weight_decay=group["weight_decay"],
                    maximize=group["maximize"], single=not group.get("foreach"))
        return loss


_KEYS = ("step", "exp_avg", "exp_inf")


def adamax_update(lists, params, grads, steps, exp_avgs, exp_infs, *, lr, betas, eps,
                  weight_decay, maximize, single) -> None:
    """Adamax's update over `lists` (NOTE [optimizer updates as ops]): PyTorch's single-tensor
    ops and order with `single`, else its foreach form's (the same numbers)."""
    beta1, beta2 = betas
    if maximize:
        grads = lists.neg(grads)
    lists.increment(steps)
    if weight_decay != 0:
        if maximize and not single:     # (the negated gradients are a fresh copy)
            lists.add_(grads, params, alpha=weight_decay)
        else:
            grads = lists.add(grads, params, alpha=weight_decay)
    lists.lerp_(exp_avgs, grads, 1 - beta1)
    lists.mul_(exp_infs, beta2)
    if single or (not maximize and weight_decay == 0):
        grads = lists.abs(grads)
    else:
        lists.abs_(grads)
    lists.add_scalar_(grads, eps)
    lists.maximum_(exp_infs, grads)
    step_sizes = [(lr / (1 - beta1 ** count)) * -1 for count in lists.values(steps)]
    lists.addcdiv_(params, exp_avgs, exp_infs, step_sizes)
