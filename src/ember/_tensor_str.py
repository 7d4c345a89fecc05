"""How a tensor prints: `repr(t)` / `str(t)` in PyTorch's exact format, and `set_printoptions`.

The text is built from a NumPy copy of the data on the host; nothing here runs ops.

NOTE [one format per tensor]: every element of a tensor (each of the real and imaginary parts
for complex ones) prints with one shared format and width, chosen from the finite nonzero values
of the elements that will be shown:
- integer-valued floats print as ``1.`` (int mode);
- a spread of more than 1000 between the largest and smallest magnitude, a magnitude above 1e8,
  or (outside int mode) one below 1e-4 switches to scientific notation;
- otherwise fixed point with ``precision`` digits.
`sci_mode` in the print options overrides the choice (the width stays the one computed first).
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import numpy as np

from ember._core import complex_half
from ember._core import dtype as dt
from ember._core.device import get_default_device
from ember._core.dispatch.quantized import QuantizedData


@dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrintOptions()

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None) -> None:
    """Set how tensors print. `profile` ('default', 'short', 'full') sets the first four at once;
    explicit arguments win over it. `sci_mode` is always set (None: chosen per tensor)."""
    if profile is not None:
        for name, value in _PROFILES.get(profile, {}).items():
            setattr(PRINT_OPTS, name, value)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current print options as a dict (the keywords of `set_printoptions`)."""
    return dict(PRINT_OPTS.__dict__)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Set print options inside a `with` block only."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# --------------------------------------------------------------------------- element formats

class _Formatter:
    """The one format all shown values of a (real) array use; see NOTE [one format per tensor].

    `values` is a NumPy array of the elements that will be shown (already summarised)."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        precision = PRINT_OPTS.precision
        flat = values.reshape(-1)
        if not self.floating:
            for value in flat.tolist():
                self.width = max(self.width, len(str(value)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitudes = np.abs(finite)
        low, high = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            self.sci_mode = high / low > 1000.0 or high > 1.0e8
        else:
            self.sci_mode = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode
        # The width: int mode measures the finite nonzero values only, else every value.
        shown = finite if self.int_mode else flat.astype(np.float64)
        if self.sci_mode:
            spec, extra = f".{precision}e", 0
        elif self.int_mode:
            spec, extra = ".0f", 1  # int mode appends a "." to every finite value
        else:
            spec, extra = f".{precision}f", 0
        for value in shown.tolist():
            self.width = max(self.width, len(format(value, spec)) + extra)

    def format(self, value) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = format(value, f"{self.width}.{PRINT_OPTS.precision}e")
        elif self.int_mode:
            text = format(value, ".0f")
            if math.isfinite(value):
                text += "."
        else:
            text = format(value, f".{PRINT_OPTS.precision}f")
        return " " * (self.width - len(text)) + text


def _complex_text(value: complex, real: _Formatter, imag: _Formatter) -> str:
    real_text = real.format(value.real)
    imag_text = (imag.format(value.imag) + "j").lstrip()
    if imag_text[0] in "+-":
        return real_text + imag_text
    return real_text + "+" + imag_text


# --------------------------------------------------------------------------- layout

def _summarized(values: np.ndarray) -> np.ndarray:
    """Only the elements a summarised print shows (edge items along every dimension)."""
    edge = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim > 1 and not edge:
        return values[(slice(0, 0),) * values.ndim]
    if values.shape[0] > 2 * edge:
        values = np.concatenate([values[:edge], values[values.shape[0] - edge:]])
    if values.ndim == 1:
        return values
    return np.stack([_summarized(row) for row in values])


class _Printer:
    def __init__(self, summarize, real, imag=None):
        self.summarize = summarize
        self.real = real
        self.imag = imag

    def element(self, value) -> str:
        if self.imag is not None:
            return _complex_text(value, self.real, self.imag)
        return self.real.format(value)

    def vector(self, values, indent) -> str:
        edge = PRINT_OPTS.edgeitems
        length = self.real.width + 2
        if self.imag is not None:
            length += self.imag.width + 1
        per_line = max(1, (PRINT_OPTS.linewidth - indent) // length)
        n = values.shape[0]
        if self.summarize and not edge:
            items = ["..."]
        elif self.summarize and n > 2 * edge:
            items = ([self.element(v) for v in values[:edge].tolist()] + [" ..."]
                     + [self.element(v) for v in values[n - edge:].tolist()])
        else:
            items = [self.element(v) for v in values.tolist()]
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"

    def block(self, values, indent) -> str:
        if values.ndim == 0:
            return self.element(values.item())
        if values.ndim == 1:
            return self.vector(values, indent)
        edge = PRINT_OPTS.edgeitems
        n = values.shape[0]
        if self.summarize and n > 2 * edge:
            rows = ([self.block(values[i], indent + 1) for i in range(edge)] + ["..."]
                    + [self.block(values[i], indent + 1) for i in range(n - edge, n)])
        else:
            rows = [self.block(values[i], indent + 1) for i in range(n)]
        separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
        return "[" + separator.join(rows) + "]"


def _host_values(t) -> np.ndarray:
    """The data as a host NumPy array; small floats widened to float32 (as PyTorch prints)."""
    values = np.asarray(t._host())
    if t._dtype.is_floating_point and t._dtype.itemsize < 4:
        values = values.astype(np.float32)
    elif t._dtype is dt.complex32:                 # NOTE [complex32 storage]
        values = complex_half.widen(values)
    return values


def _data_text(t, indent: int) -> str:
    values = _host_values(t)
    summarize = values.size > PRINT_OPTS.threshold
    shown = _summarized(values) if summarize else values
    if t._dtype.is_complex:
        printer = _Printer(summarize, _Formatter(shown.real), _Formatter(shown.imag))
    else:
        printer = _Printer(summarize, _Formatter(shown))
    return printer.block(values, indent)


def _default_kind_dtypes():
    default = dt.get_default_dtype()
    return (default, dt.default_complex_dtype(), dt.int64, dt.bool_)


def _with_suffixes(text: str, suffixes, indent: int) -> str:
    parts = [text]
    # PyTorch counts the last line two characters long; kept so wrapping lands where it does.
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t, prefix: str = "tensor(") -> str:
    """PyTorch's text for a tensor, with `ember.` where PyTorch writes `torch.`."""
    if type(t._data) is QuantizedData:       # NOTE [quantized tensors]
        from ember._quantized_tensor import quantized_repr
        return quantized_repr(t, prefix)
    if hasattr(t._data, "layout_name"):       # NOTE [sparse layout]
        from ember._tensor_str_sparse import sparse_repr
        return sparse_repr(t)
    indent = len(prefix)
    suffixes = []
    device = t._device
    if device.type != get_default_device().type:
        suffixes.append(f"device='{device}'")
    shape_text = str(tuple(t._data.shape))
    if device.type == "meta":
        suffixes.append("size=" + shape_text)
        if t._dtype is not dt.get_default_dtype():
            suffixes.append(f"dtype={t._dtype}")
        text = "..."
    elif t._data.size == 0:
        if t._data.ndim != 1:
            suffixes.append("size=" + shape_text)
        if t._dtype is not dt.get_default_dtype():
            suffixes.append(f"dtype={t._dtype}")
        text = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + shape_text)
        if t._dtype not in _default_kind_dtypes():
            suffixes.append(f"dtype={t._dtype}")
        text = _data_text(t, indent)
    grad_fn = t._grad_fn
    if grad_fn is not None:
        name = grad_fn.name() if hasattr(grad_fn, "name") else type(grad_fn).__name__
        suffixes.append(f"grad_fn=<{name}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + text, suffixes, indent)
