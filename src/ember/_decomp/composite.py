"""PyTorch's CompositeImplicitAutograd ops among ember's, and the decompositions that run in
their place above autograd while a dispatch mode or subclass is active (NOTE [composites
decompose under modes] in _core/dispatch/stack.py). Each follows the ops PyTorch's own
composite calls, in its order, so a mode sees the same ATen ops (`linear` is `t` + `addmm`).
"""
from __future__ import annotations

import math

from ember._decomp.registry import decomposes
from ember.ops import aten

# Every ember op PyTorch 2.13 implements as CompositeImplicitAutograd (tests/decomp checks the
# list against torch._C._dispatch_has_kernel_for_dispatch_key).
COMPOSITE_IMPLICIT = (
    "adjoint", "argsort", "argsort.stable", "argwhere", "bilinear", "broadcast_to",
    "cartesian_prod", "cdist", "chain_matmul", "chunk", "column_stack", "combinations", "conj",
    "conj_physical", "cross", "cross_entropy_loss", "det", "diag", "diagflat", "diff", "dstack",
    "einsum", "expand_as", "flatten.using_ints", "fliplr", "flipud", "float_power.Tensor_Tensor",
    "hstack", "imag", "inner", "isclose", "isfinite", "isreal", "kron", "linalg_eigh",
    "linalg_multi_dot", "linalg_solve_ex", "linalg_svd", "linear", "log_sigmoid",
    "log_softmax.int", "matmul", "mish_backward", "movedim.int", "movedim.intlist", "msort",
    "nanmean", "nanquantile", "nanquantile.scalar", "narrow", "narrow.Tensor",
    "native_channel_shuffle", "nll_loss_nd", "nuclear_norm.dim", "one_hot", "outer", "quantile",
    "quantile.scalar", "ravel", "real", "repeat_interleave.self_Tensor",
    "repeat_interleave.self_int", "reshape", "reshape_as", "silu_backward", "slogdet",
    "softmax.int", "special_ndtr", "square", "take_along_dim", "tensor_split.indices",
    "tensor_split.sections", "tensordot", "tile", "unflatten.int", "view_as", "vstack",
)


def composite(*ops, core=False):
    """Register `fn` as the decomposition of the composite `ops` (in the table, and in the core
    set where PyTorch's core table has the op) and run it under modes."""
    register = decomposes(*ops, core=core)

    def decorate(fn):
        register(fn)
        for op in ops:
            op.decomposition = fn
        return fn
    return decorate


# --------------------------------------------------------------------------- shapes

def _viewable(tensor, shape) -> bool:
    """Whether `shape` can view `tensor`'s elements without a copy: each run of merged or split
    dimensions must be contiguous within itself (PyTorch's view rule)."""
    sizes, strides = list(tensor.shape), list(tensor.stride())
    numel = math.prod(sizes)
    if numel == 0 or not sizes:
        return True
    known = math.prod(s for s in shape if s != -1)
    target = [numel // known if s == -1 else s for s in shape]
    view_d = len(target) - 1
    chunk_base_stride = strides[-1]
    tensor_numel = 1
    view_numel = 1
    for d in range(len(sizes) - 1, -1, -1):
        tensor_numel *= sizes[d]
        if d == 0 or (sizes[d - 1] != 1 and strides[d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or target[view_d] == 1):
                view_numel *= target[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return False
            if d > 0:
                chunk_base_stride = strides[d - 1]
                tensor_numel = 1
                view_numel = 1
    return view_d == -1


def _reshape(self, shape):
    """reshape's decomposition: a view when one exists, else a contiguous copy viewed."""
    shape = list(shape)
    if _viewable(self, shape):
        return aten.view.default(self, shape)
    import ember
    copy = aten.clone.default(self, memory_format=ember.contiguous_format)
    return aten._unsafe_view.default(copy, shape)


@composite(aten.reshape.default)
def reshape(self, shape):
    return _reshape(self, shape)


@composite(aten.reshape_as.default)
def reshape_as(self, other):
    return _reshape(self, other.shape)


@composite(aten.view_as.default)
def view_as(self, other):
    return aten.view.default(self, list(other.shape))


@composite(aten.expand_as.default)
def expand_as(self, other):
    return aten.expand.default(self, list(other.shape))


@composite(aten.broadcast_to.default)
def broadcast_to(self, size):
    return aten.expand.default(self, list(size))


@composite(aten.ravel.default)
def ravel(self):
    return _reshape(self, [-1])


@composite(aten.flatten.using_ints)
def flatten(self, start_dim=0, end_dim=-1):
    ndim = self.ndim
    if ndim == 0:
        return _reshape(self, [1])
    start = start_dim % ndim
    end = end_dim % ndim
    if start == end:
        return self
    shape = list(self.shape)
    return _reshape(self, shape[:start] + [math.prod(shape[start:end + 1])] + shape[end + 1:])


@composite(aten.narrow.default)
def narrow(self, dim, start, length):
    start = start % self.shape[dim] if start < 0 else start
    return aten.slice.Tensor(self, dim, start, start + length)


@composite(aten.chunk.default)
def chunk(self, chunks, dim=0):
    size = self.shape[dim]
    if size == 0:
        return aten.split_with_sizes.default(self, [0] * chunks, dim)
    return aten.split.Tensor(self, -(-size // chunks), dim)


@composite(aten.movedim.int)
def movedim_int(self, source, destination):
    return _movedim(self, [source], [destination])


@composite(aten.movedim.intlist)
def movedim_intlist(self, source, destination):
    return _movedim(self, list(source), list(destination))


def _movedim(self, source, destination):
    ndim = max(self.ndim, 1)
    source = [s % ndim for s in source]
    destination = [d % ndim for d in destination]
    order = [-1] * ndim
    for s, d in zip(source, destination):
        order[d] = s
    rest = iter(i for i in range(ndim) if i not in source)
    order = [next(rest) if o == -1 else o for o in order]
    return aten.permute.default(self, order if self.ndim else [])


# --------------------------------------------------------------------------- element-wise

@composite(aten.square.default, core=True)
def square(self):
    return aten.pow.Tensor_Scalar(self, 2)


@composite(aten.isfinite.default, core=True)
def isfinite(self):
    if not (self.is_floating_point() or self.is_complex()):
        import ember
        return aten.ones_like.default(self, dtype=ember.bool,
                                      memory_format=ember.preserve_format)
    finite = aten.ne.Scalar(aten.abs.default(self), math.inf)
    return aten.mul.Tensor(finite, aten.eq.Tensor(self, self))


@composite(aten.conj.default)
def conj(self):
    # A real tensor is its own conjugate (no op at all, as in PyTorch).
    return aten._conj.default(self) if self.is_complex() else self


@composite(aten.outer.default, core=True)
def outer(self, vec2):
    return aten.mul.Tensor(aten.view.default(self, [-1, 1]), vec2)


# --------------------------------------------------------------------------- products

@composite(aten.linear.default, core=True)
def linear(input, weight, bias=None):
    if input.ndim == 2 and bias is not None:
        return aten.addmm.default(bias, input, aten.t.default(weight))
    if bias is not None and input.ndim != 0 and input.is_contiguous():
        # PyTorch folds the leading dimensions into one product with the bias.
        flat = _reshape(input, [-1, input.shape[-1]])
        out = aten.addmm.default(bias, flat, aten.t.default(weight))
        return aten.view.default(out, list(input.shape[:-1]) + [out.shape[-1]])
    out = matmul(input, aten.t.default(weight) if weight.ndim == 2 else weight)
    return out if bias is None else aten.add.Tensor(out, bias)


@composite(aten.matmul.default, core=True)
def matmul(self, other):
    d1, d2 = self.ndim, other.ndim
    if d1 == 1 and d2 == 1:
        return aten.dot.default(self, other)
    if d1 == 2 and d2 == 1:
        return aten.mv.default(self, other)
    if d1 == 1 and d2 == 2:
        return aten.squeeze.dim(aten.mm.default(aten.unsqueeze.default(self, 0), other), 0)
    if d1 == 2 and d2 == 2:
        return aten.mm.default(self, other)
    if d1 >= 3 and d2 in (1, 2) and (self.is_contiguous() or self.numel() == 0):
        # Fold the batch into the rows of one product.
        shape = list(self.shape[:-1]) + ([other.shape[-1]] if d2 == 2 else [])
        folded = _reshape(self, [-1, self.shape[-1]])
        out = aten.mm.default(folded, other) if d2 == 2 else aten.mv.default(folded, other)
        return aten._unsafe_view.default(out, shape)
    if d2 >= 3 and d1 in (1, 2):
        aten.transpose.int(other, -1, -2)    # PyTorch tries the transposed fold first
    return _batched_matmul(self, other)


def _batched_matmul(self, other):
    import ember
    d1, d2 = self.ndim, other.ndim
    n = self.shape[-2] if d1 > 1 else 1
    m1 = self.shape[-1]
    p = other.shape[-1] if d2 > 1 else 1
    m2 = other.shape[-2] if d2 > 1 else other.shape[0]
    batch = list(ember.broadcast_shapes(tuple(self.shape[:-2]) if d1 > 1 else (),
                                        tuple(other.shape[:-2]) if d2 > 1 else ()))
    count = math.prod(batch)
    left = _reshape(aten.expand.default(self, batch + [n, m1]), [count, n, m1])
    right = other if d2 > 1 else aten.unsqueeze.default(other, -1)
    right = _reshape(aten.expand.default(right, batch + [m2, p]), [count, m2, p])
    out = aten.bmm.default(left, right)
    shape = batch + ([n] if d1 > 1 else []) + ([p] if d2 > 1 else [])
    return aten._unsafe_view.default(out, shape)


# --------------------------------------------------------------------------- softmax, losses

@composite(aten.softmax.int, core=True)
def softmax(self, dim, dtype=None):
    x = self if dtype is None or dtype == self.dtype else aten._to_copy.default(self, dtype=dtype)
    return aten._softmax.default(x, dim, False)


@composite(aten.log_softmax.int, core=True)
def log_softmax(self, dim, dtype=None):
    x = self if dtype is None or dtype == self.dtype else aten._to_copy.default(self, dtype=dtype)
    return aten._log_softmax.default(x, dim, False)


@composite(aten.cross_entropy_loss.default, core=True)
def cross_entropy_loss(self, target, weight=None, reduction=1, ignore_index=-100,
                       label_smoothing=0.0):
    class_dim = 0 if self.ndim == 1 else 1
    logp = log_softmax(self, class_dim)
    if target.is_floating_point():
        return _cross_entropy_probabilities(logp, target, weight, reduction, label_smoothing,
                                            class_dim)
    nll = aten.nll_loss_nd.default(logp, target, weight, reduction, ignore_index)
    if label_smoothing <= 0.0:
        return nll
    return _smoothed(logp, target, weight, reduction, ignore_index, label_smoothing, class_dim,
                     nll)


def _class_weights(weight, logp, class_dim):
    """weight shaped to multiply log-probabilities along the class dimension."""
    shape = [1] * logp.ndim
    shape[class_dim] = weight.shape[0]
    return aten.view.default(weight, shape)


def _cross_entropy_probabilities(logp, target, weight, reduction, smoothing, class_dim):
    classes = logp.shape[class_dim]
    if smoothing > 0.0:
        target = aten.add.Tensor(aten.mul.Tensor(target, 1 - smoothing), smoothing / classes)
    terms = aten.mul.Tensor(logp, target)
    if weight is not None:
        terms = aten.mul.Tensor(terms, _class_weights(weight, logp, class_dim))
    loss = aten.neg.default(aten.sum.dim_IntList(terms, [class_dim]))
    if reduction == 0:
        return loss
    total = aten.sum.dim_IntList(loss, None)
    if reduction == 2:
        return total
    return aten.div.Tensor(total, max(logp.numel() // classes, 1) if logp.ndim > 1 else 1)


def _smoothed(logp, target, weight, reduction, ignore_index, smoothing, class_dim, nll):
    classes = logp.shape[class_dim]
    terms = logp if weight is None else aten.mul.Tensor(logp, _class_weights(weight, logp,
                                                                              class_dim))
    smooth = aten.neg.default(aten.sum.dim_IntList(terms, [class_dim]))
    ignored = aten.eq.Tensor(target, ignore_index)
    smooth = aten.where.self(ignored, 0.0, smooth)
    if reduction == 2:
        smooth = aten.sum.dim_IntList(smooth, None)
    elif reduction == 1:
        if weight is None:
            kept = aten.sum.dim_IntList(aten.logical_not.default(ignored), None)
        else:
            safe = aten.where.self(ignored, 0, target)
            picked = aten.index_select.default(weight, 0, aten.reshape.default(safe, [-1]))
            picked = aten.where.self(aten.reshape.default(ignored, [-1]), 0.0, picked)
            kept = aten.sum.dim_IntList(picked, None)
        smooth = aten.div.Tensor(aten.sum.dim_IntList(smooth, None), kept)
    return aten.add.Tensor(aten.mul.Tensor(nll, 1 - smoothing),
                           aten.mul.Tensor(smooth, smoothing / classes))




@composite(aten.nll_loss_nd.default, core=True)
def nll_loss_nd(self, target, weight=None, reduction=1, ignore_index=-100):
    if self.ndim in (1, 2):
        return aten.nll_loss_forward.default(self, target, weight, reduction, ignore_index)[0]
    # More dimensions: the class dimension moved last, every position one row.
    order = [0] + list(range(2, self.ndim)) + [1]
    rows = _reshape(aten.permute.default(self, order), [-1, self.shape[1]])
    out = aten.nll_loss_forward.default(rows, _reshape(target, [-1]), weight, reduction,
                                        ignore_index)[0]
    return _reshape(out, list(target.shape)) if reduction == 0 else out


# --------------------------------------------------------------------------- comparisons

@composite(aten.isclose.default)
def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|self - other| <= atol + rtol * |other| or equal, in PyTorch's composite's ops: only
    `other` is cast (to the default dtype) for integer inputs, and the finite test is
    isfinite's (abs != inf, times self == self)."""
    import ember
    from ember._core.checks import _check
    _check(self.dtype == other.dtype, lambda: (
        f"{self.dtype._cpp_name} did not match {other.dtype._cpp_name}"))
    _check(rtol >= 0, lambda: f"rtol must be greater than or equal to zero, but got {rtol}")
    _check(atol >= 0, lambda: f"atol must be greater than or equal to zero, but got {atol}")
    inexact = self.is_floating_point() or self.is_complex()
    close = aten.eq.Tensor(self, other)
    if equal_nan and inexact:
        close.bitwise_or_(aten.bitwise_and.Tensor(aten.isnan.default(self),
                                                  aten.isnan.default(other)))
    if rtol == 0 and atol == 0:
        return close
    if not inexact:
        other = aten._to_copy.default(other, dtype=ember.get_default_dtype())
    allowed = aten.add.Scalar(aten.abs.default(aten.mul.Scalar(other, rtol)), atol)
    error = aten.abs.default(aten.sub.Tensor(self, other))
    finite = aten.ne.Scalar(aten.abs.default(error), math.inf)
    finite = aten.mul.Tensor(finite, aten.eq.Tensor(error, error))
    close.bitwise_or_(finite.bitwise_and_(aten.le.Tensor(error, allowed)))
    return close
