"""`HistogramObserver`: a running histogram of the values seen, and a range chosen from it that
minimises the L2 error of quantizing to it (what the x86 / fbgemm default qconfig observes
activations with).

NOTE [histogram observer numerics]: to give PyTorch's (scale, zero_point), every step computes
in PyTorch's dtypes: the histogram, its edges and the error terms are float32 tensors (Python
numbers entering them are rounded to float32 first), the bin widths handed to the error are
float64 Python numbers, cumulative counts are compared with float32 thresholds. A histogram over
a wider range takes the old one's counts spread evenly over 16 sub-bins per bin, each sub-bin
going whole to the new bin holding its centre.
"""
from __future__ import annotations

import warnings

import numpy as np

import ember
from ember.ao.quantization.observer import _MinMaxBase

__all__ = ["HistogramObserver", "default_histogram_observer"]

_BITS = {"quint8": 8, "qint8": 8, "qint32": 32, "uint8": 8, "int8": 8, "quint4x2": 8,
         "int16": 16, "uint16": 16, "int32": 32}


class HistogramObserver(_MinMaxBase):
    """Watches a histogram of what passes (`bins` bins over the running min..max); its qparams
    come from the sub-range with the least L2 quantization error."""

    def __init__(self, bins: int = 2048, dtype=None, qscheme=None, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=None,
                 is_dynamic=False, **kwargs) -> None:
        scheme = ember.per_tensor_affine if qscheme is None else qscheme
        if scheme.name not in ("per_tensor_affine", "per_tensor_symmetric"):
            raise NotImplementedError("HistogramObserver's qscheme only support "
                                      "torch.per_tensor_symmetric and torch.per_tensor_affine.")
        if is_dynamic:
            raise NotImplementedError("HistogramObserver doesn't support dynamic quantization")
        super().__init__(dtype, scheme, reduce_range, quant_min, quant_max, factory_kwargs, eps,
                         is_dynamic)
        self.bins = bins
        self.register_buffer("histogram", ember.zeros(bins))
        self.register_buffer("min_val", ember.tensor(float("inf")))
        self.register_buffer("max_val", ember.tensor(float("-inf")))
        self.dst_nbins = 2 ** _BITS[str(self.dtype).split(".")[1]]
        self.upsample_rate = 16

    # ------------------------------------------------------------------ observing
    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach()
        low, high = ember.aminmax(x)
        if ember.isinf(low) or ember.isinf(high):
            warnings.warn("torch.inf detected in input tensor, ignoring input", stacklevel=2)
            x = x[x.abs() != float("inf")]
            if x.numel() == 0:
                return x_orig
            low, high = ember.aminmax(x)
        if ember.isinf(self.min_val) or ember.isinf(self.max_val):
            self.min_val.copy_(low)
            self.max_val.copy_(high)
            self.histogram.copy_(ember.histc(x, self.bins, min=low.item(), max=high.item()))
            return x_orig
        new_min = ember.minimum(self.min_val, low)
        new_max = ember.maximum(self.max_val, high)
        counts = ember.histc(x, self.bins, min=new_min.item(), max=new_max.item())
        if new_min == self.min_val and new_max == self.max_val:
            self.histogram.copy_(self.histogram + counts)
        else:
            self.histogram.copy_(counts + self._rebinned(new_min, new_max))
            self.min_val.copy_(new_min)
            self.max_val.copy_(new_max)
        return x_orig

    def _rebinned(self, new_min, new_max):
        """The current histogram's counts over `bins` bins from new_min to new_max (a range
        holding the current one)."""
        old_min, old_max, bins = self.min_val, self.max_val, self.bins
        if old_min == old_max:      # every value seen was one number
            return ember.histc(old_min, bins, min=new_min.item(), max=new_max.item()) * \
                self.histogram.sum()
        rate = self.upsample_rate
        spread = self.histogram.repeat_interleave(rate) / rate
        sub_width = (old_max - old_min) / (bins * rate)
        centres = ember.linspace(old_min, old_max, bins * rate + 1)[:-1] + 0.5 * sub_width
        edges = ember.linspace(new_min, new_max, bins + 1)
        which = (ember.bucketize(centres, edges, right=True) - 1).clamp(0, bins - 1)
        return ember.bincount(which, weights=spread, minlength=bins)

    # ------------------------------------------------------------------ choosing the range
    def _error(self, first: int, last: int) -> float:
        """The L2 error of quantizing the histogram to `dst_nbins` levels spread over its bins
        first..last (each source bin's values uniform within it)."""
        bin_width = (self.max_val.item() - self.min_val.item()) / self.bins
        level = bin_width * (last - first + 1) / self.dst_nbins
        if level == 0.0:
            return 0.0
        begin = (ember.arange(self.bins) - first) * bin_width
        end = begin + bin_width
        begin_level = ember.div(begin, level, rounding_mode="floor").clamp(0, self.dst_nbins - 1)
        end_level = ember.div(end, level, rounding_mode="floor").clamp(0, self.dst_nbins - 1)
        density = self.histogram / bin_width

        def cubes_between(low, high):
            return density * ((high * high * high - low * low * low) / 3)
        half = ember.tensor(level / 2)
        error = cubes_between(begin - (begin_level + 0.5) * level,
                              ember.ones(self.bins) * (level / 2))
        error = error + (end_level - begin_level - 1) * cubes_between(-half, half)
        error = error + cubes_between(ember.tensor(-level / 2),
                                      end - (end_level * level + level / 2))
        return error.sum().item()

    def _search_range(self):
        """The sub-range of the histogram to quantize to: bins are dropped from whichever end
        holds less of the mass, in steps of 1e-5 of it, while the error keeps falling."""
        if self.histogram.shape[0] != self.bins:
            raise AssertionError("bins mismatch")
        bin_width = (self.max_val - self.min_val) / self.bins
        total = self.histogram.sum().item()
        # (PyTorch accumulates a float32 cumsum in float64, then rounds each step)
        running = np.cumsum(self.histogram.numpy(), dtype=np.float64).astype(np.float32)
        alpha, beta, first, last = 0.0, 1.0, 0, self.bins - 1
        best = float("inf")
        while alpha < beta:
            next_alpha, next_beta = alpha + 1e-5, beta - 1e-5
            low, high = first, last
            while low < last and running[low] < np.float32(next_alpha * total):
                low += 1
            while high > first and running[high] > np.float32(next_beta * total):
                high -= 1
            next_first, next_last = first, last
            if low - first > last - high:
                next_first, alpha = low, next_alpha
            else:
                next_last, beta = high, next_beta
            if next_first == first and next_last == last:
                continue
            error = self._error(next_first, next_last)
            if error > best:
                break
            best, first, last = error, next_first, next_last
        return self.min_val + bin_width * first, self.min_val + bin_width * (last + 1)

    def calculate_qparams(self):
        if ember.isinf(self.min_val) and ember.isinf(self.max_val):
            warnings.warn("must run observer before calling calculate_qparams. Returning "
                          "default scale and zero point ", stacklevel=2)
            return ember.tensor([1.0]), ember.tensor([0])
        if self.bins != len(self.histogram):
            raise AssertionError("The number of bins in histogram should be equal to the number "
                                 "of bins supplied while making this observer")
        return self._qparams(*self._search_range())

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"


default_histogram_observer = HistogramObserver.with_args(quant_min=0, quant_max=127)
