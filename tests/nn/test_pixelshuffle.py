"""PixelShuffle, PixelUnshuffle and ChannelShuffle against PyTorch."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from nn.compare import check_module, to_ember


def _input(shape, dtype=torch.float64):
    return torch.tensor(np.random.default_rng(0).standard_normal(shape), dtype=dtype)


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64))
@pytest.mark.parametrize("shape", ((2, 8, 3, 2), (8, 3, 2), (2, 2, 8, 1, 3)))
def test_pixel_shuffle_modules_match_torch(shape, dtype):
    check_module(torch.nn.PixelShuffle(2), ember.nn.PixelShuffle(2), _input(shape, dtype))
    unshuffled = shape[:-3] + (shape[-3], shape[-2] * 2, shape[-1] * 2)
    check_module(torch.nn.PixelUnshuffle(2), ember.nn.PixelUnshuffle(2),
                 _input(unshuffled, dtype))


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64))
@pytest.mark.parametrize("shape,groups", (((2, 6, 3, 2), 3), ((2, 6, 4), 2), ((1, 4, 2, 2, 2), 4)))
def test_channel_shuffle_module_matches_torch(shape, groups, dtype):
    check_module(torch.nn.ChannelShuffle(groups), ember.nn.ChannelShuffle(groups),
                 _input(shape, dtype))
    x = _input(shape, dtype)
    np.testing.assert_array_equal(F.native_channel_shuffle(to_ember(x), groups).numpy(),
                                  TF.native_channel_shuffle(x, groups).numpy())


def _error_of(fn, *args):
    try:
        fn(*args)
    except Exception as error:   # noqa: BLE001 - the class is what the test compares
        return type(error)
    return None


@pytest.mark.parametrize("name,shape,factor", [
    ("pixel_shuffle", (1, 3, 2, 2), 2),
    ("pixel_shuffle", (4, 2), 2),
    ("pixel_shuffle", (1, 4, 2, 2), 0),
    ("pixel_unshuffle", (1, 3, 3, 2), 2),
    ("pixel_unshuffle", (1, 3, 2, 3), 2),
    ("channel_shuffle", (1, 3, 3, 2), 2),
    ("channel_shuffle", (3, 4), 2),
])
def test_bad_arguments_raise_torch_exception_class(name, shape, factor):
    x = _input(shape)
    expected = _error_of(getattr(TF, name), x, factor)
    assert expected is not None
    assert _error_of(getattr(F, name), to_ember(x), factor) is expected
