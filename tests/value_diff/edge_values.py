"""Tensors at the edges for the value-differential fuzzer, built alike in both libraries.

A drawn tensor is described as ("edge", shape, dtype, seed, layout): its values come from a
seeded NumPy generator that mixes ordinary numbers with the values training meets at its edges
(inf, -inf, NaN, +-0, denormals, the dtype's largest finite value, 1e30 and 1e-30 in float32),
and its layout is one of

    contiguous   a fresh tensor
    transposed   the transpose of a fresh tensor of the reversed shape (not contiguous)
    sliced       every other element of a fresh tensor twice as long in the last dimension
    expanded     a fresh tensor of size 1 in the first dimension, expanded (stride 0)
    sorted       a fresh tensor sorted along its last dimension (NaNs last)

Both workers build the same NumPy array from the description and turn it into their library's
tensor the same way, so ember and PyTorch see the same bits.
"""
from __future__ import annotations

import numpy as np

LAYOUTS = ("contiguous", "contiguous", "transposed", "sliced", "expanded")

_FLOAT_EDGES = (np.inf, -np.inf, np.nan, 0.0, -0.0, 1e30, -1e30, 1e-30, 3.4e38, -3.4e38,
                1e-40, -1e-45, 1e300, 5e-324)
_INT_EDGES = {"int8": (127, -128), "uint8": (255, 0), "int16": (32767, -32768),
              "int32": (2 ** 31 - 1, -2 ** 31), "int64": (2 ** 63 - 1, -2 ** 63)}


def edge_array(shape, dtype_name, seed):
    """The NumPy array (float64, int64 or bool, or complex128) a description stands for."""
    rng = np.random.default_rng(seed)
    count = int(np.prod(shape)) if shape else 1
    if dtype_name == "bool":
        return (rng.random(count) < 0.5).reshape(shape)
    if dtype_name in _INT_EDGES or dtype_name.startswith("uint"):
        ordinary = rng.integers(-9, 10, count)
        if dtype_name.startswith("uint"):
            ordinary = np.abs(ordinary)
        edges = _INT_EDGES.get(dtype_name, (0, 1))
        pick = rng.random(count) < 0.15
        ordinary[pick] = rng.choice(np.array(edges, dtype=np.int64), int(pick.sum()))
        return ordinary.astype(np.int64).reshape(shape)
    ordinary = np.round(rng.standard_normal(count) * 3, 2)
    pick = rng.random(count) < rng.choice([0.0, 0.1, 0.3, 0.6])
    edges = np.array(_edges_for(dtype_name))
    ordinary[pick] = rng.choice(edges, int(pick.sum()))
    if dtype_name.startswith("complex"):
        imaginary = np.round(rng.standard_normal(count), 2)
        flip = rng.random(count) < 0.1
        imaginary[flip] = rng.choice(edges, int(flip.sum()))
        return (ordinary + 1j * imaginary).reshape(shape)
    return ordinary.reshape(shape)


def _edges_for(dtype_name):
    if dtype_name in ("float16",):
        return (np.inf, -np.inf, np.nan, 0.0, -0.0, 65504.0, -65504.0, 6e-8, 1e-5, 60000.0)
    if dtype_name == "bfloat16":
        return (np.inf, -np.inf, np.nan, 0.0, -0.0, 3.38e38, 1e30, 1e-30, 1e-40)
    if dtype_name in ("float32", "complex64"):
        return _FLOAT_EDGES[:12]
    return _FLOAT_EDGES


_DIRECT = {"float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool",
           "complex64", "complex128", "float16"}


def build_edge(desc, lib):
    """The library's tensor for ("edge", shape, dtype, seed, layout)."""
    _, shape, dtype_name, seed, layout = desc
    made = list(shape)
    if layout == "transposed" and len(shape) >= 2:
        made = made[::-1]
    elif layout == "sliced" and shape:
        made[-1] = 2 * made[-1]
    elif layout == "expanded" and shape:
        made[0] = 1
    values = edge_array(tuple(made), dtype_name, seed)
    if layout == "sorted" and shape and dtype_name != "bool" and \
            not dtype_name.startswith("complex"):
        values = np.sort(values, axis=-1)
    if dtype_name in _DIRECT:
        with np.errstate(all="ignore"):
            tensor = lib.tensor(values.astype(dtype_name))
    else:                                   # bfloat16: rounded from float64 by the library
        tensor = lib.tensor(values).to(getattr(lib, dtype_name))
    if layout == "transposed" and len(shape) >= 2:
        tensor = tensor.permute(*range(len(shape) - 1, -1, -1))
    elif layout == "sliced" and shape:
        tensor = tensor[..., ::2]
    elif layout == "expanded" and shape:
        tensor = tensor.expand(*shape)
    return tensor


def build_probabilities(desc, lib):
    """("probs", shape, dtype, seed): values in [0, 1], the ends included."""
    _, shape, dtype_name, seed = desc
    rng = np.random.default_rng(seed)
    values = np.array(np.round(rng.random(shape), 3))
    ends = rng.random(shape) < 0.2
    values[ends] = rng.integers(0, 2, int(ends.sum()))
    return lib.tensor(values).to(getattr(lib, dtype_name))


def build_labels(desc, lib):
    """("labels", shape, classes, seed): int64 class indices below `classes`."""
    _, shape, classes, seed = desc
    rng = np.random.default_rng(seed)
    return lib.tensor(rng.integers(0, max(classes, 1), shape).astype(np.int64))


def build_signs(desc, lib):
    """("signs", shape, dtype, seed): the targets of the embedding and ranking losses, -1 and 1."""
    _, shape, dtype_name, seed = desc
    values = np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0)
    return lib.tensor(values).to(getattr(lib, dtype_name))


def build_grid(desc, lib):
    """("grid", shape, dtype, seed): sampling positions for grid_sample, mostly inside [-1, 1]
    (some a little outside, some exactly at the corners)."""
    _, shape, dtype_name, seed = desc
    rng = np.random.default_rng(seed)
    values = np.round(rng.uniform(-1.2, 1.2, shape), 3)
    corners = rng.random(shape) < 0.15
    values[corners] = rng.choice([-1.0, 1.0, 0.0], int(corners.sum()))
    return lib.tensor(values).to(getattr(lib, dtype_name))
