"""ASGD: averaged stochastic gradient descent (the average is kept in state 'ax')."""
from __future__ import annotations

import numpy as np

from ember.optim._foreach import begin_block, block, split_update
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
        for index, group in enumerate(self.param_groups):
            params, grads = params_with_grad(group)
            if not params:
                continue
            lr = as_float(group["lr"])

            def init_state(param, state, lr=lr):
                if len(state) == 0:
                    state["step"] = scalar_step()
                    state["eta"] = scalar_step(lr)
                    state["mu"] = scalar_step(1.0)
                    state["ax"] = zeros_state(param)

            buckets, params, grads = split_update(self, index, params, grads, ("ax",),
                                                  init_state, scalar_keys=("eta", "mu"))
            for bucket in buckets:
                _asgd_flat(bucket, group)
            if params:
                self._step_each(group, params, grads, init_state)
        return loss

    def _step_each(self, group, params, grads, init_state):
        """The per-parameter update (foreach=False, large or complex parameters)."""
        lr, lambd, alpha, t0 = (as_float(group["lr"]), group["lambd"], group["alpha"],
                                group["t0"])
        for param, grad in zip(params, grads):
            state = self.state[param]
            init_state(param, state)
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
            rounded = _scalar_dtype()
            state["eta"]._data[...] = rounded(lr / ((1 + lambd * lr * step) ** alpha))
            state["mu"]._data[...] = rounded(1 / max(1, step - t0))
            bump_all(param, state)


def _asgd_flat(bucket, group) -> None:
    """The update of `_step_each` on a bucket's flat buffers, block by block (NOTE [flat
    optimizer state]): the same operations in the same order, so the same numbers. The
    parameters whose `mu` is 1 copy the parameters into `ax`; with others beside them that
    copy is done by a mask over the elements."""
    xp = bucket.xp
    lr, lambd, alpha, t0 = (as_float(group["lr"]), group["lambd"], group["alpha"],
                            group["t0"])
    p, g = bucket.gather()
    steps, etas, mus = bucket.steps, bucket.scalars["eta"], bucket.scalars["mu"]
    steps += 1
    dtype = p.dtype
    shrink = bucket.per_parameter(lambda eta: 1 - lambd * eta, etas, dtype=dtype)
    eta = bucket.per_parameter(lambda eta: eta, etas, dtype=dtype)
    averaging = [float(m) != 1 for m in mus]
    mixed = any(averaging) and not all(averaging)
    mu = bucket.per_parameter(lambda mu: mu, mus, dtype=dtype)
    if mixed:
        copying = bucket.per_element([not a for a in averaging], bool)
    ax_all = bucket.flat["ax"]
    chunks, (scratch1, _scratch2) = bucket.chunks()
    for a, b in chunks:
        pc, gc = p[a:b], g[a:b]
        t1 = scratch1[:b - a]
        begin_block(xp, group, pc, gc, t1)
        pc *= block(shrink, a, b)
        xp.multiply(gc, block(eta, a, b), out=t1)
        pc -= t1
        ax = ax_all[a:b]
        if any(averaging):
            xp.subtract(pc, ax, out=t1)
            t1 *= block(mu, a, b)
            ax += t1
            if mixed:
                xp.copyto(ax, pc, where=copying[a:b])
        else:
            xp.copyto(ax, pc)
    # the next step's eta and mu, computed per parameter as the loop does, written at once
    rounded = _scalar_dtype()
    if steps.min() == steps.max():
        step = float(steps[0])
        etas[...] = rounded(lr / ((1 + lambd * lr * step) ** alpha))
        mus[...] = rounded(1 / max(1, step - t0))
    else:
        counts = [float(s) for s in steps]
        etas[...] = xp.asarray([lr / ((1 + lambd * lr * step) ** alpha) for step in counts],
                               dtype=rounded)
        mus[...] = xp.asarray([1 / max(1, step - t0) for step in counts], dtype=rounded)
    bucket.scatter("copy")


def _scalar_dtype():
    """The dtype a new eta or mu is rounded to before it is stored: PyTorch makes it a tensor
    of its scalar dtype first, so an entry loaded as float64 still holds float32 values."""
    import ember
    return np.float64 if ember.get_default_dtype() == ember.float64 else np.float32
