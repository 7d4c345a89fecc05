"""ember.backends.mkl: ember links no MKL of its own (NumPy brings its BLAS)."""

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available() -> bool:
    """False: ember does not use MKL directly."""
    return False


class verbose:
    """`with verbose(VERBOSE_ON):` turns on MKL's logging inside the block (nothing to log)."""

    def __init__(self, enable: int) -> None:
        self.enable = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False
