"""ember.backends.cusparselt: NVIDIA's structured-sparsity library, which ember does not use."""
from __future__ import annotations

__all__ = ["get_max_alg_id", "is_available", "version"]


def is_available() -> bool:
    return False


def version():
    """None: cuSPARSELt is not loaded."""


def get_max_alg_id():
    """None: cuSPARSELt is not loaded."""
