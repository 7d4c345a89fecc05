"""The OpInfo record, sample inputs, and the helpers that run one sample in ember and PyTorch.

A sample is built from NumPy arrays wrapped in `T(...)` (a tensor argument); `materialize`
turns it into the same arguments for either library, so ember and PyTorch see identical data.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

# NOTE [tolerances by dtype]: values are compared at PyTorch's own defaults for the result's
# dtype (torch.testing.assert_close, _DTYPE_PRECISIONS in torch/testing/_comparison.py), here
# as (atol, rtol); integer and bool results compare exactly. A float64 result computed through
# a float32 intermediate fails them. An op that legitimately differs by more (another
# summation order, another algorithm of the same accuracy) names its dtypes in `tolerances`,
# with the reason beside it.
TOLERANCES = {
    "float16": (1e-5, 1e-3),
    "bfloat16": (1e-5, 1.6e-2),
    "float32": (1e-5, 1.3e-6),
    "float64": (1e-7, 1e-7),
    "complex32": (1e-5, 1e-3),
    "complex64": (1e-5, 1.3e-6),
    "complex128": (1e-7, 1e-7),
}
# For ops whose half kernels in PyTorch round intermediate results to the half dtype (a
# partial sum, x - max, a weight) where ember computes in float32 and rounds once. Measured on
# the samples, ember's result is the nearer to the float64 value; the two differ by a few
# units in the last place of the result (more where the result cancels to near 0).
HALF_INTERMEDIATES = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}
# A gradient is compared at GRAD_FACTOR times its dtype's tolerance: the backward formula
# chains several rounded operations (and sums over broadcast dimensions) in an order of its
# own, so its rounding error is a few times the forward's.
GRAD_FACTOR = 10


def tolerance(dtype_name):
    """PyTorch's default (atol, rtol) for a dtype name; exact for integers and bool."""
    return TOLERANCES.get(dtype_name, (0.0, 0.0))


ALL_FLOAT = ("float32", "float64")
HALF = ("float16", "bfloat16")
INTS = ("int64", "int32", "int16", "int8", "uint8")
BOOL = ("bool",)
COMPLEX = ("complex64", "complex128")
ALL_TYPES = ALL_FLOAT + INTS
ALL_TYPES_AND_BOOL = ALL_TYPES + BOOL


@dataclasses.dataclass
class T:
    """A tensor argument: `array`'s values, made non-contiguous (a transposed view) if asked."""
    array: np.ndarray
    noncontig: bool = False
    requires_grad: bool = False


@dataclasses.dataclass
class Sample:
    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    name: str = ""           # shown in failure messages
    # Whether this sample may be run in place on args[0] (its result shape and dtype match).
    inplace_ok: bool = True


@dataclasses.dataclass
class ErrorSample:
    sample: Sample
    error: type              # the class PyTorch raises (checked against torch in the test too)
    match: str = ""          # a piece of the message that names the offending argument


# The checks an OpInfo drives, by the names its `known` declarations use.
CHECKS = ("values", "layout", "grad", "gradcheck", "gradgradcheck", "forward_ad")


@dataclasses.dataclass(frozen=True)
class Skip:
    """A check that does not run on some samples, and why (the reason shows in the report).

    `samples` are sample names (every sample of the OpInfo when empty)."""
    check: str
    reason: str
    samples: tuple = ()

    def applies(self, check, sample_name):
        base = sample_name.removesuffix("/noncontig")
        return self.check == check and (not self.samples or base in self.samples)


@dataclasses.dataclass(frozen=True)
class XFail(Skip):
    """A check known to fail on some samples: `reason` names the bug. The check still runs
    and must fail (strictly), so a fix shows up as an unexpected pass."""


@dataclasses.dataclass
class OpInfo:
    name: str
    # Sample inputs for a dtype name: (make_array, dtype_name) -> iterable of Sample.
    samples: Callable[..., Any]
    dtypes: tuple = ALL_FLOAT
    # How to call the op: f(lib, *args, **kwargs). Default: lib.<name>(*args, **kwargs).
    call: Callable[..., Any] | None = None
    method: bool = True           # also check Tensor.<name>
    inplace: bool = False         # check Tensor.<name>_ (where PyTorch has it)
    supports_out: bool = True
    supports_meta: bool = True
    errors: Callable[..., Any] | None = None   # (make_array) -> iterable of ErrorSample
    # dtype name -> (atol, rtol) where this op legitimately differs from PyTorch by more than
    # TOLERANCES allows (each entry says why, NOTE [tolerances by dtype]).
    tolerances: dict = dataclasses.field(default_factory=dict)
    # Comparisons of values are skipped for these outputs (e.g. indices of ties).
    compare_values: bool = True
    # Autograd: gradients compared with torch.autograd.grad (float32/float64 samples), and
    # float64 gradcheck / gradgradcheck on the first few samples.
    supports_autograd: bool = False
    gradcheck: bool = True
    gradgradcheck: bool = True
    # Forward-mode AD (ember derives it from the derivative formulas' own derivatives).
    forward_ad: bool = True
    # Indices of positional args that are differentiable tensor inputs (None: every float T).
    grad_args: tuple | None = None
    # Skip / XFail declarations: the samples a check leaves out or expects to fail, and why.
    known: tuple = ()

    def function(self, lib):
        if self.call is not None:
            return lambda *a, **k: self.call(lib, *a, **k)
        target = lib
        for part in self.name.split("."):
            target = getattr(target, part)
        return target

    def known_for(self, check, sample_name):
        """The Skip or XFail declared for this check and sample, or None."""
        assert check in CHECKS, check
        for known in self.known:
            if known.applies(check, sample_name):
                return known
        return None

    def tol(self, dtype_name, result_dtype_name=None):
        """(atol, rtol) for a sample of `dtype_name` whose result is `result_dtype_name`: the
        looser of the two dtypes' (a float64 sample may ask for a float32 result)."""
        own = self.tolerances.get(dtype_name) or tolerance(dtype_name)
        if result_dtype_name is None or result_dtype_name == dtype_name:
            return own
        other = self.tolerances.get(result_dtype_name) or tolerance(result_dtype_name)
        return (max(own[0], other[0]), max(own[1], other[1]))

    def tolerance_for(self, dtype_name, factor=1):
        """The `tolerance` argument of assert_same for this op's samples of `dtype_name`."""
        def by_result(result_dtype_name):
            atol, rtol = self.tol(dtype_name, result_dtype_name)
            return (atol * factor, rtol * factor)
        return by_result


def make_maker(seed=0):
    """make(shape, dtype_name, low=None, high=None) -> np.ndarray with reproducible values."""
    rng = np.random.default_rng(seed)

    def make(shape, dtype_name, low=None, high=None, exclude_zero=False):
        shape = tuple(shape)
        if dtype_name == "bool":
            return rng.random(shape) < 0.5
        if dtype_name in INTS or dtype_name.startswith("uint"):
            lo = -9 if low is None else low
            hi = 10 if high is None else high
            if dtype_name.startswith("uint"):
                lo = max(lo, 0)
            values = rng.integers(lo, hi, size=shape)
            if exclude_zero:
                values[values == 0] = 1
            return values.astype(dtype_name)
        lo = -5.0 if low is None else low
        hi = 5.0 if high is None else high
        values = rng.uniform(lo, hi, size=shape)
        if dtype_name.startswith("complex"):
            values = values + 1j * rng.uniform(lo, hi, size=shape)
        if exclude_zero:
            values[np.abs(values) < 1e-3] = 1.0
        if dtype_name == "bfloat16":
            import ml_dtypes
            return values.astype(ml_dtypes.bfloat16)
        return values.astype(dtype_name)
    return make


def to_lib(value, lib, device=None):
    """Turn a sample value (T, nested lists/tuples, dtype names) into `lib`'s objects."""
    if isinstance(value, T):
        array = value.array
        if value.noncontig and array.ndim >= 2:
            order = tuple(range(array.ndim - 1, -1, -1))
            # copy: fresh row-major strides (ascontiguousarray keeps odd ones on size-1 dims).
            base = _tensor(lib, array.transpose(order).copy(), device)
            t = base.permute(order)
        else:
            t = _tensor(lib, array, device)
        if value.requires_grad:
            t.requires_grad_(True)
        return t
    if isinstance(value, list):
        return [to_lib(v, lib, device) for v in value]
    if isinstance(value, tuple):
        return tuple(to_lib(v, lib, device) for v in value)
    if isinstance(value, dict):
        return {k: to_lib(v, lib, device) for k, v in value.items()}
    if isinstance(value, DType):
        return getattr(lib, value.name)
    return value


def _tensor(lib, array, device):
    if array.dtype.name == "bfloat16":
        t = lib.tensor(array.astype(np.float32)).to(lib.bfloat16)
    else:
        t = lib.tensor(array)
    return t if device is None else t.to(device)


@dataclasses.dataclass(frozen=True)
class DType:
    """A dtype argument, by name: DType('float64') is torch.float64 / ember.float64."""
    name: str


def dtype_name(d) -> str:
    return str(d).split(".")[-1]


def to_numpy(t):
    """A tensor of either library as a NumPy array (bfloat16 widened to float32)."""
    if dtype_name(t.dtype) == "bfloat16":
        t = t.float()
    if type(t).__module__.startswith("torch"):
        # force=True: PyTorch hands out ZeroTensors (e.g. sgn's gradient of a real input).
        return np.asarray(t.detach().cpu().numpy(force=True))
    return np.asarray(t.detach().cpu().numpy() if hasattr(t, "detach") else t.numpy())


def assert_same(ember_result, torch_result, atol=None, rtol=None, where="", compare_values=True,
                tolerance=None):
    """Same structure, shape, dtype and (within tolerance) values. `tolerance(dtype_name)`,
    where given, picks (atol, rtol) by each result's dtype; else atol and rtol hold for all."""
    import torch
    if isinstance(torch_result, (tuple, list)):
        assert isinstance(ember_result, (tuple, list)), f"{where}: expected a sequence"
        assert len(ember_result) == len(torch_result), f"{where}: length differs"
        for i, (e, t) in enumerate(zip(ember_result, torch_result)):
            assert_same(e, t, atol, rtol, f"{where}[{i}]", compare_values, tolerance)
        return
    if tolerance is not None:
        result_dtype = (dtype_name(torch_result.dtype) if isinstance(torch_result, torch.Tensor)
                        else "float64")
        atol, rtol = tolerance(result_dtype)
    if isinstance(torch_result, torch.Tensor):
        assert type(ember_result).__name__ in ("Tensor", "Parameter") or hasattr(
            ember_result, "_data"), f"{where}: expected a Tensor, got {type(ember_result)}"
        assert tuple(ember_result.shape) == tuple(torch_result.shape), (
            f"{where}: shape {tuple(ember_result.shape)} != torch {tuple(torch_result.shape)}")
        assert dtype_name(ember_result.dtype) == dtype_name(torch_result.dtype), (
            f"{where}: dtype {ember_result.dtype} != torch {torch_result.dtype}")
        if compare_values:
            np.testing.assert_allclose(to_numpy(ember_result), to_numpy(torch_result),
                                       atol=atol, rtol=rtol, equal_nan=True, err_msg=where)
        return
    if isinstance(torch_result, float):
        np.testing.assert_allclose(ember_result, torch_result, atol=atol, rtol=rtol,
                                   equal_nan=True, err_msg=where)
        return
    assert ember_result == torch_result, f"{where}: {ember_result!r} != torch {torch_result!r}"


def raises_torch_class(ember_error, torch_error) -> bool:
    """ember's exception is PyTorch's class or a subclass of it, never a base class. PyTorch's
    own classes (torch.linalg.LinAlgError, torch.OutOfMemoryError) have ember namesakes, found
    by name along the ember class's bases."""
    want = type(torch_error)
    if want.__module__.split(".")[0] != "torch":
        return isinstance(ember_error, want)
    return any(base.__name__ == want.__name__ for base in type(ember_error).__mro__)


def _tensors(value):
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    return [value] if hasattr(value, "stride") and hasattr(value, "untyped_storage") else []


def aliased_inputs(result, inputs):
    """Indices of the inputs whose storage `result` shares (empty tensors alias nothing)."""
    if result.numel() == 0:
        return []
    pointer = result.untyped_storage().data_ptr()
    return [i for i, x in enumerate(inputs)
            if x.numel() > 0 and x.untyped_storage().data_ptr() == pointer]


def assert_same_layout(ember_result, torch_result, ember_inputs, torch_inputs, where="",
                       strides=False):
    """Each result aliases the same inputs as PyTorch's does; a view has PyTorch's strides and
    storage offset, and (with `strides`) so does any other result."""
    got, expected = _tensors(ember_result), _tensors(torch_result)
    assert len(got) == len(expected), f"{where}: {len(got)} tensors, torch {len(expected)}"
    for k, (e, t) in enumerate(zip(got, expected)):
        here = f"{where} result {k}"
        e_alias, t_alias = aliased_inputs(e, ember_inputs), aliased_inputs(t, torch_inputs)
        assert e_alias == t_alias, (
            f"{here}: shares storage with inputs {e_alias}, torch's with {t_alias}")
        # An empty result's strides are not in its memory's layout (ember's may be zeros).
        if t_alias or (strides and t.numel() > 0):
            assert tuple(e.stride()) == tuple(t.stride()), (
                f"{here}: strides {tuple(e.stride())} != torch {tuple(t.stride())}")
        if t_alias:
            assert e.storage_offset() == t.storage_offset(), (
                f"{here}: storage offset {e.storage_offset()} != torch {t.storage_offset()}")
