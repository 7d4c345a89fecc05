"""Adafactor: second moments kept as row and column averages (factored) for matrices, a
relative step size, and update clipping."""
from __future__ import annotations

from ember.optim.optimizer import Optimizer, as_float, run_closure, scalar_step

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay: float = -0.8, eps=(None, 1e-3),
                 d: float = 1.0, weight_decay: float = 0.0, *, foreach=None,
                 maximize: bool = False) -> None:
        if not 0.0 <= as_float(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Adafactor update of every parameter that has a gradient."""
        import ember
        loss = run_closure(closure)
        with ember.no_grad():
            for group in self.param_groups:
                self._update_group(ember, group)
        return loss

    def _update_group(self, ember, group) -> None:
        lr = as_float(group["lr"])
        eps1, eps2 = group["eps"]
        for param in group["params"]:
            if param.grad is None:
                continue
            if param.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            grad = param.grad if not group["maximize"] else -param.grad
            state = self.state[param]
            if len(state) == 0:
                state["step"] = scalar_step()
                if grad.dim() > 1:
                    state["row_var"] = grad.new_zeros([*grad.shape[:-1], 1])
                    state["col_var"] = grad.new_zeros([*grad.shape[:-2], 1, grad.shape[-1]])
                else:
                    state["variance"] = ember.zeros_like(grad)
            if eps1 is None:
                # As in PyTorch, the first parameter's dtype fixes eps1 for the group's step.
                eps1 = ember.finfo(param.dtype).eps
            state["step"] += 1
            step = state["step"].item()
            one_minus_beta2 = step ** group["beta2_decay"]
            rho = min(lr, 1 / (step ** 0.5))
            alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho
            if group["weight_decay"] != 0:
                param.mul_(1 - lr * group["weight_decay"])
            if grad.dim() > 1:
                row_mean = ember.norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1))
                state["row_var"].lerp_(row_mean, one_minus_beta2)
                col_mean = ember.norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2))
                state["col_var"].lerp_(col_mean, one_minus_beta2)
                estimate = state["row_var"] @ state["col_var"]
                estimate.div_(state["row_var"].mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                state["variance"].lerp_(grad * grad, one_minus_beta2)
                estimate = state["variance"].clone()
            update = estimate.clamp_(min=eps1 * eps1).rsqrt_()
            update.mul_(grad)
            denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * group["d"]))
            param.add_(update, alpha=-alpha / denom)
