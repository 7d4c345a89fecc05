"""`assert_close` and the deprecated `assert_allclose`, with PyTorch's rules and report text.

The inputs are walked first (sequences item by item, mappings key by key) into a list of leaf
comparisons; a problem found while walking (lengths or keys that differ, a leaf no comparison
takes, a lone rtol) is raised at once, and a user `msg` does not replace it, as in PyTorch.
Then the leaves are compared in order and the first mismatch is raised, its text replaced by
`msg` (a string) or passed through it (a callable). Each leaf is None, a bool, a number, or
a tensor-like (an ember Tensor, or anything `ember.as_tensor` takes when both sides have
related types, like two NumPy arrays). The numbers in a tensor report are computed with
ember's own ops in the compared dtype, so they print as PyTorch prints its own.
"""
from __future__ import annotations

import cmath
import collections.abc
import warnings

import numpy as np

# Default (rtol, atol) per dtype name; dtypes missing here (integers, bool) compare exactly.
_PRECISIONS = {
    "float16": (0.001, 1e-5),
    "bfloat16": (0.016, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex32": (0.001, 1e-5),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}
# The looser table of the deprecated assert_allclose.
_ALLCLOSE_PRECISIONS = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5),
                        "float64": (1e-5, 1e-8)}
_NUMBER_DTYPES = {int: "int64", float: "float64", complex: "complex128"}


class _Failure(Exception):
    """A mismatch or a usage error found at `path` (the keys and indices leading to it)."""

    def __init__(self, error_type, message, path=()):
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.path = path

    def to_error(self, msg=None):
        if isinstance(msg, str):
            return self.error_type(msg)
        text = self.message
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(str([p]) for p in self.path)
        return self.error_type(msg(text) if callable(msg) else text)


class _NotMine(Exception):
    """A leaf comparison that does not take these inputs (the next one is tried)."""


def _dtype_name(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def tolerances(*dtype_names, rtol, atol, path=(), table=None):
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or "
                                   f"omitted, but got no {missing}.", path)
    if rtol is not None:
        return rtol, atol
    pairs = [(table or _PRECISIONS).get(name, (0.0, 0.0)) for name in dtype_names]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


# --------------------------------------------------------------------------- report text

def _difference_line(kind, value, index, tolerance, exact):
    line = (f"{kind.title()} difference: {value}" if index is None else
            f"Greatest {kind} difference: {value} at index {index}")
    return line + ("" if exact else f" (up to {tolerance} allowed)")


def mismatch_report(what, *, extra, abs_diff, rel_diff, rtol, atol, abs_index=None,
                    rel_index=None):
    """PyTorch's layout: a headline, a blank line, the details, the two differences."""
    exact = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if exact else 'close'}!", ""]
    if extra:
        lines.append(extra.strip())
    lines.append(_difference_line("absolute", abs_diff, abs_index, atol, exact))
    lines.append(_difference_line("relative", rel_diff, rel_index, rtol, exact))
    return "\n".join(lines).strip()


def scalar_report(actual, expected, *, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return mismatch_report("Scalars", extra=f"Expected {expected} but got {actual}.",
                           abs_diff=abs_diff, rel_diff=rel_diff, rtol=rtol, atol=atol)


def _unravel(flat, shape):
    index = []
    for size in reversed(shape):
        flat, position = divmod(flat, size)
        index.append(position)
    return tuple(reversed(index))


def tensor_report(actual, expected, matches, *, rtol, atol):
    import ember
    total = matches.numel()
    mismatched = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    a, e, same = actual.flatten(), expected.flatten(), matches.flatten()
    if not (a.dtype.is_floating_point or a.dtype.is_complex):
        a, e = a.to(ember.int64), e.to(ember.int64)
    # Only the mismatched elements count towards the greatest differences.
    abs_diff = (a - e).abs()
    abs_diff[same] = 0
    abs_max, abs_at = ember.max(abs_diff, 0)
    rel_diff = abs_diff / e.abs()
    rel_diff[same] = 0
    rel_max, rel_at = ember.max(rel_diff, 0)
    shape = tuple(matches.shape)
    return mismatch_report("Tensor-likes", extra=extra, abs_diff=abs_max.item(),
                           abs_index=_unravel(int(abs_at), shape), rel_diff=rel_max.item(),
                           rel_index=_unravel(int(rel_at), shape), rtol=rtol, atol=atol)


# --------------------------------------------------------------------------- leaves

def _none_leaf(actual, expected, path, options):
    if actual is not None and expected is not None:
        raise _NotMine

    def compare():
        if not (actual is None and expected is None):
            raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", path)
    return compare


def _bool_leaf(actual, expected, path, options):
    kinds = (bool, np.bool_)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _NotMine
    actual, expected = bool(actual), bool(expected)

    def compare():
        if actual is not expected:
            raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}",
                           path)
    return compare


def _number_leaf(actual, expected, path, options):
    kinds = (int, float, complex, np.number)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _NotMine
    actual, expected = (v.item() if isinstance(v, np.number) else v for v in (actual, expected))
    rtol, atol = tolerances(*(_NUMBER_DTYPES[type(v)] for v in (actual, expected)),
                            rtol=options["rtol"], atol=options["atol"], path=path)

    def compare():
        if options["check_dtype"] and type(actual) is not type(expected):
            raise _Failure(AssertionError, f"The (d)types do not match: {type(actual)} != "
                                           f"{type(expected)}.", path)
        if actual == expected:
            return
        if options["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected):
            return
        difference = abs(actual - expected)
        if cmath.isfinite(difference) and difference <= atol + rtol * abs(expected):
            return
        raise _Failure(AssertionError, scalar_report(actual, expected, rtol=rtol, atol=atol),
                       path)
    return compare


def _as_tensor(value):
    import ember
    if isinstance(value, ember.Tensor):
        return value
    try:
        return ember.as_tensor(value)
    except Exception:  # noqa: BLE001 -- anything as_tensor refuses is simply not a tensor-like
        raise _NotMine from None


def _tensor_leaf(actual, expected, path, options):
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not related or (not options["allow_subclasses"] and type(actual) is not type(expected)):
        raise _NotMine
    actual, expected = _as_tensor(actual), _as_tensor(expected)
    rtol, atol = tolerances(_dtype_name(actual.dtype), _dtype_name(expected.dtype),
                            rtol=options["rtol"], atol=options["atol"], path=path)

    def compare():
        _compare_attributes(actual, expected, options, path)
        if actual.device.type == "meta" or expected.device.type == "meta":
            return
        a, e = _equalize(actual, expected)
        _compare_values(a, e, rtol, atol, options["equal_nan"], path)
    return compare


def _compare_attributes(actual, expected, options, path):
    def differ(name, a, e):
        raise _Failure(AssertionError,
                       f"The values for attribute '{name}' do not match: {a} != {e}.", path)
    if actual.shape != expected.shape:
        differ("shape", actual.shape, expected.shape)
    if actual.layout != expected.layout:
        if options["check_layout"]:
            differ("layout", actual.layout, expected.layout)
    elif options["check_stride"] and actual.stride() != expected.stride():
        differ("stride()", actual.stride(), expected.stride())
    if options["check_device"] and actual.device != expected.device:
        differ("device", actual.device, expected.device)
    if options["check_dtype"] and actual.dtype != expected.dtype:
        differ("dtype", actual.dtype, expected.dtype)


def _equalize(actual, expected):
    """Both on the CPU if their devices differ, both in their promoted dtype if theirs
    differ (wide unsigned types count as int64 there)."""
    import ember
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        wide = (ember.uint16, ember.uint32, ember.uint64)
        dtype = ember.promote_types(*(ember.int64 if d in wide else d
                                      for d in (actual.dtype, expected.dtype)))
        actual, expected = actual.to(dtype), expected.to(dtype)
    return actual, expected


def _compare_values(actual, expected, rtol, atol, equal_nan, path):
    import ember
    matches = ember.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(matches.all()):
        return
    if actual.shape == ():
        text = scalar_report(actual.item(), expected.item(), rtol=rtol, atol=atol)
    else:
        text = tensor_report(actual, expected, matches, rtol=rtol, atol=atol)
    raise _Failure(AssertionError, text, path)


_LEAVES = (_none_leaf, _bool_leaf, _number_leaf, _tensor_leaf)


def _walk(actual, expected, path, options):
    """The leaf comparisons of two (possibly nested) inputs, in order."""
    sequence = collections.abc.Sequence
    if isinstance(actual, sequence) and not isinstance(actual, str) and \
            isinstance(expected, sequence) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, "The length of the sequences mismatch: "
                                           f"{len(actual)} != {len(expected)}", path)
        found = []
        for i in range(len(actual)):
            found.extend(_walk(actual[i], expected[i], (*path, i), options))
        return found
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _Failure(AssertionError, (
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}"),
                path)
        try:
            keys = sorted(actual_keys)
        except TypeError:       # keys that do not order among themselves keep set order
            keys = actual_keys
        found = []
        for key in keys:
            found.extend(_walk(actual[key], expected[key], (*path, key), options))
        return found
    for leaf in _LEAVES:
        try:
            return [leaf(actual, expected, path, options)]
        except _NotMine:
            continue
    raise _Failure(TypeError, "No comparison pair was able to handle inputs of type "
                              f"{type(actual)} and {type(expected)}.", path)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
    equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
    check_stride=False, msg=None): raise an AssertionError unless `actual` and `expected` are
    close: |actual - expected| <= atol + rtol * |expected| element by element, with default
    tolerances from the dtypes. Tensors, NumPy arrays, numbers, None, bools, and sequences or
    mappings of them are compared; `msg` (a string, or a callable given the report) replaces
    the report of a mismatch."""
    __tracebackhide__ = True
    options = {"allow_subclasses": allow_subclasses, "rtol": rtol, "atol": atol,
               "equal_nan": equal_nan, "check_device": check_device,
               "check_dtype": check_dtype, "check_layout": check_layout,
               "check_stride": check_stride}
    try:
        comparisons = _walk(actual, expected, (), options)
    except _Failure as failure:
        raise failure.to_error() from None
    for compare in comparisons:
        try:
            compare()
        except _Failure as failure:
            raise failure.to_error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=''):
    deprecated since PyTorch 1.12; use `assert_close`. Compares without checking dtypes,
    with looser default tolerances."""
    import ember
    warnings.warn(
        "`ember.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `ember.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning, stacklevel=2)
    if not isinstance(actual, ember.Tensor):
        actual = ember.tensor(actual)
    if not isinstance(expected, ember.Tensor):
        expected = ember.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = tolerances(_dtype_name(actual.dtype), _dtype_name(expected.dtype),
                                rtol=None, atol=None, table=_ALLCLOSE_PRECISIONS)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)
