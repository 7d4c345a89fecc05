"""Utilities as in torch.utils: data loading, checkpointing, hooks, backend registration, and
`alias_torch()` (make `import torch` resolve to ember in this process)."""
from ember.utils._alias import alias_torch, unalias_torch  # noqa: F401
