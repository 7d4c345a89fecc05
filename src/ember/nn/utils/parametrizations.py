"""Parametrizations built on parametrize.register_parametrization: weight_norm (the tensor as
g * v / ||v||, kept as original0 = g and original1 = v) and spectral_norm (the tensor over its
largest singular value, estimated by power iteration on buffers _u and _v); orthogonal lives in
_orthogonal.py."""
from __future__ import annotations

import ember
from ember.nn._functional.distance import normalize
from ember.nn.modules.module import Module
from ember.nn.utils import parametrize
from ember.nn.utils._orthogonal import orthogonal
from ember.nn.utils.weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name: str = "weight", dim: int | None = 0):
    """Parametrize module.<name> as g * v / ||v|| (norm over every dim but `dim`; None: the
    whole tensor). State-dict keys parametrizations.<name>.original0 (g) and .original1 (v);
    a state dict of the older hook form (<name>_g, <name>_v) loads too."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_older_form(state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(load_older_form)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = self._reshape_weight_to_matrix(weight)
            rows, cols = matrix.shape
            u = matrix.new_empty(rows).normal_(0, 1)
            v = matrix.new_empty(cols).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            # Start from good estimates: 15 iterations now.
            self._power_method(matrix, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, matrix, iterations: int) -> None:
        # In place on the buffers: the next forward continues from here.
        with ember.no_grad():
            for _ in range(iterations):
                self._u = normalize(ember.mv(matrix, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = normalize(ember.mv(matrix.t(), self._u), dim=0, eps=self.eps,
                                    out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        matrix = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = ember.dot(u, ember.mv(matrix, v))
        return weight / sigma

    def right_inverse(self, value):
        # Any value is its own preimage: sigma is re-estimated on the next read.
        return value


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None):
    """Parametrize module.<name> as itself over its spectral norm; dim defaults to 1 for
    transposed convolutions, else 0. State-dict keys parametrizations.<name>.original,
    parametrizations.<name>.0._u and ._v."""
    weight = getattr(module, name, None)
    if not isinstance(weight, ember.Tensor):
        raise ValueError(  # noqa: TRY004 -- PyTorch's class
            f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ember.nn.modules import conv
        transposed = tuple(getattr(conv, kind) for kind in (
            "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d") if hasattr(conv, kind))
        dim = 1 if transposed and isinstance(module, transposed) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
