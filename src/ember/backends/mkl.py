"""ember.backends.mkl: ember links no MKL of its own (NumPy brings its BLAS)."""


def is_available() -> bool:
    """False: ember does not use MKL directly."""
    return False
