"""Decompositions of the statistics (var, std, logsumexp, norm, nan-reductions ...) and of the
normalisations and lookups built on them (layer, group and batch norm, embedding, one_hot)."""
from __future__ import annotations

import math

from ember._decomp.registry import decomposes
from ember.ops import aten


def _dims(self, dim):
    """The reduced dimensions as a list (None or [] is all of them)."""
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        return list(range(self.ndim))
    ndim = max(self.ndim, 1)
    return [d % ndim for d in ([dim] if isinstance(dim, int) else dim)]


def _squared_deviation(self, mean):
    dev = aten.sub.Tensor(self, mean)
    if self.is_complex():
        dev = aten.abs.default(dev)
    return aten.mul.Tensor(dev, dev)


def _var(self, dim, correction, keepdim):
    dims = _dims(self, dim)
    count = math.prod(self.shape[d] for d in dims) if self.ndim else 1
    correction = 1 if correction is None else correction
    mean = aten.mean.dim(self, dims if self.ndim else None, True)
    total = aten.sum.dim_IntList(_squared_deviation(self, mean), dims if self.ndim else None,
                                 keepdim)
    return aten.div.Tensor(total, max(count - correction, 0)), mean


@decomposes(aten.var.correction, core=False)
def var(self, dim=None, correction=None, keepdim=False):
    return _var(self, dim, correction, keepdim)[0]


@decomposes(aten.std.correction)
def std(self, dim=None, correction=None, keepdim=False):
    return aten.sqrt.default(_var(self, dim, correction, keepdim)[0])


def _mean_out(self, dim, keepdim):
    return aten.mean.dim(self, _dims(self, dim) if self.ndim else None, keepdim)


@decomposes(aten.var_mean.correction, core=False)
def var_mean(self, dim=None, correction=None, keepdim=False):
    return _var(self, dim, correction, keepdim)[0], _mean_out(self, dim, keepdim)


@decomposes(aten.std_mean.correction)
def std_mean(self, dim=None, correction=None, keepdim=False):
    return (aten.sqrt.default(_var(self, dim, correction, keepdim)[0]),
            _mean_out(self, dim, keepdim))


@decomposes(aten.logsumexp.default)
def logsumexp(self, dim, keepdim=False):
    import ember
    if not (self.is_floating_point() or self.is_complex()):
        self = aten._to_copy.default(self, dtype=ember.get_default_dtype())
    dims = _dims(self, dim)
    if self.numel() == 0:       # empty slices: log(0) = -inf, no maximum to take
        return aten.log.default(aten.sum.dim_IntList(aten.exp.default(self), dims, keepdim))
    # The maximum shifted out (0 where it is infinite, so all -inf slices stay -inf).
    high = aten.amax.default(self, dims, True)
    high = aten.where.self(aten.isinf.default(high), 0.0, high)
    total = aten.sum.dim_IntList(aten.exp.default(aten.sub.Tensor(self, high)), dims, keepdim)
    shift = high if keepdim else aten.view.default(
        high, [s for i, s in enumerate(self.shape) if i not in dims])
    return aten.add.Tensor(aten.log.default(total), shift)


@decomposes(aten.linalg_vector_norm.default, core=False)
def linalg_vector_norm(self, ord=2, dim=None, keepdim=False, dtype=None):
    return norm(self, ord, dim, keepdim, dtype)


@decomposes(aten.norm.ScalarOpt_dim_dtype)
def norm(self, p, dim, keepdim, dtype):
    x = aten.abs.default(aten._to_copy.default(self, dtype=dtype))
    dims = _dims(self, dim)
    p = 2 if p is None else p
    if p == 0:
        return aten.sum.dim_IntList(aten.ne.Tensor(x, 0), dims, keepdim, dtype=dtype)
    if p == math.inf:
        return aten.amax.default(x, dims, keepdim)
    if p == -math.inf:
        return aten.amin.default(x, dims, keepdim)
    if p == 1:
        return aten.sum.dim_IntList(x, dims, keepdim)
    if p == 2:
        return aten.sqrt.default(aten.sum.dim_IntList(aten.mul.Tensor(x, x), dims, keepdim))
    powered = aten.sum.dim_IntList(aten.pow.Tensor_Tensor(x, p), dims, keepdim)
    return aten.pow.Tensor_Tensor(powered, 1.0 / p)


@decomposes(aten.nansum.default)
def nansum(self, dim=None, keepdim=False, dtype=None):
    if self.is_floating_point() or self.is_complex():
        self = aten.where.self(aten.isnan.default(self), 0, self)
    return aten.sum.dim_IntList(self, dim, keepdim, dtype=dtype)


@decomposes(aten.nanmean.default)
def nanmean(self, dim=None, keepdim=False, dtype=None):
    kept = aten.sum.dim_IntList(aten.logical_not.default(aten.isnan.default(self)), dim,
                                keepdim)
    return aten.div.Tensor(nansum(self, dim, keepdim, dtype), kept)


@decomposes(aten.count_nonzero.default)
def count_nonzero(self, dim=None):
    return aten.sum.dim_IntList(aten.ne.Tensor(self, 0), None if dim is None else [dim])


@decomposes(aten.count_nonzero.dim_IntList)
def count_nonzero_dims(self, dim):
    return aten.sum.dim_IntList(aten.ne.Tensor(self, 0), list(dim))


@decomposes(aten.all.dims)
def all_dims(self, dim=None, keepdim=False):
    import ember
    out = aten.logical_not.default(aten.any.dims(aten.logical_not.default(self), dim, keepdim))
    return aten._to_copy.default(out, dtype=ember.uint8) if self.dtype == ember.uint8 else out


@decomposes(aten.aminmax.default)
def aminmax(self, dim=None, keepdim=False):
    dims = [] if dim is None else [dim]
    return aten.amin.default(self, dims, keepdim), aten.amax.default(self, dims, keepdim)


# --------------------------------------------------------------------------- normalisations

def _compute_dtype(input):
    """Half inputs normalise in float32, as PyTorch's CPU kernels do."""
    import ember
    return ember.float32 if input.dtype in (ember.float16, ember.bfloat16) else input.dtype


@decomposes(aten.native_layer_norm.default, core=False)
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    x = aten._to_copy.default(input, dtype=_compute_dtype(input))
    axes = list(range(input.ndim - len(normalized_shape), input.ndim))
    var, mean = _var(x, axes, 0, True)
    rstd = aten.rsqrt.default(aten.add.Tensor(var, eps))
    out = aten.mul.Tensor(aten.sub.Tensor(x, mean), rstd)
    if weight is not None:
        out = aten.mul.Tensor(out, weight)
    if bias is not None:
        out = aten.add.Tensor(out, bias)
    cast = [aten._to_copy.default(t, dtype=input.dtype) for t in (out, mean, rstd)]
    return tuple(cast)


def _per_channel(t, ndim):
    return aten.view.default(t, [1, t.shape[0]] + [1] * (ndim - 2))


@decomposes(aten.native_group_norm.default, core=False)
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    x = aten._to_copy.default(input, dtype=_compute_dtype(input))
    grouped = aten.reshape.default(x, [N, group, -1])
    var, mean = _var(grouped, [2], 0, True)
    rstd = aten.rsqrt.default(aten.add.Tensor(var, eps))
    out = aten.reshape.default(aten.mul.Tensor(aten.sub.Tensor(grouped, mean), rstd),
                               list(input.shape))
    if weight is not None:
        out = aten.mul.Tensor(out, _per_channel(weight, input.ndim))
    if bias is not None:
        out = aten.add.Tensor(out, _per_channel(bias, input.ndim))
    return (aten._to_copy.default(out, dtype=input.dtype),
            aten._to_copy.default(aten.view.default(mean, [N, group]), dtype=input.dtype),
            aten._to_copy.default(aten.view.default(rstd, [N, group]), dtype=input.dtype))


@decomposes(aten.native_batch_norm.default, core=False)
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                      eps):
    x = aten._to_copy.default(input, dtype=_compute_dtype(input))
    axes = [0] + list(range(2, input.ndim))
    if training:
        var, mean = _var(x, axes, 0, False)
        mean = aten.view.default(mean, [-1])
        count = input.numel() // input.shape[1]
        if running_mean is not None:
            running_mean.copy_(aten.add.Tensor(aten.mul.Tensor(running_mean, 1 - momentum),
                                               aten.mul.Tensor(mean, momentum)))
        if running_var is not None:
            unbiased = aten.mul.Tensor(var, count / max(count - 1, 1))
            running_var.copy_(aten.add.Tensor(aten.mul.Tensor(running_var, 1 - momentum),
                                              aten.mul.Tensor(unbiased, momentum)))
        rstd = aten.rsqrt.default(aten.add.Tensor(var, eps))
        saved = (mean, rstd)
    else:
        mean, rstd = running_mean, aten.rsqrt.default(aten.add.Tensor(running_var, eps))
        saved = (aten.new_empty.default(x, [0]), aten.new_empty.default(x, [0]))
    out = aten.mul.Tensor(aten.sub.Tensor(x, _per_channel(mean, input.ndim)),
                          _per_channel(rstd, input.ndim))
    if weight is not None:
        out = aten.mul.Tensor(out, _per_channel(weight, input.ndim))
    if bias is not None:
        out = aten.add.Tensor(out, _per_channel(bias, input.ndim))
    return (aten._to_copy.default(out, dtype=input.dtype),) + saved


# --------------------------------------------------------------------------- lookups

@decomposes(aten.embedding.default, core=False)
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if indices.ndim == 1:
        return aten.index_select.default(weight, 0, indices)
    rows = aten.index_select.default(weight, 0, aten.reshape.default(indices, [-1]))
    return aten.view.default(rows, list(indices.shape) + [weight.shape[1]])


@decomposes(aten.one_hot.default)
def one_hot(self, num_classes=-1):
    import ember
    if num_classes == -1:
        num_classes = int(aten.amax.default(self, []).item()) + 1 if self.numel() else 0
    classes = aten.arange.start_step(0, num_classes, 1, dtype=ember.int64, device=self.device)
    hits = aten.eq.Tensor(aten.unsqueeze.default(self, -1), classes)
    return aten._to_copy.default(hits, dtype=ember.int64)


@decomposes(aten.sum.default)
def sum_default(self, dtype=None):
    # (x.sum(): the sum over every dimension, which an empty dim list names)
    return aten.sum.dim_IntList(self, [], dtype=dtype)
