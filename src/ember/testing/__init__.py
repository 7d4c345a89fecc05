"""ember.testing, as torch.testing: `assert_close` (and the deprecated `assert_allclose`) in
`_comparison.py`, `make_tensor` in `_creation.py`."""
from ember.testing._comparison import assert_allclose, assert_close
from ember.testing._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
