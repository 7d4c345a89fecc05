"""Forward-mode AD: dual tensors carry a tangent; every op run inside a `dual_level` computes
its output's tangent (a Jacobian-vector product) as it runs.

NOTE [forward AD from reverse formulas]: ember declares one derivative per op input, in
reverse form (a vector-Jacobian product, linear in the incoming gradient u). The tangent of an
op's output is J t = d/du <J^T u, t>: the op's node is recorded on detached copies of its dual
inputs, its formulas are run with a zero gradient u that requires grad, and one more backward
through <J^T u, t> gives J t. So every op with a reverse derivative has forward AD too, with no
second table to keep in step. It costs two small backward passes per op; forward AD is a tool
for Jacobians and research code, not for the training hot path.

While a level is open, a handler at the autograd level of the dispatch stack sees every op;
outside a level the per-op path is untouched. As in PyTorch, a level is open for every thread
(unlike grad and inference mode, which are per thread), so the handler is a process-wide one
(dispatch/stack.py, `global_handlers`).
"""
from __future__ import annotations

import collections

import numpy as np

from ember._core import dispatch
from ember._core.checks import _check
from ember.autograd import grad_mode

UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])

class _Levels:
    def __init__(self):
        self.levels = []     # open level indices (one at most)
        self.duals = []      # tensors given a tangent in the open level (cleared when it closes)


_open = _Levels()          # process-wide, as PyTorch's levels are


def enter_dual_level() -> int:
    """Open a new dual level (only one at a time, as in PyTorch) and return its index."""
    levels = _open.levels
    _check(not levels, "Nested forward mode AD is not supported at the moment")
    level = len(levels)
    levels.append(level)
    dispatch.stack.global_handlers.append(_forward_handler)
    dispatch.state.on_inplace = _carry_tangent
    dispatch.open_entry(process_wide=True)
    return level


def exit_dual_level(*, level=None) -> None:
    """Close the current dual level; tangents made in it are dropped."""
    levels = _open.levels
    current = levels[-1] if levels else None
    _check(level is None or level == current, lambda: (
        f"Trying to exit a forward AD level that was not the last one that was created. This "
        f"is not supported (level {level}, current {current})."))
    if not levels:
        return
    levels.pop()
    dispatch.stack.global_handlers.remove(_forward_handler)
    dispatch.state.on_inplace = None
    dispatch.close_entry(process_wide=True)
    for t in _open.duals:
        t.__dict__.pop("_fw_tangent", None)
    _open.duals.clear()


class dual_level:
    """Context manager: `with dual_level(): ...` opens a level and closes it on exit."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def _set_tangent(t, tangent) -> None:
    t.__dict__["_fw_tangent"] = tangent
    _open.duals.append(t)


def _tangent(t):
    return t.__dict__.get("_fw_tangent") if isinstance(t, dispatch.Tensor) else None


def _carry_tangent(self, result) -> None:
    """An in-place op wrote `result` into `self`: self's tangent becomes result's."""
    tangent = _tangent(result)
    if tangent is not None:
        _set_tangent(self, tangent)


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` whose tangent is `tangent` (same shape; floating or complex)."""
    _check(bool(_open.levels), "To create a dual Tensor, you must be in a dual level. Use "
                          "`with fwAD.dual_level():` or `enter_dual_level()`")
    _check(tuple(tensor.shape) == tuple(tangent.shape), lambda: (
        f"Trying to set a forward gradient that has a different size than that of the "
        f"original Tensor, this is not supported. Tensor is of size {tuple(tensor.shape)} "
        f"while the given forward gradient is of size {tuple(tangent.shape)}."))
    _check(tensor._dtype.is_floating_point or tensor._dtype.is_complex, lambda: (
        f"Expected primal to be floating point or complex, but got: {tensor._dtype}"))
    _check(tangent._dtype.is_floating_point or tangent._dtype.is_complex, lambda: (
        f"Expected tangent to be floating point or complex, but got: {tangent._dtype}"))
    dual = tensor.view_as(tensor)
    _set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent): the tensor as a plain view and its tangent (None if it has none)."""
    tangent = _tangent(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    with _plain():
        primal = tensor.view_as(tensor)
    return UnpackedDualTensor(primal, tangent)


class _plain:
    """Run ops without tangent propagation (inside the handler itself)."""

    def __enter__(self):
        dispatch.modes.skip_global += 1

    def __exit__(self, *exc):
        dispatch.modes.skip_global -= 1


def _forward_handler(op, args, default):
    """The slow-path handler: run the op, then give its outputs their tangents."""
    dual_positions = [i for i in op.tensor_positions if _tangent(args[i]) is not None]
    dual_lists = [i for i in op.list_positions
                  if any(_tangent(v) is not None for v in args[i])]
    if not dual_positions and not dual_lists:
        return default(op, args)
    result = default(op, args)
    with _plain():
        tangents = _output_tangents(op, args, result, dual_positions, dual_lists)
    set_tangents(result, tangents)
    return result


_seed_rng = None      # made on first use (NOTE [NumPy's random module on first draw])


def _seed(o):
    global _seed_rng
    if _seed_rng is None:
        _seed_rng = np.random.default_rng(0)
    values = dispatch.wrap_array(_seed_rng.uniform(0.5, 1.5, size=tuple(o.shape)))
    return values.to(device=o._device, dtype=o._dtype).requires_grad_(True)


class _Leaves:
    """Detached stand-ins for an op's inputs; those with a tangent require grad."""

    def __init__(self):
        self.copies, self.tangents = [], []

    def __call__(self, value):
        copy = dispatch.wrap(value._data, value._dtype, value._device)
        tangent = _tangent(value)
        if tangent is not None:
            copy._requires_grad = True
            self.copies.append(copy)
            self.tangents.append(tangent)
        return copy


def _output_tangents(op, args, result, dual_positions, dual_lists):
    from ember.autograd.graph import record
    Tensor = dispatch.Tensor
    outputs = result if isinstance(result, tuple) else (result,)
    if not op.differentiable or not op.derivatives:
        return [None] * len(outputs)
    leaf = _Leaves()
    new_args = list(args)
    for i in op.tensor_positions:
        if isinstance(args[i], Tensor):
            new_args[i] = leaf(args[i])
    for i in op.list_positions:
        new_args[i] = [leaf(v) if isinstance(v, Tensor) else v for v in args[i]]
    stand_ins = tuple(dispatch.wrap(o._data, o._dtype, o._device) if isinstance(o, Tensor)
                      else o for o in outputs)
    with grad_mode.enable_grad():
        record(op, tuple(new_args), stand_ins if isinstance(result, tuple) else stand_ins[0])
        return _tangents_through_graph(stand_ins, leaf)


def function_tangents(apply, args):
    """Output tangents of a custom Function call (see NOTE [forward AD from reverse
    formulas]): `apply` runs again on detached inputs so its backward gives J^T u. None when
    no argument has a tangent or no level is open."""
    if _forward_handler not in dispatch.stack.global_handlers or dispatch.modes.skip_global:
        return None       # no level open, or inside the tangent computation itself
    if not any(_tangent(a) is not None for a in args):
        return None
    Tensor = dispatch.Tensor
    leaf = _Leaves()
    new_args = [leaf(a) if isinstance(a, Tensor) else a for a in args]
    with _plain(), grad_mode.enable_grad():
        result = apply(*new_args)
        outputs = result if isinstance(result, tuple) else (result,)
        return _tangents_through_graph(outputs, leaf)


def set_tangents(result, tangents) -> None:
    outputs = result if isinstance(result, tuple) else (result,)
    for out, tangent in zip(outputs, tangents):
        if tangent is not None:
            _set_tangent(out, tangent)


def _tangents_through_graph(outputs, leaf):
    """J t for `outputs` recorded on `leaf.copies`: the gradient with respect to the seed u of
    Re<J^T u, t> (the real inner product keeps complex inputs right)."""
    from ember.autograd.engine import grad as autograd_grad
    Tensor = dispatch.Tensor
    differentiable = [o for o in outputs if isinstance(o, Tensor) and o._grad_fn]
    if not differentiable:
        return [None] * len(outputs)
    # Any seed u works (J^T u is linear in u); a nonzero one keeps formulas that take logs of
    # the gradient (logcumsumexp) differentiable at u.
    seeds = [_seed(o) for o in differentiable]
    vjps = autograd_grad(differentiable, leaf.copies, seeds, create_graph=True,
                         allow_unused=True)
    total = None
    for g, t in zip(vjps, leaf.tangents):
        if g is None or not g._requires_grad:
            continue
        product = g.conj() * t if g._dtype.is_complex else g * t
        term = (product.real if product._dtype.is_complex else product).sum()
        total = term if total is None else total + term
    if total is None:
        jvps = [None] * len(seeds)
    else:
        jvps = autograd_grad([total], seeds, allow_unused=True)
    found = iter(jvps)
    tangents_out = []
    for o in outputs:
        if isinstance(o, Tensor) and o._grad_fn:
            j = next(found)
            tangents_out.append(j.detach() if j is not None else o.new_zeros(o.shape))
        else:
            tangents_out.append(None)
    return tangents_out
