"""`ember.utils.dlpack` against `torch.utils.dlpack`: capsules cross both ways sharing memory."""
import numpy as np
import pytest
import torch
import torch.utils.dlpack as their_dlpack

import ember
from ember.utils import dlpack


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "bool", "complex64"])
def test_capsules_cross_both_ways_sharing_memory(dtype):
    t = torch.arange(6).reshape(2, 3).to(getattr(torch, dtype))
    ours = dlpack.from_dlpack(their_dlpack.to_dlpack(t))
    assert ours.dtype == getattr(ember, dtype) and ours.shape == t.shape
    np.testing.assert_array_equal(ours.numpy(), t.numpy())
    ours[0, 0] = 1
    assert t[0, 0].item() == 1                 # the same memory
    e = ember.arange(6).reshape(2, 3).to(getattr(ember, dtype))
    theirs = their_dlpack.from_dlpack(dlpack.to_dlpack(e))
    np.testing.assert_array_equal(theirs.numpy(), e.numpy())
    theirs[1, 2] = 0
    assert e[1, 2].item() == 0


def test_strided_view_and_producer_objects():
    t = torch.arange(12.).reshape(3, 4)[:, 1::2]
    ours = dlpack.from_dlpack(t)               # an object with __dlpack__, not a capsule
    assert ours.stride() == t.stride()
    np.testing.assert_array_equal(ours.numpy(), t.numpy())
    ours2 = dlpack.from_dlpack(their_dlpack.to_dlpack(t))
    assert ours2.stride() == t.stride()


def test_a_capsule_is_consumed_once():
    capsule = their_dlpack.to_dlpack(torch.ones(2))
    dlpack.from_dlpack(capsule)
    with pytest.raises(RuntimeError, match="consumed only once"):
        dlpack.from_dlpack(capsule)
    with pytest.raises(RuntimeError, match="consumed only once"):
        their_dlpack.from_dlpack(capsule)


def test_to_dlpack_refuses_a_non_tensor():
    with pytest.raises(TypeError):
        their_dlpack.to_dlpack([1, 2])
    with pytest.raises(TypeError):
        dlpack.to_dlpack([1, 2])


def test_device_codes_match():
    for name in dir(their_dlpack.DLDeviceType):
        if name.startswith("kDL"):
            assert getattr(dlpack.DLDeviceType, name) == int(getattr(their_dlpack.DLDeviceType,
                                                                     name)), name
