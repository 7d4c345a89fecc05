"""ASGD: averaged stochastic gradient descent (the average is kept in state 'ax')."""
from __future__ import annotations

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
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            lr, lambd, alpha, t0 = (as_float(group["lr"]), group["lambd"], group["alpha"],
                                    group["t0"])
            for param, grad in zip(params, grads):
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = scalar_step()
                    state["eta"] = scalar_step(lr)
                    state["mu"] = scalar_step(1.0)
                    state["ax"] = zeros_state(param)
                p, g, step = begin_update(param, grad, group, state)
                eta = float(state["eta"]._data)
                p *= 1 - lambd * eta
                p -= eta * g
                ax = array_of(state["ax"])
                mu = float(state["mu"]._data)
                if mu != 1:
                    ax += (p - ax) * mu
                else:
                    ax[...] = p
                state["eta"]._data[...] = lr / ((1 + lambd * lr * step) ** alpha)
                state["mu"]._data[...] = 1 / max(1, step - t0)
                bump_all(param, state)
        return loss
