"""ember.backends.mps: Apple's Metal back-end, which ember does not have."""


def is_available() -> bool:
    """False: ember has no MPS back-end."""
    return False


def is_built() -> bool:
    """False: ember has no MPS back-end."""
    return False
