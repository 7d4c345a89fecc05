"""List arithmetic for the optimizers: each element-wise algorithm (sgd.py, adam.py, rmsprop.py,
adagrad.py, adamax.py, nadam.py, radam.py, adadelta.py, asgd.py, rprop.py) writes its update
ONCE, over lists of tensors, against one of two implementations of this interface.

NOTE [optimizer updates as ops]: an update is a sequence of list operations (`mul_`, `lerp_`,
`addcdiv_` ...). `FOREACH` runs each as the `_foreach_*` op (ember._foreach_*, registry ops:
NOTE [foreach ops]); `EACH` runs each as the Tensor op on a one-element list, and the step
calls the algorithm once per parameter, so its ops come in PyTorch's single-tensor order. Which
one a step takes (`use_foreach`):
- foreach=True: FOREACH over each (device, dtype) group, as PyTorch's multi-tensor path;
- foreach=False or None (PyTorch's default on CPU and meta is its single-tensor path):
  EACH whenever something can observe the ops (a mode is open, a parameter is a subclass that
  overrides __torch_function__ / __torch_dispatch__, or `differentiable`); on the plain path,
  where nothing can tell, FOREACH, whose flat kernels are where the speed lives. The two give
  the same numbers: a foreach op applies the per-tensor op's kernel.
On the plain CPU path the step keeps each state entry of a group laid out flat (`keep_flat`:
one buffer per key, the state tensors re-pointed at its views, NOTE [flat foreach layouts]),
so the foreach kernels run one NumPy call per op; there, with one step count for the group,
the update runs block by block over those buffers (`Blocks` in _blocks.py, NOTE
[optimizer updates in blocks]), each op still the `_foreach_*` overload's CPU kernel.
Where PyTorch's two paths differ beyond the list-vs-tensor form, the algorithm reads
`lists.foreach` when both give the same numbers (e.g. the foreach path divides its fresh
`denom` in place, the single-tensor path out of place), and its `single` argument (the group's
foreach is not True) when they do not (NAdam's and RAdam's bias corrections, Adagrad's step,
ASGD's eta in float32 tensor ops): then foreach=None/False runs PyTorch's single-tensor
arithmetic on every path, as FOREACH and in blocks too, and foreach=True its foreach form's.
Rprop's masked writes, clamps and `where`s are per-tensor ops in both of PyTorch's forms
(`sign_factors_`, `clamp_`, `zero_where_` loop over the tensors; the blocks run them on their
arrays).
"""
from __future__ import annotations

import operator
from functools import partial
from itertools import repeat

import numpy as np

import ember
from ember._core.device import CPU
from ember._core.dispatch import bump_version
from ember._core.dispatch.process_state import state as _dispatch_state
from ember._core.dispatch.subclasses import PLAIN
from ember._core.fp_errors import run_quietly
from ember._core.lazy_method import LazyModule
from ember._tensor import Tensor
from ember.optim._blocks import plan, run_blocks

# (the op family loads on the first step, not at `import ember.optim`)
_foreach_layout = LazyModule("ember._ops.foreach_layout", globals(), "_foreach_layout")
_DEVICE_OF = operator.attrgetter("_device")
_DATA_OF = operator.attrgetter("_data")
_DTYPE_OF = operator.attrgetter("_dtype")


class _Foreach:
    """The list operations as `_foreach_*` ops."""

    foreach = True

    def reads_of_single_tensor_adam(self, params) -> None:
        pass

    def neg(self, xs):
        return list(ember._foreach_neg(xs))

    def add(self, xs, ys, alpha=1):
        return list(ember._foreach_add(xs, ys, alpha=alpha))

    def add_(self, xs, ys, alpha=1):
        ember._foreach_add_(xs, ys, alpha=alpha)

    def add_scalar_(self, xs, value):
        """Add a number, or a number per tensor, in place."""
        ember._foreach_add_(xs, value)

    def mul_(self, xs, value):
        """xs times a number, a number per tensor, or a tensor list, in place."""
        ember._foreach_mul_(xs, value)

    def lerp_(self, xs, ends, weight):
        ember._foreach_lerp_(xs, ends, weight)

    def addcmul_(self, xs, t1, t2, value=1):
        ember._foreach_addcmul_(xs, t1, t2, value)

    def addcmul(self, xs, t1, t2, value=1):
        return list(ember._foreach_addcmul(xs, t1, t2, value))

    def addcdiv_(self, xs, t1, t2, value=1):
        ember._foreach_addcdiv_(xs, t1, t2, value)

    def sqrt(self, xs):
        return list(ember._foreach_sqrt(xs))

    def sqrt_(self, xs):
        ember._foreach_sqrt_(xs)

    def maximum_(self, xs, ys):
        ember._foreach_maximum_(xs, ys)

    def abs(self, xs):
        return list(ember._foreach_abs(xs))

    def abs_(self, xs):
        ember._foreach_abs_(xs)

    def add_scalar(self, xs, value):
        return list(ember._foreach_add(xs, value))

    def sub(self, xs, ys):
        return list(ember._foreach_sub(xs, ys))

    def mul(self, xs, other):
        """xs times a number, a number per tensor, or a tensor list (fresh)."""
        return list(ember._foreach_mul(xs, other))

    def div(self, xs, other):
        return list(ember._foreach_div(xs, other))

    def div_(self, xs, other):
        ember._foreach_div_(xs, other)

    def reciprocal_(self, xs):
        ember._foreach_reciprocal_(xs)

    def rdiv(self, values, xs):
        """A number (per tensor) divided by each tensor, as `number / tensor` computes it:
        the reciprocal times the number."""
        out = list(ember._foreach_reciprocal(xs))
        ember._foreach_mul_(out, values)
        return out

    def sign_(self, xs):
        ember._foreach_sign_(xs)

    def copy_(self, xs, ys):
        ember._foreach_copy_(xs, ys)

    def copy_numbers_(self, xs, values):
        """Write a number into each tensor, made a tensor first (`as_tensor`: the default
        dtype's rounding)."""
        made: dict = {}     # (one tensor per distinct number: as_tensor is not observable)
        ember._foreach_copy_(xs, [made[v] if v in made else made.setdefault(
            v, ember.as_tensor(v)) for v in values])

    def neg_(self, xs):
        ember._foreach_neg_(xs)

    # Rprop's per-tensor steps, which PyTorch's foreach form runs tensor by tensor too

    def signs(self, xs):
        """The signs of each tensor (fresh), one `sign` per tensor."""
        return [x.sign() for x in xs]

    def sign_factors_(self, xs, plus, minus):
        """Each sign replaced by its factor: `plus` where positive, `minus` where negative,
        1 where zero (three masked writes per tensor)."""
        for x in xs:
            _sign_factors_(x, plus, minus)

    def clamp_(self, xs, low, high):
        for x in xs:
            x.clamp_(low, high)

    def clone(self, xs):
        return [x.clone(memory_format=ember.preserve_format) for x in xs]

    def zero_where_(self, xs, keys, value, single):
        """xs set to 0 where `keys` equals `value`: a masked write (`single`) or a copy of a
        `where` (PyTorch's foreach form)."""
        for x, key in zip(xs, keys):
            _zero_where_(x, key, value, single)

    def div_fresh(self, xs, values):
        """Divide a fresh list by one number per tensor (in place, as the foreach path)."""
        ember._foreach_div_(xs, values)
        return xs

    def complete(self, values):
        """Whether no entry of a state list is missing."""
        return all(v is not None for v in values)

    def gather(self, params):
        """Say that the update writes `params` more than once (nothing to do here; the
        blocks gather them rather than form one increment, NOTE [optimizer updates in
        blocks])."""

    def increment(self, steps):
        """Add one to the `step` counts (a CPU tensor as the operand, as PyTorch's)."""
        ember._foreach_add_(steps, ember.tensor(1.0), alpha=1.0)

    def values(self, steps, reads=1):
        """The step counts as numbers; under a mode read `reads` times each, as PyTorch's
        foreach form reads them (one `_local_scalar_dense` per use in its formulas)."""
        if not _dispatch_state.slow and steps[0]._device is CPU:
            flat = _foreach_layout.flat_of([s._data for s in steps])
            if flat is not None:
                return flat.tolist()
        for _ in range(reads - 1):
            for s in steps:
                s.item()
        return [s.item() for s in steps]

    def reread(self, steps, counts):
        """The step counts read again, as PyTorch's foreach form reads them once per bias
        correction (a mode sees each `_local_scalar_dense`); the plain path reuses `counts`."""
        return [s.item() for s in steps] if _dispatch_state.slow else counts


class _Each:
    """The list operations as Tensor ops on one-element lists (PyTorch's single-tensor path)."""

    foreach = False

    def reads_of_single_tensor_adam(self, params) -> None:
        """PyTorch's single-tensor Adam asks each parameter `is_complex` and reads its device
        (NOTE [an observed step reads as PyTorch's], optimizer.py)."""
        if _dispatch_state.entry:
            ember.is_complex(params[0])
            _ = params[0].device

    def neg(self, xs):
        return [-xs[0]]

    def add(self, xs, ys, alpha=1):
        return [xs[0].add(ys[0], alpha=alpha)]

    def add_(self, xs, ys, alpha=1):
        xs[0].add_(ys[0], alpha=alpha)

    def add_scalar_(self, xs, value):
        xs[0].add_(_one(value))

    def mul_(self, xs, value):
        xs[0].mul_(_one(value))

    def lerp_(self, xs, ends, weight):
        xs[0].lerp_(ends[0], weight)

    def addcmul_(self, xs, t1, t2, value=1):
        xs[0].addcmul_(t1[0], t2[0], value=value)

    def addcmul(self, xs, t1, t2, value=1):
        return [xs[0].addcmul(t1[0], t2[0], value=value)]

    def addcdiv_(self, xs, t1, t2, value=1):
        if type(value) is list:
            value = value[0]
        xs[0].addcdiv_(t1[0], t2[0], value=value)

    def sqrt(self, xs):
        return [xs[0].sqrt()]

    def sqrt_(self, xs):
        xs[0].sqrt_()

    def maximum_(self, xs, ys):
        ember.maximum(xs[0], ys[0], out=xs[0])

    def abs(self, xs):
        return [xs[0].abs()]

    def abs_(self, xs):
        xs[0].abs_()

    def add_scalar(self, xs, value):
        return [xs[0].add(_one(value))]

    def sub(self, xs, ys):
        return [xs[0].sub(ys[0])]

    def mul(self, xs, other):
        return [xs[0].mul(_one(other))]

    def div(self, xs, other):
        return [xs[0].div(_one(other))]

    def div_(self, xs, other):
        xs[0].div_(_one(other))

    def reciprocal_(self, xs):
        xs[0].reciprocal_()

    def rdiv(self, values, xs):
        return [_one(values) / xs[0]]

    def sign_(self, xs):
        xs[0].sign_()

    def copy_(self, xs, ys):
        xs[0].copy_(ys[0])

    def copy_numbers_(self, xs, values):
        xs[0].copy_(ember.as_tensor(values[0]))

    def neg_(self, xs):
        xs[0].neg_()

    def signs(self, xs):
        return [xs[0].sign()]

    def sign_factors_(self, xs, plus, minus):
        _sign_factors_(xs[0], plus, minus)

    def clamp_(self, xs, low, high):
        xs[0].clamp_(low, high)

    def clone(self, xs):
        return [xs[0].clone(memory_format=ember.preserve_format)]

    def zero_where_(self, xs, keys, value, single):
        _zero_where_(xs[0], keys[0], value, single)

    def div_fresh(self, xs, values):
        return [xs[0] / values[0]]

    def complete(self, values):
        return values[0] is not None

    def gather(self, params):
        pass

    def increment(self, steps):
        steps[0] += 1

    def values(self, steps, reads=1):
        return [steps[0].item()]

    def reread(self, steps, counts):
        return counts


def _sign_factors_(x, plus, minus) -> None:
    x[x.gt(0)] = plus
    x[x.lt(0)] = minus
    x[x.eq(0)] = 1


def _zero_where_(x, key, value, single) -> None:
    if single:
        x[key.eq(value)] = 0
    else:
        x.copy_(ember.where(key.eq(value), 0, x))


def _one(value):
    """The operand of a one-tensor list op: a list's (one) item, or the number itself."""
    return value[0] if type(value) is list else value


FOREACH = _Foreach()
EACH = _Each()


def observed(params) -> bool:
    """Whether a mode or a parameter's class can see the ops a step runs."""
    if _dispatch_state.slow:
        return True
    if _dispatch_state.overriding:
        types = set(map(type, params))
        types.discard(Tensor)
        return not types <= PLAIN
    return False


def use_foreach(group, params) -> bool:
    """FOREACH or EACH for this step (NOTE [optimizer updates as ops])."""
    foreach = group.get("foreach")
    if foreach:
        return True
    if group.get("differentiable"):
        return False
    if not observed(params):
        return True
    if foreach is None and group.get("fused") is None:
        _default_choice_reads(params)
    return False


def _default_choice_reads(params) -> None:
    """The reads PyTorch's default foreach choice makes: each parameter's device until one is
    not a foreach device (NOTE [an observed step reads as PyTorch's], optimizer.py)."""
    from ember.nn.parameter import Parameter
    for p in params:
        if type(p) is not ember.Tensor and type(p) is not Parameter:
            return
        if p.device.type not in ("cuda", "xpu"):
            return


def by_device_and_dtype(params):
    """Index lists of the parameters grouped by (device, dtype), in order of appearance."""
    first = params[0]
    count = len(params)
    if list(map(_DEVICE_OF, params)).count(first._device) == count and \
            list(map(_DTYPE_OF, params)).count(first._dtype) == count:
        return [range(count)]       # (one group: C-level passes, the common case)
    groups: dict = {}
    for i, p in enumerate(params):
        groups.setdefault((p._device, p._dtype), []).append(i)
    return list(groups.values())


def _blocks_plan(params, lists):
    """blocks.plan for a group of plain CPU tensors, else None (C-level passes)."""
    grads = lists[0]
    count = len(params)
    if list(map(_DEVICE_OF, params)).count(CPU) != count or \
            list(map(_DEVICE_OF, grads)).count(CPU) != count:
        return None
    types = set(map(type, params))
    types.update(map(type, grads))
    types.discard(Tensor)
    if not types <= PLAIN:
        return None
    return plan(params, lists)


def run(group, params, update, *lists, blocks=True, **hyper) -> None:
    """Run `update(lists_impl, params, *lists, **hyper)` the way NOTE [optimizer updates as
    ops] says: once per (device, dtype) group over FOREACH, or once per parameter over EACH;
    `blocks` False: never in blocks (an update whose ops need whole tensors)."""
    if use_foreach(group, params):
        if blocks and not _dispatch_state.slow and not _dispatch_state.grad_enabled():
            found = _blocks_plan(params, lists)
            if found is not None:       # NOTE [optimizer updates in blocks]
                # (the kernels' NumPy warnings off: NOTE [floating-point warnings])
                run_quietly(partial(run_blocks, update, params, lists,
                                    bool(group.get("foreach")), *found, **hyper))
                return
        for index in by_device_and_dtype(params):
            if len(index) == len(params):
                update(FOREACH, params, *lists, **hyper)
            else:
                update(FOREACH, [params[i] for i in index],
                       *[[values[i] for i in index] for values in lists], **hyper)
    else:
        for i, p in enumerate(params):
            update(EACH, [p], *[[values[i]] for values in lists], **hyper)


def group_states(optimizer, params, grads, keys, fresh) -> list:
    """Each parameter's state, filled by `fresh(param, grad)` (a dict, in PyTorch's key
    order) on its first step, with the entries named in `keys` laid out flat (keep_flat)."""
    states = []
    for param, grad in zip(params, grads):
        state = optimizer.state[param]
        if len(state) == 0:
            state.update(fresh(param, grad))
        states.append(state)
    keep_flat(params, states, keys)
    return states


def keep_flat(params, states, keys) -> None:
    """Lay out each state entry named in `keys` flat over one buffer per (dtype) run of the
    group, on the plain CPU path only (NOTE [optimizer updates as ops]); an entry already laid
    out so is left alone (one identity test per tensor)."""
    if len(params) < 2 or observed(params) or \
            list(map(_DEVICE_OF, params)).count(CPU) != len(params):
        return
    for index in by_device_and_dtype(params):
        if len(index) < 2:
            continue
        for key in keys:
            tensors = [states[i].get(key) for i in index]
            if any(map(operator.is_, tensors, repeat(None))):
                continue
            arrays = list(map(_DATA_OF, tensors))
            if _foreach_layout.flat_of(arrays) is not None:
                continue        # (the common case: laid out at an earlier step)
            if any(type(t) is not Tensor or t._device is not CPU or t._dtype.is_complex
                   or t._base is not None for t in tensors) or \
                    len(set(map(id, tensors))) != len(tensors):
                continue        # (views of other tensors, and shared entries, stay as they are)
            dtype = arrays[0].dtype
            if any(a.dtype != dtype for a in arrays):
                continue
            flat = np.concatenate([a.ravel() for a in arrays])
            views = _foreach_layout.flat_views(flat, [a.shape for a in arrays])
            for t, view in zip(tensors, views):
                _repoint(t, view)


def _repoint(t, view) -> None:
    """Make `t` hold `view` (same values): the tensor object stays, so `optimizer.state` and
    state dicts keep it; its version goes on counting up."""
    old = t._storage
    t._data = view
    t._storage = None
    bump_version(t)
    if old is not None:
        t._storage._version = old._version + 1


def as_real(tensors) -> list:
    """The tensors with complex ones seen as pairs of reals (`view_as_real_if_complex`)."""
    if not any(map(_IS_COMPLEX, map(_DTYPE_OF, tensors))):
        return tensors
    return [view_as_real_if_complex(t) for t in tensors]


_IS_COMPLEX = operator.attrgetter("is_complex")


def view_as_real_if_complex(t):
    """A complex tensor as pairs of reals (PyTorch's optimizers update those), others as they
    are."""
    if t._dtype.is_complex:
        return ember.view_as_real(t)
    return t
