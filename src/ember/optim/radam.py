"""RAdam: Adam with the variance of the adaptive step rectified in early steps."""
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

__all__ = ["RAdam"]


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_adam_hypers(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One RAdam update of every parameter that has a gradient."""
        loss = run_closure(closure)
        with step_grad_mode(self):
            for group in self.param_groups:
                params, grads = params_with_grad(group)
                if not params:
                    continue
                states = group_states(self, params, grads, _KEYS, lambda param, grad: {
                    "step": scalar_step(), "exp_avg": zeros_state(param),
                    "exp_avg_sq": zeros_state(param)})
                run(group, as_real(params), radam_update, as_real(grads),
                    *[as_real([s[key] for s in states]) for key in _KEYS],
                    lr=as_float(group["lr"]), betas=tuple(as_float(b) for b in group["betas"]),
                    eps=group["eps"], weight_decay=group["weight_decay"],
                    decoupled=group["decoupled_weight_decay"], maximize=group["maximize"],
                    single=not group.get("foreach"))
        return loss


_KEYS = ("step", "exp_avg", "exp_avg_sq")


def _rectification(beta2, step):
    """The variance rectification term of a step, or None while the variance is intractable
    (the length of the approximated moving average is 5 or less)."""
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / (1 - beta2 ** step)
    if rho_t > 5.0:
        return ((rho_t - 4) * (rho_t - 2) * rho_inf
                / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
    return None


def radam_update(lists, params, grads, steps, exp_avgs, exp_avg_sqs, *, lr, betas, eps,
                 weight_decay, decoupled, maximize, single) -> None:
    """RAdam's update over `lists` (NOTE [optimizer updates as ops]): PyTorch's single-tensor
    arithmetic and order with `single`, else its foreach form's (one reciprocal per element
    whether the step is rectified or not)."""
    beta1, beta2 = betas
    if single and maximize:
        grads = lists.neg(grads)
    lists.increment(steps)
    if maximize and not single:
        grads = lists.neg(grads)
    # (read where PyTorch's forms read them: the single form once, the foreach form three
    # times for its rectification terms, then twice more for the bias corrections)
    counts = lists.values(steps, reads=3)
    if weight_decay != 0:
        if decoupled:
            lists.mul_(params, 1 - lr * weight_decay)
        elif maximize and not single:   # (the negated gradients are a fresh copy)
            lists.add_(grads, params, alpha=weight_decay)
        else:
            grads = lists.add(grads, params, alpha=weight_decay)
    lists.lerp_(exp_avgs, grads, 1 - beta1)
    lists.mul_(exp_avg_sqs, beta2)
    lists.addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
    rects = [_rectification(beta2, count) for count in counts]
    if not single:
        counts = lists.reread(steps, lists.reread(steps, counts))
        bias_corrections = [1 - beta1 ** count for count in counts]
        unrectified_steps = [(lr * (0 if rect else 1.0) / bc) * -1
                             for rect, bc in zip(rects, bias_corrections)]
        scales = [((1 - beta2 ** count) ** 0.5) * (lr * (rect or 0) / bc) * -1
                  for count, rect, bc in zip(counts, rects, bias_corrections)]
        buffer = lists.sqrt(exp_avg_sqs)
        lists.add_scalar_(buffer, eps)
        lists.div_(buffer, scales)
        lists.reciprocal_(buffer)
        lists.add_scalar_(buffer, unrectified_steps)
        lists.addcmul_(params, exp_avgs, buffer)
        return
    rectified = [i for i, rect in enumerate(rects) if rect is not None]
    if 0 < len(rectified) < len(rects):     # (counts that differ: FOREACH over a group)
        for index in (rectified, [i for i, rect in enumerate(rects) if rect is None]):
            _single_tail(lists, *[[values[i] for i in index] for values in
                                  (params, exp_avgs, exp_avg_sqs, counts, rects)],
                         lr=lr, betas=betas, eps=eps)
    else:
        _single_tail(lists, params, exp_avgs, exp_avg_sqs, counts, rects, lr=lr, betas=betas,
                     eps=eps)


def _single_tail(lists, params, exp_avgs, exp_avg_sqs, counts, rects, *, lr, betas, eps):
    """The single-tensor form's last step, for parameters all rectified or all not."""
    beta1, beta2 = betas
    change = lists.mul(lists.div(exp_avgs, [1 - beta1 ** count for count in counts]), lr)
    if rects[0] is not None:
        root = lists.sqrt(exp_avg_sqs)
        lists.add_scalar_(root, eps)
        adaptive = lists.rdiv([(1 - beta2 ** count) ** 0.5 for count in counts], root)
        change = lists.mul(lists.mul(change, adaptive), rects)
    lists.add_(params, change, alpha=-1.0)
