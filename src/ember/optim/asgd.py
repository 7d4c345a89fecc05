"""ASGD: averaged stochastic gradient descent (the average is kept in state 'ax')."""
from __future__ import annotations

import ember
from ember.optim._lists import EACH, as_real, group_states, observed, run
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

__all__ = ["ASGD"]


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_hyper(not (as_float(lr) < 0.0), f"Invalid learning rate: {lr}")
        check_hyper(not (weight_decay < 0.0), f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One ASGD update of every parameter that has a gradient."""
        loss = run_closure(closure)
        with step_grad_mode(self):
            for group in self.param_groups:
                params, grads = params_with_grad(group)
                if not params:
                    continue
                lr = as_float(group["lr"])
                states = group_states(self, params, grads, _KEYS, lambda param, grad, lr=lr: {
                    # (all on the parameter's device, as PyTorch's)
                    "step": scalar_step().to(param.device),
                    "eta": scalar_step(lr).to(param.device),
                    "mu": scalar_step(1.0).to(param.device), "ax": zeros_state(param)})
                # (foreach=True not in blocks: its form computes each parameter's next eta
                # from its step count tensor, NOTE [optimizer updates in blocks])
                run(group, as_real(params), asgd_update, as_real(grads),
                    *[as_real([s[key] for s in states]) for key in _KEYS],
                    blocks=not group.get("foreach"),
                    lr=lr, lambd=group["lambd"], alpha=group["alpha"], t0=group["t0"],
                    weight_decay=group["weight_decay"], maximize=group["maximize"],
                    single=not group.get("foreach"))
        return loss


_KEYS = ("step", "eta", "mu", "ax")


def asgd_update(lists, params, grads, steps, etas, mus, axs, *, lr, lambd, alpha, t0,
                weight_decay, maximize, single) -> None:
    """ASGD's update over `lists` (NOTE [optimizer updates as ops]): PyTorch's single-tensor
    arithmetic and order with `single` (the parameters shrunk, then the step; the average
    copied while mu is 1), else its foreach form's (one addcmul with the eta tensors; the next
    etas computed from the step count tensors, in their dtype)."""
    if maximize:
        grads = lists.neg(grads)
    lists.increment(steps)
    if single:
        if weight_decay != 0:
            grads = lists.add(grads, params, alpha=weight_decay)
        if lists is EACH:       # (one parameter: the reads where PyTorch's form reads)
            _single_each(lists, params, grads, steps, etas, mus, axs, lr=lr, lambd=lambd,
                         alpha=alpha, t0=t0)
            return
        counts = lists.values(steps)
        eta_values, mu_values = lists.values(etas), lists.values(mus)
        new_etas = [lr / ((1 + lambd * lr * count) ** alpha) for count in counts]
        new_mus = [1 / max(1, count - t0) for count in counts]
        groups = _alike(list(zip(eta_values, mu_values)))
        if len(groups) == 1:            # (the common case; the blocks' only one)
            _single(lists, params, grads, etas, mus, axs, new_etas, new_mus,
                    eta=eta_values[0], mu=mu_values[0], lambd=lambd)
            return
        for index in groups:
            _single(lists, *[[values[i] for i in index] for values in
                             (params, grads, etas, mus, axs, new_etas, new_mus)],
                    eta=eta_values[index[0]], mu=mu_values[index[0]], lambd=lambd)
        return
    if weight_decay != 0:
        if maximize:                    # (the negated gradients are a fresh copy)
            lists.add_(grads, params, alpha=weight_decay)
            intermediate = grads
        else:
            intermediate = lists.add(grads, params, alpha=weight_decay)
        lists.add_(intermediate, params, alpha=lambd)
    else:
        intermediate = lists.add(grads, params, alpha=lambd)
    lists.addcmul_(params, intermediate, etas, -1)
    intermediate = lists.sub(params, axs)
    lists.addcmul_(axs, intermediate, mus)
    if observed(params):
        new_etas = [ember.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)) for step in steps]
        new_mus = [ember.as_tensor(1 / max(1, step.item() - t0)) for step in steps]
    else:   # (the same numbers, made once per distinct step count)
        counts = lists.values(steps)
        made: dict = {}
        for step, count in zip(steps, counts):
            if count not in made:
                made[count] = (ember.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)),
                               ember.as_tensor(1 / max(1, count - t0)))
        new_etas = [made[count][0] for count in counts]
        new_mus = [made[count][1] for count in counts]
    lists.copy_(etas, new_etas)
    lists.copy_(mus, new_mus)


def _alike(keys) -> list:
    """Index lists of the positions whose keys are equal, in order of first appearance (one
    list when all are: the common case)."""
    if keys.count(keys[0]) == len(keys):
        return [range(len(keys))]
    groups: dict = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def _single_each(lists, params, grads, steps, etas, mus, axs, *, lr, lambd, alpha, t0):
    """The single-tensor form's step for one parameter, reading eta, mu and the step count
    where PyTorch's does (a mode sees each `_local_scalar_dense` there)."""
    eta = lists.values(etas)[0]
    lists.mul_(params, 1 - lambd * eta)
    lists.add_(params, grads, alpha=-eta)
    mu = lists.values(mus)[0]
    if mu != 1:
        intermediate = lists.sub(params, axs)
        lists.mul_(intermediate, mu)
        lists.add_(axs, intermediate)
    else:
        lists.copy_(axs, params)
    count = lists.values(steps)[0]
    lists.copy_numbers_(etas, [lr / ((1 + lambd * lr * count) ** alpha)])
    lists.copy_numbers_(mus, [1 / max(1, count - t0)])


def _single(lists, params, grads, etas, mus, axs, new_etas, new_mus, *, eta, mu, lambd):
    """The single-tensor form's step for parameters that share eta and mu (`mu` multiplies
    as its number: the same product as the 0-d tensor's)."""
    lists.mul_(params, 1 - lambd * eta)
    lists.add_(params, grads, alpha=-eta)
    if mu != 1:
        intermediate = lists.sub(params, axs)
        lists.mul_(intermediate, mu)
        lists.add_(axs, intermediate)
    else:
        lists.copy_(axs, params)
    lists.copy_numbers_(etas, new_etas)
    lists.copy_numbers_(mus, new_mus)
