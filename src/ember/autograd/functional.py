"""Higher-level autograd: `jacobian`, `hessian`, `vjp`, `jvp`, `hvp` and `vhp` of a function,
as in `torch.autograd.functional`.

All of them run on the reverse-mode engine. Forward-mode products (`jvp`, `hvp`, the
"forward-mode" jacobian) use the double-backward trick (NOTE [double-backward trick]).
"""
from __future__ import annotations

from ember._core import dispatch
from ember.autograd import grad_mode
from ember.autograd.engine import grad as _engine_grad
from ember._core.registry import OPS

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

# NOTE [double-backward trick]: for outputs y = f(x), g(u) = J^T u is linear in the cotangent
# u, so the gradient of <g(u), v> with respect to u is J v. We run one backward with a dummy
# u that requires grad (create_graph=True) and differentiate its result with respect to u.


# --------------------------------------------------------------------------- stacking helpers
# stack/unbind through the registry (both are differentiable to any order); ember.func uses them.

def _stack(tensors, dim=0):
    return dispatch.call(OPS["stack"], (list(tensors), dim))


def _unbind(tensor, dim=0):
    """unbind, always as a tuple."""
    return tuple(dispatch.call(OPS["unbind.int"], (tensor, dim)))


# --------------------------------------------------------------------------- shared steps

def _as_tuple(value, arg_name, fn_name):
    """(was it a tuple, the tensors as a tuple); anything but Tensors is a TypeError."""
    Tensor = dispatch.Tensor
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"the value at index {i} has type" if is_tuple else \
                f"the given {arg_name} has type"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where} {type(item)}.")
    return is_tuple, items


def _unpack(result, was_tuple):
    """Undo `_as_tuple` on a result: a lone Tensor for a lone Tensor argument."""
    return result if was_tuple else result[0]


def _unpack2(result, outputs_tuple, inputs_tuple):
    """Undo `_as_tuple` on a (per output, per input) nested result."""
    if not inputs_tuple:
        result = tuple(row[0] for row in result)
    return result if outputs_tuple else result[0]


def _fresh_inputs(inputs, create_graph, need_graph):
    """Inputs to differentiate with respect to: differentiable aliases of inputs that already
    require grad when the caller wants a graph through us, else new leaves."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(values, create_graph):
    """Detach results (recursively through tuples) unless the caller asked for a graph."""
    if create_graph:
        return values
    if isinstance(values, tuple):
        return tuple(_finish(v, False) for v in values)
    return values.detach()


def _check_v(v, ref, ref_is_tuple):
    if len(v) != len(ref):
        if ref_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(ref)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, ref)):
        if a.size() != b.size():
            prefix = f"Entry {i} in " if ref_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {b.size()} but got "
                               f"{a.size()}.")


_STRICT_MESSAGES = {
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of "
                    "the user-provided function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."),
}


def _strict_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[kind].format(i=i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad; None for every input if none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept, kept_grads = [], []
    for out, g in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            kept.append(out)
            kept_grads.append(g)
    if not kept:
        return (None,) * len(inputs)
    return _engine_grad(kept, inputs, kept_grads, retain_graph=retain_graph,
                        create_graph=create_graph, allow_unused=True)


_ZERO_FILL_MESSAGES = {
    "back": ("The output of the user-provided function is independent of input {i}. This is "
             "not allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry "
                          "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _zeros_for_missing(grads, refs, strict, create_graph, stage):
    """Replace None gradients by zeros (the mathematical value) or, in strict mode, raise."""
    from ember._ops.creation import zeros_like
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_FILL_MESSAGES[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        out.append(g)
    return tuple(out)


def _one_hot(ref, index):
    """A tensor shaped like `ref`, zero but for a one at flat position `index`."""
    from ember._ops.creation import zeros_like
    basis = zeros_like(ref)
    basis.reshape(-1)[index] = 1
    return basis


def _prepare_v(v, ref, ref_is_tuple, create_graph, fn_name, v_none_message):
    if v is None:
        if len(ref) != 1 or ref[0].nelement() != 1:
            raise RuntimeError(v_none_message)
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _fresh_inputs(v, create_graph, need_graph=False)
    _check_v(v, ref, ref_is_tuple)
    return v


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is "
                 "a single Tensor with a single element.")


# --------------------------------------------------------------------------- public API

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs),
                                           "outputs of the user-provided function", "vjp")
        _strict_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, outputs_tuple, create_graph, "vjp",
                       "The vector v can only be None if the user-provided function returns "
                       "a single Tensor with a single element.")
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-backward trick."""
    from ember._ops.creation import zeros_like
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, create_graph, "jvp", _V_NONE_INPUT)
        outputs_tuple, outputs = _as_tuple(func(*inputs),
                                           "outputs of the user-provided function", "jvp")
        _strict_requires_grad(outputs, "outputs", strict)
        dummy = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, dummy, create_graph=True)
        _strict_requires_grad(grad_inputs, "grad_inputs", strict)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        grads = _grad(grad_inputs, dummy, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), outputs_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of `func` at `inputs`: J[i][j] has shape outputs[i].shape +
    inputs[j].shape (a lone Tensor or a flat tuple when inputs or outputs are not tuples)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.')
        return _jacobian_forward(func, inputs, strict, vectorize)
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs),
                                           "outputs of the user-provided function", "jacobian")
        _strict_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either "
                               "set `strict=False` or `vectorize=False`.")
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            for j in range(out.nelement()):
                grads = _grad((out,), inputs, (_one_hot(out, j),), retain_graph=True,
                              create_graph=create_graph)
                for k, (g, inp) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {k}. This is not "
                                               "allowed in strict mode.")
                        g = _zeros_like_plain(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is "
                                           f"independent of input {i}. This is not allowed in "
                                           "strict mode when create_graph=True.")
                    rows[k].append(g)
            result.append(tuple(_rows_to_jacobian(rows[k], out, inp)
                                for k, inp in enumerate(inputs)))
        result = _finish(tuple(result), create_graph)
    return _unpack2(result, outputs_tuple, inputs_tuple)


def _zeros_like_plain(t):
    from ember._ops.creation import zeros_like
    return zeros_like(t)


def _rows_to_jacobian(rows, out, inp):
    shape = tuple(out.shape) + tuple(inp.shape)
    if not rows:
        from ember._ops.creation import zeros
        return zeros(shape, dtype=inp.dtype, device=inp.device)
    return _stack(rows, 0).reshape(shape)


def _jacobian_forward(func, inputs, strict, vectorize):
    """Column by column, each column a Jacobian-vector product (double-backward trick)."""
    from ember._ops.creation import zeros_like
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           '`strategy="forward-mode"` are not supported together (yet). Please '
                           'either set `strict=False` or `strategy="reverse-mode"`.')
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    with grad_mode.enable_grad():
        inputs = _fresh_inputs(inputs, False, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs", None)
        dummy = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, dummy, create_graph=True)
        # Zero columns for inputs the outputs do not depend on.
        live = [(g, i) for i, g in enumerate(grad_inputs) if g is not None and g.requires_grad]
        result = [[None] * len(inputs) for _ in outputs]
        for k, inp in enumerate(inputs):
            columns = [[] for _ in outputs]
            for m in range(inp.nelement()):
                tangents = tuple(_one_hot(inputs[i], m) if i == k else zeros_like(inputs[i])
                                 for _, i in live)
                grads = _grad(tuple(g for g, _ in live), dummy, tangents, retain_graph=True) \
                    if live else (None,) * len(outputs)
                for o, (g, out) in enumerate(zip(grads, outputs)):
                    columns[o].append(zeros_like(out) if g is None else g)
            for o, out in enumerate(outputs):
                shape = tuple(out.shape) + tuple(inp.shape)
                if columns[o]:
                    stacked = _stack(columns[o], out.dim())
                    jac = stacked.reshape(shape)
                else:
                    from ember._ops.creation import zeros
                    jac = zeros(shape, dtype=out.dtype, device=out.device)
                result[o][k] = jac.detach()
    # PyTorch's forward-mode jacobian returns lists here (tuples in reverse mode).
    return _unpack2(result, outputs_tuple, inputs_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: H[i][j] has shape inputs[i].shape + inputs[j].shape."""
    Tensor = dispatch.Tensor
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_function(*args):
        out = func(*args)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _strict_requires_grad(outs, "outputs", strict)
        if out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def gradient(*args):
        jac = jacobian(scalar_function, args, create_graph=True)
        _strict_requires_grad(jac if isinstance(jac, tuple) else (jac,), "jacobian", strict)
        return jac

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack2(result, inputs_tuple, inputs_tuple)


def _scalar_output(func, inputs, fn_name, strict):
    outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                       fn_name)
    _strict_requires_grad(outputs, "outputs", strict)
    if outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")
    return outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar function."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, create_graph, "vhp", _V_NONE_INPUT)
        outputs = _scalar_output(func, inputs, "vhp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _strict_requires_grad(jac, "jacobian", strict)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        grads = _grad(jac, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "double_back")
    return (_finish(outputs, create_graph)[0],
            _unpack(_finish(result, create_graph), inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar function, by the double-backward trick."""
    from ember._ops.creation import zeros_like
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, create_graph, "hvp", _V_NONE_INPUT)
        outputs = _scalar_output(func, inputs, "hvp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _strict_requires_grad(jac, "jacobian", strict)
        dummy = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, dummy, create_graph=True)
        _strict_requires_grad(jac, "hessian", strict)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        grads = _grad(double_back, dummy, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "double_back_trick")
    return (_finish(outputs, create_graph)[0],
            _unpack(_finish(result, create_graph), inputs_tuple))
