"""SGD with momentum, dampening, Nesterov momentum, weight decay and `maximize`."""
from __future__ import annotations

from ember.optim._foreach import split_update
from ember.optim.optimizer import (
    Optimizer,
    array_of,
    as_float,
    bump,
    check_hyper,
    params_with_grad,
    run_closure,
    tensor_of,
    zeros_state,
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
        for index, group in enumerate(self.param_groups):
            params, grads = params_with_grad(group)
            if not params:
                continue
            fresh = set()       # parameters whose momentum buffer starts this step

            def init_state(param, state, fresh=fresh):
                state["momentum_buffer"] = zeros_state(param)
                fresh.add(id(param))

            keys = ("momentum_buffer",) if group["momentum"] != 0 else ()
            buckets, params, grads = split_update(self, index, params, grads, keys,
                                                  init_state if keys else _no_state)
            for bucket in buckets:
                _sgd_flat(bucket, group, fresh)
            if params:
                self._step_each(group, params, grads)
        return loss

    def _step_each(self, group, params, grads):
        """The per-parameter update (foreach=False, large or complex parameters)."""
        lr = as_float(group["lr"])
        momentum = group["momentum"]
        dampening = group["dampening"]
        weight_decay = group["weight_decay"]
        for param, grad in zip(params, grads):
            p = array_of(param)
            g = array_of(grad)
            if group["maximize"]:
                g = -g
            if weight_decay != 0:
                g = g + weight_decay * p
            if momentum != 0:
                state = self.state[param]
                buf = state.get("momentum_buffer")
                if buf is None:
                    b = p.copy()      # an array even when p is 0-d (g may be a scalar)
                    b[...] = g
                    state["momentum_buffer"] = tensor_of(b, param)
                else:
                    b = array_of(buf)
                    b *= momentum
                    b += (1 - dampening) * g
                    bump(buf)
                g = g + momentum * b if group["nesterov"] else b
            p -= lr * g
            bump(param)


def _no_state(param, state) -> None:
    """SGD without momentum keeps no state."""


def _sgd_flat(bucket, group, fresh) -> None:
    """The update of `_step_each` on a bucket's flat buffers, block by block (NOTE [flat
    optimizer state]): the same operations in the same order, so the same numbers."""
    xp = bucket.xp
    weight_decay = group["weight_decay"]
    p, g = bucket.gather(params=weight_decay != 0)   # else p receives the change
    lr = as_float(group["lr"])
    momentum, dampening = group["momentum"], group["dampening"]
    maximize, nesterov = group["maximize"], group["nesterov"]
    buffer_all = bucket.flat["momentum_buffer"] if momentum != 0 else None
    # a new buffer starts as the gradient itself, as PyTorch's does
    starts = [(a, z) for param, a, z in zip(bucket.params, bucket.offsets, bucket.offsets[1:])
              if id(param) in fresh]
    chunks, (scratch1, scratch2) = bucket.chunks()
    for a, b in chunks:
        pc, gc = p[a:b], g[a:b]
        t1, t2 = scratch1[:b - a], scratch2[:b - a]
        if maximize:
            xp.negative(gc, out=gc)
        if weight_decay != 0:
            xp.multiply(pc, weight_decay, out=t1)
            gc += t1
        step = gc
        if momentum != 0:
            buf = buffer_all[a:b]
            buf *= momentum
            xp.multiply(gc, 1 - dampening, out=t1)
            buf += t1
            for start, stop in starts:
                low, high = max(start, a), min(stop, b)
                if low < high:
                    buffer_all[low:high] = g[low:high]
            if nesterov:
                xp.multiply(buf, momentum, out=t1)
                xp.add(gc, t1, out=t1)
                step = t1
            else:
                step = buf
        if weight_decay != 0:
            xp.multiply(step, lr, out=t2)
            pc -= t2
        else:
            xp.multiply(step, lr, out=pc)
    bucket.scatter("copy" if weight_decay != 0 else "subtract")
