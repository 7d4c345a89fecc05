"""ember.return_types: the named tuple classes of ops with several results (`max`, `sort`,
`topk`, `linalg_eigh` ...), as torch.return_types. They are made where their ops are
(`_core/return_types.py` keeps the table), so this module loads the ops and looks them up."""
from __future__ import annotations


def __getattr__(name):
    import ember._ops  # noqa: F401 (the ops make their return types)
    from ember._core.return_types import TYPES
    found = TYPES.get(name)
    if found is None:
        raise AttributeError(f"module 'ember.return_types' has no attribute '{name}'")
    return found


def __dir__():
    import ember._ops  # noqa: F401
    from ember._core.return_types import TYPES
    return sorted(TYPES)
