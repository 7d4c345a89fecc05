"""Host kernels (NOTE [host kernels] in ember/_core/host_kernels.py): on NumPy a tagged kernel
runs as it is; on another array module its arrays travel to the host and back. A stand-in
module plays the device here (the CUDA tests check the real one on a GPU)."""
from __future__ import annotations

import types

import numpy as np
import pytest

from ember._core.host_kernels import HostModule, host_kernel, to_device, to_host
from ember._core.layout import strided_window


class DeviceArray:
    """An array of the stand-in device: it refuses to be read by NumPy."""

    def __init__(self, values):
        self.values = np.array(values)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed")


device = types.SimpleNamespace(
    ndarray=DeviceArray,
    asnumpy=lambda a: a.values.copy(),
    asarray=lambda a: DeviceArray(a),
)


@host_kernel
def _solve_and_count(xp, a, pair, k=1):
    """A kernel that needs NumPy: it records the module it ran on."""
    seen.append(xp)
    return np.linalg.solve(a, pair[0]) * k, (pair[1].sum(), "label")


seen: list = []


def test_host_kernel_runs_as_it_is_on_numpy():
    seen.clear()
    a, b = np.eye(2) * 2, np.ones(2)
    x, (total, label) = _solve_and_count(np, a, (b, b), k=3)
    assert seen == [np]
    np.testing.assert_array_equal(x, np.linalg.solve(a, b) * 3)
    assert total == 2 and label == "label"
    assert _solve_and_count.__doc__.startswith("A kernel that needs NumPy")


def test_host_kernel_copies_device_arrays_to_the_host_and_back():
    seen.clear()
    a, b = np.array([[2.0, 1.0], [0.0, 4.0]]), np.array([1.0, 2.0])
    x, (total, label) = _solve_and_count(device, DeviceArray(a), (DeviceArray(b), DeviceArray(b)),
                                         k=DeviceArray(2.0))
    assert seen == [np]             # the kernel itself ran on NumPy
    assert isinstance(x, DeviceArray) and isinstance(total, DeviceArray)
    np.testing.assert_allclose(x.values, np.linalg.solve(a, b) * 2)
    assert total.values.shape == () and float(total.values) == 3.0
    assert label == "label"


def test_to_host_and_to_device_keep_the_structure():
    value = (DeviceArray([1, 2]), [DeviceArray(3.0), slice(None)], 4)
    host = to_host(device, value)
    assert isinstance(host, tuple) and isinstance(host[1], list)
    assert type(host[0]) is np.ndarray and host[1][1] == slice(None) and host[2] == 4
    back = to_device(device, host)
    assert isinstance(back[0], DeviceArray) and isinstance(back[1][0], DeviceArray)
    np.testing.assert_array_equal(back[0].values, [1, 2])


def test_host_module_uses_the_device_module_only_for_its_names():
    calls = []
    device_special = types.SimpleNamespace(erf=lambda x: calls.append("device") or x)
    special = HostModule(device, types.SimpleNamespace(erf=None, gammaln=np.negative),
                         device_special, ("erf",))
    x = DeviceArray([1.0, -2.0])
    assert special.erf(x) is x and calls == ["device"]
    result = special.gammaln(x)
    assert isinstance(result, DeviceArray)
    np.testing.assert_array_equal(result.values, [-1.0, 2.0])


def test_strided_window_is_read_only_on_numpy():
    base = np.arange(6.0)
    window = strided_window(np, base, (4, 3), (base.itemsize, base.itemsize))
    np.testing.assert_array_equal(window[1], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        window[0, 0] = 5.0
