"""rrelu in training: `rrelu_with_noise_functional` draws each non-positive element's slope.

NOTE [rrelu's stream]: PyTorch's CPU kernel walks the input in row-major order and, for each
element x <= 0 only, draws a double uniform in [lower, upper) (53 bits of a 64-bit draw; the
bounds first rounded to float32 unless the input is float64), then
writes x * slope (in the input's compute type) and keeps the slope as the noise; positive
elements keep slope 1 and draw nothing. ember draws the same words in the same order, so one
seed gives PyTorch's numbers. The gradient is grad * noise.
"""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt
from ember._core.checks import _check_not_implemented
from ember._core.registry import register_op
from ember._ops import random_transforms as rt
from ember._ops.random import _SAMPLER, host
from ember._random import cpu_generator


def _meta(self, noise, lower, upper, training, generator=None):
    return [(tuple(self.shape), self._dtype), (tuple(self.shape), self._dtype)]


@register_op("rrelu_with_noise_functional(Tensor self, Tensor noise, Scalar lower=0.125, "
             "Scalar upper=0.3333333333333333, bool training=False, Generator? generator=None)"
             " -> (Tensor, Tensor noise_out)",
             **{**_SAMPLER, "saves": ("result1",)}, meta=_meta,
             derivatives={"self": lambda c: c.grad * c.results[1]})
def rrelu_with_noise_functional(xp, self, noise, lower, upper, training, generator=None):
    """(output, noise): each element x <= 0 times a slope drawn uniformly from [lower, upper),
    the others unchanged (slope 1) (NOTE [rrelu's stream])."""
    dtype = dt.NP_TO_DTYPE[np.dtype(self.dtype)]
    _check_not_implemented(dtype.is_floating_point and dtype is not dt.float16, lambda: (
        f'"rrelu_with_noise_out_cpu" not implemented for \'{dtype._cpp_name}\''))
    x = np.ascontiguousarray(host(xp, self)).reshape(-1)
    compute = np.float64 if x.dtype == np.float64 else np.float32
    negative = x <= 0
    # The bounds are first rounded to the compute type (float32 unless float64).
    low, high = float(compute(float(lower))), float(compute(float(upper)))
    slopes = rt.uniform(cpu_generator(generator), int(negative.sum()), dt.float64, low,
                        high).astype(compute)
    out = x.copy()
    out[negative] = (x[negative].astype(compute) * slopes).astype(x.dtype)
    noise_out = np.ones(x.shape, x.dtype)
    noise_out[negative] = slopes.astype(x.dtype)
    shape = self.shape
    return xp.asarray(out.reshape(shape)), xp.asarray(noise_out.reshape(shape))
