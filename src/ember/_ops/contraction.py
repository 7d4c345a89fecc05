"""Tensor contractions and friends: einsum, tensordot, kron, cross, cdist, chain_matmul and
linalg.multi_dot. The plain matrix products live in linalg.py.
"""
from __future__ import annotations

import math
import string
import warnings

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import (
    _check,
    _check_index,
    _check_not_implemented,
    _check_type,
    _check_value,
    _user_stacklevel,
    _warn_once,
)
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.promotion import promote_types
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import wrap_dim
from ember._ops.creation_ranges import eye
from ember._ops.grad_utils import conj
from ember._ops.linalg import broadcast_batch, check_kernel_dtype, compute, cpp, cxx

_HALF_TYPES = frozenset(np.dtype(d._np) for d in (dt.float16, dt.bfloat16))


def _call(name, args, out=None):
    if out is None:
        return dispatch.call(OPS[name], args)
    return dispatch.call_out(OPS[name], args, out)


def _per_element(grad_of):
    """A Tensor[] formula from `grad_of(ctx, index) -> gradient of tensors[index]` (the
    engine gives the element's position in the list as `ctx.list_index`)."""
    def formula(ctx):
        return grad_of(ctx, ctx.list_index)
    return formula


# --------------------------------------------------------------------------- einsum

def _parse_term(term, start, operand, ndim):
    """The labels of one operand's subscripts ('...' kept as one item) with PyTorch's errors."""
    labels, i = [], 0
    while i < len(term):
        ch = term[i]
        if ch == ".":
            _check("..." not in labels, lambda: (
                f"einsum(): found '.' for operand {operand} for which an ellipsis was already "
                "found"))
            _check(term[i:i + 3] == "...", lambda: (
                f"einsum(): found '.' for operand {operand} that is not part of any ellipsis"))
            labels.append("...")
            i += 3
            continue
        _check(ch.isascii() and ch.isalpha(), lambda: (
            f"einsum(): invalid subscript given at index {start + i} in the equation string, "
            "subscripts must be in [a-zA-Z]"))
        labels.append(ch)
        i += 1
    return labels


def einsum_plan(equation, shapes):
    """(input label lists, output labels, label sizes, ellipsis shape) for the equation."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    _check(len(terms) <= len(shapes),
           "einsum(): fewer operands were provided than specified in the equation")
    _check(len(terms) >= len(shapes),
           "einsum(): more operands were provided than specified in the equation")
    inputs, sizes, ellipsis, counts, start = [], {}, (), {}, 0
    occurrences = {}     # every appearance of a label, a repeat within one operand included
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        labels = _parse_term(term, start, k, len(shape))
        start += len(term) + 1
        named = [lab for lab in labels if lab != "..."]
        if "..." in labels:
            _check(len(named) <= len(shape), lambda: (
                f"einsum(): the number of subscripts in the equation ({len(named)}) is more "
                f"than the number of dimensions ({len(shape)}) for operand {k}"))
        else:
            _check(len(named) == len(shape), lambda: (
                f"einsum(): the number of subscripts in the equation ({len(named)}) does not "
                f"match the number of dimensions ({len(shape)}) for operand {k} and no "
                "ellipsis was given"))
        dims = _label_dims(labels, shape)
        seen = {}
        for lab, size in dims:
            if lab == "...":
                continue
            occurrences[lab] = occurrences.get(lab, 0) + 1
            if lab in seen:
                _check(seen[lab] == size, lambda: (
                    f"einsum(): subscript {lab} is repeated for operand {k} but the sizes don't "
                    f"match, {size} != {seen[lab]}"))
                continue
            seen[lab] = size
            counts[lab] = counts.get(lab, 0) + 1
            old = sizes.get(lab)
            _check(old is None or old == size or old == 1 or size == 1, lambda: (
                f"einsum(): subscript {lab} has size {size} for operand {k} which does not "
                f"broadcast with previously seen size {old}"))
            sizes[lab] = size if old is None or old == 1 else old
        if "..." in labels:
            ell = tuple(shape[labels.index("..."):len(shape) - (len(labels) - 1 -
                                                                 labels.index("..."))])
            ellipsis = broadcast_batch(ellipsis, ell)
        inputs.append(labels)
    if arrow:
        output = _parse_term(rhs, len(lhs) + 2, -1, 0)
        for i, lab in enumerate(output):
            _check(lab not in output[:i], lambda: (
                f"einsum(): output subscript {lab} appears more than once in the output"))
            _check(lab == "..." or lab in sizes, lambda: (
                f"einsum(): output subscript {lab} does not appear in the equation for any "
                "input operand"))
    else:
        # Without '->' the output keeps the labels written exactly once, in order: 'ii' is the
        # trace, 'ij,jk' the matrix product.
        once = sorted(lab for lab, n in occurrences.items() if n == 1)
        output = (["..."] if ellipsis or any("..." in t for t in inputs) else []) + once
    return inputs, output, sizes, ellipsis, counts


def _label_dims(labels, shape):
    """Pair every label with its size; '...' takes the dims between the named ones."""
    if "..." not in labels:
        return list(zip(labels, shape))
    at = labels.index("...")
    tail = len(labels) - at - 1
    return (list(zip(labels[:at], shape[:at])) + [("...", None)] +
            list(zip(labels[at + 1:], shape[len(shape) - tail:])))


def _einsum_result(equation, arrays):
    """(output shape, result dtype name rule) and the plan, raising PyTorch's errors."""
    inputs, output, sizes, ellipsis, counts = einsum_plan(equation, [a.shape for a in arrays])
    first = arrays[0].dtype
    for a in arrays[1:]:
        _check(a.dtype == first, lambda: (
            f"expected scalar type {cpp(first)} but found {cpp(a.dtype)}"))
    shape = []
    for lab in output:
        shape.extend(ellipsis if lab == "..." else (sizes[lab],))
    summed = [lab for lab in sizes if lab not in output]
    result = first
    if len(arrays) == 1 and summed and first.kind in "biu":
        result = np.dtype(np.int64)    # a one-operand contraction is a sum (ints accumulate)
    return tuple(shape), result, inputs, output, sizes, summed, counts


def _einsum_meta(equation, tensors, path=None):
    shape, result, *_ = _einsum_result(equation, [t._data for t in tensors])
    return (shape, dt.NP_TO_DTYPE[result])


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _explicit_labels(equation, shapes):
    """The equation's input and output labels with every '...' spelled out in unused letters,
    and the letters left over."""
    inputs, output, _, ellipsis, _ = einsum_plan(equation, shapes)
    used = {lab for labels in inputs for lab in labels}
    free = [ch for ch in _LETTERS if ch not in used]
    ell, free = free[:len(ellipsis)], free[len(ellipsis):]

    def spell(labels, ndim):
        if "..." not in labels:
            return list(labels)
        at = labels.index("...")
        count = ndim - (len(labels) - 1)
        return labels[:at] + ell[len(ell) - count:] + labels[at + 1:]
    explicit = [spell(labels, len(shape)) for labels, shape in zip(inputs, shapes)]
    return explicit, spell(output, len(output) - 1 + len(ell)), free


def _einsum_grad(ctx, k):
    """d operand k = einsum(grad, conj(the other operands)) onto operand k's labels. A label
    repeated in operand k (a diagonal) gets a fresh letter tied to the first by an identity
    matrix; a label found nowhere else (summed over operand k only) is brought in by ones."""
    tensors, g = ctx.tensors, ctx.grad
    target = tensors[k]
    inputs, output, free = _explicit_labels(ctx.equation, [t.shape for t in tensors])
    terms = ["".join(output)]
    operands = [g]
    for j, t in enumerate(tensors):
        if j != k:
            terms.append("".join(inputs[j]))
            operands.append(conj(t))
    elsewhere = set("".join(terms))
    labels, seen = [], set()
    spare = iter(free)
    for lab, size in zip(inputs[k], target.shape):
        if lab in seen:
            fresh = next(spare)
            terms.append(lab + fresh)
            operands.append(eye(size, dtype=g.dtype, device=g.device))
            labels.append(fresh)
            continue
        seen.add(lab)
        labels.append(lab)
        if lab not in elsewhere:
            terms.append(lab)
            operands.append(g.new_ones((size,)))
    spec = ",".join(terms) + "->" + "".join(labels)
    out = dispatch.call(OPS["einsum"], (spec, operands, None))
    # A label that operand k has at size n and the others at size 1 comes back at size 1.
    return out.expand([s if o == 1 else o for o, s in zip(out.shape, target.shape)])


def _spelled_out(spec, ndims):
    """`spec` with each '...' replaced by letters of its own (right-aligned, as the broadcast
    dimensions are): CuPy's einsum refuses to sum over an ellipsis that the output omits."""
    inputs, output = spec.split("->")
    inputs = inputs.split(",")
    spare = [c for c in string.ascii_letters if c not in spec]
    counts = [n - (len(sub) - 3) for sub, n in zip(inputs, ndims) if "..." in sub]
    longest = max(counts, default=0)
    letters = "".join(spare[:longest])

    def spell(sub, count):
        return sub.replace("...", letters[longest - count:]) if "..." in sub else sub
    inputs = [spell(sub, n - (len(sub) - 3)) for sub, n in zip(inputs, ndims)]
    return ",".join(inputs) + "->" + spell(output, longest)


@register_op("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor",
             kind="generic", meta=_einsum_meta, function=False, method=False, out=False,
             derivatives={"tensors": _per_element(_einsum_grad)}, tags=("fp_errors",))
def einsum_kernel(xp, equation, tensors, path=None):
    """einsum(equation, *operands) -> Tensor: sum of products over the equation's subscripts."""
    shape, result, inputs, output, sizes, summed, counts = _einsum_result(equation, tensors)
    if len(tensors) > 1:
        contracted = [lab for lab in summed if counts[lab] > 1]
        if contracted:
            check_kernel_dtype("bmm", tensors[0])
    operands = []
    for labels, a in zip(inputs, tensors):
        # Size-1 dims broadcast against the label's size (NumPy's einsum would refuse).
        dims = _label_dims(labels, a.shape)
        target = []
        for lab, size in dims:
            if lab == "...":
                target.extend(a.shape[len(target):len(a.shape) - (len(dims) - len(target) - 1)])
                continue
            target.append(sizes[lab] if size == 1 else size)
        operands.append(xp.broadcast_to(a, tuple(target)) if tuple(target) != a.shape else a)
    spec = ",".join("".join(t) for t in inputs) + "->" + "".join(output)
    work = [o.astype(result, copy=False) for o in operands]
    if "..." in spec and not backend_helpers(xp).einsum_ellipsis:    # NOTE [back-end helpers]
        spec = _spelled_out(spec, [o.ndim for o in work])
    out = compute(xp, lambda *ops: xp.einsum(spec, *ops, optimize=len(ops) > 2), *work)
    return xp.array(out, dtype=result).reshape(shape)


@register_frontend(method=False)
def einsum(*args):
    """einsum(equation, *operands) or einsum(equation, [operands]) or the sublist form
    einsum(op1, sublist1, op2, sublist2, ..., [out_sublist])."""
    if _state.entry and _wants(locals()):
        return _handle(einsum, locals())
    _check_value(len(args) >= 2, (
        "einsum(): must specify the equation string and at least one operand, or at least one "
        "operand and its subscripts list"))
    if isinstance(args[0], str):
        equation = args[0]
        operands = args[1] if len(args) == 2 and isinstance(args[1], (list, tuple)) else args[1:]
    else:
        equation, operands = _sublist_equation(args)
    for i, t in enumerate(operands):
        _check_type(isinstance(t, dispatch.Tensor), lambda: (
            f"expected Tensor as element {i} in argument 1, but got {type(t).__name__}"))
    return dispatch.call(OPS["einsum"], (equation, list(operands), None))


def _sublist_equation(args):
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def term(sub):
        return "".join("..." if s is Ellipsis else letters[s] for s in sub)
    operands = list(args[0::2][:len(args) // 2])
    subs = [term(s) for s in args[1::2][:len(args) // 2]]
    equation = ",".join(subs)
    if len(args) % 2:
        equation += "->" + term(args[-1])
    return equation, operands


# --------------------------------------------------------------------------- tensordot

def _tensordot_checks(a, b, dims_self, dims_other):
    _check(len(dims_self) == len(dims_other), "both dimension lists should have same length")
    _check(a.dtype == b.dtype, "both inputs should have same dtype")
    dims_a = [wrap_dim(d, a.ndim) for d in dims_self]
    dims_b = [wrap_dim(d, b.ndim) for d in dims_other]
    for da, db in zip(dims_a, dims_b):
        sa, sb = a.shape[da], b.shape[db]
        _check(sa == sb or sa == 1 or sb == 1, lambda: (
            f"contracted dimensions need to match, but first has size {sa} in dim {da} and "
            f"second has size {sb} in dim {db}"))
    shape = tuple(s for i, s in enumerate(a.shape) if i not in dims_a) + \
        tuple(s for i, s in enumerate(b.shape) if i not in dims_b)
    return shape, dims_a, dims_b


def _tensordot_meta(self, other, dims_self, dims_other):
    return (_tensordot_checks(self._data, other._data, dims_self, dims_other)[0], self._dtype)


def _tensordot_grad(ctx, of_self):
    """The output gradient contracted with the other operand over the other's free dims, then
    put back in the operand's dim order (contracted dims come out in the other's order)."""
    a, b, g = ctx.self, ctx.other, ctx.grad
    dims_a = [wrap_dim(d, a.ndim) for d in ctx.dims_self]
    dims_b = [wrap_dim(d, b.ndim) for d in ctx.dims_other]
    free_a = [i for i in range(a.ndim) if i not in dims_a]
    free_b = [i for i in range(b.ndim) if i not in dims_b]
    lead = list(range(len(free_a)))
    if of_self:
        mine, theirs, my_dims, their_dims = a, b, dims_a, dims_b
        out = _call("tensordot", (g, conj(b), list(range(len(free_a), g.ndim)), free_b))
        order = free_a + [dims_a[dims_b.index(d)] for d in sorted(dims_b)]
    else:
        mine, theirs, my_dims, their_dims = b, a, dims_b, dims_a
        out = _call("tensordot", (conj(a), g, free_a, lead))
        order = [dims_b[dims_a.index(d)] for d in sorted(dims_a)] + free_b
    out = out.permute(sorted(range(len(order)), key=order.__getitem__))
    # Size-1 contracted dims broadcast in the forward: expand the gradient to match.
    shape = list(mine.shape)
    for mine_dim, their_dim in zip(my_dims, their_dims):
        x, y = mine.shape[mine_dim], theirs.shape[their_dim]
        shape[mine_dim] = max(x, y) if min(x, y) else 0
    return out.expand(shape)


@register_op("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor",
             kind="generic", meta=_tensordot_meta, function=False, method=False,
             derivatives={"self": lambda c: _tensordot_grad(c, True),
                          "other": lambda c: _tensordot_grad(c, False)},
             tags=("fp_errors", "out_without_autograd"))
def tensordot_kernel(xp, self, other, dims_self, dims_other):
    """tensordot(a, b, dims=2, out=None) -> Tensor: contract `dims` of a with those of b."""
    shape, dims_a, dims_b = _tensordot_checks(self, other, dims_self, dims_other)
    if dims_a:
        check_kernel_dtype("addmm_impl_cpu_", self)
    # Size-1 contracted dims broadcast against the other operand's size.
    a_shape, b_shape = list(self.shape), list(other.shape)
    for da, db in zip(dims_a, dims_b):
        a_shape[da] = b_shape[db] = max(a_shape[da], b_shape[db]) if min(
            a_shape[da], b_shape[db]) else 0
    a = xp.broadcast_to(self, tuple(a_shape))
    b = xp.broadcast_to(other, tuple(b_shape))
    # Tuples: CuPy takes a 0-d operand only with axes ((), ()).
    axes = (tuple(dims_a), tuple(dims_b))
    result = compute(xp, lambda x, y: xp.tensordot(x, y, axes=axes), a, b)
    return xp.array(result).reshape(shape)


@register_frontend(method=False)
def tensordot(a, b, dims=2, out=None):
    if _state.entry and _wants(locals()):
        return _handle(tensordot, locals())
    if isinstance(dims, dispatch.Tensor):
        dims = dims.tolist()
    if isinstance(dims, (list, tuple)):
        _check_value(len(dims) == 2, lambda: (
            f"not enough values to unpack (expected 2, got {len(dims)})"))
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    else:
        _check(isinstance(dims, int), lambda: (
            "tensordot expects dims to be int or tuple[list[int], list[int]] or "
            f"list[list[int]] containing two lists, but got dims={dims}"))
        _check(dims >= 0, lambda: f"tensordot expects dims >= 0, but got dims={dims}")
        _check(dims <= min(a.ndim, b.ndim), lambda: (
            f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}"))
        dims_a = list(range(a.ndim - dims, a.ndim))
        dims_b = list(range(dims))
    return _call("tensordot", (a, b, dims_a, dims_b), out)


# --------------------------------------------------------------------------- kron / cross

def _kron_shape(a, b):
    ndim = max(a.ndim, b.ndim)
    sa = (1,) * (ndim - a.ndim) + tuple(a.shape)
    sb = (1,) * (ndim - b.ndim) + tuple(b.shape)
    return tuple(x * y for x, y in zip(sa, sb))


def _kron_meta(self, other):
    return (_kron_shape(self._data, other._data), promote_types(self._dtype, other._dtype))


def _kron_grad(ctx, of_self):
    """kron's result, seen with each dim split in two (self's index, other's index), is the
    product self[i] * other[j]: sum the gradient times conj(other) over the j dims (or times
    conj(self) over the i dims)."""
    a, b, g = ctx.self, ctx.other, ctx.grad
    ndim = max(a.ndim, b.ndim)
    if ndim == 0:
        return g * conj(b if of_self else a)
    sa = (1,) * (ndim - a.ndim) + tuple(a.shape)
    sb = (1,) * (ndim - b.ndim) + tuple(b.shape)
    g = g.reshape([s for pair in zip(sa, sb) for s in pair])
    if of_self:
        other = conj(b).reshape([s for size in sb for s in (1, size)])
        return (g * other).sum([2 * i + 1 for i in range(ndim)]).reshape(a.shape)
    other = conj(a).reshape([s for size in sa for s in (size, 1)])
    return (g * other).sum([2 * i for i in range(ndim)]).reshape(b.shape)


@register_op("kron(Tensor self, Tensor other) -> Tensor", kind="generic", meta=_kron_meta,
             derivatives={"self": lambda c: _kron_grad(c, True),
                          "other": lambda c: _kron_grad(c, False)},
             tags=("fp_errors", "out_casts"))
def kron(xp, self, other):
    """kron(input, other, *, out=None) -> Tensor: the Kronecker product (types promote)."""
    result = promote_types(dt.NP_TO_DTYPE[self.dtype], dt.NP_TO_DTYPE[other.dtype])._np
    out = compute(xp, xp.kron, self.astype(result), other.astype(result))
    return xp.array(out).reshape(_kron_shape(self, other))


def _cross_checks(a, b, dim):
    _check(a.ndim == b.ndim, "linalg.cross: inputs must have the same number of dimensions.")
    shape = broadcast_batch(a.shape, b.shape)
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim "
            "will change to agree with that of linalg.cross in a future release.",
            UserWarning, stacklevel=_user_stacklevel())
        found = [i for i, s in enumerate(a.shape) if s == 3]
        _check(found, "no dimension of size 3 in input")
        dim = found[0]
    _check_index(a.ndim > 0, lambda: (
        f"Dimension specified as {dim} but tensor has no dimensions"))
    dim = wrap_dim(dim, a.ndim)
    _check(a.shape[dim] == 3 and b.shape[dim] == 3, lambda: (
        f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[dim]} and "
        f"{b.shape[dim]}"))
    _check(a.dtype == b.dtype, lambda: (
        f"expected scalar type {cpp(a.dtype)} but found {cpp(b.dtype)}"))
    return shape, dim


def _cross_meta(self, other, dim=None):
    return (_cross_checks(self._data, other._data, dim)[0], self._dtype)


def _cross_dim(ctx):
    """The dim the forward used (dim=None: its first dim of size 3, without the warning again)."""
    if ctx.dim is not None:
        return ctx.dim
    return [i for i, s in enumerate(ctx.self.shape) if s == 3][0]


@register_op("cross(Tensor self, Tensor other, int? dim=None) -> Tensor", kind="generic",
             meta=_cross_meta,
             derivatives={"self": lambda c: _call("cross", (conj(c.other), c.grad, _cross_dim(c))),
                          "other": lambda c: _call("cross", (c.grad, conj(c.self), _cross_dim(c)))},
                          tags=("fp_errors",))
def cross(xp, self, other, dim=None):
    """cross(input, other, dim=None, *, out=None) -> Tensor: cross product of 3-vectors along
    `dim` (None: the first dimension of size 3, deprecated)."""
    shape, dim = _cross_checks(self, other, dim)
    check_kernel_dtype("cross", self)
    a = xp.broadcast_to(self, shape)
    b = xp.broadcast_to(other, shape)
    if a.dtype in _HALF_TYPES:
        # PyTorch rounds each product to the half type before the difference (65504 past
        # the largest float16 is inf there, and inf - inf NaN): NumPy's cross of half arrays
        # rounds each of its operations alike.
        with np.errstate(all="ignore"):
            return xp.cross(a, b, axis=dim)
    return xp.array(compute(xp, lambda x, y: xp.cross(x, y, axis=dim), a, b))


# --------------------------------------------------------------------------- cdist

def _cdist_checks(x1, x2, p):
    for name, x in (("X1", x1), ("X2", x2)):
        _check(x.ndim >= 2, lambda: (
            f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D"))
    _check(x1.shape[-1] == x2.shape[-1], lambda: (
        f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
        f"{x2.shape[-1]}"))
    for name, x in (("X1", x1), ("X2", x2)):
        _check(x.dtype.kind == "f" or x.dtype.name == "bfloat16", lambda: (
            f"cdist only supports floating-point dtypes, {name} got: {cpp(x.dtype)}"))
    _check(p >= 0, "cdist only supports non-negative p values")
    _check(x1.dtype == x2.dtype, lambda: (
        f"expected scalar type {cpp(x1.dtype)} but found {cpp(x2.dtype)}"))
    batch = broadcast_batch(x1.shape[:-2], x2.shape[:-2])
    return batch + (x1.shape[-2], x2.shape[-2])


def _cdist_meta(x1, x2, p=2.0, compute_mode=None):
    return (_cdist_checks(x1._data, x2._data, p), x1._dtype)


_USE_MM = {None: 0, "use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
           "donot_use_mm_for_euclid_dist": 2}


def _cdist_grad(ctx, of_x1):
    """d dist(x, y) / dx = sign(x - y) |x - y|^(p-1) / dist^(p-1), and 0 where dist is 0 (as
    PyTorch gives); p = 1 leaves sign(x - y) and p = inf keeps only the largest |x - y|."""
    x1, x2, p, g, dist = ctx.x1, ctx.x2, ctx.p, ctx.grad, ctx.result
    if p == 0:
        return (x1 if of_x1 else x2).new_zeros((x1 if of_x1 else x2).shape)
    zero = dist == 0
    if p == 2:
        ratio = g / (dist + zero) * ~zero
        if of_x1:
            return x1 * ratio.sum(-1, keepdim=True) - ratio @ x2
        return x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT @ x1
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    # sign() is piecewise constant: taken off the graph, its (zero) derivative is left out.
    coef = diff.detach().sign()
    if math.isinf(p):
        coef = coef * (diff.abs() == dist.unsqueeze(-1))
    elif p != 1:
        # Zero distances and zero components (|0|^(p-1) is inf for p < 1) give 0, as in
        # PyTorch; stand-in values keep inf and NaN out of the (masked) second derivatives.
        scale = (dist + zero).pow(p - 1).unsqueeze(-1)
        size = diff.abs() + (diff == 0)
        coef = coef * size.pow(p - 1) / scale * ~zero.unsqueeze(-1)
    term = g.unsqueeze(-1) * coef
    return term.sum(-2) if of_x1 else -term.sum(-3)


@register_op("cdist(Tensor x1, Tensor x2, float p=2., int? compute_mode=None) -> Tensor",
             kind="generic", meta=_cdist_meta, function=False, method=False, out=False,
             saves=("x1", "x2", "result"),
             derivatives={"x1": lambda c: _cdist_grad(c, True),
                          "x2": lambda c: _cdist_grad(c, False)}, tags=("fp_errors",))
def cdist_kernel(xp, x1, x2, p=2.0, compute_mode=None):
    """cdist(x1, x2, p=2.0, compute_mode=...) -> Tensor: p-norm distances between row sets."""
    shape = _cdist_checks(x1, x2, p)
    _check_not_implemented(x1.dtype.kind == "f" and x1.dtype.itemsize > 2, lambda: (
        f'"cdist" not implemented for \'{cpp(x1.dtype)}\''))
    batch = shape[:-2]
    a = xp.broadcast_to(x1, batch + x1.shape[-2:])
    b = xp.broadcast_to(x2, batch + x2.shape[-2:])
    mode = compute_mode or 0
    if p == 2 and (mode == 1 or (mode == 0 and (a.shape[-2] > 25 or b.shape[-2] > 25))):
        # NOTE [cdist through matmul]: |x - y|^2 = |x|^2 + |y|^2 - 2 x.y, as PyTorch does for
        # large inputs; cancellation can leave tiny negatives, clamped before the root.
        sq = (a * a).sum(-1)[..., :, None] + (b * b).sum(-1)[..., None, :]
        sq = sq - 2 * xp.matmul(a, xp.swapaxes(b, -1, -2))
        return xp.sqrt(xp.maximum(sq, 0)).astype(x1.dtype)
    diff = xp.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        out = (diff != 0).sum(-1).astype(x1.dtype)
    elif p == 1:
        out = diff.sum(-1)
    elif p == 2:
        out = xp.sqrt((diff * diff).sum(-1))
    elif math.isinf(p):
        out = diff.max(-1) if diff.shape[-1] else xp.zeros(diff.shape[:-1], x1.dtype)
    else:
        out = (diff ** p).sum(-1) ** (1.0 / p)
    return xp.array(out, dtype=x1.dtype).reshape(shape)


@register_frontend(method=False)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if _state.entry and _wants(locals()):
        return _handle(cdist, locals())
    _check_value(compute_mode in _USE_MM, lambda: (
        f"{compute_mode} is not a valid value for compute_mode"))
    return dispatch.call(OPS["cdist"], (x1, x2, p, _USE_MM[compute_mode]))


# --------------------------------------------------------------------------- chains

def _multi_dot_checks(arrays, name="multi_dot"):
    _check(len(arrays) >= 2, lambda: (
        f"{name}(): expected at least 2 tensors but got {len(arrays)}"))
    first, last = arrays[0], arrays[-1]
    _check(first.ndim in (1, 2), lambda: (
        f"{name}(): the first tensor must be 1D or 2D but got {first.ndim}D"))
    _check(last.ndim in (1, 2), lambda: (
        f"{name}(): the last tensor must be 1D or 2D but got {last.ndim}D"))
    for i, a in enumerate(arrays[1:-1], 1):
        _check(a.ndim == 2, lambda: f"{name}(): tensor {i} must be 2D but got {a.ndim}D")
    for i, a in enumerate(arrays):
        _check(a.dtype == first.dtype, lambda: (
            f"{name}(): all tensors must have be the same dtype but tensor 0 is "
            f"{cxx(first.dtype)} and tensor {i} {cxx(a.dtype)}"))
    for i in range(len(arrays) - 1):
        a, b = arrays[i], arrays[i + 1]
        _check(a.shape[-1] == b.shape[0], lambda: (
            f"{name}(): tensors {i} and {i + 1} with shapes {list(a.shape)} and "
            f"{list(b.shape)} cannot be multiplied"))
    shape = ((first.shape[0],) if first.ndim == 2 else ()) + \
        ((last.shape[1],) if last.ndim == 2 else ())
    return shape


def _multi_dot_meta(tensors):
    return (_multi_dot_checks([t._data for t in tensors]), tensors[0]._dtype)


def _chain_order(dims):
    """split[i][j]: where the cheapest product of matrices i..j splits, the first of equal
    costs (the classic dynamic programme: PyTorch's order for more than three, and NumPy's;
    for three PyTorch's own rule, where NumPy takes A (B C) on a tie)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    if n == 3:
        # (three: (A B) C unless A (B C) is strictly cheaper, PyTorch's own rule there)
        a, b, c, d = dims
        split[0][2] = 0 if a * c * (b + d) > b * d * (a + c) else 1
        split[0][1], split[1][2] = 0, 1
        return split
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(xp, arrays):
    """A_0 @ ... @ A_n in PyTorch's order (which products overflow depends on it), each
    product of a half type rounded to it as PyTorch's mm rounds (one float32 product each)."""
    check_kernel_dtype("addmm_impl_cpu_", arrays[0])
    mats = list(arrays)
    first_vector, last_vector = mats[0].ndim == 1, mats[-1].ndim == 1
    if first_vector:
        mats[0] = mats[0][None, :]
    if last_vector:
        mats[-1] = mats[-1][:, None]
    split = _chain_order([mats[0].shape[0]] + [m.shape[1] for m in mats])

    def product(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return compute(xp, xp.matmul, product(i, k), product(k + 1, j))

    with np.errstate(all="ignore"):
        result = product(0, len(mats) - 1)
    if first_vector:
        result = result[0]
    if last_vector:
        result = result[..., 0]
    return xp.array(result)


def _chain_grad(tensors, g, k):
    """d A_k of A_0 @ ... @ A_n = (A_0 ... A_k-1)^H @ grad @ (A_k+1 ... A_n)^H; a vector at
    either end is a one-row (one-column) matrix there."""
    mats = list(tensors)
    if mats[0].ndim == 1:
        mats[0] = mats[0].unsqueeze(0)
        g = g.unsqueeze(0)
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1].unsqueeze(-1)
        g = g.unsqueeze(-1)
    if k + 1 < len(mats):
        right = mats[k + 1]
        for m in mats[k + 2:]:
            right = right.mm(m)
        g = g.mm(right.mH)
    if k > 0:
        left = mats[0]
        for m in mats[1:k]:
            left = left.mm(m)
        g = left.mH.mm(g)
    return g.reshape(tensors[k].shape)


@register_op("linalg_multi_dot(Tensor[] tensors) -> Tensor", kind="generic",
             meta=_multi_dot_meta, function=False, method=False,
             derivatives={"tensors": _per_element(lambda c, k: _chain_grad(c.tensors, c.grad, k))},
             tags=("fp_errors",))
def linalg_multi_dot(xp, tensors):
    """linalg.multi_dot(tensors, *, out=None) -> Tensor: a chain of matrix products in the
    cheapest order (the first and last operand may be vectors)."""
    _multi_dot_checks(tensors)
    return _chain(xp, tensors)


def _chain_matmul_checks(arrays):
    _check(len(arrays) >= 1, "chain_matmul(): Expected one or more matrices")
    for a in arrays:
        _check(a.ndim == 2, lambda: f"Tensor dimension is {a.ndim}, expected 2 instead.")
    if len(arrays) == 1:
        return arrays[0].shape
    return _multi_dot_checks(arrays)


@register_op("chain_matmul(Tensor[] matrices) -> Tensor", kind="generic", function=False,
             method=False, meta=lambda ts: (_chain_matmul_checks([t._data for t in ts]),
                                            ts[0]._dtype),
             derivatives={"matrices": _per_element(
                 lambda c, k: _chain_grad(c.matrices, c.grad, k))}, tags=("fp_errors",))
def chain_matmul_kernel(xp, matrices):
    """chain_matmul(*matrices, out=None) -> Tensor: deprecated form of linalg.multi_dot."""
    _chain_matmul_checks(matrices)
    if len(matrices) == 1:
        return xp.array(matrices[0])
    return _chain(xp, matrices)


@register_frontend(method=False)
def chain_matmul(*matrices, out=None):
    # The matrices come as arguments only: a list of them is no tensor (PyTorch's TypeError,
    # "expected Tensor as element 0 in argument 0, but got list"), found before its warning,
    # which PyTorch gives once per process.
    if _state.entry and _wants(locals()):
        return _handle(chain_matmul, locals())
    for i, matrix in enumerate(matrices):
        _check_type(isinstance(matrix, dispatch.Tensor), lambda: (
            f"expected Tensor as element {i} in argument 0, but got "
            f"{type(matrix).__name__}"))
    _warn_once("chain_matmul", "torch.chain_matmul is deprecated and will be removed in a "
               "future PyTorch release. Use torch.linalg.multi_dot instead, which accepts a "
               "list of two or more tensors rather than multiple parameters.")
    return _call("chain_matmul", (list(matrices),), out)