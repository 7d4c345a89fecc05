"""The samples a gradient check leaves out or expects to fail, by op name, each with its reason.

These sit apart from the OpInfo entries because they come from sweeping the whole table with
the gradient checks; an entry's own `known=` holds the rest. Every sample name here must exist
(test_known_declarations_name_real_samples).
"""
from opinfo.core import Skip, XFail

# Finite differences straddle a kink or a jump here: the numerical derivative is the mean of
# the one-sided ones (or a huge step), not any gradient an implementation would pick.
KINK = "a tie or a kink at the sample: finite differences average the one-sided derivatives"
COARSE = "the result is float32: finite differences of a float64 input are too coarse"
# ember's tangents come from the reverse formulas (NOTE [forward AD from reverse formulas] in
# ember/autograd/forward_ad.py); where the derivative is undefined they disagree with PyTorch's
# own forward formulas, though the reverse-mode gradients match.
TIE_TANGENT = ("ember's tangent at a tie (derived from the reverse formula) differs from "
               "PyTorch's forward formula; reverse mode matches PyTorch")
SINGULAR_TANGENT = ("ember's tangent where the derivative is undefined (nan, inf, zero, "
                    "empty; derived from the reverse formula) differs from PyTorch's: nan in "
                    "one, a number in the other")
INT_RESULT = ("ember does not refuse a differentiable op whose result dtype is an integer "
              "(PyTorch: 'Autograd not support dtype'); a dispatch-level check")
Q_INPUT = "q is moved as an input: finite differences step q outside [0, 1] or across a kink"


def _finite_differences(reason, *samples, gradgrad=True):
    checks = ("gradcheck", "gradgradcheck") if gradgrad else ("gradcheck",)
    return tuple(Skip(check, reason, samples) for check in checks)


def _join(*groups):
    return tuple(k for group in groups for k in group)


KNOWN = {
    "relu": _finite_differences(KINK, "zeros"),
    "softmax": _finite_differences(COARSE, "dtype positional") + (
        Skip("forward_ad", COARSE.replace("finite differences of a float64 input",
                                          "float32 rounding"), ("dtype positional",)),),
    "log_softmax": _finite_differences(COARSE, "dtype positional") + (
        Skip("forward_ad", COARSE.replace("finite differences of a float64 input",
                                          "float32 rounding"), ("dtype positional",)),),
    "norm": _join(_finite_differences(COARSE, "dtype f64"), _finite_differences(
        KINK, "zero row, p=2", "zero row, p=1", "zero row, p=3.5", "zero row, p=1.5",
        "zero row, p=0.5", "zero row, p=-1", "zero row, p=inf", "zero row, p=-inf",
        "all zeros"), (XFail("forward_ad", SINGULAR_TANGENT, (
            "zero row, p=3.5", "zero row, p=1.5")),)),
    "fmax": _finite_differences(KINK, "equal values", "some equal, broadcast") + (
        XFail("forward_ad", TIE_TANGENT, ("equal values", "some equal, broadcast",
                                          "ties and nan")),),
    "fmin": _finite_differences(KINK, "equal values", "some equal, broadcast"),
    "maximum": (XFail("forward_ad", TIE_TANGENT, ("ties and nan",)),),
    "minimum": (XFail("forward_ad", TIE_TANGENT, ("ties and nan",)),),
    "clamp": (XFail("forward_ad", TIE_TANGENT, ("tensor bounds: ties, min > max, nan",)),),
    "clamp_min": (XFail("forward_ad", TIE_TANGENT, ("ties and nan",)),),
    "clamp_max": (XFail("forward_ad", TIE_TANGENT, ("ties and nan",)),),
    "round": _finite_differences(KINK, "halves, decimals=0", "halves, decimals=2"),
    "ldexp": _finite_differences(
        "PyTorch's gradient is 2**other in integer arithmetic (0 for a negative int64 "
        "exponent) and ember follows it; finite differences see the true 2**other",
        "int64 other"),
    "frexp": _finite_differences(KINK, "extremes"),
    "max": _finite_differences(KINK, "ties") + (XFail("forward_ad", SINGULAR_TANGENT,
                                                     ("nan, all",)),),
    "min": _finite_differences(KINK, "ties") + (XFail("forward_ad", SINGULAR_TANGENT,
                                                     ("nan, all",)),),
    "amax": _finite_differences(KINK, "ties"),
    "amin": _finite_differences(KINK, "ties"),
    "mode": _finite_differences(KINK, "equal counts: smallest value"),
    "quantile": _finite_differences(Q_INPUT, "tensor q", "0-d q", "nearest"),
    "nanquantile": _finite_differences(Q_INPUT, "tensor q", "0-d q", "nearest"),
    "logit": (XFail("forward_ad", SINGULAR_TANGENT, (
        "special values", "eps=0.1", "eps=1e-06", "eps=-1.0")),),
    "atan2": (XFail("forward_ad", SINGULAR_TANGENT, ("special values",)),),
    "xlogy": (XFail("forward_ad", SINGULAR_TANGENT, ("special values", "zero self")),),
    "float_power": (XFail("forward_ad", SINGULAR_TANGENT, ("special values",)),),
    "nanmean": (XFail("forward_ad", SINGULAR_TANGENT, ("empty, all", "empty, empty dim")),),
    "logsumexp": (XFail("forward_ad", SINGULAR_TANGENT, ("empty dim",)),),
    "median": (XFail("forward_ad", SINGULAR_TANGENT, ("empty, all", "nan, all")),),
    "nanmedian": (XFail("forward_ad", SINGULAR_TANGENT, ("empty, all",)),),
    "logcumsumexp": (XFail("forward_ad", SINGULAR_TANGENT, ("wide range",)),),
    "cumsum": (XFail("grad", INT_RESULT, ("dtype int32",)),
               XFail("forward_ad", INT_RESULT, ("dtype int32",))),
    "cumprod": (XFail("grad", INT_RESULT, ("dtype int32",)),
                XFail("forward_ad", INT_RESULT, ("dtype int32",))),
    "combinations": (XFail("grad", "r=0: PyTorch's empty result does not require grad; "
                           "ember's does", ("r=0",)),),
}
