"""ember.special: PyTorch's `torch.special` namespace. The functions that also have `ember.*`
names (erf, lgamma as gammaln, digamma as psi, sigmoid as expit, ...) are those functions; the
rest call the registry entries of `_ops/special_functions.py` and `_ops/special_polynomials.py`.
"""
from __future__ import annotations

import ember as _ember
from ember._core.checked_entry import checked as _checked
from ember._core.dispatch import call as _call
from ember._core.dispatch import call_out as _call_out
from ember._core.registry import OPS as _OPS

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
]

# The same functions as ember's own.
erf = _ember.erf
erfc = _ember.erfc
erfinv = _ember.erfinv
digamma = _ember.digamma
psi = _ember.digamma
gammaln = _ember.lgamma
polygamma = _ember.polygamma
i0 = _ember.i0
exp2 = _ember.exp2
expm1 = _ember.expm1
log1p = _ember.log1p
sinc = _ember.sinc
logit = _ember.logit
expit = _ember.sigmoid
xlogy = _ember.xlogy
round = _ember.round
logsumexp = _ember.logsumexp
softmax = _ember.softmax
log_softmax = _ember.log_softmax
multigammaln = _ember.mvlgamma


def _run(op, args, out):
    return _call(op, args) if out is None else _call_out(op, args, out)


def _named(function, name, op):
    function.__name__ = function.__qualname__ = name
    function.__module__ = __name__
    function.__doc__ = op.doc
    return function


# Each function checks its arguments against PyTorch's schema (NOTE [checked entries]), whose
# argument names are its keywords: `input` (the schema's `self`), or `x` and `n`.
def _unary(name):
    op = _OPS[f"special_{name}"]
    if name in _X_NAMED:
        @_checked(f"special_{name}(Tensor x)")
        def function(x, *, out=None):
            return _run(op, (x,), out)
    else:
        @_checked(f"special_{name}(Tensor self)")
        def function(input, *, out=None):
            return _run(op, (input,), out)
    return _named(function, name, op)


_X_NAMED = ("airy_ai", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
            "spherical_bessel_j0")


def _binary(name, op_name):
    """A function of two operands, either of which (not both) may be a Python number."""
    op = _OPS[op_name]

    @_checked(f"special_{name}(Tensor self, Tensor other)",
              f"special_{name}(Tensor self, Scalar other)",
              f"special_{name}(Scalar self, Tensor other)")
    def function(input, other, *, out=None):
        return _run(op, (input, other), out)
    return _named(function, name, op)


def _polynomial(name):
    """A polynomial of degree `n` at `x`, either of which (not both) may be a Python number."""
    op = _OPS[f"special_{name}"]

    @_checked(f"special_{name}(Tensor x, Tensor n)", f"special_{name}(Scalar x, Tensor n)",
              f"special_{name}(Tensor x, Scalar n)")
    def function(x, n, *, out=None):
        return _run(op, (x, n), out)
    return _named(function, name, op)


def _tensors_only(name, op_name):
    op = _OPS[op_name]

    @_checked(f"special_{name}(Tensor self, Tensor other)")
    def function(input, other, *, out=None):
        return _run(op, (input, other), out)
    return _named(function, name, op)


for _name in ("airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "entr", "erfcx",
              "i0e", "i1", "i1e", "log_ndtr", "modified_bessel_i0", "modified_bessel_i1",
              "modified_bessel_k0", "modified_bessel_k1", "ndtr", "ndtri",
              "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0"):
    globals()[_name] = _unary(_name)

gammainc = _tensors_only("gammainc", "igamma")
gammaincc = _tensors_only("gammaincc", "igammac")
xlog1py = _binary("xlog1py", "special_xlog1py")
zeta = _binary("zeta", "special_zeta")

for _name in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
              "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
              "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
              "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
              "laguerre_polynomial_l", "legendre_polynomial_p"):
    globals()[_name] = _polynomial(_name)

del _name
