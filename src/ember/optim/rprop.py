"""Rprop: per-coordinate step sizes grown or shrunk by the sign agreement of gradients."""
from __future__ import annotations

import ember
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
        with step_grad_mode(self):
            for group in self.param_groups:
                params, grads = params_with_grad(group)
                if not params:
                    continue
                lr = as_float(group["lr"])
                states = group_states(self, params, grads, _KEYS, lambda param, grad, lr=lr: {
                    "step": scalar_step(), "prev": zeros_state(param),
                    "step_size": ember.full_like(grad, lr)})
                run(group, as_real(params), rprop_update, as_real(grads),
                    *[as_real([s[key] for s in states]) for key in _KEYS],
                    etas=group["etas"], bounds=group["step_sizes"],
                    maximize=group["maximize"], single=not group.get("foreach"))
        return loss


_KEYS = ("step", "prev", "step_size")


def rprop_update(lists, params, grads, steps, prevs, step_sizes, *, etas, bounds, maximize,
                 single) -> None:
    """Rprop's update over `lists` (NOTE [optimizer updates as ops]): PyTorch's single-tensor
    ops and order with `single`, else its foreach form's, per-tensor ops included (the same
    numbers: only the product, the clamp and the addcmul round)."""
    eta_minus, eta_plus = etas
    if single:
        if maximize:
            grads = lists.neg(grads)
        lists.increment(steps)
        signs = lists.signs(lists.mul(grads, prevs))
    else:
        lists.increment(steps)
        signs = lists.mul(grads, prevs)
        if maximize:
            lists.neg_(signs)
        lists.copy_(prevs, grads)
        if maximize:
            lists.neg_(prevs)
        grads = prevs
        lists.sign_(signs)
    lists.sign_factors_(signs, eta_plus, eta_minus)
    lists.mul_(step_sizes, signs)
    lists.clamp_(step_sizes, *bounds)
    if single:
        grads = lists.clone(grads)
    lists.zero_where_(grads, signs, eta_minus, single)
    lists.addcmul_(params, lists.signs(grads), step_sizes, -1)
    if single:
        lists.copy_(prevs, grads)
