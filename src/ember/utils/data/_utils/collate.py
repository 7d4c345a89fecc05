"""Batching samples: `default_collate` (stack tensors, turn numbers and NumPy data into
tensors, recurse into mappings, namedtuples and sequences), `default_convert` (the same without
batching, used when automatic batching is off) and `collate` with a type → function map for
custom collations."""
from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

# NumPy dtypes that cannot become tensors: strings, bytes, objects.
_NOT_NUMERIC = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
    "found {}")


def default_convert(data):
    """NumPy arrays and scalars in `data` (recursively) as tensors; the rest unchanged."""
    import ember
    kind = type(data)
    if isinstance(data, ember.Tensor):
        return data
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_"):
        if kind.__name__ == "ndarray" and _NOT_NUMERIC.search(data.dtype.str) is not None:
            return data
        return ember.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(template, values: dict):
    """`values` in a mapping of template's type where that type can be rebuilt."""
    try:
        if isinstance(template, collections.abc.MutableMapping):
            clone = copy.copy(template)
            clone.update(values)
            return clone
        return type(template)(values)
    except TypeError:
        return values


def _rebuild_sequence(template, values: list):
    try:
        if isinstance(template, collections.abc.MutableSequence):
            clone = copy.copy(template)
            for i, value in enumerate(values):
                clone[i] = value
            return clone
        return type(template)(values)
    except TypeError:
        return values


def collate(batch, *, collate_fn_map=None):
    """Combine a list of samples into a batch, dispatching on the first sample's type through
    `collate_fn_map` (exact type first, then isinstance), else by structure."""
    elem = batch[0]
    kind = type(elem)
    if collate_fn_map is not None:
        if kind in collate_fn_map:
            return collate_fn_map[kind](batch, collate_fn_map=collate_fn_map)
        for key, fn in collate_fn_map.items():
            if isinstance(elem, key):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {key: collate([d[key] for d in batch],
                                                    collate_fn_map=collate_fn_map)
                                       for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return kind(*(collate(samples, collate_fn_map=collate_fn_map)
                      for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(sample) == size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(samples, collate_fn_map=collate_fn_map)
                   for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild_sequence(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(kind))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    import ember
    return ember.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    import ember
    if _NOT_NUMERIC.search(batch[0].dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    return collate([ember.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    import ember
    return ember.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    import ember
    return ember.tensor(batch, dtype=ember.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    import ember
    return ember.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


def _default_map() -> dict:
    import ember
    return {
        ember.Tensor: collate_tensor_fn,
        np.ndarray: collate_numpy_array_fn,
        (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
        float: collate_float_fn,
        int: collate_int_fn,
        str: collate_str_fn,
        bytes: collate_str_fn,
    }


default_collate_fn_map = _default_map()


def default_collate(batch):
    """Stack a list of samples into a batch as PyTorch's DataLoader does by default."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
