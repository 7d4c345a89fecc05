"""Convolutions: conv1d..conv3d and conv_transpose1d..conv_transpose3d are `ember.conv2d`
and friends (their frontends live in ember/_ops/nn_conv_api.py, the kernel in nn_conv.py);
conv_tbc is `ember.conv_tbc` (nn_functions_layers.py)."""
from ember._ops.nn_conv_api import (
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
)
from ember._ops.nn_functions_layers import conv_tbc

__all__: list[str] = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                      "conv_transpose3d", "conv_tbc"]
