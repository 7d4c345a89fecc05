"""`out=` calls as a TorchDispatchMode sees them: NOTE [out forms].

NOTE [out forms]: PyTorch's `torch.add(x, y, out=o)` reaches a TorchDispatchMode as the op's
out overload, `aten.add.out`, with `out` among its keyword arguments, and calling it writes
into `out` and returns it. ember computes an out= call with the op itself and copies
(`inplace_out.call_out`); while a dispatch mode is open (or a `__torch_dispatch__` subclass
takes part), a single-result, non-composite op's out= call is offered to the mode as its
`OutOp` instead, named as PyTorch names the overload (`out_overload`: `out` for the default
and most `Tensor` overloads, `<overload>_out` otherwise, `grad_input` for backward kernels,
and the exceptions PyTorch's schemas list in `_OUT_NAMES`; tests/decomp/test_out_forms.py
checks every ember op that takes out= against PyTorch's schemas). Called, an OutOp offers
itself to the next mode out, and with none left runs the op below autograd and copies into
`out` with call_out's rules. The plain path never looks: call_out tests `state.slow` first.
"""
from __future__ import annotations

import sys

from ember._core.dispatch import inplace_out
from ember._core.dispatch.inplace_out import OpForm

# The out overloads PyTorch names otherwise than the rule in `out_overload` (checked against
# PyTorch's schemas in tests/decomp/test_out_forms.py).
_TENSOR_OUT = (
    "remainder", "fmod", "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "clamp", "clamp_min",
    "clamp_max", "lerp", "fill", "index", "masked_fill", "searchsorted", "bucketize",
)
_OUT_NAMES = {
    **{f"{name}.Tensor": "Tensor_out" for name in _TENSOR_OUT},
    "div.Tensor_mode": "out_mode",
    "div.Scalar_mode": "Scalar_mode_out",
    "xlogy.Tensor": "OutTensor",
    "xlogy.Scalar_Self": "OutScalar_Self",
    "xlogy.Scalar_Other": "OutScalar_Other",
    "sum.dim_IntList": "IntList_out",
    "mean.dim": "out",
    "prod.dim_int": "int_out",
    "max.default": "unary_out",
    "min.default": "unary_out",
    "norm.ScalarOpt_dim_dtype": "dtype_out",
    "norm.ScalarOpt_dim": "out",
    "norm.ScalarOpt_dtype": "dtype_out",
    "all.default": "all_out",
    "any.default": "all_out",
    "all.dim": "out",
    "any.dim": "out",
    "mean.default": "dtype_out",
    **{f"{name}.default": "out" for name in (
        "_adaptive_avg_pool2d_backward", "_adaptive_avg_pool3d_backward", "_ctc_loss_backward",
        "embedding_dense_backward", "hardswish_backward", "huber_loss_backward",
        "select_backward", "slice_backward")},
}


def out_overload(op) -> str:
    """The name of PyTorch's out overload for the op entry (or overload form) `op`."""
    name, overload = op.schema.name, op.schema.overload or "default"
    found = _OUT_NAMES.get(f"{name}.{overload}")
    if found is not None:
        return found
    if overload == "default" and name.endswith("_backward"):
        return "grad_input"
    if overload in ("default", "Tensor"):
        return "out"
    return overload + "_out"


class OutOp(OpForm):
    """The out overload of an op entry (`aten.add.out`); calling it with `out=` writes the
    op's result there and returns it."""

    __slots__ = ()

    @property
    def _overloadname(self) -> str:
        return out_overload(self.op)

    @property
    def _schema(self):
        return self.op.schema

    def __call__(self, *args, **kwargs):
        out = kwargs.pop("out")
        op, args = self._bound(args, kwargs)
        return offer(op, args, out, self)


_out_ops: dict = {}


def out_op(op) -> OutOp:
    found = _out_ops.get(op)
    if found is None:
        found = _out_ops[op] = OutOp(op)
    return found


def offers(op) -> bool:
    """Whether an out= call of `op` reaches dispatch modes as its OutOp."""
    return op.num_outputs == 1 and op.decomposition is None


def offer(op, args, out, func=None):
    """The out= call offered to the innermost dispatch mode as its OutOp (`func`, else the
    OutOp of the form the call fits); with no mode left, computed and copied into `out`."""
    layered = inplace_out.layered
    modes = layered.modes
    stack = modes.dispatch_modes
    if func is None:
        func = out_op(layered.offered(op, args))
    if stack:
        fargs, fkwargs = layered.schema_args(func.op, args if func.op.redirect is None else
                                             _form_args(func.op, args))
        fkwargs["out"] = out
        types = tuple(dict.fromkeys(type(v) for v in (*layered._tensor_values(op, args), out)
                                    if isinstance(v, inplace_out.Tensor)
                                    and type(v) is not inplace_out.Tensor))
        mode = stack.pop()
        modes.below_autograd += 1
        try:
            return mode.__torch_dispatch__(func, types, fargs, fkwargs)
        finally:
            modes.below_autograd -= 1
            stack.append(mode)
    return inplace_out.compute_out(op, args, out, layered.dispatch_level)


def _form_args(form, args):
    """A base op's arguments as the overload form `form` names them (the same values: a
    form's schema lists its base's arguments, NOTE [overload forms])."""
    return args[:len(form.schema.arguments)]


inplace_out.out_forms = sys.modules[__name__]
