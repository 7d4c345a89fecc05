"""Grouped and scaled matrix products: grouped_mm (one product per group of rows, columns or
inner indices, the groups ending at `offs`), scaled_mm (float8 operands with tensor-wise or
row-wise scales, as PyTorch's CPU runs it), scaled_grouped_mm (no CPU kernel in PyTorch), and
the ScalingType / SwizzleType enums they take."""
from __future__ import annotations

import enum

from ember._core.checks import _check
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state

__all__ = ["ScalingType", "SwizzleType", "grouped_mm", "scaled_grouped_mm", "scaled_mm"]


class _ScalingType(enum.IntEnum):
    """How a scale tensor maps onto a float8 operand."""

    TensorWise = 0
    RowWise = 1
    BlockWise1x16 = 2
    BlockWise1x32 = 3
    BlockWise1x128 = 4
    BlockWise128x128 = 5


class _SwizzleType(enum.IntEnum):
    """The memory layout of a scale tensor (CUDA kernels read the swizzled one)."""

    NO_SWIZZLE = 0
    SWIZZLE_32_4_4 = 1


ScalingType = _ScalingType
SwizzleType = _SwizzleType


# --------------------------------------------------------------------------- grouped_mm

def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None) -> Tensor: a product
    per group. 3-D x 3-D: one per batch entry (no offs). With `offs` (int32, the groups' end
    indices): 2-D x 3-D splits mat_a's rows, 3-D x 2-D splits mat_b's columns, 2-D x 2-D splits
    the inner dimension (a 3-D result); rows or columns past the last offset are zero."""
    if _state.entry and _wants(locals()):
        return _handle(grouped_mm, locals())
    import ember
    _check(out_dtype is None or out_dtype == mat_a.dtype,
           "Grouped gemm output dtype must match `mat_a` dtype")
    _check(bias is None, "Bias not supported yet")
    both_3d = mat_a.dim() == 3 and mat_b.dim() == 3
    _check((offs is None) == both_3d, "Have to provide offsets if there is a 2d matrix, or no "
                                      "offset if both matrices are 3d")
    if both_3d:
        return ember.bmm(mat_a, mat_b)
    _check(offs.dtype == ember.int32, "Offsets have to be int32")
    ends = [int(e) for e in offs.tolist()]
    starts = [0] + ends[:-1]
    if mat_a.dim() == 2 and mat_b.dim() == 3:
        out = mat_a.new_zeros((mat_a.shape[0], mat_b.shape[-1]))
        pieces = [mat_a[s:e] @ mat_b[g] for g, (s, e) in enumerate(zip(starts, ends))]
        return _placed(ember, out, pieces, ends, dim=0)
    if mat_a.dim() == 3 and mat_b.dim() == 2:
        out = mat_b.new_zeros((mat_a.shape[1], mat_b.shape[-1]))
        pieces = [mat_a[g] @ mat_b[:, s:e] for g, (s, e) in enumerate(zip(starts, ends))]
        return _placed(ember, out, pieces, ends, dim=1)
    return ember.stack([mat_a[:, s:e] @ mat_b[s:e] for s, e in zip(starts, ends)])


def _placed(ember, zeros, pieces, ends, dim):
    """The pieces side by side along `dim`, then zeros up to the full size."""
    covered = ends[-1] if ends else 0
    rest = zeros.narrow(dim, covered, zeros.shape[dim] - covered)
    return ember.cat([*pieces, rest], dim=dim)


# --------------------------------------------------------------------------- scaled_mm

def _listed(value):
    return value[0] if isinstance(value, (list, tuple)) and len(value) == 1 else value


def _scales_fit(recipe, scale, rows, first) -> bool:
    import ember
    if scale.dtype != ember.float32:
        return False
    if recipe == ScalingType.TensorWise:
        return scale.numel() == 1
    if recipe == ScalingType.RowWise:
        shape = (rows, 1) if first else (1, rows)
        return tuple(scale.shape) == shape and scale.is_contiguous()
    return False


def scaled_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b, swizzle_a=None,
              swizzle_b=None, bias=None, output_dtype=None, contraction_dim=(),
              use_fast_accum=False):
    """scaled_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b, ...,
    bias=None, output_dtype=bfloat16, ...) -> Tensor: (mat_a @ mat_b) scaled by scale_a and
    scale_b, float8 operands, tensor-wise (one-element float32 scales) or row-wise (scale_a
    (M, 1), scale_b (1, N)) scaling, plus bias, in `output_dtype`. The swizzles, fast
    accumulation and contraction_dim change nothing on the CPU, as in PyTorch."""
    if _state.entry and _wants(locals()):
        return _handle(scaled_mm, locals())
    import ember
    if output_dtype is None:
        output_dtype = ember.bfloat16
    scale_a, scale_b = _listed(scale_a), _listed(scale_b)
    recipe_a, recipe_b = _listed(scale_recipe_a), _listed(scale_recipe_b)
    rows, cols = mat_a.shape[0], mat_b.shape[-1]
    if mat_a.shape[-1] != mat_b.shape[0]:
        raise ValueError(f"mat_a and mat_b shapes cannot be multiplied ({mat_a.shape[0]}x"
                         f"{mat_a.shape[1]} and {mat_b.shape[0]}x{mat_b.shape[1]})")
    float8 = all(str(m.dtype).split(".")[1].startswith("float8") for m in (mat_a, mat_b))
    valid = float8 and recipe_a == recipe_b and _scales_fit(recipe_a, scale_a, rows, True) \
        and _scales_fit(recipe_b, scale_b, cols, False)
    if recipe_a == recipe_b == ScalingType.RowWise and float8 and \
            tuple(scale_a.shape) != (rows, 1) and scale_a.dim() == 2:
        raise ValueError(f"scale_a must have shape [{rows}, 1], got [{list(scale_a.shape)}]")
    if not valid:
        raise ValueError(_invalid_configuration(mat_a, mat_b, scale_a, scale_b, rows, cols))
    product = mat_a.float() @ mat_b.float()
    product = product * (scale_a.float().reshape(-1, 1) if scale_a.numel() > 1 else
                         scale_a.float().reshape(())) * scale_b.float().reshape(
        (1, -1) if scale_b.numel() > 1 else ())
    if bias is not None:
        product = product + bias.float()
    return product.to(output_dtype)


def _invalid_configuration(mat_a, mat_b, scale_a, scale_b, rows, cols) -> str:
    def describe(t):
        return f"[{', '.join(str(s) for s in t.shape)}]"

    def strides(t):
        return f"[{', '.join(str(s) for s in t.stride())}]"
    return (
        "Invalid scaling configuration.\n- For TensorWise scaling, a and b should be float8, "
        "scales should be float and singletons.\n- For RowWise scaling, a and b should be "
        f"float8, scales should be float, scale_a should be ({rows}, 1) and scale_b should be "
        f"(1, {cols}), and both should be contiguous.\nGot mat_a.dtype()="
        f"{mat_a.dtype._cpp_name}, scale_a.dtype()={scale_a.dtype._cpp_name}, scale_a.size()="
        f"{describe(scale_a)}, scale_a.stride()={strides(scale_a)}, mat_b.dtype()="
        f"{mat_b.dtype._cpp_name}, scale_b.dtype()={scale_b.dtype._cpp_name}, scale_b.size()="
        f"{describe(scale_b)} and scale_b.stride()={strides(scale_b)}")


def scaled_grouped_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b,
                      swizzle_a=None, swizzle_b=None, bias=None, offs=None, output_dtype=None,
                      contraction_dim=(), use_fast_accum=False):
    """scaled_grouped_mm(...): grouped_mm of float8 operands with scales. PyTorch has CUDA
    kernels only: on the CPU, its NotImplementedError."""
    if _state.entry and _wants(locals()):
        return _handle(scaled_grouped_mm, locals())
    backend = mat_a.device.type.upper()
    raise NotImplementedError(
        f"Could not run 'aten::_scaled_grouped_mm_v2' with arguments from the '{backend}' "
        "backend. This could be because the operator doesn't exist for this backend, or was "
        "omitted during the selective/custom build process (if using custom build).")
