"""Autocast's per-op policy: which registry ops run in the autocast dtype, which in float32,
which in the widest floating input type (the kinds are described in
`_core/dispatch/autocast.py`). An op not named here runs in the dtypes it is given.

The names are ember's registry ops (every overload of a name shares its kind). Where PyTorch
attaches its policy to a composite function that ember runs as a single registry op
(`conv2d` -> ember's `convolution`, `einsum`/`tensordot`/`inner` which reach `mm` in PyTorch,
`F.max_pool3d` -> `max_pool3d_with_indices`), the op carries what the public call does in
PyTorch 2.13. Losses that ember composes from several ops (mse_loss, l1_loss, kl_div,
binary_cross_entropy ...) have no single op to carry "fp32": they cast their own arguments
(`_float32_under_autocast` in nn/_functional/loss.py). In-place ops and `out=` calls are cast too (PyTorch
leaves them alone): the dispatcher runs them through their out-of-place op.
"""
from __future__ import annotations

_MATMUL_FAMILY = ("mm", "bmm", "matmul", "addmm", "addbmm", "baddbmm", "linear",
                  "convolution", "einsum", "tensordot", "inner", "chain_matmul",
                  "linalg_multi_dot")

CPU = {
    **{name: "lower" for name in _MATMUL_FAMILY},
    **{name: "fp32" for name in (
        "cdist", "trace", "prod", "quantile", "nanquantile", "view_as_complex",
        "cross_entropy_loss", "nll_loss_nd", "_ctc_loss",
        "avg_pool3d", "max_pool3d_with_indices", "_adaptive_avg_pool3d",
        "adaptive_max_pool3d", "fractional_max_pool2d", "fractional_max_pool3d",
        "max_unpool2d", "max_unpool3d", "reflection_pad1d", "reflection_pad2d",
        "replication_pad1d", "replication_pad2d", "replication_pad3d",
        "grid_sampler_2d", "grid_sampler_3d", "linalg_qr", "linalg_svd")},
    **{name: "promote" for name in (
        "cat", "stack", "hstack", "vstack", "dstack", "column_stack", "index_copy")},
}

CUDA = {
    **{name: "lower" for name in _MATMUL_FAMILY + ("addmv", "addr", "mv")},
    **{name: "fp32" for name in (
        "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p",
        "reciprocal", "rsqrt", "sinh", "tan", "pow", "softplus", "native_layer_norm",
        "native_group_norm", "nuclear_norm", "cdist", "logsumexp", "nll_loss_nd",
        "cross_entropy_loss", "upsample_nearest1d", "upsample_nearest2d",
        "upsample_nearest3d", "_upsample_nearest_exact1d", "_upsample_nearest_exact2d",
        "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d",
        "_upsample_bilinear2d_aa", "upsample_trilinear3d", "upsample_bicubic2d",
        "_upsample_bicubic2d_aa", "norm")},
    **{name: "fp32_dtype" for name in (
        "prod", "softmax", "log_softmax", "cumprod", "cumsum", "sum")},
    **{name: "promote" for name in (
        "addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "index_put",
        "scatter_add", "cat", "stack", "tensordot")},
}


def resolve(names: dict) -> dict:
    """{name: kind} -> {OpDef: kind} over every overload of each registry op named."""
    from ember._core.registry import OPS
    by_name: dict = {}
    for op in OPS.values():
        by_name.setdefault(op.name.partition(".")[0], []).append(op)
    table = {}
    for name, kind in names.items():
        for op in by_name.get(name, ()):
            if kind == "fp32_dtype" and "dtype" not in [a.name for a in op.schema.arguments]:
                table[op] = "fp32"
            else:
                table[op] = kind
    return table
