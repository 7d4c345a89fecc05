"""`gradcheck` and `gradgradcheck`: analytical gradients against finite differences.

The numerical Jacobian perturbs one input element at a time by ±eps (central differences);
the analytical one is built row by row from vector-Jacobian products with one-hot grad outputs.
Use float64 inputs: float32 differences are too coarse for the default tolerances.
"""
from __future__ import annotations

import numpy as np

from ember._core import dispatch
from ember.autograd import grad_mode
from ember.autograd.engine import grad as autograd_grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients disagree."""


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _float_outputs(outputs):
    return [o for o in outputs if isinstance(o, dispatch.Tensor)
            and (o._dtype.is_floating_point or o._dtype.is_complex)]


def _differentiable_outputs(outputs):
    return [o for o in outputs if isinstance(o, dispatch.Tensor) and o._requires_grad]


# NOTE [complex gradcheck]: a complex tensor counts as two real ones (real and imaginary
# parts). The gradient ember returns for a complex input z = a + ib is dL/da + i dL/db, and a
# complex grad_output g seeds the real loss L = Re(sum(conj(g) * out)); so seeding 1 reads the
# real part of an output element and seeding 1j its imaginary part. Both Jacobians are then
# real matrices over these real components.

def _real_vector(array):
    array = np.asarray(array)
    if array.dtype.kind == "c":
        return np.concatenate([array.real.reshape(-1), array.imag.reshape(-1)])
    return np.asarray(array, dtype=np.float64).reshape(-1)


def _real_size(t) -> int:
    return t._data.size * (2 if t._dtype.is_complex else 1)


def _numerical_jacobian(func, inputs, index, output_sizes, eps):
    """Columns d(out)/d(input[index] component j), one matrix per output."""
    target = inputs[index]
    flat = target._data.reshape(-1)  # a view: target is contiguous (checked by the caller)
    steps = (eps, eps * 1j) if target._dtype.is_complex else (eps,)
    columns = [[] for _ in output_sizes]
    for step in steps:
        for j in range(flat.size):
            original = flat[j].copy()
            flat[j] = original + step
            plus = _outputs_numpy(func, inputs)
            flat[j] = original - step
            minus = _outputs_numpy(func, inputs)
            flat[j] = original
            for k in range(len(output_sizes)):
                columns[k].append(_real_vector((plus[k] - minus[k]) / (2 * eps)))
    return [np.stack(cols, axis=1) if cols else np.zeros((size, 0))
            for cols, size in zip(columns, output_sizes)]


def _outputs_numpy(func, inputs):
    with grad_mode.no_grad():
        outputs = _as_tuple(func(*inputs))
    return [np.array(o._host(), dtype=np.complex128 if o._dtype.is_complex else np.float64)
            for o in outputs if isinstance(o, dispatch.Tensor)
            and (o._dtype.is_floating_point or o._dtype.is_complex)]


def _analytical_jacobian(outputs, inputs, wrt):
    """Rows d(out[k] component i)/d(inputs): for each output, a matrix per input in `wrt`."""
    from ember._ops.creation import zeros_like
    jacobians = []
    for out in outputs:
        size = out._data.size
        per_input = [np.zeros((_real_size(out), _real_size(inputs[i]))) for i in wrt]
        if not out._requires_grad:
            jacobians.append(per_input)
            continue
        seeds = (1, 1j) if out._dtype.is_complex else (1,)
        for part, unit in enumerate(seeds):
            for i in range(size):
                seed = zeros_like(out)
                # unravel_index: zeros_like keeps out's layout, which may not be row-major.
                seed._data[np.unravel_index(i, seed._data.shape)] = unit
                grads = autograd_grad([out], [inputs[w] for w in wrt], [seed],
                                      retain_graph=True, allow_unused=True)
                for m, g in enumerate(grads):
                    if g is not None:
                        per_input[m][part * size + i] = _real_vector(g._host())
        jacobians.append(per_input)
    return jacobians


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check `func`'s gradients at `inputs` against finite differences; True if they agree."""
    inputs = _as_tuple(inputs)
    Tensor = dispatch.Tensor
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for i in wrt:
        t = inputs[i]
        if t._dtype._name not in ("float64", "complex128"):
            import warnings
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", UserWarning,
                          stacklevel=2)
        if not t.is_contiguous():
            raise ValueError(f"gradcheck: input #{i} must be contiguous")
    # Every floating output is checked; one that doesn't require grad must have a zero
    # numerical derivative (e.g. the gradient of floor, which is constant).
    outputs = _float_outputs(_as_tuple(func(*inputs)))
    if not outputs:
        raise GradcheckError("gradcheck: the function has no floating point output")
    sizes = [_real_size(o) for o in outputs]
    checks = []
    if check_backward_ad:
        checks.append(("", _analytical_jacobian(outputs, inputs, wrt)))
    if check_forward_ad:
        checks.append(("forward AD ", _forward_jacobian(func, inputs, wrt, sizes)))
    for m, i in enumerate(wrt):
        numerical = _numerical_jacobian(func, inputs, i, sizes, eps)
        for how, analytical in checks:
            for k in range(len(outputs)):
                a, n = analytical[k][m], numerical[k]
                if not np.allclose(a, n, rtol=rtol, atol=atol):
                    if not raise_exception:
                        return False
                    raise GradcheckError(
                        f"{how}Jacobian mismatch for output {k} with respect to input {i},\n"
                        f"numerical:{n}\nanalytical:{a}\n")
    return True


def _forward_jacobian(func, inputs, wrt, sizes):
    """Columns from forward-mode AD: one tangent per real component of each input."""
    from ember._ops.creation import zeros_like
    from ember.autograd import forward_ad
    jacobians = [[np.zeros((size, _real_size(inputs[i]))) for i in wrt] for size in sizes]
    for m, i in enumerate(wrt):
        target = inputs[i]
        units = (1, 1j) if target._dtype.is_complex else (1,)
        column = 0
        for unit in units:
            for j in range(target._data.size):
                tangent = zeros_like(target)
                tangent._data[np.unravel_index(j, tangent._data.shape)] = unit
                with forward_ad.dual_level():
                    duals = list(inputs)
                    duals[i] = forward_ad.make_dual(target.detach(), tangent)
                    outputs = _float_outputs(_as_tuple(func(*duals)))
                    for k, out in enumerate(outputs):
                        t = forward_ad.unpack_dual(out).tangent
                        if t is not None:
                            jacobians[k][m][:, column] = _real_vector(t._host())
                column += 1
    return jacobians


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: gradcheck of the function that computes func's gradients."""
    inputs = _as_tuple(inputs)
    Tensor = dispatch.Tensor
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = []
        for o in outputs:
            values = rng.standard_normal(o._data.shape)
            if o._dtype.is_complex:
                values = values + 1j * rng.standard_normal(o._data.shape)
            # np.asarray: a 0-d draw is a NumPy scalar, whose reshape would copy.
            g = dispatch.wrap(np.asarray(values, dtype=o._data.dtype), o._dtype,
                              dispatch.CPU).to(o._device)
            g.requires_grad_(True)
            grad_outputs.append(g)
    grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]

    def first_grads(*all_args):
        ins = all_args[:n_inputs]
        gos = all_args[n_inputs:]
        # The numerical pass runs this under no_grad; the first derivatives need a graph.
        with grad_mode.enable_grad():
            outs = _differentiable_outputs(_as_tuple(func(*ins)))
            grads = autograd_grad(outs, [ins[i] for i in wrt], gos, create_graph=True,
                                  allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_grads, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
