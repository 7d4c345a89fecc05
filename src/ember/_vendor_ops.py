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

import numpy as np

from ember._core.checked_entry import checked

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
    return False


def mkldnn_convolution(input, weight, bias, padding, stride, dilation, groups):
    """A convolution (oneDNN's entry point; on ordinary tensors, ember's own)."""
    import ember.nn.functional as F
    conv = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}[input.dim()]
    return conv(input, weight, bias, stride=stride, padding=padding, dilation=dilation,
                groups=groups)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased variance) over all but the channel dimension; the running statistics, when
    given, move towards the mean and the unbiased variance by `momentum`."""
    import ember
    dims = [d for d in range(input.dim()) if d != 1]
    with ember.no_grad():
        mean = input.mean(dims)
        var = input.var(dims, unbiased=False)
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean, alpha=momentum)
        if running_var is not None:
            count = input.numel() // input.shape[1]
            running_var.mul_(1 - momentum).add_(var * (count / (count - 1)), alpha=momentum)
    return mean, var


def _deprecated(name: str) -> None:
    warnings.warn(f"{name} is deprecated and will be removed in a future PyTorch release.",
                  UserWarning, stacklevel=3)


# FBGEMM fp16: the packed weight is a uint8 tensor: rows and columns (two int32), then the
# weight's float16 bytes.
def fbgemm_pack_gemm_matrix_fp16(input):
    """A weight packed for `fbgemm_linear_fp16_weight` (rounded to float16)."""
    import ember
    _deprecated("fbgemm_pack_gemm_matrix_fp16")
    weight = input.detach().numpy().astype(np.float16)
    header = np.array(weight.shape, dtype=np.int32).view(np.uint8)
    return ember.from_numpy(np.concatenate([header, weight.reshape(-1).view(np.uint8)]))


def _unpack_fp16(packed):
    raw = packed.numpy()
    rows, cols = raw[:8].view(np.int32)
    return raw[8:].view(np.float16).reshape(rows, cols).astype(np.float32)


def fbgemm_linear_fp16_weight_fp32_activation(input, packed_weight, bias):
    """input @ weight.T + bias, the weight rounded to float16 when it was packed."""
    import ember
    _deprecated("fbgemm_linear_fp16_weight_fp32_activation")
    out = input @ ember.from_numpy(_unpack_fp16(packed_weight)).t()
    return out if bias is None else out + bias


def fbgemm_linear_fp16_weight(input, packed_weight, bias):
    """input @ weight.T + bias with the packed float16 weight."""
    import ember
    _deprecated("fbgemm_linear_fp16_weight")
    out = input @ ember.from_numpy(_unpack_fp16(packed_weight)).t()
    return out if bias is None else out + bias


# FBGEMM int8: weights quantized per tensor to int8 over their range (widened to hold 0).
def _qparams(low: float, high: float, qmin: int, qmax: int):
    low, high = min(low, 0.0), max(high, 0.0)
    scale = float(np.float32(high - low) / np.float32(qmax - qmin))
    if scale == 0.0:
        scale = 0.1
    zero_point = int(np.clip(round(qmin - low / scale), qmin, qmax))
    return scale, zero_point


def fbgemm_linear_quantize_weight(input):
    """(int8 weight, column offsets, scale, zero point) of a float weight."""
    import ember
    _deprecated("fbgemm_linear_quantize_weight")
    weight = input.detach().numpy().astype(np.float32)
    scale, zero_point = _qparams(float(weight.min()), float(weight.max()), -128, 127)
    quantized = np.clip(np.rint(weight / np.float32(scale)) + zero_point, -128, 127)
    quantized = quantized.astype(np.int8)
    offsets = quantized.astype(np.int32).sum(1) - zero_point * weight.shape[1]
    return (ember.from_numpy(quantized), ember.from_numpy(offsets.astype(np.int32)), scale,
            zero_point)


def fbgemm_pack_quantized_matrix(input, K=None, N=None):
    """The int8 weight packed (ember keeps it as it is, in an opaque uint8 tensor)."""
    import ember
    _deprecated("fbgemm_pack_quantized_matrix")
    weight = input.detach().numpy().astype(np.int8)
    header = np.array(weight.shape, dtype=np.int32).view(np.uint8)
    return ember.from_numpy(np.concatenate([header, weight.reshape(-1).view(np.uint8)]))


def fbgemm_linear_int8_weight_fp32_activation(input, weight, packed, col_offsets,
                                              weight_scale, weight_zero_point, bias):
    """Linear with the packed int8 weight and the activations quantized to uint8 on the fly."""
    import ember
    _deprecated("fbgemm_linear_int8_weight_fp32_activation")
    raw = packed.numpy()
    rows, cols = raw[:8].view(np.int32)
    q_weight = raw[8:].view(np.int8).reshape(rows, cols).astype(np.float32)
    w = (q_weight - weight_zero_point) * np.float32(weight_scale)
    x = input.detach().numpy().astype(np.float32)
    scale, zero_point = _qparams(float(x.min()), float(x.max()), 0, 255)
    x = (np.clip(np.rint(x / np.float32(scale)) + zero_point, 0, 255) - zero_point) * \
        np.float32(scale)
    out = ember.from_numpy((x @ w.T).astype(np.float32))
    return out if bias is None else out + bias


def fbgemm_linear_int8_weight(input, weight, packed, col_offsets, weight_scale,
                              weight_zero_point, bias):
    """`fbgemm_linear_int8_weight_fp32_activation` (the same computation on the CPU)."""
    return fbgemm_linear_int8_weight_fp32_activation(input, weight, packed, col_offsets,
                                                     weight_scale, weight_zero_point, bias)


__all__ = sorted([*_REFUSED,  # noqa: PLE0605 (a list)
    "has_lapack", "has_spectral", "has_mkl", "has_openmp", "is_vulkan_available",
    "init_num_threads", "cudnn_is_acceptable", "mkldnn_convolution", "batch_norm_update_stats",
    "fbgemm_pack_gemm_matrix_fp16", "fbgemm_linear_fp16_weight",
    "fbgemm_linear_fp16_weight_fp32_activation", "fbgemm_linear_quantize_weight",
    "fbgemm_pack_quantized_matrix", "fbgemm_linear_int8_weight",
    "fbgemm_linear_int8_weight_fp32_activation"])
