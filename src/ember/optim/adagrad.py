"""Adagrad: per-coordinate steps shrinking with the sum of squared gradients."""
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
        with step_grad_mode(self):
            for group in self.param_groups:
                params, grads = params_with_grad(group)
                if not params:
                    continue
                states = [self.state[p] for p in params]
                # (the state exists from construction: a state dict without it fails here,
                # at the first use, as PyTorch's)
                steps, sums = [s["step"] for s in states], [s["sum"] for s in states]
                keep_flat(params, states, ("step", "sum"))
                run(group, as_real(params), adagrad_update, as_real(grads), steps,
                    as_real(sums), lr=as_float(group["lr"]), lr_decay=group["lr_decay"],
                    eps=group["eps"], weight_decay=group["weight_decay"],
                    maximize=group["maximize"], single=not group.get("foreach"))
        return loss


def adagrad_update(lists, params, grads, steps, sums, *, lr, lr_decay, eps, weight_decay,
                   maximize, single) -> None:
    """Adagrad's update over `lists` (NOTE [optimizer updates as ops]): PyTorch's single-tensor
    arithmetic and order with `single`, else its foreach form's."""
    if single:
        lists.increment(steps)
        counts = lists.values(steps)
    if maximize:
        grads = lists.neg(grads)
    if not single:
        lists.increment(steps)
    if weight_decay != 0:
        if maximize and not single:     # (the negated gradients are a fresh copy)
            lists.add_(grads, params, alpha=weight_decay)
        else:
            grads = lists.add(grads, params, alpha=weight_decay)
    if not single:
        counts = lists.values(steps)
    minus_clr = [-lr / (1 + (count - 1) * lr_decay) for count in counts]
    lists.addcmul_(sums, grads, grads, 1)
    std = lists.sqrt(sums)
    lists.add_scalar_(std, eps)
    if single:
        lists.addcdiv_(params, grads, std, minus_clr)
        return
    if weight_decay != 0 or maximize:
        lists.mul_(grads, minus_clr)
        numerator = grads
    else:
        numerator = lists.mul(grads, minus_clr)
    lists.addcdiv_(params, numerator, std)
