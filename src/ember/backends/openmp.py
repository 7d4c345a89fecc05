"""ember.backends.openmp: ember's intra-op threads are Python threads, not OpenMP."""


def is_available() -> bool:
    """False: ember does not use OpenMP."""
    return False
