"""Adam (with amsgrad, maximize, and L2 or decoupled weight decay); AdamW is Adam with
decoupled weight decay on by default (adamw.py)."""
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

__all__ = ["Adam"]


def check_adam_hypers(lr, betas, eps, weight_decay) -> None:
    check_hyper(not (as_float(lr) < 0.0), f"Invalid learning rate: {lr}")
    check_hyper(not (eps < 0.0), f"Invalid epsilon value: {eps}")
    check_hyper(0.0 <= as_float(betas[0]) < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
    check_hyper(0.0 <= as_float(betas[1]) < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
    check_hyper(not (weight_decay < 0.0), f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    """Adam: moving averages of the gradient and its square, bias-corrected."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_adam_hypers(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable,
                    "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

    def step(self, closure=None):
        """One Adam update of every parameter that has a gradient; returns closure's loss."""
        loss = run_closure(closure)
        with step_grad_mode(self):
            for group in self.param_groups:
                amsgrad = group["amsgrad"]
                states = []

                def init(param, amsgrad=amsgrad, states=states):
                    state = self.state[param]
                    if len(state) == 0:
                        state["step"] = scalar_step()
                        state["exp_avg"] = zeros_state(param)
                        state["exp_avg_sq"] = zeros_state(param)
                    if amsgrad and state.get("max_exp_avg_sq") is None:
                        state["max_exp_avg_sq"] = zeros_state(param)
                    states.append(state)
                params, grads = params_with_grad(group, init, ask_complex=True)
                if not params:
                    continue
                keep_flat(params, states, _KEYS[amsgrad])
                run(group, as_real(params), adam_update, as_real(grads),
                    *[as_real([s[key] for s in states]) for key in _KEYS[amsgrad]],
                    amsgrad=amsgrad, lr=as_float(group["lr"]),
                    betas=tuple(as_float(b) for b in group["betas"]), eps=group["eps"],
                    weight_decay=group["weight_decay"], maximize=group["maximize"],
                    decoupled=group["decoupled_weight_decay"])
        return loss


_KEYS = {False: ("step", "exp_avg", "exp_avg_sq"),
         True: ("step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq")}


def adam_update(lists, params, grads, steps, exp_avgs, exp_avg_sqs, max_exp_avg_sqs=None, *,
                amsgrad, lr, betas, eps, weight_decay, maximize, decoupled) -> None:
    """Adam's update over `lists` (NOTE [optimizer updates as ops]): PyTorch's arithmetic and
    order, in its foreach form or its single-tensor form."""
    beta1, beta2 = betas
    if maximize:
        grads = lists.neg(grads)
    lists.increment(steps)
    if weight_decay != 0:
        if decoupled:
            lists.mul_(params, 1 - lr * weight_decay)
        elif maximize and lists.foreach:    # (the negated gradients are a fresh copy)
            lists.add_(grads, params, alpha=weight_decay)
        else:
            grads = lists.add(grads, params, alpha=weight_decay)
    lists.reads_of_single_tensor_adam(params)
    lists.lerp_(exp_avgs, grads, 1 - beta1)
    lists.mul_(exp_avg_sqs, beta2)
    lists.addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
    counts = lists.values(steps)
    step_sizes = [(lr / (1 - beta1 ** count)) * -1 for count in counts]
    bias_correction2_sqrt = [(1 - beta2 ** count) ** 0.5 for count in lists.reread(steps, counts)]
    if amsgrad:
        lists.maximum_(max_exp_avg_sqs, exp_avg_sqs)
        denom = lists.sqrt(max_exp_avg_sqs)
    else:
        denom = lists.sqrt(exp_avg_sqs)
    denom = lists.div_fresh(denom, bias_correction2_sqrt)
    lists.add_scalar_(denom, eps)
    lists.addcdiv_(params, exp_avgs, denom, step_sizes)
