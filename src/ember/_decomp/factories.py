"""Decompositions of the filling factories into `full` / `full_like` / `empty`."""
from __future__ import annotations

from ember._decomp.registry import decomposes
from ember.ops import aten


def _default(dtype):
    import ember
    return ember.get_default_dtype() if dtype is None else dtype


@decomposes(aten.zeros.default)
def zeros(size, dtype=None, layout=None, device=None, pin_memory=None):
    return aten.full.default(list(size), 0, dtype=_default(dtype), layout=layout, device=device,
                             pin_memory=pin_memory)


@decomposes(aten.ones.default)
def ones(size, dtype=None, layout=None, device=None, pin_memory=None):
    return aten.full.default(list(size), 1, dtype=_default(dtype), layout=layout, device=device,
                             pin_memory=pin_memory)


@decomposes(aten.zeros_like.default)
def zeros_like(self, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):
    return aten.full_like.default(self, 0, dtype=dtype, layout=layout, device=device,
                                  pin_memory=pin_memory, memory_format=memory_format)


@decomposes(aten.ones_like.default)
def ones_like(self, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None):
    return aten.full_like.default(self, 1, dtype=dtype, layout=layout, device=device,
                                  pin_memory=pin_memory, memory_format=memory_format)


def _new_options(self, dtype, layout, device, pin_memory):
    return {"dtype": self.dtype if dtype is None else dtype, "layout": layout,
            "device": self.device if device is None else device, "pin_memory": pin_memory}


@decomposes(aten.new_zeros.default)
def new_zeros(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return aten.full.default(list(size), 0, **_new_options(self, dtype, layout, device,
                                                           pin_memory))


@decomposes(aten.new_ones.default)
def new_ones(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return aten.full.default(list(size), 1, **_new_options(self, dtype, layout, device,
                                                           pin_memory))


@decomposes(aten.new_full.default)
def new_full(self, size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    return aten.full.default(list(size), fill_value,
                             **_new_options(self, dtype, layout, device, pin_memory))


@decomposes(aten.new_empty.default)
def new_empty(self, size, dtype=None, layout=None, device=None, pin_memory=None):
    return aten.empty.memory_format(list(size), **_new_options(self, dtype, layout, device,
                                                               pin_memory))


@decomposes(aten.zero.default)
def zero(self):
    return aten.full_like.default(self, 0)


@decomposes(aten.fill.Scalar)
def fill_scalar(self, value):
    return aten.full_like.default(self, value)


@decomposes(aten.fill.Tensor)
def fill_tensor(self, value):
    return aten._to_copy.default(aten.expand.default(value, list(self.shape)),
                                 dtype=self.dtype)
