"""`ember.library`: users' own operators, as torch.library declares them, entered in ember's op
registry (NOTE [users' ops are registry ops]).

    @ember.library.custom_op("mylib::scale", mutates_args=())
    def scale(x: ember.Tensor, k: float) -> ember.Tensor: ...
    @scale.register_fake                       # shapes and dtypes without data (FakeTensorMode)
    def _(x, k): return ember.empty_like(x)
    scale.register_autograd(backward, setup_context=setup_context)

`Library("mylib", "DEF").define(schema)` / `.impl(name, fn, "CPU")` is the lower-level form.
"""
from __future__ import annotations

import inspect
import typing

from ember import _library_rules as _rules
from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.device import CPU, as_device
from ember._core.registry import OPS, OpDef
from ember._tensor import Tensor

__all__ = ["Library", "CustomOpDef", "custom_op", "define", "fallthrough_kernel", "get_ctx",
           "get_kernel", "impl", "impl_abstract", "infer_schema", "register_autocast",
           "register_autograd", "register_fake", "register_kernel", "register_torch_dispatch",
           "register_vmap", "triton_op", "wrap_triton"]

fallthrough_kernel = _rules.fallthrough_kernel
get_ctx = _rules.get_ctx
wrap_triton = _rules.wrap_triton

# NOTE [users' ops are registry ops]: a user's op is an `OpDef` (kind "generic") under the key
# "ns::name", so it runs through the same levels as ember's own: __torch_function__, autograd
# (its formulas call the user's backward), TorchDispatchMode (which sees it as
# `ember.ops.<ns>.<name>.default`, printed "ns.name.default") and the back-end step, whose
# kernel entry wraps the arrays back into tensors and calls the user's function (below
# autograd and the modes, as PyTorch runs an op's kernel). The fake rule is the op's meta rule:
# the user's function gets meta tensors and its results give the shapes and dtypes.

NAMESPACES: dict = {}            # namespace -> {op name -> {overload -> OpDef}}


def _qualname(name: str):
    namespace, sep, rest = name.partition("::")
    if not sep or not namespace or not rest:
        raise ValueError(f"Expected there to be a namespace in {name}, i.e. The operator name "
                         "should look something like ns::foo")
    base, _, overload = rest.partition(".")
    return namespace, base, overload


def _lookup(op) -> OpDef:
    if isinstance(op, CustomOpDef):
        return op._opdef
    if isinstance(op, OpDef):
        return op
    found = _find(op)
    if found is None:
        raise ValueError(f"operator {op} does not exist (define it first)")
    return found


def _find(name: str):
    """The op `ns::name[.overload]` names (ember's own under "aten"), or None."""
    namespace, base, overload = _qualname(name)
    if namespace == "aten":
        key = base if overload in ("", "default") else f"{base}.{overload}"
        return OPS[key] if key in OPS else None
    return NAMESPACES.get(namespace, {}).get(base, {}).get(overload or "default")


def _declare(namespace: str, schema_text: str) -> OpDef:
    op = OpDef(schema_text, _undefined_kernel, kind="generic", method=False, function=False,
               out=False, differentiable=False)
    op.namespace = namespace
    op.name = f"{namespace}::{op.schema.name}" + (
        f".{op.schema.overload}" if op.schema.overload else "")
    op.meta = _no_fake_rule(op)
    if op.name in OPS:
        raise RuntimeError(f"Tried to register an operator ({op.name}) with the same name and "
                           "overload name multiple times.")
    OPS[op.name] = op
    overloads = NAMESPACES.setdefault(namespace, {}).setdefault(op.schema.name, {})
    overloads[op.schema.overload or "default"] = op
    return op


def _undefined_kernel(xp, *args):
    raise NotImplementedError("this operator has no implementation registered (Library.impl "
                              "or register_kernel)")


def _no_fake_rule(op):
    def meta(*args):
        raise RuntimeError(f"There was no fake impl registered for {op.name}. This is "
                           "necessary for torch.compile/export/fx tracing to work. Please use "
                           "`torch.library.register_fake` to add a fake impl.")
    return meta


def _as_tensors(arrays, xp):
    device = CPU if xp.__name__ == "numpy" else as_device("cuda")
    def one(a):
        return dispatch.wrap(a, dt.from_numpy_dtype(a.dtype), device) \
            if hasattr(a, "dtype") and hasattr(a, "shape") and not isinstance(a, Tensor) else a
    return [[one(x) for x in a] if isinstance(a, list) else one(a) for a in arrays]


def _kernel_from(fn):
    """The op's kernel entry (`f(xp, *arrays)`): the user's function on tensors."""
    from ember.autograd.grad_mode import no_grad

    def kernel(xp, *args):
        with no_grad():
            out = fn(*_as_tensors(args, xp))
        if isinstance(out, Tensor):
            return out._data
        return tuple(o._data if isinstance(o, Tensor) else o for o in out)
    kernel.__doc__ = fn.__doc__
    return kernel


def _meta_from(fn, op):
    """The op's meta rule: the user's fake function's results as (shape, dtype) specs (with
    `get_ctx()` answering inside it)."""
    def meta(*args):
        out = _rules.run_fake(op, fn, args)
        if isinstance(out, Tensor):
            return tuple(out.shape), out.dtype
        return [(tuple(o.shape), o.dtype) for o in out]
    return meta


def _set_kernel(op: OpDef, fn, key="CompositeExplicitAutograd") -> None:
    if key == "Meta":
        op.meta = _meta_from(fn, op)
        return
    op.register_kernel(key or "CompositeExplicitAutograd", _kernel_from(fn))


def _set_autograd(op: OpDef, backward, setup_context) -> None:
    names = [a.name for a in op.schema.arguments]
    tensor_names = [a.name for a in op.schema.arguments if a.is_tensor]

    def gradients(c):
        if c.memo is None:
            ctx = _Ctx()
            inputs = tuple(getattr(c, name) for name in names)
            output = c.results if len(op.schema.returns) > 1 else c.result
            if setup_context is not None:
                setup_context(ctx=ctx, inputs=inputs, output=output)
            grads = backward(ctx, *c.grads) if len(op.schema.returns) > 1 else \
                backward(ctx, c.grad)
            grads = grads if isinstance(grads, tuple) else (grads,)
            if len(grads) != len(names):
                raise RuntimeError(f"{op.name}: backward must return one gradient per input "
                                   f"({len(names)}), got {len(grads)}")
            c.memo = dict(zip(names, grads))
        return c.memo

    op.derivatives = {name: (lambda c, name=name: gradients(c)[name]) for name in tensor_names}
    op.differentiable = True


class _Ctx:
    """The `ctx` of a custom op's setup_context and backward: attributes, and saved tensors."""

    def save_for_backward(self, *tensors) -> None:
        self.saved_tensors = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        pass


class CustomOpDef:
    """A custom op made by `custom_op`: call it like the function it wraps."""

    def __init__(self, namespace, name, schema, fn) -> None:
        self._namespace, self._name = namespace, name
        self._opdef = _declare(namespace, f"{name}{schema}")
        self._init_fn = fn
        _set_kernel(self._opdef, fn)

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def __call__(self, *args, **kwargs):
        op = self._opdef
        return dispatch.call(op, op.bind(args, kwargs))

    def register_fake(self, fn):
        self._opdef.meta = _meta_from(fn, self._opdef)
        return fn

    def register_kernel(self, device_types, fn=None):
        def decorate(fn):
            for device in ([device_types] if isinstance(device_types, str) or device_types is
                           None else device_types):
                _set_kernel(self._opdef, fn, "CompositeExplicitAutograd" if device is None
                            else {"cpu": "CPU", "cuda": "CUDA"}.get(device, device))
            return fn
        return decorate if fn is None else decorate(fn)

    def register_autograd(self, backward, /, *, setup_context=None) -> None:
        _set_autograd(self._opdef, backward, setup_context)

    def register_autocast(self, device_type: str, cast_inputs) -> None:
        _rules.register_autocast(self._opdef, device_type, cast_inputs)

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        def decorate(fn):
            _rules.register_torch_dispatch(self._opdef, torch_dispatch_class, fn)
            return fn
        return decorate if fn is None else decorate(fn)

    def register_vmap(self, func=None, /):
        def decorate(func):
            _rules.register_vmap(self._opdef, func)
            return func
        return decorate if func is None else decorate(func)


def _schema_type(annotation, where) -> str:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is Tensor:
        return "Tensor"
    if origin is typing.Union and type(None) in args and len(args) == 2:
        return _schema_type(next(a for a in args if a is not type(None)), where) + "?"
    if origin in (list, tuple, typing.Sequence) or str(origin) == "collections.abc.Sequence":
        return _schema_type(args[0], where) + "[]"
    simple = {int: "SymInt", float: "float", bool: "bool", str: "str",
              dt.dtype: "ScalarType"}.get(annotation)
    if simple is None:
        raise ValueError(f"infer_schema(func): Parameter {where} has unsupported type "
                         f"{annotation}.")
    return simple


def infer_schema(prototype_function, /, *, mutates_args, op_name=None) -> str:
    """The schema `(Tensor x, float k) -> Tensor` of a type-annotated function."""
    hints = typing.get_type_hints(prototype_function)
    params = []
    for name, param in inspect.signature(prototype_function).parameters.items():
        if name not in hints:
            raise ValueError(f"infer_schema(func): Parameter {name} must have a type "
                             "annotation.")
        text = f"{_schema_type(hints[name], name)} {name}"
        if param.default is not inspect.Parameter.empty:
            text += f"={param.default!r}".replace("'", '"')
        params.append(text)
    returns = hints.get("return", type(None))
    if returns is type(None):
        shown = "()"
    elif typing.get_origin(returns) is tuple:
        shown = "(" + ", ".join(_schema_type(a, "return") for a in typing.get_args(returns)) + ")"
    else:
        shown = _schema_type(returns, "return")
    name = "" if op_name is None else op_name
    return f"{name}({', '.join(params)}) -> {shown}"


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    """Declare `fn` as the op `ns::name` (schema from its annotations, or `schema`)."""
    namespace, base, _ = _qualname(name)

    def decorate(fn):
        text = schema if schema is not None else infer_schema(fn, mutates_args=mutates_args)
        return CustomOpDef(namespace, base, text, fn)
    return decorate if fn is None else decorate(fn)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1):
    def decorate(func):
        found = _lookup(op)
        found.meta = _meta_from(func, found)
        return func
    return decorate if func is None else decorate(func)


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel=1):
    """The old name of `register_fake` (deprecated)."""
    import warnings
    warnings.warn("`torch.library.impl_abstract` was renamed to `torch.library.register_fake`. "
                  "Please use that instead; we will remove `torch.library.impl_abstract` in a "
                  "future version of PyTorch.", FutureWarning, stacklevel=2)
    return register_fake(qualname, func, lib=lib, _stacklevel=_stacklevel + 1)


def get_kernel(op, dispatch_key):
    """The kernel `op` ("ns::name.overload" or an op) runs for `dispatch_key`, callable with
    `.call_boxed(keyset, *args, **kwargs)` below the dispatcher."""
    if isinstance(op, str):
        found = _find(op)
        if found is None:
            raise RuntimeError(f"operator {op} does not exist")
    elif isinstance(op, OpDef):
        found = op
    else:
        raise ValueError(f"get_kernel({op}): got unexpected type for op: {type(op)}")
    return _rules.get_kernel(found, dispatch_key)


def register_autocast(op, device_type, cast_inputs, /, *, lib=None) -> None:
    """Under autocast for `device_type`, cast the op's floating inputs to `cast_inputs`."""
    _rules.register_autocast(_lookup(op), device_type, cast_inputs)


def register_torch_dispatch(op, torch_dispatch_class, func=None, /, *, lib=None):
    """`func(mode, func, types, args, kwargs)` in place of `torch_dispatch_class`'s
    `__torch_dispatch__` for this op."""
    def decorate(func):
        _rules.register_torch_dispatch(_lookup(op), torch_dispatch_class, func)
        return func
    return decorate if func is None else decorate(func)


def register_vmap(op, func=None, /, *, lib=None):
    """`func(info, in_dims, *args) -> (output, out_dims)`: the op under `ember.vmap`."""
    def decorate(func):
        _rules.register_vmap(_lookup(op), func)
        return func
    return decorate if func is None else decorate(func)


def triton_op(name, fn=None, /, *, mutates_args, schema=None):
    """A custom op whose body launches Triton kernels through `wrap_triton`: its body is also
    its fake rule (run on meta tensors, so no register_fake is needed)."""
    def decorate(fn):
        op = custom_op(name, fn, mutates_args=mutates_args, schema=schema)
        op.register_fake(fn)
        return op
    return decorate if fn is None else decorate(fn)


def register_autograd(op, backward, /, *, setup_context=None, lib=None) -> None:
    _set_autograd(_lookup(op), backward, setup_context)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    if isinstance(op, CustomOpDef):
        return op.register_kernel(device_types, func)

    def decorate(func):
        for device in ([device_types] if isinstance(device_types, str) or device_types is None
                       else device_types):
            _set_kernel(_lookup(op), func, "CompositeExplicitAutograd" if device is None else
                        {"cpu": "CPU", "cuda": "CUDA"}.get(device, device))
        return func
    return decorate if func is None else decorate(func)


class Library:
    """A namespace of ops: `kind` "DEF" (declares it), "FRAGMENT" (adds to it) or "IMPL"."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()) -> str:
        op = _declare(self.ns, schema)
        return op.schema.name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        name = op_name if isinstance(op_name, str) else op_name.__name__
        if "::" not in name:
            name = f"{self.ns}::{name}"
        key = dispatch_key or self.dispatch_key or "CompositeExplicitAutograd"
        if fn is fallthrough_kernel:
            _rules.register_fallthrough(_lookup(name), key)
            return
        _set_kernel(_lookup(name), fn, key)


def define(qualname, schema, *, lib=None, tags=()) -> None:
    """Declare the op `ns::name` with `schema` ("(Tensor x) -> Tensor")."""
    namespace, base, _ = _qualname(qualname)
    _declare(namespace, f"{base}{schema}")


def impl(qualname, types, func=None, *, lib=None):
    """Register `func` as the kernel of `qualname` for device `types` ("cpu", "cuda"...)."""
    return register_kernel(qualname, types, func)


class _OpNamespace:
    """`ember.ops.<ns>`: a library's ops by name (each an overload packet)."""

    def __init__(self, namespace: str) -> None:
        self._namespace = namespace

    def __getattr__(self, name: str):
        from ember._core.aten import OpOverloadPacket
        overloads = NAMESPACES.get(self._namespace, {}).get(name)
        if overloads is None:
            raise AttributeError(f"'_OpNamespace' '{self._namespace}' object has no attribute "
                                 f"'{name}'")
        return OpOverloadPacket(name, overloads)


def namespace(name: str):
    if name not in NAMESPACES:
        raise AttributeError(f"module 'ember.ops' has no attribute '{name}'")
    return _OpNamespace(name)
