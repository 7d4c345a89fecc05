"""Shared fixtures: real PyTorch is the oracle (tests only; ember itself never imports it)."""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _reset_ember_state():
    """Tests may change global defaults; put them back."""
    import ember
    dtype = ember.get_default_dtype()
    yield
    ember.set_default_dtype(dtype)


@pytest.fixture
def rng():
    return np.random.default_rng(0)
