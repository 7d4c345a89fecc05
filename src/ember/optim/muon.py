"""Muon: momentum SGD for 2-D parameters whose update is orthogonalised by a quintic
Newton-Schulz iteration run in bfloat16, with decoupled weight decay and a learning rate scaled
by the matrix's shape."""
from __future__ import annotations

import math

from ember.optim.optimizer import Optimizer, as_float, run_closure

__all__ = ["Muon"]

_DEFAULT_COEFFICIENTS = (3.4445, -4.7750, 2.0315)


class Muon(Optimizer):
    def __init__(self, params, lr=1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients=_DEFAULT_COEFFICIENTS,
                 eps: float = 1e-7, ns_steps: int = 5, adjust_lr_fn: str | None = None) -> None:
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= as_float(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in (None, "original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                if param.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {param.size()}")

    def step(self, closure=None):
        """One Muon update of every parameter that has a gradient."""
        import ember
        loss = run_closure(closure)
        with ember.no_grad():
            for group in self.param_groups:
                self._update_group(ember, group)
        return loss

    def _update_group(self, ember, group) -> None:
        lr = as_float(group["lr"])
        momentum = group["momentum"]
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            if param.is_complex():
                raise RuntimeError("Muon does not support complex parameters")
            if grad.is_sparse:
                raise RuntimeError("Muon does not support sparse gradients")
            state = self.state[param]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = ember.zeros_like(grad,
                                                            memory_format=ember.preserve_format)
            if grad.ndim != 2:
                raise ValueError("Param gradient must be a 2D matrix")
            buffer = state["momentum_buffer"]
            buffer.lerp_(grad, 1 - momentum)
            update = grad.lerp(buffer, momentum) if group["nesterov"] else buffer
            update = orthogonalise(ember, update, group["ns_coefficients"], group["ns_steps"],
                                   group["eps"])
            param.mul_(1 - lr * group["weight_decay"])
            param.add_(update, alpha=-_adjusted_lr(lr, group["adjust_lr_fn"], param.shape))


def orthogonalise(ember, matrix, coefficients, steps: int, eps: float):
    """About U V^T of matrix = U S V^T: `steps` rounds of X <- a X + (b G + c G^2) X, G = X X^T,
    from X = matrix / ||matrix||_F in bfloat16, on the wide orientation (fewer rows than
    columns, so G is the smaller Gram matrix). The singular values land near, not at, one."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if matrix.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = matrix.size(0) > matrix.size(1)
    x = matrix.bfloat16()
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(steps):
        gram = x @ x.T
        polynomial = ember.addmm(gram, gram, gram, beta=b, alpha=c)
        x = ember.addmm(x, polynomial, x, beta=a)
    return x.T if tall else x


def _adjusted_lr(lr: float, rule: str | None, shape) -> float:
    """The learning rate scaled so updates of rectangular matrices have comparable RMS:
    sqrt(max(1, rows / cols)) ("original", the default) or 0.2 sqrt(max(rows, cols))
    ("match_rms_adamw")."""
    rows, cols = shape[:2]
    if rule is None or rule == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if rule == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr
