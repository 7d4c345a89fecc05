"""SparseAdam: Adam for sparse gradients, updating only the rows a gradient touches (lazily).

The update runs through the sparse COO ops (coalesce, sparse_mask, a dense tensor plus a sparse
one) in PyTorch's order, so a mode sees PyTorch's ops; the `step` count is a Python int, as
PyTorch keeps it.
"""
from __future__ import annotations

import math

from ember.autograd.grad_mode import no_grad
from ember.optim.optimizer import Optimizer, as_float, run_closure

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        if not 0.0 < as_float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             "support complex parameters")

    def step(self, closure=None):
        """One lazy Adam update of the rows each sparse gradient holds."""
        import ember
        loss = run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    if not grad.is_sparse:
                        raise RuntimeError("SparseAdam does not support dense gradients, "
                                           "please consider Adam instead")
                    state = self.state[param]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = ember.zeros_like(param,
                                                            memory_format=ember.preserve_format)
                        state["exp_avg_sq"] = ember.zeros_like(
                            param, memory_format=ember.preserve_format)
                    state["step"] += 1
                    _update(ember, param, grad, state, lr=as_float(group["lr"]), beta1=beta1,
                            beta2=beta2, eps=group["eps"], maximize=group.get("maximize", False))
        return loss


def _update(ember, param, grad, state, *, lr, beta1, beta2, eps, maximize) -> None:
    """PyTorch's sparse Adam step of one parameter: the moments move toward the gradient's
    values at its rows only, and so does the parameter."""
    if maximize:
        grad = -grad
    grad = grad.coalesce()          # (the update is not linear: one value per index)
    indices, values = grad._indices(), grad._values()
    if values.numel() == 0:
        return
    size = grad.size()

    def sparse(new_values):
        return ember.sparse_coo_tensor(indices, new_values, size)

    exp_avg, exp_avg_sq, step = state["exp_avg"], state["exp_avg_sq"], state["step"]
    old_exp_avg = exp_avg.sparse_mask(grad)._values()
    exp_avg_change = values.sub(old_exp_avg).mul_(1 - beta1)
    exp_avg.add_(sparse(exp_avg_change))
    old_exp_avg_sq = exp_avg_sq.sparse_mask(grad)._values()
    exp_avg_sq_change = values.pow(2).sub_(old_exp_avg_sq).mul_(1 - beta2)
    exp_avg_sq.add_(sparse(exp_avg_sq_change))
    numerator = exp_avg_change.add_(old_exp_avg)
    exp_avg_sq_change.add_(old_exp_avg_sq)
    denominator = exp_avg_sq_change.sqrt_().add_(eps)
    step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
    param.add_(sparse(-step_size * numerator.div_(denominator)))
