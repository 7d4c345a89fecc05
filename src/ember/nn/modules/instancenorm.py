"""Instance normalisation layers: InstanceNorm1d/2d/3d (each channel of each sample normalised
over its positions), on `_NormBase` from batchnorm.py."""
from __future__ import annotations

import warnings

from ember.nn import functional as F
from ember.nn.modules.batchnorm import _LazyNormBase, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _unbatched_ndim = 0

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _check_input_dim(self, input):
        allowed = (self._unbatched_ndim, self._unbatched_ndim + 1)
        # (input.dim(), as PyTorch: a NumPy array's AttributeError)
        if input.dim() not in allowed:
            raise ValueError(f"expected {allowed[0]}D or {allowed[1]}D input (got "
                             f"{input.dim()}D input)")

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.ndim - self._unbatched_ndim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.ndim == self._unbatched_ndim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm of a (N, C, L) or (C, L) input."""

    _unbatched_ndim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance norm of a (N, C, H, W) or (C, H, W) input."""

    _unbatched_ndim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance norm of a (N, C, D, H, W) or (C, D, H, W) input."""

    _unbatched_ndim = 4


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm1d with num_features from the first input (input.shape[1])."""

    cls_to_become = InstanceNorm1d
    _unbatched_ndim = 2


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm2d with num_features from the first input (input.shape[1])."""

    cls_to_become = InstanceNorm2d
    _unbatched_ndim = 3


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm3d with num_features from the first input (input.shape[1])."""

    cls_to_become = InstanceNorm3d
    _unbatched_ndim = 4
