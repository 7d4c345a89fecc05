"""The dispatch stack: `call(op, args)` and the levels a call passes through, top to bottom.

    1. __torch_function__: TorchFunctionModes (innermost first), then Tensor subclasses that
       ask for it (subclasses.py). They see the public call (`ember.add`, `Tensor.add`,
       `Tensor.__add__` ...) with the arguments as the user could have written them; the
       caller names it (NOTE [the public function reaches level 1]; hand-written functions:
       NOTE [the public entry], entry.py).
    2. autograd: handlers (forward-AD tangents, process-wide; inference-tensor marking, per
       thread), then `record` when grad mode is on and an input requires grad.
    3. __torch_dispatch__: TorchDispatchModes see the op entry itself (`OpDef`, which looks
       like `ember.ops.aten.add.Tensor`); ops they run go below autograd.
    4. the back-end step of the op's kind (runners.py, pointwise.py).

NOTE [the plain call]: with no mode anywhere (`state.slow` False) and plain-acting CPU tensors,
the op's runner does the whole stack itself: kernel, wrap, and autograd's `record` when an
input requires grad. Any call it can't serve goes to `function_level` and down the levels.
The generated bindings take `call`'s first step inline (`op.runner(op, args)` unless
`state.slow`), so every op entry has its runner once built (`prepare_runners`); otherwise they
call `call(op, args, fn)` with their own public function (NOTE [the public function reaches
level 1]).

NOTE [mode state is per thread]: modes, handlers and the below-autograd depth live in `modes`
(a threading.local), as PyTorch keeps them per thread; the one exception is forward AD, whose
handler sits in the process-wide `global_handlers`. `state.slow` counts for the process:
it is True while any thread has something open, and a thread with nothing open then takes the
plain call anyway (one more attribute read).
"""
from __future__ import annotations

import sys
import threading

import numpy as np

from ember._core import arguments
from ember._core.dispatch import inplace_out, out_forms, pointwise, runners, subclasses  # noqa: F401
from ember._core.dispatch.process_state import state
from ember._core.dispatch.sparse import made as _sparse_made
from ember._core.dispatch.sparse import run_sparse, sparse_operand
from ember._core.dispatch.subclasses import DISPATCH, FUNCTION
from ember._core.registry import on_built

Tensor = None            # set by ember._tensor once the class exists (set_tensor_class)

_RUNNERS = {
    "pointwise": pointwise.run_pointwise,
    "reduction": runners.run_generic,
    "view": runners.run_view,
    "generic": runners.run_generic,
    "factory": runners.run_factory,
}
_BACKEND_STEPS = {
    "pointwise": pointwise.run_pointwise_general,
    "reduction": runners.run_generic_general,
    "view": runners.run_view_general,
    "generic": runners.run_generic_general,
    "factory": runners.run_factory_general,
}


def backend_step(op, args):
    """Level 4: the call's layout (read only once a sparse tensor exists: NOTE [sparse layout])
    picks a sparse entry of the op's kernel table, else the strided step of the op's kind
    resolves its kernel from the table (NOTE [the kernel table]). Inlined in `function_level`
    and `dispatch_level`."""
    if _sparse_made:
        sparse = sparse_operand(op, args)
        if sparse is not None:
            return run_sparse(op, args, sparse)
    return _BACKEND_STEPS[op.kind](op, args)


class _ThreadModes(threading.local):
    def __init__(self):
        self.active = 0             # entries open in this thread (modes, handlers, guards)
        self.function_modes = []    # TorchFunctionMode stack, innermost last
        self.function_off = 0       # DisableTorchFunction depth (modes and subclasses)
        self.subclass_off = 0       # DisableTorchFunctionSubclass depth
        self.handlers = []          # (op, args, below) -> result, at the autograd level
        self.skip_global = 0        # >0: the process-wide handlers are off in this thread
        self.dispatch_modes = []    # TorchDispatchMode stack, innermost last
        self.below_autograd = 0     # inside a __torch_dispatch__: ops skip autograd


modes = _ThreadModes()
subclasses.modes = modes
_open_lock = threading.Lock()
_open_total = 0                 # entries open across all threads
# Handlers for every thread: forward AD's dual levels are process-wide in PyTorch.
global_handlers: list = []


class ModeOnStack:
    """What TorchFunctionMode and TorchDispatchMode share: `with mode:` pushes it on this
    thread's stack named by `_stack_name` (a `modes` attribute) and opens the layered path."""

    _stack_name = ""

    def __enter__(self):
        getattr(modes, self._stack_name).append(self)
        open_entry()
        return self

    def __exit__(self, *exc):
        stack = getattr(modes, self._stack_name)
        if stack and stack[-1] is self:
            stack.pop()
        else:
            stack.remove(self)
        close_entry()
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        mode = cls(*args, **kwargs)
        mode.__enter__()
        return mode


def open_entry(process_wide=False) -> None:
    """Count something opened (a mode or handler of this thread, or with `process_wide` one
    for every thread): calls go down the layered path."""
    global _open_total
    if not process_wide:
        modes.active += 1
    with _open_lock:
        _open_total += 1
    refresh_slow_path()


def close_entry(process_wide=False) -> None:
    global _open_total
    if not process_wide:
        modes.active -= 1
    with _open_lock:
        _open_total -= 1
    refresh_slow_path()


def refresh_slow_path() -> None:
    """Recompute `state.slow` after a switch or mode changes (see NOTE [the slow path])."""
    state.slow = _open_total > 0 or state.deterministic is not None
    state.entry = state.slow or state.entry_subclass


# --------------------------------------------------------------------------- entry points

def call(op, args, public=None):
    """Run `op` on `args`. `public` is the public function the caller is (NOTE [the public
    function reaches level 1]); the bindings pass it only while `state.slow` is True."""
    try:
        if state.slow:
            return _call_slow(op, args, public)
        runner = op.runner or _prepare(op)
        return runner(op, args)
    except Exception as exc:
        # Foreign exceptions become PyTorch's (NOTE [argument parsing]); free until one.
        arguments.explain(exc, op.python_name, False, op, args)
        raise


def _prepare(op):
    op.runner = _RUNNERS[op.kind]
    return op.runner


def prepare_runners() -> None:
    """Give each op entry without one its runner as it is built (NOTE [op entries are built on
    first use]): the generated bindings do `call`'s first step themselves and call `op.runner`
    directly when `state.slow` is False."""
    on_built(_prepare_if_missing)


def _prepare_if_missing(op) -> None:
    if op.runner is None:
        _prepare(op)


def _call_slow(op, args, public):
    if state.deterministic is not None and "nondeterministic" in op.tags:
        state.deterministic(op)
    if not modes.active and not global_handlers:
        runner = op.runner or _prepare(op)
        return runner(op, args)
    return function_level(op, args, None, public)


def call_aten(op, args):
    """An op entry called directly (`ember.ops.aten.add.Tensor(...)`, or a dispatch mode's
    `func(...)`): it enters below the __torch_function__ level unless a function mode or an
    overriding argument asks for it (NOTE [overloads reach __torch_function__])."""
    if not state.slow and not state.overriding:
        if op.redirect is not None:         # a form runs its base (NOTE [overload forms])
            base, to_base = op.redirect
            op, args = base, (args if to_base is None else to_base(*args))
        runner = op.runner or _prepare(op)
        return runner(op, args)
    if not modes.function_off and (modes.function_modes or (
            state.overriding and overloaded_args(op, args))):
        # NOTE [overloads reach __torch_function__]: as in PyTorch, an OpOverload called
        # (`ember.ops.aten.add.Tensor(x, y)`) is offered to TorchFunctionModes and overriding
        # arguments with itself as the function; the mode's `func(...)` comes back here with
        # the mode popped. (Internal calls made inside a public call run with it popped too.)
        fargs, fkwargs = schema_args(op, args)
        return handle_torch_function(op, fargs + tuple(fkwargs.values()), fargs, fkwargs)
    offer = op              # an overload called by name reaches a mode as itself
    if op.redirect is not None:
        base, to_base = op.redirect
        op, args = base, (args if to_base is None else to_base(*args))
    if state.deterministic is not None and "nondeterministic" in op.tags:
        state.deterministic(op)
    return autograd_level(op, args, offer)


# --------------------------------------------------------------------------- 1. __torch_function__

def function_level(op, args, out=None, public=None):
    """The layered path's top: hand the public call to __torch_function__ when a mode or an
    argument asks for it, else go on to autograd. `public`: the caller's public function, or
    None for the op's own (`_default_public`)."""
    if not state.slow:
        # Nothing is open in any thread: only a subclass argument can ask for a level.
        if state.overriding:
            if overloaded_args(op, args):
                return _to_torch_function(op, args, out, public)
            return autograd_level(op, args)
        sparse = sparse_operand(op, args) if _sparse_made else None   # (backend_step, inline)
        result = _BACKEND_STEPS[op.kind](op, args) if sparse is None else \
            run_sparse(op, args, sparse)
        if state.record is not None:
            for i in op.tensor_positions:
                v = args[i]
                if (type(v) is Tensor or isinstance(v, Tensor)) and v._requires_grad:
                    state.record(op, args, result)
                    return result
            for i in op.list_positions:
                for v in args[i]:      # the back-end step checked: tensors or None
                    if v is not None and v._requires_grad:
                        state.record(op, args, result)
                        return result
        return result
    if modes.function_off:
        return autograd_level(op, args)
    if modes.function_modes or (state.overriding and overloaded_args(op, args)):
        return _to_torch_function(op, args, out, public)
    return autograd_level(op, args)


def _to_torch_function(op, args, out, public):
    func, fargs, fkwargs = _public_call(op, args, out, public)
    relevant = fargs if out is None else fargs + (out,)
    return handle_torch_function(func, relevant, fargs, fkwargs)


def torch_function_wanted(values) -> bool:
    """Whether a public function outside the registry (Tensor.backward ...) called with
    `values` goes to __torch_function__ (has_torch_function)."""
    if modes.function_off:
        return False
    return bool(modes.function_modes) or bool(state.overriding and overloaded_args(None, values))


def overloaded_args(op, values):
    """The arguments whose type asks for __torch_function__ (subclasses before their bases,
    otherwise left to right), as PyTorch orders them."""
    if modes.subclass_off or modes.function_off:
        return ()
    return _one_per_class(_tensor_values(op, values), FUNCTION)


def _tensor_values(op, args):
    if op is None:
        yield from _flat(args)
        return
    for i in op.tensor_positions:
        yield args[i]
    for i in op.list_positions:
        yield from args[i]


def _flat(values):
    for v in values:
        if type(v) is list or type(v) is tuple:
            yield from _flat(v)
        else:
            yield v


def handle_torch_function(func, relevant_args, args, kwargs):
    """Offer `func(*args, **kwargs)` to the innermost TorchFunctionMode, then to each
    overloaded argument's `__torch_function__`; the first answer that is not NotImplemented
    wins. The mode is popped while it runs, so its own calls reach the next one down."""
    overloaded = overloaded_args(None, relevant_args)
    types = tuple(type(v) for v in overloaded)
    stack = modes.function_modes
    if stack and not modes.function_off:
        mode = stack.pop()
        try:
            result = mode.__torch_function__(func, types, args, kwargs)
        finally:
            stack.append(mode)
        if result is not NotImplemented:
            return result
    for v in overloaded:
        result = type(v).__torch_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{_func_name(func)}' on types that "
                    f"implement __torch_function__: {list(types)}")


def _func_name(func):
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", repr(func))


# NOTE [the function __torch_function__ sees]: for an operator PyTorch hands __torch_function__
# the Tensor method the operator stands for, with the tensor first: `t * 2` and `2 * t` are
# Tensor.mul(t, 2), `2 < t` is Tensor.gt(t, 2), `t -= 1` is Tensor.sub_(t, 1). These keep their
# own dunder: __eq__, __floordiv__, __and__/__or__/__xor__ and their in-place forms, the shifts,
# __invert__, and the reflected forms not listed here (__rsub__, __rpow__ ...).
REPORTED_AS = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul", "__rmul__": "mul",
    "__truediv__": "div", "__rtruediv__": "__rdiv__", "__mod__": "remainder", "__pow__": "pow",
    "__matmul__": "matmul", "__rand__": "bitwise_and", "__ror__": "bitwise_or",
    "__rxor__": "bitwise_xor", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
    "__ge__": "ge", "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_",
    "__itruediv__": "div_", "__ifloordiv__": "floor_divide_", "__imod__": "remainder_",
    "__ipow__": "pow_", "__neg__": "neg", "__pos__": "positive", "__abs__": "abs",
}


# NOTE [the public function reaches level 1]: nothing finds a caller by walking frames. The
# generated bindings pass themselves (`call(op, args, fn)`; a method or dunder passes its
# `_Methods` entry) when `state.slow` is True, and only then: the plain call stays
# `op.runner(op, args)`. Hand-written functions hand themselves over at their entry (NOTE [the
# public entry], entry.py). With no mode open, an overriding subclass reaches its methods' and
# operators' calls through the hooks on the subclass (NOTE [subclass methods reach
# __torch_function__]); a call that names no function (a function form, or an op called from a
# composite's body) is reported as the op's `ember.*` function or method.
def _public_call(op, args, out, public, inplace=False):
    """(public function, args, kwargs) for an op call: `public` (the binding or dunder that
    made it), else the op's `ember.*` function or method; an operator's dunder is reported as
    PyTorch reports it (NOTE [the function __torch_function__ sees])."""
    func = public if public is not None else _default_public(op, inplace)
    how = op.dunders.get(func.__name__)
    func = reported(func)
    if how == "reflect":
        return func, (args[1], args[0]), {}
    if how == "unary":
        return func, (args[0],), {}
    if how is not None:
        return func, (args[0], args[1]), {}
    fargs, fkwargs = schema_args(op, args)
    if out is not None:
        fkwargs["out"] = out
    return func, fargs, fkwargs


def reported(func):
    """The function __torch_function__ is handed for `func`: an operator's dunder as PyTorch
    reports it (NOTE [the function __torch_function__ sees]), anything else as it is."""
    name = getattr(func, "__name__", None)
    if name not in REPORTED_AS:
        return func
    return getattr(Tensor, REPORTED_AS[name], func)


def _default_public(op, inplace):
    name = op.python_name + "_" if inplace else op.python_name
    bindings = sys.modules["ember._generated.bindings"]
    if not inplace and op.function and hasattr(bindings, name):
        return getattr(bindings, name)
    return getattr(Tensor, name, op)


def schema_args(op, args):
    """The schema's positional arguments as args (trailing defaults left off) and its
    keyword-only ones that differ from their default as kwargs."""
    fargs, fkwargs = [], {}
    for param, value in zip(op.schema.arguments, args):
        if param.kwarg_only:
            if not _is_default(param, value):
                fkwargs[param.name] = value
        else:
            fargs.append(value)
    params = [p for p in op.schema.arguments if not p.kwarg_only]
    while fargs and _is_default(params[len(fargs) - 1], fargs[-1]):
        fargs.pop()
    return tuple(fargs), fkwargs


def _is_default(param, value):
    if not param.has_default:
        return False
    default = param.default
    if value is default:
        return True
    kind = type(value)
    return kind is type(default) and kind in (int, float, bool, str) and value == default


# --------------------------------------------------------------------------- 2. autograd

# NOTE [composites decompose under modes]: the ops PyTorch implements as CompositeImplicitAutograd
# (linear, matmul, softmax.int, flatten ...) never reach a TorchDispatchMode or a
# `__torch_dispatch__` subclass there: they decompose above autograd, so a mode sees
# `t` + `addmm` for a linear and autograd records the pieces. ember keeps such ops as single
# entries with their own kernel and derivative (the fast path is unchanged); when a dispatch
# mode or subclass is active, `op.decomposition` (set by ember._decomp.composite) runs instead,
# here at the autograd level's top. A mode whose `_sees_composites` is True (the profiler) gets
# the op itself. ember._decomp is loaded when a dispatch mode class or subclass is defined.

def autograd_level(op, args, offer=None):
    """`offer`: the overload a mode is shown (an op called by name: itself), else the form the
    call fits (NOTE [overload forms])."""
    if op.decomposition is not None and _decomposes(op, args):
        return op.decomposition(*args)
    if modes.below_autograd:
        return dispatch_level(op, args, offer=offer)
    handlers = modes.handlers
    if global_handlers and not modes.skip_global:
        handlers = global_handlers + handlers
    if handlers:
        return _call_handlers(op, args, handlers, len(handlers) - 1)
    return _autograd(op, args, offer)


def _decomposes(op, args):
    """Whether a composite op runs its decomposition (NOTE [composites decompose under
    modes])."""
    stack = modes.dispatch_modes
    if stack:
        return not stack[-1]._sees_composites
    return bool(state.overriding and _dispatch_subclass_args(op, args))


def _call_handlers(op, args, handlers, index):
    """Handler `index` (innermost last) runs the op, passing on to the ones before it."""
    if index < 0:
        return _autograd(op, args)
    return handlers[index](
        op, args, lambda op2, args2: _call_handlers(op2, args2, handlers, index - 1))


def _autograd(op, args, offer=None):
    out = dispatch_level(op, args, offer=offer)
    if state.record is not None and needs_grad(op, args):
        state.record(op, args, out)
        if (modes.dispatch_modes or state.overriding) and result_saved(op, args, offer):
            _detach_saved_outputs(op, out)
    return out


# NOTE [saved outputs are detached under modes]: PyTorch's autograd keeps an op's output for the
# backward formula (relu, sigmoid, _softmax, linalg_qr: the ops whose derivative reads "result")
# as a detached alias, which a TorchDispatchMode sees as `aten.detach.default` right after the
# op, one per floating output. ember's record keeps the output itself; under a mode (or on a
# `__torch_dispatch__` subclass's output) the detach is run for it to see (ops that save only
# some outputs, "result1", save ones PyTorch marks non-differentiable, and PyTorch runs no
# detach for them either). Ops whose ember formulas read the output where PyTorch's read the
# inputs are tagged "output_saved_by_ember_only" (no detach there).

def _detach_saved_outputs(op, out):
    if not op.differentiable or not state.grad_enabled():
        return
    for v in (out if type(out) is tuple else (out,)):
        if isinstance(v, Tensor) and (v._dtype.is_floating_point or v._dtype.is_complex):
            detach_for_modes(v)


def result_saved(op, args, offer=None) -> bool:
    """Whether PyTorch's autograd keeps this call's output: the op's (or the overload form's
    the call reaches a mode as, NOTE [overload forms]) formulas read "result". `args` may be a
    node's saved arguments (a tensor's stand-in is no number)."""
    form = offer or offered(op, args)
    if form is not op:
        return form.saves is not None and "result" in form.saves
    return op.saves is not None and "result" in op.saves and \
        "output_saved_by_ember_only" not in op.tags


def detach_for_modes(t, op=None, args=None):
    """The `aten.detach` PyTorch's autograd runs on a tensor it keeps or hands over, run for
    an active mode (or subclass) to see: a saved output unpacked for `op`'s formula, called
    with `args` (NOTE [saved outputs are detached under modes]), or a gradient a leaf takes as
    its `.grad`. The mode's result is returned; without a mode, `t` itself."""
    if not (modes.dispatch_modes or (state.overriding and type(t) in DISPATCH)):
        return t
    if op is not None and not result_saved(op, args):
        return t
    return dispatch_level(_detach_op(), (t,))


def _detach_op():
    from ember._core.registry import OPS
    return OPS["detach"]


def offered(op, args):
    """The op a mode is offered for this call: the form of it the call fits (NOTE [overload
    forms], registry.py), else the op itself."""
    for numbers, when, form in op.forms:
        if when is not None:
            if when(args):
                return form
            continue
        for i in numbers:
            a = args[i]
            if a is not None and not isinstance(a, _NUMBERS):
                break
        else:
            return form
    return op


_NUMBERS = (int, float, complex, np.generic)


def needs_grad(op, args):
    for i in op.tensor_positions:
        v = args[i]
        if isinstance(v, Tensor) and v._requires_grad:
            return True
    for i in op.list_positions:
        for v in args[i]:
            if isinstance(v, Tensor) and v._requires_grad:
                return True
    return False


# --------------------------------------------------------------------------- 3. __torch_dispatch__

def dispatch_level(op, args, func=None, offer=None):
    """Offer the op to the innermost TorchDispatchMode (`func` stands for it: its in-place
    form; else `offer`, or the form of it the call fits), else run the back-end step."""
    stack = modes.dispatch_modes
    if stack:
        fargs, fkwargs = schema_args(op, args)
        types = tuple(dict.fromkeys(type(v) for v in _tensor_values(op, args)
                                    if isinstance(v, Tensor) and type(v) is not Tensor))
        mode = stack.pop()
        modes.below_autograd += 1
        target = func or offer or offered(op, args)
        try:
            if dispatch_rules:
                rule = _dispatch_rule(target, op, type(mode))
                if rule is not None:
                    return rule(mode, target, types, fargs, fkwargs)
            return mode.__torch_dispatch__(target, types, fargs, fkwargs)
        finally:
            modes.below_autograd -= 1
            stack.append(mode)
    if state.overriding:
        subclassed = _dispatch_subclass_args(op, args)
        if subclassed:
            return _to_subclass_dispatch(func or offer or offered(op, args), op, args,
                                        subclassed)
    if func is not None:          # an in-place op with no mode left: run it here
        return inplace_out.run_inplace_below_modes(op, args)
    if _sparse_made:                                            # (backend_step, inline)
        sparse = sparse_operand(op, args)
        if sparse is not None:
            return run_sparse(op, args, sparse)
    return _BACKEND_STEPS[op.kind](op, args)


# Users' rules (torch.library.register_torch_dispatch): op -> {mode or subclass class: rule},
# called as rule(mode or class, func, types, args, kwargs) in place of the class's own
# __torch_dispatch__ (NOTE [rules attached to users' ops], ember/_library_rules.py).
dispatch_rules: dict = {}


def _dispatch_rule(offered_op, op, kind):
    rules = dispatch_rules.get(offered_op) or dispatch_rules.get(op)
    return None if rules is None else rules.get(kind)


def _dispatch_subclass_args(op, args):
    return _one_per_class(_tensor_values(op, args), DISPATCH)


def _one_per_class(values, kinds):
    """One value of each class in `kinds`, subclasses before their bases, otherwise left to
    right (PyTorch's order for offering an op to overriding arguments)."""
    found = []
    for v in values:
        kind = type(v)
        if kind in kinds and all(type(f) is not kind for f in found):
            index = len(found)
            for k, f in enumerate(found):
                if issubclass(kind, type(f)):
                    index = k
                    break
            found.insert(index, v)
    return found


def _to_subclass_dispatch(func, op, args, subclassed):
    """Offer the op to each argument's `__torch_dispatch__` (wrapper subclasses unwrap their
    inner tensors and call `func` on those); below autograd, as for modes."""
    fargs, fkwargs = schema_args(op, args)
    types = tuple(type(v) for v in subclassed)
    modes.below_autograd += 1
    open_entry()
    try:
        for v in subclassed:
            rule = _dispatch_rule(func, op, type(v)) if dispatch_rules else None
            if rule is not None:
                result = rule(type(v), func, types, fargs, fkwargs)
            else:
                result = type(v).__torch_dispatch__(func, types, fargs, fkwargs)
            if result is not NotImplemented:
                return result
    finally:
        modes.below_autograd -= 1
        close_entry()
    raise TypeError(f"no implementation found for '{func}' on types that implement "
                    f"__torch_dispatch__: {list(types)}")


pointwise.general = function_level
runners.general = function_level
inplace_out.layered = sys.modules[__name__]
