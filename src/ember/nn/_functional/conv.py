"""Convolutions: conv1d..conv3d and conv_transpose1d..conv_transpose3d are `ember.conv2d`
and friends (their frontends live in ember/_ops/nn_conv_api.py, the kernel in nn_conv.py);
conv_tbc is `ember.conv_tbc` (nn_functions_layers.py). They are read from the bindings on first
use, so that `import ember.nn` loads neither family (NOTE [op families load on first use])."""

_FROM_BINDINGS = ("conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d")
__all__ = [*_FROM_BINDINGS]  # noqa: PLE0604  (names read on first use, `__getattr__`)


def __getattr__(name: str):
    if name in _FROM_BINDINGS:
        from ember._generated import bindings
        value = globals()[name] = getattr(bindings, name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
