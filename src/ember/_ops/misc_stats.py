"""Statistics over samples: histogram, histogramdd, cov, corrcoef and dist.

The counting of histogram(dd) is one registry entry (`_histogramdd_from_bin_tensors`, as in
PyTorch, not differentiable); the frontends work out the bin edges (equal-width edges come from
`linspace` in the input's dtype, so they are PyTorch's to the last bit). cov, corrcoef and dist
are composites of differentiable ops, so their gradients come from those ops.
"""
from __future__ import annotations

import math

import numpy as np

from ember._core import dispatch
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_not_implemented, _check_type
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.return_types import return_type
from ember._ops.creation_ranges import linspace

Histogram = return_type("histogram", ("hist", "bin_edges"))
Histogramdd = return_type("histogramdd", ("hist", "bin_edges"))


# --------------------------------------------------------------------------- histograms

def _histogramdd_meta(self, bins, weight=None, density=False):
    return tuple(b.shape[0] - 1 for b in bins), self._dtype


@register_op("_histogramdd_from_bin_tensors(Tensor self, Tensor[] bins, *, Tensor? weight=None, "
             "bool density=False) -> Tensor", function=False, method=False,
             meta=_histogramdd_meta, differentiable=False, tags=("fp_errors",))
def histogramdd_from_edges(xp, self, bins, weight=None, density=False):
    """Counts (or weight sums) of the rows of `self` (N x D) in the D-dimensional bins whose edges
    `bins` lists per dimension: bin i holds edges[i] <= x < edges[i + 1], the last bin its right
    edge too; rows outside the edges (or NaN) count nowhere."""
    samples = self.reshape(-1, self.shape[-1])
    keep = xp.ones(samples.shape[0], bool)
    positions = []
    for d, edges in enumerate(bins):
        column = samples[:, d]
        count = edges.shape[0] - 1
        keep &= (column >= edges[0]) & (column <= edges[-1])
        position = xp.searchsorted(edges, column, side="right") - 1
        positions.append(xp.clip(position, 0, max(count - 1, 0)))
    shape = tuple(max(b.shape[0] - 1, 0) for b in bins)
    flat = xp.ravel_multi_index(tuple(p[keep] for p in positions), shape) if keep.any() else \
        xp.zeros(0, np.int64)
    weights = None if weight is None else weight.reshape(-1)[keep].astype(np.float64)
    hist = xp.bincount(flat, weights=weights, minlength=math.prod(shape))
    hist = hist.reshape(shape).astype(self.dtype)
    if density:
        hist = hist / hist.sum()
        for d, edges in enumerate(bins):
            lengths = xp.diff(edges)
            view = [1] * len(bins)
            view[d] = lengths.shape[0]
            hist = hist / lengths.reshape(view)
    return hist.astype(self.dtype, copy=False)


def _histogram_checks(input, weight, dims):
    _check_not_implemented(input.dtype.is_floating_point, lambda: (
        f'"histogramdd" not implemented for \'{input.dtype._cpp_name}\''))
    if weight is not None:
        _check(weight.dtype == input.dtype, lambda: (
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
            f"should have the same dtype, but got input({input.dtype._cpp_name.lower()}), and "
            f"weight({weight.dtype._cpp_name.lower()})"))
        expected = tuple(input.shape[:-1]) if dims is not None else tuple(input.shape)
        _check(tuple(weight.shape) == expected, lambda: (
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            f"the input tensor excluding its innermost dimension, but got input with shape "
            f"{tuple(input.shape)} and weight with shape {tuple(weight.shape)}"))


def _number(value) -> str:
    """A float as C++ streams print it (1 rather than 1.0)."""
    return f"{value:g}"


def _equal_width_edges(samples, dim, bins, range, where):
    """`bins + 1` equal-width edges over `range` (the data's own range by default) in the
    samples' dtype; a one-point range widens by 0.5 on each side."""
    _check(bins > 0, lambda: f"{where}: bins must be > 0, but got {bins} for dimension {dim}")
    if range is not None:
        low, high = float(range[2 * dim]), float(range[2 * dim + 1])
    elif samples.shape[0] == 0:
        low, high = 0.0, 1.0
    else:
        column = samples[:, dim]
        low, high = float(column.min()), float(column.max())
    _check(math.isfinite(low) and math.isfinite(high), lambda: (
        f"torch.histogramdd: dimension {dim}'s range [{_number(low)}, {_number(high)}] is not "
        "finite"))
    _check(low <= high, lambda: (
        f"torch.histogramdd: min should not exceed max, but got min {_number(low)} max "
        f"{_number(high)} for dimension {dim}"))
    if low == high:
        low, high = low - 0.5, high + 0.5
    return linspace(low, high, bins + 1, dtype=samples.dtype, device=samples.device)


def _histogramdd(input, bins, range, weight, density, where):
    dims = input.shape[-1]
    samples = input.reshape(-1, dims)
    if isinstance(bins, dispatch.Tensor):
        bins = [bins]
    elif isinstance(bins, int):
        bins = [bins] * dims
    bins = list(bins)
    _check(len(bins) == dims, lambda: (
        f"torch.histogramdd: expected {dims} sequences of bin edges for each of the {dims} "
        f"dimensions of the input, but got {len(bins)}"))
    if range is not None:
        _check(len(range) == 2 * dims, lambda: (
            f"torch.histogramdd: for a {dims}-dimensional histogram range should have "
            f"{2 * dims} elements, but got {len(range)}"))
    edges = []
    for d, b in enumerate(bins):
        if isinstance(b, dispatch.Tensor):
            edges.append(b)
        else:
            _check_type(isinstance(b, (int, np.integer)), lambda b=b: (
                f"{where}: bins must be ints or tensors, not {type(b).__name__}"))
            edges.append(_equal_width_edges(samples, d, int(b), range, where))
    hist = dispatch.call(OPS["_histogramdd_from_bin_tensors"], (input, edges, weight, density))
    return hist, edges


@register_frontend("histogram")
@checked("histogram(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False)",
         "histogram(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, "
         "bool density=False)")
def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """histogram(input, bins, *, range=None, weight=None, density=False, out=None) -> (hist,
    bin_edges): counts of the elements in `bins` equal-width bins (or between the edges of a
    1-D tensor `bins`), weighted by `weight` and normalized to a density if asked."""
    if _state.entry and _wants(locals()):
        return _handle(histogram, locals())
    _histogram_checks(input, weight, None)
    samples = input.reshape(-1, 1)
    flat_weight = None if weight is None else weight.reshape(-1)
    if isinstance(bins, dispatch.Tensor):
        _check(bins.ndim == 1, lambda: (
            f"torch.histogramdd: bins tensor should have one dimension, but got {bins.ndim} "
            "dimensions in the bins tensor for dimension 0"))
    hist, edges = _histogramdd(samples, bins, range, flat_weight, density, "torch.histogram()")
    if isinstance(bins, dispatch.Tensor):
        edges = [bins.clone()]     # histogram (unlike histogramdd) returns a copy of its edges
    if out is not None:
        hist_out, edges_out = out
        dispatch.call(OPS["copy_"], (hist_out.resize_(hist.shape), hist, False))
        dispatch.call(OPS["copy_"], (edges_out.resize_(edges[0].shape), edges[0], False))
        return Histogram(hist_out, edges_out)
    return Histogram(hist, edges[0])


@register_frontend("histogramdd", method=False)
@checked("histogramdd(Tensor self, int[] bins, float[]? range=None, Tensor? weight=None, "
         "bool density=False)",
         "histogramdd(Tensor self, int bins, float[]? range=None, Tensor? weight=None, "
         "bool density=False)",
         "histogramdd(Tensor self, Tensor[] bins, float[]? range=None, Tensor? weight=None, "
         "bool density=False)")
def histogramdd(input, bins=10, range=None, weight=None, density=False):
    """histogramdd(input, bins, *, range=None, weight=None, density=False) -> (hist, bin_edges):
    the D-dimensional histogram of the rows of `input` (..., D); `bins` is an int, D ints, or D
    1-D tensors of edges."""
    if _state.entry and _wants(locals()):
        return _handle(histogramdd, locals())
    _check(input.ndim >= 2, "torch.histogramdd: input tensor should have at least 2 dimensions")
    _histogram_checks(input, weight, True)
    flat_weight = None if weight is None else weight.reshape(-1)
    hist, edges = _histogramdd(input, bins, range, flat_weight, density, "torch.histogramdd()")
    return Histogramdd(hist, tuple(edges))


# --------------------------------------------------------------------------- cov, corrcoef

def _on_meta(t) -> bool:
    """Whether `t` has no values to check (a meta tensor)."""
    return t.device.type == "meta"


@register_frontend("cov")
@checked("cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None)")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """cov(input, *, correction=1, fweights=None, aweights=None) -> Tensor: the covariance matrix
    of the variables in the rows of `input` (a 1-D input is one variable), with frequency and
    importance weights of the observations."""
    if _state.entry and _wants(locals()):
        return _handle(cov, locals())
    _check(input.ndim <= 2, lambda: (
        "cov(): expected input to have two or fewer dimensions but got an input with "
        f"{input.ndim} dimensions"))
    observations = input.reshape(1, -1) if input.ndim < 2 else input
    count = observations.shape[1]
    weights = None
    if fweights is not None:
        _check(fweights.ndim <= 1, lambda: (
            "cov(): expected fweights to have one or fewer dimensions but got fweights with "
            f"{fweights.ndim} dimensions"))
        _check(not (fweights.dtype.is_floating_point or fweights.dtype.is_complex), lambda: (
            "cov(): expected fweights to have integral dtype but got fweights with "
            f"{fweights.dtype._cpp_name} dtype"))
        _check(fweights.numel() == count, lambda: (
            "cov(): expected fweights to have the same numel as there are observations in the "
            f"input but got {fweights.numel()} != {count}"))
        _check(count == 0 or _on_meta(fweights) or bool(fweights.min() >= 0),
               "cov(): fweights cannot be negative")
        weights = fweights
    if aweights is not None:
        _check(aweights.ndim <= 1, lambda: (
            "cov(): expected aweights to have one or fewer dimensions but got aweights with "
            f"{aweights.ndim} dimensions"))
        _check(aweights.dtype.is_floating_point, lambda: (
            "cov(): expected aweights to have floating point dtype but got aweights with "
            f"{aweights.dtype._cpp_name} dtype"))
        _check(aweights.numel() == count, lambda: (
            "cov(): expected aweights to have the same numel as there are observations in the "
            f"input but got {aweights.numel()} != {count}"))
        _check(count == 0 or _on_meta(aweights) or bool(aweights.min() >= 0),
               "cov(): aweights cannot be negative")
        weights = aweights if weights is None else weights * aweights
    # The average divides a sum (not `mean`), so integer input gives a float result.
    if weights is None:
        weight_sum = count
        average = observations.sum(dim=1) / weight_sum
        norm_factor = weight_sum - correction
    else:
        weight_sum = weights.sum()
        average = (observations * weights).sum(dim=1) / weight_sum
        if aweights is None:
            norm_factor = weight_sum - correction
        else:
            norm_factor = weight_sum - correction * (weights * aweights).sum() / weight_sum
    if isinstance(norm_factor, dispatch.Tensor):
        norm_factor = norm_factor.clamp_min(0)
    else:
        norm_factor = max(norm_factor, 0)
    centered = observations - average.unsqueeze(1)
    weighted = centered if weights is None else centered * weights
    product = weighted.mm(centered.t().conj())
    return (product / norm_factor).squeeze()


@register_frontend("corrcoef")
@checked("corrcoef(Tensor self)")
def corrcoef(input):
    """corrcoef(input) -> Tensor: Pearson's correlation coefficients of the variables in the rows
    of `input`, clipped to [-1, 1]."""
    if _state.entry and _wants(locals()):
        return _handle(corrcoef, locals())
    _check(input.ndim <= 2, lambda: (
        "corrcoef(): expected input to have two or fewer dimensions but got an input with "
        f"{input.ndim} dimensions"))
    c = cov(input)
    if c.ndim == 0:
        return c / c
    variances = c.diagonal()
    if variances.is_complex():
        variances = variances.real
    deviations = variances.sqrt()
    c = c / deviations.unsqueeze(1)
    c = c / deviations.unsqueeze(0)
    if c.is_complex():
        return dispatch.call(OPS["complex"], (c.real.clamp(-1, 1), c.imag.clamp(-1, 1)))
    return c.clamp(-1, 1)


# --------------------------------------------------------------------------- dist

@register_frontend("dist")
@checked("dist(Tensor self, Tensor other, Scalar p=2)")
def dist(input, other, p=2):
    """dist(input, other, p=2) -> Tensor: the p-norm of input - other (broadcast)."""
    if _state.entry and _wants(locals()):
        return _handle(dist, locals())
    _check_type(isinstance(input, dispatch.Tensor), lambda: (
        f"dist(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"))
    _check_type(isinstance(other, dispatch.Tensor), lambda: (
        f"dist(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"))
    difference = input - other
    kind = difference.dtype
    _check(kind.is_floating_point or kind.is_complex, lambda: (
        "norm(): input dtype should be either floating point or complex. Got "
        f"{kind._cpp_name} instead."))
    return dispatch.call(OPS["norm.ScalarOpt_dim_dtype"],
                         (difference, p, list(range(difference.ndim)), False, None))


