"""ember.backends.mkldnn: oneDNN, which ember does not call (its CPU kernels are NumPy's);
`enabled` is stored for scripts that set it."""

enabled = True


def is_available() -> bool:
    """False: ember does not use oneDNN."""
    return False
