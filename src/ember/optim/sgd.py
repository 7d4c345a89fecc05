"""SGD with momentum, dampening, Nesterov momentum, weight decay and `maximize`."""
from __future__ import annotations

from ember.optim._lists import keep_flat, run
from ember.optim.optimizer import (
    Optimizer,
    as_float,
    check_hyper,
    params_with_grad,
    run_closure,
    step_grad_mode,
)

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (PyTorch's formulation of momentum: the buffer accumulates
    gradients, the step is lr times the buffer)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        check_hyper(not (as_float(lr) < 0.0), f"Invalid learning rate: {lr}")
        check_hyper(not (momentum < 0.0), f"Invalid momentum value: {momentum}")
        check_hyper(not (weight_decay < 0.0), f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns closure's loss."""
        loss = run_closure(closure)
        with step_grad_mode(self):
            for group in self.param_groups:
                params, grads = params_with_grad(group)
                if not params:
                    continue
                if group["momentum"] != 0:    # (SGD without momentum keeps no state)
                    states = [self.state[p] for p in params]
                    keep_flat(params, states, ("momentum_buffer",))
                    bufs = [state.get("momentum_buffer") for state in states]
                    if all(buf is not None for buf in bufs):
                        states = [None] * len(params)     # (no buffer to make)
                else:
                    states = bufs = [None] * len(params)
                run(group, params, sgd_update, grads, bufs, states, lr=as_float(group["lr"]),
                    momentum=group["momentum"], dampening=group["dampening"],
                    weight_decay=group["weight_decay"], nesterov=group["nesterov"],
                    grads_in_place=bool(group.get("foreach")),
                    maximize=group["maximize"])
        return loss


def sgd_update(lists, params, grads, bufs, states, *, lr, momentum, dampening, weight_decay,
               nesterov, maximize, grads_in_place=False) -> None:
    """SGD's update over `lists` (NOTE [optimizer updates as ops]): PyTorch's arithmetic and
    order, in its foreach form or its single-tensor form. `bufs` are the momentum buffers
    (None where a parameter has none yet: it is made from the gradient into `states`)."""
    if maximize:
        grads = lists.neg(grads)
    if weight_decay != 0:
        if maximize and lists.foreach:      # (the negated gradients are a fresh copy)
            lists.add_(grads, params, alpha=weight_decay)
        else:
            grads = lists.add(grads, params, alpha=weight_decay)
    if momentum != 0:
        if lists.complete(bufs):
            lists.mul_(bufs, momentum)
            lists.add_(bufs, grads, alpha=1 - dampening)
        else:       # a first step: a new buffer starts as the gradient itself
            bufs = list(bufs)
            for i, buf in enumerate(bufs):
                if buf is None:
                    bufs[i] = states[i]["momentum_buffer"] = grads[i].detach().clone()
                else:
                    buf.mul_(momentum).add_(grads[i], alpha=1 - dampening)
        if nesterov:
            # (PyTorch's foreach path adds to the gradients in place, its single-tensor path,
            # foreach=None's on CPU, out of place: the gradients after the step tell them apart)
            if lists.foreach and grads_in_place:
                lists.add_(grads, bufs, alpha=momentum)
            else:
                grads = lists.add(grads, bufs, alpha=momentum)
        else:
            grads = bufs
    lists.add_(params, grads, alpha=-lr)
