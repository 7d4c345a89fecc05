"""Valid calls of `nn.functional` and of modules, on edge tensors, for the value-differential
fuzzer.

`nn.functional`'s entries have no registry schema, so each has a template here: the tensors
it takes (by shape: "x" is the input, "x4" an image batch (N, C, H, W), "x3" a sequence batch
(N, C, L), "same" another tensor of the input's shape and dtype, "labels" class indices,
"probs" values in [0, 1]) and its other arguments drawn from a few valid values. A module call
is its functional form's template with the module's constructor arguments.
"""
from __future__ import annotations

from hypothesis import strategies as st

from edge_values import LAYOUTS

FLOATS = ("float32", "float32", "float32", "float64", "float16", "bfloat16")
SHAPE_X = ((2, 3), (4,), (2, 3, 4), (), (0, 3), (3, 1, 2))
SHAPE_X4 = ((2, 3, 5, 5), (1, 2, 4, 6), (2, 1, 3, 3))
SHAPE_X3 = ((2, 3, 7), (1, 2, 5), (3, 1, 4))


def _f(*values):
    return st.sampled_from([("float", v) for v in values])


def _i(*values):
    return st.sampled_from([("int", v) for v in values])


def _s(*values):
    return st.sampled_from([("str", v) for v in values])


BOOL = st.sampled_from([("bool", True), ("bool", False)])
EDGE_FLOATS = _f(0.0, -0.0, 0.5, 1.0, 2.0, -1.5, float("inf"), 1e30, 1e-30)
REDUCTION = _s("mean", "sum", "none")

# name -> (positional argument kinds, {keyword: strategy}); keywords are drawn or left out.
FUNCTIONAL = {
    "relu": (("x",), {}), "relu6": (("x",), {}), "selu": (("x",), {}), "silu": (("x",), {}),
    "mish": (("x",), {}), "sigmoid": (("x",), {}), "tanh": (("x",), {}),
    "hardsigmoid": (("x",), {}), "hardswish": (("x",), {}), "logsigmoid": (("x",), {}),
    "softsign": (("x",), {}), "tanhshrink": (("x",), {}),
    "elu": (("x",), {"alpha": EDGE_FLOATS}), "celu": (("x",), {"alpha": _f(0.5, 1.0, 2.0)}),
    "leaky_relu": (("x",), {"negative_slope": EDGE_FLOATS}),
    "hardtanh": (("x",), {"min_val": _f(-1.0, -2.0, 0.0), "max_val": _f(1.0, 2.0)}),
    "hardshrink": (("x",), {"lambd": _f(0.5, 0.0, 1.0)}),
    "softshrink": (("x",), {"lambd": _f(0.5, 0.0, 1.0)}),
    "softplus": (("x",), {"beta": _f(1.0, 2.0, 0.5), "threshold": _f(20.0, 1.0, 0.0)}),
    "gelu": (("x",), {"approximate": _s("none", "tanh")}),
    "threshold": (("x",), {"threshold": _f(0.0, 1.0, -1e30), "value": _f(0.0, -1.0, 2.0)}),
    "softmax": (("x",), {"dim": _i(0, -1)}), "log_softmax": (("x",), {"dim": _i(0, -1)}),
    "softmin": (("x",), {"dim": _i(0, -1)}), "glu": (("x",), {"dim": _i(0, -1)}),
    "normalize": (("x",), {"p": _f(2.0, 1.0, float("inf"), 0.5), "dim": _i(0, -1),
                           "eps": _f(1e-12, 0.0)}),
    "mse_loss": (("x", "same"), {"reduction": REDUCTION}),
    "l1_loss": (("x", "same"), {"reduction": REDUCTION}),
    "smooth_l1_loss": (("x", "same"), {"reduction": REDUCTION, "beta": _f(1.0, 0.5, 0.0)}),
    "huber_loss": (("x", "same"), {"reduction": REDUCTION, "delta": _f(1.0, 0.5, 2.0)}),
    "soft_margin_loss": (("x", "same"), {"reduction": REDUCTION}),
    "kl_div": (("x", "same"), {"reduction": _s("mean", "sum", "none", "batchmean"),
                               "log_target": BOOL}),
    "poisson_nll_loss": (("x", "same"), {"log_input": BOOL, "full": BOOL,
                                         "reduction": REDUCTION}),
    "binary_cross_entropy_with_logits": (("x", "probs"), {"reduction": REDUCTION}),
    "binary_cross_entropy": (("probs", "probs"), {"reduction": REDUCTION}),
    "gaussian_nll_loss": (("x", "same", "probs"), {"full": BOOL, "reduction": REDUCTION}),
    "cross_entropy": (("x", "labels"), {"reduction": REDUCTION,
                                         "label_smoothing": _f(0.0, 0.1)}),
    "nll_loss": (("x", "labels"), {"reduction": REDUCTION}),
    "layer_norm": (("x", "last_shape"), {"eps": _f(1e-5, 0.0)}),
    "rms_norm": (("x", "last_shape"), {"eps": _f(1e-5, 0.0)}),
    "group_norm": (("x4", "groups"), {"eps": _f(1e-5, 0.0)}),
    "instance_norm": (("x4",), {"eps": _f(1e-5, 0.0)}),
    "local_response_norm": (("x4", "size"), {}),
    "avg_pool1d": (("x3", "kernel"), {"stride": _i(1, 2), "ceil_mode": BOOL,
                                      "count_include_pad": BOOL}),
    "avg_pool2d": (("x4", "kernel"), {"stride": _i(1, 2), "ceil_mode": BOOL,
                                      "count_include_pad": BOOL}),
    "max_pool1d": (("x3", "kernel"), {"stride": _i(1, 2), "ceil_mode": BOOL}),
    "max_pool2d": (("x4", "kernel"), {"stride": _i(1, 2), "ceil_mode": BOOL,
                                      "dilation": _i(1, 2)}),
    "lp_pool1d": (("x3", "norm", "kernel"), {"stride": _i(1, 2)}),
    "lp_pool2d": (("x4", "norm", "kernel"), {"stride": _i(1, 2)}),
    "adaptive_avg_pool1d": (("x3", "out_size"), {}),
    "adaptive_avg_pool2d": (("x4", "out_size"), {}),
    "adaptive_max_pool1d": (("x3", "out_size"), {}),
    "adaptive_max_pool2d": (("x4", "out_size"), {}),
    "interpolate": (("x4",), {"scale_factor": _f(2.0, 0.5, 1.5),
                              "mode": _s("nearest", "bilinear", "bicubic", "nearest-exact",
                                         "area")}),
    "pixel_shuffle": (("x4", "one"), {}), "pixel_unshuffle": (("x4", "one"), {}),
    "pad": (("x", "pads"), {"value": EDGE_FLOATS}),
    "pdist": (("x2",), {"p": _f(2.0, 1.0, float("inf"), 0.0)}),
    "cosine_similarity": (("x", "same"), {"dim": _i(0, -1), "eps": _f(1e-8, 0.0)}),
    "pairwise_distance": (("x", "same"), {"p": _f(2.0, 1.0, float("inf"), 0.0)}),
    "linear": (("x2", "weight"), {}),
    # (the entries below were added to reach every public nn.functional entry with a
    # deterministic result; random ones are drawn where their randomness is off)
    "relu_": (("x",), {}), "elu_": (("x",), {}), "selu_": (("x",), {}), "celu_": (("x",), {}),
    "leaky_relu_": (("x",), {}), "hardtanh_": (("x",), {}),
    "threshold_": (("x", "half", "two"), {}), "rrelu": (("x",), {}),
    "dropout": (("x", "zero"), {}), "alpha_dropout": (("x",), {}),
    "feature_alpha_dropout": (("x",), {}), "dropout1d": (("x3", "zero"), {}),
    "dropout2d": (("x4", "zero"), {}), "dropout3d": (("x4", "zero"), {}),
    "prelu": (("x4", "chan"), {}),
    "conv1d": (("x3", "cw"), {"stride": _i(1, 2), "padding": _i(0, 1)}),
    "conv2d": (("x4", "cw"), {"stride": _i(1, 2), "padding": _i(0, 1),
                              "dilation": _i(1, 2)}),
    "conv3d": (("x5", "cw"), {"padding": _i(0, 1)}),
    "conv_transpose1d": (("x3", "ctw"), {"stride": _i(1, 2)}),
    "conv_transpose2d": (("x4", "ctw"), {"stride": _i(1, 2), "padding": _i(0, 1)}),
    "conv_transpose3d": (("x5", "ctw"), {}),
    "batch_norm": (("x4", "chan", "chanvar"), {"training": BOOL, "eps": _f(1e-5, 0.0)}),
    "embedding": (("idx", "table"), {}), "one_hot": (("idx",), {}),
    "embedding_bag": (("idx", "table"), {"mode": _s("mean", "sum", "max")}),
    "unfold": (("x4", "kernel"), {"stride": _i(1, 2), "padding": _i(0, 1)}),
    "fold": (("fold_in", "fold_out", "two"), {}),
    "channel_shuffle": (("x4", "one"), {}), "native_channel_shuffle": (("x4", "one"), {}),
    "grid_sample": (("x4", "grid"), {"mode": _s("bilinear", "nearest"),
                                     "padding_mode": _s("zeros", "border", "reflection"),
                                     "align_corners": BOOL}),
    "affine_grid": (("theta", "theta_size"), {"align_corners": BOOL}),
    "scaled_dot_product_attention": (("x3", "same", "same"), {"is_causal": BOOL}),
    "avg_pool3d": (("x5", "kernel"), {"stride": _i(1, 2), "ceil_mode": BOOL}),
    "max_pool3d": (("x5", "kernel"), {"stride": _i(1, 2)}),
    "lp_pool3d": (("x5", "norm", "kernel"), {}),
    "adaptive_avg_pool3d": (("x5", "out_size"), {}),
    "adaptive_max_pool3d": (("x5", "out_size"), {}),
    "max_pool1d_with_indices": (("x3", "kernel"), {"stride": _i(1, 2)}),
    "max_pool2d_with_indices": (("x4", "kernel"), {"stride": _i(1, 2)}),
    "adaptive_max_pool1d_with_indices": (("x3", "out_size"), {}),
    "adaptive_max_pool2d_with_indices": (("x4", "out_size"), {}),
    "upsample": (("x4", "none", "two"), {}), "upsample_nearest": (("x4", "none", "two"), {}),
    "upsample_bilinear": (("x4", "none", "two"), {}),
    "hinge_embedding_loss": (("x", "signs"), {"margin": _f(1.0, 0.5),
                                               "reduction": REDUCTION}),
    "margin_ranking_loss": (("x", "same", "signs"), {"margin": _f(0.0, 0.5),
                                                      "reduction": REDUCTION}),
    "cosine_embedding_loss": (("x2", "same", "signs_n"), {"margin": _f(0.0, 0.5),
                                                          "reduction": REDUCTION}),
    "triplet_margin_loss": (("x", "same", "same"), {"swap": BOOL, "reduction": REDUCTION}),
    "triplet_margin_with_distance_loss": (("x2", "same", "same"), {"reduction": REDUCTION}),
    "multi_margin_loss": (("x2", "labels"), {"p": _i(1, 2), "reduction": REDUCTION}),
    "multilabel_soft_margin_loss": (("x2", "probs"), {"reduction": REDUCTION}),
    "bilinear": (("x2", "same", "bilinear_w"), {}),
}

LINALG = {
    "vector_norm": (("x",), {"ord": _f(2.0, 1.0, float("inf"), 0.0, 3.0, -1.0)}),
    "matrix_norm": (("sq",), {"ord": st.sampled_from([("str", "fro"), ("float", 1.0),
                                                      ("float", float("inf"))])}),
    "norm": (("x",), {}), "det": (("sq",), {}), "slogdet": (("sq",), {}),
    "inv": (("sq",), {}), "solve": (("sq", "sq_rhs"), {}), "svdvals": (("sq",), {}),
    "eigvalsh": (("sq",), {}), "pinv": (("sq",), {}), "matrix_power": (("sq", "small"), {}),
    "cross": (("last3", "last3"), {}), "vecdot": (("x", "same"), {}),
    "diagonal": (("sq",), {}), "matrix_rank": (("sq",), {}), "cond": (("sq",), {}),
    "cholesky_ex": (("sq",), {}), "lu_factor_ex": (("sq",), {}),
    "cholesky": (("sq",), {}), "inv_ex": (("sq",), {}), "solve_ex": (("sq", "sq_rhs"), {}),
    "lu_factor": (("sq",), {}), "lu": (("sq",), {}), "matrix_exp": (("sq",), {}),
    "matmul": (("sq", "same"), {}), "multi_dot": (("sq_list",), {}),
    "solve_triangular": (("sq", "sq_rhs"), {"!upper": BOOL, "unitriangular": BOOL}),
    "vander": (("x1",), {"N": _i(1, 3)}), "qr": (("sq",), {}),
}
FFT = {
    "fft": (("x",), {"norm": _s("backward", "ortho", "forward")}),
    "ifft": (("complex",), {}), "rfft": (("x",), {"n": _i(2, 5)}),
    "irfft": (("complex",), {}), "hfft": (("complex",), {}), "ihfft": (("x",), {}),
    "fftn": (("x",), {}), "rfftn": (("x",), {}), "fftshift": (("x",), {}),
    "ifftshift": (("x",), {}), "fft2": (("x",), {}), "ifft2": (("complex",), {}),
    "rfft2": (("x",), {}), "irfft2": (("complex",), {}), "hfft2": (("complex",), {}),
    "ihfft2": (("x",), {}), "ifftn": (("complex",), {}), "irfftn": (("complex",), {}),
    "hfftn": (("complex",), {}), "ihfftn": (("x",), {}),
    "fftfreq": (("small_pos",), {"d": _f(1.0, 0.5)}),
    "rfftfreq": (("small_pos",), {"d": _f(1.0, 0.5)}),
}
SPECIAL = {name: (("x",), {}) for name in (
    "expit", "logit", "erf", "erfc", "erfcx", "erfinv", "ndtr", "ndtri", "log_ndtr", "i0",
    "i0e", "i1", "i1e", "sinc", "entr", "gammaln", "digamma", "expm1", "exp2", "log1p",
    "bessel_j0", "bessel_j1", "airy_ai", "bessel_y0", "bessel_y1", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "psi", "round",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0")}
SPECIAL.update({
    "xlogy": (("x", "same"), {}), "xlog1py": (("x", "same"), {}), "zeta": (("x", "same"), {}),
    "polygamma": (("small", "x"), {}), "logsumexp": (("x", "dim0"), {}),
    "softmax": (("x", "dim0"), {}), "log_softmax": (("x", "dim0"), {}),
    "gammainc": (("x", "same"), {}), "gammaincc": (("x", "same"), {}),
    "multigammaln": (("x", "small_pos"), {}),
})
SPECIAL.update({name: (("x", "small"), {}) for name in (
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w")})
# Modules: built after the generator is seeded alike in both libraries (NOTE [initialisers
# draw as PyTorch draws]), then called. The key is the constructor call.
MODULES = {
    "Linear(4, 3)": (("x_last4",), {}), "Conv1d(2, 3, 3)": (("x3_2",), {}),
    "Conv2d(3, 2, 3, padding=1)": (("x4_3",), {}), "ConvTranspose2d(3, 2, 2)": (("x4_3",), {}),
    "BatchNorm1d(2)": (("x3_2",), {}), "BatchNorm2d(3)": (("x4_3",), {}),
    "LayerNorm(4)": (("x_last4",), {}), "GroupNorm(1, 3)": (("x4_3",), {}),
    "InstanceNorm2d(3)": (("x4_3",), {}), "LSTM(4, 3)": (("seq",), {}),
    "GRU(4, 3)": (("seq",), {}), "RNN(4, 3)": (("seq",), {}), "PReLU()": (("x",), {}),
    "MultiheadAttention(4, 2)": (("seq", "same", "same"), {}),
    "AvgPool2d(2)": (("x4_3",), {}), "MaxPool2d(2)": (("x4_3",), {}),
    "Upsample(scale_factor=2, mode='bilinear')": (("x4_3",), {}),
    "Softmax(dim=-1)": (("x",), {}), "GELU()": (("x",), {}), "SiLU()": (("x",), {}),
    "TransformerEncoderLayer(4, 2, 8, dropout=0.0)": (("seq",), {}),
    "TransformerDecoderLayer(4, 2, 8, dropout=0.0)": (("seq", "same"), {}),
    "Transformer(4, 2, 1, 1, 8, dropout=0.0)": (("seq", "same"), {}),
    "Conv3d(2, 2, 2)": (("x5_2",), {}), "ConvTranspose1d(2, 3, 3)": (("x3_2",), {}),
    "ConvTranspose3d(2, 1, 2)": (("x5_2",), {}), "BatchNorm3d(2)": (("x5_2",), {}),
    "InstanceNorm1d(2)": (("x3_2",), {}), "InstanceNorm3d(2, affine=True)": (("x5_2",), {}),
    "LocalResponseNorm(2)": (("x4_3",), {}), "RMSNorm(4)": (("x_last4",), {}),
    "AdaptiveAvgPool1d(2)": (("x3_2",), {}), "AdaptiveAvgPool2d((2, 3))": (("x4_3",), {}),
    "AdaptiveAvgPool3d(2)": (("x5_2",), {}), "AdaptiveMaxPool1d(3)": (("x3_2",), {}),
    "AdaptiveMaxPool2d(2)": (("x4_3",), {}), "AdaptiveMaxPool3d(1)": (("x5_2",), {}),
    "AvgPool1d(2)": (("x3_2",), {}), "AvgPool3d(2)": (("x5_2",), {}),
    "MaxPool1d(2)": (("x3_2",), {}), "MaxPool3d(2)": (("x5_2",), {}),
    "LPPool1d(2, 2)": (("x3_2",), {}), "LPPool2d(1, 2)": (("x4_3",), {}),
    "LPPool3d(2, 2)": (("x5_2",), {}),
    "ZeroPad1d(2)": (("x3_2",), {}), "ZeroPad2d(1)": (("x4_3",), {}),
    "ZeroPad3d(1)": (("x5_2",), {}), "ConstantPad1d(2, 3.5)": (("x3_2",), {}),
    "ConstantPad2d((1, 0, 2, 1), -1.0)": (("x4_3",), {}),
    "ConstantPad3d(1, 0.5)": (("x5_2",), {}), "ReflectionPad1d(1)": (("x3_2",), {}),
    "ReflectionPad2d(1)": (("x4_3",), {}), "ReflectionPad3d(1)": (("x5_2",), {}),
    "ReplicationPad1d(2)": (("x3_2",), {}), "ReplicationPad2d(1)": (("x4_3",), {}),
    "ReplicationPad3d(1)": (("x5_2",), {}), "CircularPad1d(1)": (("x3_2",), {}),
    "CircularPad2d(1)": (("x4_3",), {}), "CircularPad3d(1)": (("x5_2",), {}),
    "PixelShuffle(1)": (("x4_3",), {}), "PixelUnshuffle(1)": (("x4_3",), {}),
    "ChannelShuffle(1)": (("x4_3",), {}), "Softmax2d()": (("x4_3",), {}),
    "Flatten()": (("x4_3",), {}), "Unflatten(1, (3, 1))": (("x4_3",), {}),
    "Unfold(2)": (("x4_3",), {}), "Fold((3, 3), 2)": (("fold_in",), {}),
    "UpsamplingNearest2d(scale_factor=2)": (("x4_3",), {}),
    "UpsamplingBilinear2d(scale_factor=2)": (("x4_3",), {}),
    "Embedding(5, 3)": (("idx",), {}), "EmbeddingBag(5, 3)": (("idx",), {}),
    "Bilinear(4, 4, 2)": (("x_last4", "same"), {}),
    "GRUCell(4, 3)": (("x_last4",), {}), "LSTMCell(4, 3)": (("x_last4",), {}),
    "RNNCell(4, 3)": (("x_last4",), {}), "Identity()": (("x",), {}),
    "ReLU()": (("x",), {}), "ReLU6()": (("x",), {}), "ELU(0.5)": (("x",), {}),
    "CELU()": (("x",), {}), "SELU()": (("x",), {}), "LeakyReLU(0.1)": (("x",), {}),
    "Hardtanh(-2.0, 2.0)": (("x",), {}), "Hardshrink()": (("x",), {}),
    "Softshrink()": (("x",), {}), "Tanhshrink()": (("x",), {}), "Softplus(2.0)": (("x",), {}),
    "Softsign()": (("x",), {}), "Hardswish()": (("x",), {}), "Hardsigmoid()": (("x",), {}),
    "LogSigmoid()": (("x",), {}), "Sigmoid()": (("x",), {}), "Tanh()": (("x",), {}),
    "Mish()": (("x",), {}), "Threshold(0.1, 20.0)": (("x",), {}),
    "GLU()": (("x_last4",), {}), "LogSoftmax(dim=-1)": (("x",), {}),
    "Softmin(dim=-1)": (("x",), {}), "RReLU().eval()": (("x",), {}),
    "Dropout(0.5).eval()": (("x",), {}), "AlphaDropout(0.5).eval()": (("x",), {}),
    "CosineSimilarity()": (("x_last4", "same"), {}),
    "PairwiseDistance()": (("x_last4", "same"), {}),
    "MSELoss()": (("x", "same"), {}), "L1Loss()": (("x", "same"), {}),
    "HuberLoss(delta=0.5)": (("x", "same"), {}), "SmoothL1Loss()": (("x", "same"), {}),
    "SoftMarginLoss()": (("x", "same"), {}),
    "KLDivLoss(reduction='batchmean')": (("x", "same"), {}),
    "PoissonNLLLoss()": (("x", "same"), {}), "GaussianNLLLoss()": (("x", "same", "probs"), {}),
    "BCELoss()": (("probs", "probs"), {}), "BCEWithLogitsLoss()": (("x", "probs"), {}),
    "CrossEntropyLoss(label_smoothing=0.1)": (("x_last4", "labels"), {}),
    "NLLLoss()": (("x_last4", "labels"), {}), "MultiMarginLoss()": (("x_last4", "labels"), {}),
    "MultiLabelSoftMarginLoss()": (("x_last4", "probs"), {}),
    "HingeEmbeddingLoss()": (("x", "signs"), {}),
    "MarginRankingLoss(0.5)": (("x", "same", "signs"), {}),
    "TripletMarginLoss()": (("x_last4", "same", "same"), {}),
    "CosineEmbeddingLoss()": (("x2", "same", "signs_n"), {}),
}

TEMPLATES = {f"nn.functional.{k}": v for k, v in FUNCTIONAL.items()}
TEMPLATES.update({f"linalg.{k}": v for k, v in LINALG.items()})
TEMPLATES.update({f"fft.{k}": v for k, v in FFT.items()})
TEMPLATES.update({f"special.{k}": v for k, v in SPECIAL.items()})
TEMPLATES.update({f"nn.{k}": v for k, v in MODULES.items()})


# Entries whose PyTorch result depends on the input's layout: batch norm's statistics of a
# non-contiguous input (expanded, transposed, sliced) come from another kernel that sums in
# float32 (a sum past float32's range is -inf there, NaN out, and a transposed input's values
# differ from the same values contiguous); drawn contiguous only, the layout ember computes
# alike for all.
CONTIGUOUS_ONLY_IN_TORCH = {"nn.BatchNorm1d(2)", "nn.BatchNorm2d(3)", "nn.BatchNorm3d(2)"}


# Entries whose PyTorch result on an empty batch is uninitialised memory (torch 2.13:
# multi_margin_loss of a (0, 4) input returns a different number each run): drawn non-empty.
EMPTY_UNINITIALISED_IN_TORCH = {"nn.functional.multi_margin_loss", "nn.MultiMarginLoss()"}
# PyTorch's half-type answers that are wrong (torch 2.13: linalg.matrix_exp of the bfloat16 or
# float16 [[0.5, 1], [-2, 0.25]] is [[nan, inf], [-inf, nan]]; ember refuses those dtypes):
# drawn in float32 and float64 only.
HALF_WRONG_IN_TORCH = {"linalg.matrix_exp"}


def family_of(name: str) -> str:
    """A templated entry's family: "functional", "modules", "linalg", "fft" or "special"."""
    if name.startswith("nn.functional."):
        return "functional"
    return "modules" if name.startswith("nn.") else name.split(".")[0]


# An expanded square matrix has equal rows: exactly singular, where what QR's trailing
# columns and the condition number hold is rounding (PyTorch's MKL in float32 gives
# R = 0 and cond = inf for [[-1.98, -4.23, -2.12]] * 3; LAPACK of OpenBLAS in float32
# R = -1.6e-7 and cond = 8e15, and PyTorch's own float64 other numbers again): drawn
# without that layout.
SINGULAR_BY_ROUNDING = {"linalg.qr", "linalg.cond"}


@st.composite
def template_calls(draw, edge_tensor, family=None):
    """A call description of a templated entry (form "path": the name is a dotted path from
    the library, e.g. "relu", "linalg.inv", "nn.Linear(4, 3)" for a module
    built with the library's generator seeded to `seed` and called on the arguments); of one
    family (`family_of`) when `family` is given."""
    name = draw(st.sampled_from(sorted(
        k for k in TEMPLATES if family is None or family_of(k) == family)))
    kinds, keywords = TEMPLATES[name]
    seed = draw(st.integers(0, 2 ** 16))
    module = name.startswith("nn.") and not name.startswith("nn.functional.")
    dtype = "float32" if module else draw(st.sampled_from(
        FLOATS if name not in HALF_WRONG_IN_TORCH else ("float32", "float64")))
    shape = draw(st.sampled_from(SHAPE_X))
    if "x4" in kinds:
        shape = draw(st.sampled_from(SHAPE_X4))
    elif "x5" in kinds:
        shape = draw(st.sampled_from(((1, 2, 3, 4, 4), (2, 1, 2, 3, 3))))
    elif "x5_2" in kinds:
        shape = draw(st.sampled_from(((1, 2, 3, 4, 4), (2, 2, 2, 3, 3))))
    elif "x1" in kinds:
        shape = draw(st.sampled_from(((3,), (4,), (1,), (0,))))
    elif "theta" in kinds:
        shape = (2, 2, 3)
    elif "fold_in" in kinds:
        shape = draw(st.sampled_from(((1, 4, 4), (2, 8, 4))))
    elif "x3" in kinds:
        shape = draw(st.sampled_from(SHAPE_X3))
    elif "x2" in kinds:
        shape = draw(st.sampled_from(((3, 4), (2, 5), (1, 3))))
    elif "sq" in kinds:
        shape = draw(st.sampled_from(((3, 3), (2, 2, 2), (1, 4, 4), (2, 1, 1))))
    elif "seq" in kinds:
        shape = draw(st.sampled_from(((5, 2, 4), (3, 1, 4))))
    elif "x_last4" in kinds:
        shape = draw(st.sampled_from(((2, 4), (4,), (3, 2, 4), (0, 4))))
    elif "x3_2" in kinds:
        shape = draw(st.sampled_from(((2, 2, 7), (1, 2, 5), (4, 2, 3))))
    elif "x4_3" in kinds:
        shape = draw(st.sampled_from(((2, 3, 5, 5), (1, 3, 4, 6), (2, 3, 2, 2))))

    if name in EMPTY_UNINITIALISED_IN_TORCH:
        shape = tuple(max(size, 1) for size in shape)
    layouts = LAYOUTS if name not in CONTIGUOUS_ONLY_IN_TORCH else ("contiguous",)
    if name in SINGULAR_BY_ROUNDING:
        layouts = tuple(layout for layout in layouts if layout != "expanded")

    def tensor(the_shape, the_dtype=dtype):
        return draw(edge_tensor(the_shape, the_dtype, layouts, exact_shape=True))

    args = []
    for kind in kinds:
        if kind in ("x", "x4", "x3", "x2", "sq", "seq", "same", "x_last4", "x3_2", "x4_3",
                    "x5", "x5_2", "x1", "theta", "fold_in"):
            args.append(tensor(shape))
        elif kind in ("chan", "cw", "ctw", "table", "bilinear_w"):
            spatial = len(shape) - 2
            k = draw(st.sampled_from([1, 2])) if kind in ("cw", "ctw") else 1
            channels = shape[1] if len(shape) > 1 else 1
            args.append(tensor({"chan": (channels,), "cw": (2, channels) + (k,) * spatial,
                                "ctw": (channels, 2) + (k,) * spatial, "table": (5, 3),
                                "bilinear_w": (2,) + shape[-1:] * 2}[kind]))
        elif kind == "chanvar":
            args.append(("probs", (shape[1],), dtype, draw(st.integers(0, 2 ** 31))))
        elif kind == "idx":
            args.append(("labels", (2, 3), 5, draw(st.integers(0, 2 ** 31))))
        elif kind == "grid":
            args.append(("grid", (shape[0], 3, 4, 2), dtype, draw(st.integers(0, 2 ** 31))))
        elif kind in ("signs", "signs_n"):
            args.append(("signs", shape if kind == "signs" else shape[:1], dtype,
                         draw(st.integers(0, 2 ** 31))))
        elif kind == "sq_list":
            side = shape[-1] if shape else 2
            args.append(("list", [tensor((side, side)) for _ in range(3)]))
        elif kind == "theta_size":
            args.append(("list", [("int", v) for v in (2, 3, 4, 5)]))
        elif kind == "fold_out":
            args.append(("tuple", [("int", 3), ("int", 3)]))
        elif kind == "small_pos":
            args.append(("int", draw(st.sampled_from([1, 2, 3, 4]))))
        elif kind == "half":
            args.append(("float", 0.5))
        elif kind == "two":
            args.append(("int", 2))
        elif kind == "zero":
            args.append(("float", 0.0))
        elif kind == "none":
            args.append(("none",))
        elif kind == "complex":
            args.append(tensor(shape, "complex64" if dtype != "float64" else "complex128"))
        elif kind == "sq_rhs":
            args.append(tensor(shape[:-1] + (2,)))
        elif kind == "last3":
            args.append(tensor(shape[:-1] + (3,)) if shape else tensor((3,)))
        elif kind == "probs":
            args.append(("probs", shape, dtype, draw(st.integers(0, 2 ** 31))))
        elif kind == "labels":
            classes = shape[1] if len(shape) > 1 else (shape[0] if shape else 1)
            label_shape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
            args.append(("labels", label_shape, classes, draw(st.integers(0, 2 ** 31))))
        elif kind == "last_shape":
            args.append(("list", [("int", shape[-1])] if shape else []))
        elif kind == "groups":
            args.append(("int", draw(st.sampled_from([1, shape[1]]))))
        elif kind in ("kernel", "size"):
            args.append(("int", draw(st.sampled_from([1, 2, 3]))))
        elif kind == "norm":
            args.append(("float", draw(st.sampled_from([1.0, 2.0, 3.0, float("inf")]))))
        elif kind == "out_size":
            args.append(("int", draw(st.sampled_from([1, 2, 3, 4]))))
        elif kind == "one":
            args.append(("int", 1))
        elif kind == "dim0":
            args.append(("int", draw(st.sampled_from([0, -1])) if shape else 0))
        elif kind == "small":
            args.append(("int", draw(st.sampled_from([0, 1, 2, 3]))))
        elif kind == "pads":
            args.append(("tuple", [("int", v) for v in draw(st.sampled_from(
                [(1, 1), (0, 2), (1, 0, 0, 1), (2, 1, 1, 0)]))]))
        elif kind == "weight":
            args.append(tensor((draw(st.sampled_from([1, 2, 4])), shape[-1])))
        else:
            raise ValueError(kind)
    kwargs = {}
    for keyword, strategy in keywords.items():
        if keyword.startswith("!") or draw(st.booleans()):     # ("!": a required keyword)
            kwargs[keyword.lstrip("!")] = draw(strategy)
    return {"key": name, "form": "path", "name": name, "args": args, "kwargs": kwargs,
            "random": False, "seed": seed}
