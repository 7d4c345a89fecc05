"""PyTorch's vendor-library entry points at `ember.*` (cuDNN, MIOpen, oneDNN, FBGEMM, the CUDA
kernels of SyncBatchNorm) and the build's library flags.

NOTE [vendor kernels without the vendor]: a CPU build of PyTorch keeps these names; calling
one whose kernel needs a GPU library or oneDNN's own tensor layout raises NotImplementedError
"Could not run 'aten::<op>' with arguments from the 'CPU' backend", and ember does the same.
What PyTorch runs on ordinary CPU tensors runs here too: `mkldnn_convolution` (a convolution),
`batch_norm_update_stats`, the FBGEMM fp16 and int8 linear layers (their packed weights are
ember's own opaque tensors, as PyTorch's are FBGEMM's).
"""
from __future__ import annotations

import inspect
import warnings
import weakref

import numpy as np

from ember._core import arguments
from ember._core.checked_entry import checked
from ember._core.checks import _check

has_lapack = True        # NumPy's LAPACK: linalg works
has_spectral = True      # FFTs work
has_mkl = False          # ember calls no MKL of its own
has_openmp = False       # nor OpenMP (backends.openmp.is_available() is False too)


def is_vulkan_available() -> bool:
    """False: ember has no Vulkan back-end."""
    return False


def init_num_threads() -> None:
    """Set up the intra-op thread pool for this thread (ember's is set up on first use)."""


def _no_cpu_kernel(name: str, *schemas: str):
    """The refusing entry point `name`: its arguments are checked against PyTorch's schema
    first (a bad call is PyTorch's TypeError, NOTE [checked entries]), then it raises."""
    parameters = []
    for arg in schemas[0].split(", "):
        declared, _, default = arg.partition("=")
        name_ = declared.split()[-1]
        parameters.append(inspect.Parameter(
            "input" if name_ == "self" else name_, inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=default if default else inspect.Parameter.empty))
    signature = inspect.Signature(parameters)

    def refuse(*args, **kwargs):
        try:
            signature.bind(*args, **kwargs)
        except TypeError as exc:                  # (an unknown keyword, a missing argument)
            raise TypeError(f"{name}() {exc}") from None
        raise NotImplementedError(
            f"Could not run 'aten::{name}' with arguments from the 'CPU' backend. ember has no "
            f"{_VENDOR[name.split('_')[0]]} kernels (NOTE [vendor kernels without the vendor]).")
    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = f"PyTorch's `{name}`: needs a kernel ember does not have (always raises)."
    refuse.__signature__ = signature
    return checked(*(f"{name}({schema})" for schema in schemas))(refuse)


_VENDOR = {"cudnn": "cuDNN", "miopen": "MIOpen", "mkldnn": "oneDNN-layout",
           "batch": "CUDA SyncBatchNorm"}
_CONV = "SymInt[] stride, SymInt[] padding, SymInt[] dilation, SymInt groups"
_BN = ("Tensor input, Tensor weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
       "bool training, float exponential_average_factor, float epsilon")
_POOL = ("Tensor self, int[{0}] kernel_size, int[{0}] stride=[], int[{0}] padding=0, "
         "int[{0}] dilation=1, bool ceil_mode=False")
# PyTorch's schemas of the entry points whose kernels ember lacks (without the results).
_REFUSED = {
    "cudnn_affine_grid_generator": ("Tensor theta, int N, int C, int H, int W",),
    "cudnn_batch_norm": (_BN,),
    "cudnn_convolution": ("Tensor self, Tensor weight, SymInt[] padding, SymInt[] stride, "
                          "SymInt[] dilation, SymInt groups, bool benchmark, "
                          "bool deterministic, bool allow_tf32",),
    "cudnn_convolution_add_relu": ("Tensor self, Tensor weight, Tensor z, Scalar? alpha, "
                                   "Tensor? bias, " + _CONV,),
    "cudnn_convolution_relu": ("Tensor self, Tensor weight, Tensor? bias, " + _CONV,),
    "cudnn_convolution_transpose": ("Tensor self, Tensor weight, SymInt[] padding, "
                                    "SymInt[] output_padding, SymInt[] stride, "
                                    "SymInt[] dilation, SymInt groups, bool benchmark, "
                                    "bool deterministic, bool allow_tf32",),
    "cudnn_grid_sampler": ("Tensor self, Tensor grid",),
    "miopen_batch_norm": (_BN,),
    "miopen_convolution": ("Tensor self, Tensor weight, Tensor? bias, SymInt[] padding, "
                           "SymInt[] stride, SymInt[] dilation, SymInt groups, "
                           "bool benchmark, bool deterministic",),
    "miopen_convolution_add_relu": ("Tensor self, Tensor weight, Tensor z, Scalar? alpha, "
                                    "Tensor? bias, " + _CONV,),
    "miopen_convolution_relu": ("Tensor self, Tensor weight, Tensor? bias, " + _CONV,),
    "miopen_convolution_transpose": ("Tensor self, Tensor weight, Tensor? bias, "
                                     "SymInt[] padding, SymInt[] output_padding, "
                                     "SymInt[] stride, SymInt[] dilation, SymInt groups, "
                                     "bool benchmark, bool deterministic",),
    "miopen_ctc_loss": ("Tensor log_probs, Tensor targets, int[] input_lengths, "
                        "int[] target_lengths, int blank, bool deterministic, "
                        "bool zero_infinity",
                        "Tensor log_probs, Tensor targets, Tensor input_lengths, "
                        "Tensor target_lengths, int blank, bool deterministic, "
                        "bool zero_infinity"),
    "miopen_depthwise_convolution": ("Tensor self, Tensor weight, Tensor? bias, "
                                     "SymInt[] padding, SymInt[] stride, SymInt[] dilation, "
                                     "SymInt groups, bool benchmark, bool deterministic",),
    "miopen_rnn": ("Tensor input, Tensor[] weight, int weight_stride0, Tensor hx, Tensor? cx, "
                   "int mode, int hidden_size, int num_layers, bool batch_first, "
                   "float dropout, bool train, bool bidirectional, int[] batch_sizes, "
                   "Tensor? dropout_state",),
    "mkldnn_adaptive_avg_pool2d": ("Tensor self, int[2] output_size",),
    "mkldnn_linear_backward_weights": ("Tensor grad_output, Tensor input, Tensor weight, "
                                       "bool bias_defined",),
    "mkldnn_max_pool2d": (_POOL.format(2),),
    "mkldnn_max_pool3d": (_POOL.format(3),),
    "mkldnn_rnn_layer": ("Tensor input, Tensor weight0, Tensor weight1, Tensor weight2, "
                         "Tensor weight3, Tensor hx_, Tensor cx_, bool reverse, "
                         "int[] batch_sizes, int mode, int hidden_size, int num_layers, "
                         "bool has_biases, bool bidirectional, bool batch_first, bool train",),
    "batch_norm_backward_elemt": ("Tensor grad_out, Tensor input, Tensor mean, Tensor invstd, "
                                  "Tensor? weight, Tensor sum_dy, Tensor sum_dy_xmu, "
                                  "Tensor count",),
    "batch_norm_backward_reduce": ("Tensor grad_out, Tensor input, Tensor mean, "
                                   "Tensor invstd, Tensor? weight, bool input_g, "
                                   "bool weight_g, bool bias_g",),
    "batch_norm_elemt": ("Tensor input, Tensor? weight, Tensor? bias, Tensor mean, "
                         "Tensor invstd, float eps",),
    "batch_norm_gather_stats": ("Tensor input, Tensor mean, Tensor invstd, "
                                "Tensor? running_mean, Tensor? running_var, float momentum, "
                                "float eps, int count",),
    "batch_norm_gather_stats_with_counts": ("Tensor input, Tensor mean, Tensor invstd, "
                                            "Tensor? running_mean, Tensor? running_var, "
                                            "float momentum, float eps, Tensor counts",),
    "batch_norm_stats": ("Tensor input, float eps",),
}
globals().update({name: _no_cpu_kernel(name, *schemas) for name, schemas in _REFUSED.items()})


def cudnn_is_acceptable(tensor) -> bool:
    """Whether cuDNN could run on `tensor`: never, without cuDNN."""
    arguments.tensor_(tensor, ("cudnn_is_acceptable", "input", 1))
    return False


_ONEDNN_DTYPES = ("float32", "bfloat16")


@checked("mkldnn_convolution(Tensor self, Tensor weight, Tensor? bias, SymInt[] padding, "
         "SymInt[] stride, SymInt[] dilation, SymInt groups)")
def mkldnn_convolution(input, weight, bias, padding, stride, dilation, groups):
    """A convolution (oneDNN's entry point; on ordinary tensors, ember's own). oneDNN takes
    float32 and bfloat16 (float16 only on CPUs with avx_ne_convert, which ember assumes
    absent)."""
    import ember.nn.functional as F
    _check(input.dim() == weight.dim(), lambda: (
        f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
        f"{list(weight.shape)}, but got {input.dim()}-dimensional input of size "
        f"{list(input.shape)} instead"))
    conv = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}.get(input.dim())
    _check(conv is not None, "could not create a primitive descriptor for the convolution "
                             "forward propagation primitive")
    for t in (input, weight):
        _check(t.dtype._name in _ONEDNN_DTYPES, lambda: (
                   "itensor_view_from_dense expects float/bfloat16/half/int8/fp8 tensor input"
                   + _scalar_name(t.dtype)))
    return conv(input, weight, bias, stride=stride, padding=padding, dilation=dilation,
                groups=groups)


def _scalar_name(dtype) -> str:
    return dtype._cpp_name


def _expect_float(t) -> None:
    import ember
    _check(t.dtype == ember.float32,
           lambda: f"expected scalar type Float but found {_scalar_name(t.dtype)}")


@checked("batch_norm_update_stats(Tensor input, Tensor? running_mean, Tensor? running_var, "
         "float momentum)")
def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased variance) over all but the channel dimension; the running statistics, when
    given, move towards the mean and the unbiased variance by `momentum`."""
    import ember
    if not input.is_floating_point():
        raise NotImplementedError(f'"batch_norm_update_stats_cpu" not implemented for '
                                  f"'{_scalar_name(input.dtype)}'")
    channels = input.size(1)            # (PyTorch's IndexError under two dimensions)
    _check(input.numel() > 0, lambda: "input tensor must have at least one element, but got "
                                      f"input_sizes = {list(input.shape)}")
    for running in (running_mean, running_var):
        if running is None:
            continue
        _check(running.dim() == 1, lambda: (
            f"TensorAccessor expected 1 dims but tensor has {running.dim()}"))
        _check(running.dtype == input.dtype or input.dtype in (ember.float16, ember.bfloat16)
               and running.dtype == ember.float32, lambda: (
                   "mixed dtype (CPU): expect parameter to have scalar type of Float"))
    dims = [d for d in range(input.dim()) if d != 1]
    with ember.no_grad():
        mean = input.mean(dims)
        var = input.var(dims, unbiased=False)
        count = input.numel() // channels
        if running_mean is not None:
            running_mean[:channels].mul_(1 - momentum).add_(mean, alpha=momentum)
        if running_var is not None:
            unbiased = var * (count / (count - 1)) if count > 1 else \
                ember.full_like(var, float("inf"))
            running_var[:channels].mul_(1 - momentum).add_(unbiased, alpha=momentum)
    return mean, var


def _deprecated(name: str) -> None:
    warnings.warn(f"{name} is deprecated and will be removed in a future PyTorch release.",
                  UserWarning, stacklevel=3)


# NOTE [FBGEMM packed weights]: FBGEMM's packed weights are opaque C++ objects wrapped in a
# tensor; PyTorch refuses any other tensor in their place ("Expected temporary cpp type
# wrapper"). ember's are uint8 tensors (rows and columns as two int32, then the weight's
# float16 or int8 bytes), remembered here by identity so that only they are accepted.
_PACKED = weakref.WeakValueDictionary()


def _pack(weight: np.ndarray):
    import ember
    header = np.array(weight.shape, dtype=np.int32).view(np.uint8)
    packed = ember.from_numpy(np.concatenate([header, weight.reshape(-1).view(np.uint8)]))
    _PACKED[id(packed)] = packed
    return packed


def _unpack(packed, dtype):
    _check(_PACKED.get(id(packed)) is packed, "Expected temporary cpp type wrapper")
    raw = packed.numpy()
    rows, cols = raw[:8].view(np.int32)
    return raw[8:].view(dtype).reshape(rows, cols)


def _as_matrix(input):
    """A weight as FBGEMM reads it: all leading dimensions are rows."""
    input.size(1)                       # (PyTorch's IndexError under two dimensions)
    return input.detach().numpy().reshape(-1, input.shape[-1])


@checked("fbgemm_pack_gemm_matrix_fp16(Tensor input)")
def fbgemm_pack_gemm_matrix_fp16(input):
    """A weight packed for `fbgemm_linear_fp16_weight` (rounded to float16)."""
    _deprecated("fbgemm_pack_gemm_matrix_fp16")
    _expect_float(input)
    return _pack(_as_matrix(input).astype(np.float16))


def _linear_fp16(input, packed_weight, bias):
    import ember
    _expect_float(input)
    weight = _unpack(packed_weight, np.float16)
    _check(input.dim() >= 1 and input.shape[-1] == weight.shape[1], lambda: (
        "Expected input.size(input.dim() - 1) == packed_weight_fp16.numRows() to be true, "
        "but got false."))
    out = input @ ember.from_numpy(weight.astype(np.float32)).t()
    return out if bias is None else out + bias.to(ember.float32)


@checked("fbgemm_linear_fp16_weight_fp32_activation(Tensor input, Tensor packed_weight, "
         "Tensor? bias)")
def fbgemm_linear_fp16_weight_fp32_activation(input, packed_weight, bias):
    """input @ weight.T + bias, the weight rounded to float16 when it was packed."""
    _deprecated("fbgemm_linear_fp16_weight_fp32_activation")
    return _linear_fp16(input, packed_weight, bias)


@checked("fbgemm_linear_fp16_weight(Tensor input, Tensor packed_weight, Tensor bias)")
def fbgemm_linear_fp16_weight(input, packed_weight, bias):
    """input @ weight.T + bias with the packed float16 weight."""
    _deprecated("fbgemm_linear_fp16_weight")
    return _linear_fp16(input, packed_weight, bias)


# FBGEMM int8: weights quantized per tensor to int8 over their range (widened to hold 0).
def _qparams(low: float, high: float, qmin: int, qmax: int):
    low, high = min(low, 0.0), max(high, 0.0)
    scale = float(np.float32(high - low) / np.float32(qmax - qmin))
    if scale == 0.0:
        scale = 0.1
    zero_point = int(np.clip(round(qmin - low / scale), qmin, qmax))
    return scale, zero_point


@checked("fbgemm_linear_quantize_weight(Tensor input)")
def fbgemm_linear_quantize_weight(input):
    """(int8 weight, column offsets, scale, zero point) of a float weight."""
    import ember
    _deprecated("fbgemm_linear_quantize_weight")
    _expect_float(input)
    input.size(1)                       # (PyTorch's IndexError under two dimensions)
    weight = input.detach().numpy().astype(np.float32)
    scale, zero_point = _qparams(float(weight.min()), float(weight.max()), -128, 127)
    quantized = np.clip(np.rint(weight / np.float32(scale)) + zero_point, -128, 127)
    quantized = quantized.astype(np.int8)
    offsets = quantized.astype(np.int32).sum(1) - zero_point * weight.shape[1]
    return (ember.from_numpy(quantized), ember.from_numpy(offsets.astype(np.int32)), scale,
            zero_point)


@checked("fbgemm_pack_quantized_matrix(Tensor input)",
         "fbgemm_pack_quantized_matrix(Tensor input, int K, int N)")
def fbgemm_pack_quantized_matrix(input, K=None, N=None):
    """The int8 weight packed (ember keeps it as it is, in an opaque uint8 tensor)."""
    import ember
    _deprecated("fbgemm_pack_quantized_matrix")
    _check(input.dtype == ember.int8,
           lambda: f"expected scalar type Char but found {_scalar_name(input.dtype)}")
    return _pack(_as_matrix(input).astype(np.int8))


def _linear_int8(input, weight, packed, col_offsets, weight_scale, weight_zero_point, bias):
    import ember
    _expect_float(input)
    q_weight = _unpack(packed, np.int8).astype(np.float32)
    _check(col_offsets.dtype == ember.int32, lambda: (
        f"expected scalar type Int but found {_scalar_name(col_offsets.dtype)}"))
    _check(type(weight_scale) is float, "Expected weight_scale.isFloatingPoint() to be true, "
                                        "but got false.")
    _check(type(weight_zero_point) is int, "Expected weight_zero_point.isIntegral(false) to "
                                           "be true, but got false.")
    _check(input.dim() >= 2, "Expected input.dim() >= 2 to be true, but got false.")
    _check(input.shape[-1] == weight.size(1),
           "Expected K == weight.size(1) to be true, but got false.")
    _expect_float(bias)
    _check(bias.dim() == 1 and bias.shape[0] == q_weight.shape[0],
           "Expected bias.size(0) == N to be true, but got false.")
    w = (q_weight - weight_zero_point) * np.float32(weight_scale)
    x = input.detach().numpy().astype(np.float32)
    scale, zero_point = _qparams(float(x.min()), float(x.max()), 0, 255)
    x = (np.clip(np.rint(x / np.float32(scale)) + zero_point, 0, 255) - zero_point) * \
        np.float32(scale)
    return ember.from_numpy((x @ w.T).astype(np.float32)) + bias


_INT8_LINEAR = ("Tensor input, Tensor weight, Tensor packed, Tensor col_offsets, "
                "Scalar weight_scale, Scalar weight_zero_point, Tensor bias")


@checked(f"fbgemm_linear_int8_weight_fp32_activation({_INT8_LINEAR})")
def fbgemm_linear_int8_weight_fp32_activation(input, weight, packed, col_offsets,
                                              weight_scale, weight_zero_point, bias):
    """Linear with the packed int8 weight and the activations quantized to uint8 on the fly."""
    _deprecated("fbgemm_linear_int8_weight_fp32_activation")
    return _linear_int8(input, weight, packed, col_offsets, weight_scale, weight_zero_point,
                        bias)


@checked(f"fbgemm_linear_int8_weight({_INT8_LINEAR})")
def fbgemm_linear_int8_weight(input, weight, packed, col_offsets, weight_scale,
                              weight_zero_point, bias):
    """`fbgemm_linear_int8_weight_fp32_activation` (the same computation on the CPU)."""
    _deprecated("fbgemm_linear_int8_weight")
    return _linear_int8(input, weight, packed, col_offsets, weight_scale, weight_zero_point,
                        bias)


__all__ = sorted([*_REFUSED,  # noqa: PLE0605 (a list)
    "has_lapack", "has_spectral", "has_mkl", "has_openmp", "is_vulkan_available",
    "init_num_threads", "cudnn_is_acceptable", "mkldnn_convolution", "batch_norm_update_stats",
    "fbgemm_pack_gemm_matrix_fp16", "fbgemm_linear_fp16_weight",
    "fbgemm_linear_fp16_weight_fp32_activation", "fbgemm_linear_quantize_weight",
    "fbgemm_pack_quantized_matrix", "fbgemm_linear_int8_weight",
    "fbgemm_linear_int8_weight_fp32_activation"])
