"""The back-end registry: device type -> `Backend`, whose array module `xp` the kernels run on.

In-tree: 'cpu' (NumPy), 'meta' (shapes only), 'cuda' (CuPy, loaded on first use through
`register_lazy_backend`). Plug-ins add their own through `register_backend`.
"""
from __future__ import annotations

from ember._core.checks import _check


class Backend:
    """How tensors of one device type hold data: `xp` is NumPy-compatible (or None for meta)."""

    __slots__ = ("from_host", "name", "to_host", "xp")

    def __init__(self, name, xp, to_host=None, from_host=None):
        self.name = name
        self.xp = xp
        self.to_host = to_host          # array -> numpy.ndarray
        self.from_host = from_host      # (numpy.ndarray, device) -> array

    def __repr__(self) -> str:
        return f"<Backend {self.name}>"


BACKENDS: dict = {}
_LAZY: dict = {}  # device type -> zero-argument loader returning a Backend


def register_backend(backend: Backend) -> None:
    BACKENDS[backend.name] = backend


def register_lazy_backend(name: str, loader) -> None:
    _LAZY[name] = loader


def get_backend(device_type: str) -> Backend:
    found = BACKENDS.get(device_type)
    if found is None:
        loader = _LAZY.get(device_type)
        _check(loader is not None,
               lambda: f"no back-end is available for device type '{device_type}'")
        found = loader()
        BACKENDS[device_type] = found
    return found
