"""NAdam: Adam with Nesterov momentum (and its momentum-decay schedule)."""
from __future__ import annotations

from ember.optim._lists import as_real, group_states, run
from ember.optim.adam import check_adam_hypers
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

__all__ = ["NAdam"]


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_adam_hypers(lr, betas, eps, weight_decay)
        check_hyper(not (momentum_decay < 0.0),
                    f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One NAdam update of every parameter that has a gradient."""
        loss = run_closure(closure)
        with step_grad_mode(self):
            for group in self.param_groups:
                params, grads = params_with_grad(group)
                if not params:
                    continue
                states = group_states(self, params, grads, _KEYS, lambda param, grad: {
                    "step": scalar_step(), "mu_product": scalar_step(1.0),
                    "exp_avg": zeros_state(param), "exp_avg_sq": zeros_state(param)})
                run(group, as_real(params), nadam_update, as_real(grads),
                    *[as_real([s[key] for s in states]) for key in _KEYS],
                    lr=as_float(group["lr"]), betas=tuple(as_float(b) for b in group["betas"]),
                    eps=group["eps"], weight_decay=group["weight_decay"],
                    momentum_decay=group["momentum_decay"],
                    decoupled=group["decoupled_weight_decay"], maximize=group["maximize"],
                    single=not group.get("foreach"))
        return loss


_KEYS = ("step", "mu_product", "exp_avg", "exp_avg_sq")


def nadam_update(lists, params, grads, steps, mu_products, exp_avgs, exp_avg_sqs, *, lr, betas,
                 eps, weight_decay, momentum_decay, decoupled, maximize, single) -> None:
    """NAdam's update over `lists` (NOTE [optimizer updates as ops]): PyTorch's single-tensor
    arithmetic and order with `single` (the second moment divided by its bias correction,
    then the root), else its foreach form's (the root divided by the correction's root)."""
    beta1, beta2 = betas
    if maximize:
        grads = lists.neg(grads)
    lists.increment(steps)
    if single:      # (PyTorch's single form reads the count here, its foreach form later)
        counts = lists.values(steps)
    if weight_decay != 0:
        if decoupled:
            lists.mul_(params, 1 - lr * weight_decay)
        elif maximize and not single:   # (the negated gradients are a fresh copy)
            lists.add_(grads, params, alpha=weight_decay)
        else:
            grads = lists.add(grads, params, alpha=weight_decay)

    def momenta(counts):
        mus = [beta1 * (1.0 - 0.5 * (0.96 ** (count * momentum_decay))) for count in counts]
        return mus, [beta1 * (1.0 - 0.5 * (0.96 ** ((count + 1) * momentum_decay)))
                     for count in counts]
    if single:
        mus, mu_nexts = momenta(counts)
        lists.mul_(mu_products, mus)
    lists.lerp_(exp_avgs, grads, 1 - beta1)
    lists.mul_(exp_avg_sqs, beta2)
    lists.addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
    if single:
        denom = lists.sqrt(lists.div(exp_avg_sqs, [1 - beta2 ** count for count in counts]))
        lists.values(mu_products)       # (PyTorch's single form reads it before the eps too)
    else:
        denom = lists.sqrt(exp_avg_sqs)
        counts = lists.values(steps, reads=3)
        mus, mu_nexts = momenta(counts)
        lists.mul_(mu_products, mus)
        denom = lists.div_fresh(denom, [(1 - beta2 ** count) ** 0.5 for count in counts])
    lists.add_scalar_(denom, eps)
    products = lists.values(mu_products, reads=2)
    grad_steps = [(lr * (1.0 - mu) / (1.0 - product)) * -1
                  for mu, product in zip(mus, products)]
    average_steps = [(lr * mu_next / (1.0 - product * mu_next)) * -1
                     for mu_next, product in zip(mu_nexts, products)]
    lists.gather(params)
    lists.addcdiv_(params, grads, denom, grad_steps)
    lists.addcdiv_(params, exp_avgs, denom, average_steps)
