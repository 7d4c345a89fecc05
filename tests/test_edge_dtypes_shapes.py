"""Result dtypes and shapes at the edges, against PyTorch: normal with mean and std of different
dtypes, rms_norm with a weight of another dtype, PReLU of a 0-d input, and what ember.Size
accepts (0-d integer tensors, NumPy integers, bools) and refuses."""
import numpy as np
import pytest
import torch

import ember


def _same_dtype(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)


NORMAL_OPERANDS = [
    (lambda lib: lib.tensor(0.0), lambda lib: lib.tensor(1.0, dtype=lib.float64)),
    (lambda lib: lib.tensor([0.0]), lambda lib: lib.tensor([1.0], dtype=lib.float64)),
    (lambda lib: lib.tensor(0.0), lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float64)),
    (lambda lib: lib.tensor([0.0], dtype=lib.float16), lambda lib: lib.tensor([1.0])),
    (lambda lib: lib.tensor([[0.0], [1.0]]), lambda lib: lib.tensor([1.0, 2, 3], dtype=lib.float64)),
]


@pytest.mark.parametrize("mean, std", NORMAL_OPERANDS)
def test_normal_takes_the_dtype_of_mean(mean, std):
    ember.manual_seed(0)
    torch.manual_seed(0)
    got = ember.normal(mean(ember), std(ember))
    want = torch.normal(mean(torch), std(torch))
    _same_dtype(got, want)
    np.testing.assert_allclose(got.double().numpy(), want.double().numpy(), rtol=1e-3)


def test_normal_with_an_integer_mean_is_refused():
    with pytest.raises(NotImplementedError, match="normal_kernel_cpu"):
        torch.normal(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]))
    with pytest.raises(NotImplementedError, match="normal_kernel_cpu"):
        ember.normal(ember.tensor([1, 2]), ember.tensor([1.0, 2.0]))


@pytest.mark.parametrize("input_dtype, weight_dtype", [
    ("float16", "float32"), ("bfloat16", "float32"), ("float32", "float64"),
    ("float16", "float16")])
def test_rms_norm_keeps_the_input_dtype(input_dtype, weight_dtype):
    values = np.random.default_rng(0).standard_normal((4, 3))
    weight = np.array([0.5, 3.0, -1.25])
    results = []
    for lib in (ember, torch):
        x = lib.tensor(values, dtype=getattr(lib, input_dtype))
        w = lib.tensor(weight, dtype=getattr(lib, weight_dtype))
        results.append(lib.nn.functional.rms_norm(x, (3,), w))
    got, want = results
    _same_dtype(got, want)
    np.testing.assert_array_equal(got.double().numpy(), want.double().numpy())


def test_prelu_keeps_a_zero_dim_shape():
    for value in (2.0, -2.0):
        got_x = ember.tensor(value, requires_grad=True)
        want_x = torch.tensor(value, requires_grad=True)
        got_m, want_m = ember.nn.PReLU(), torch.nn.PReLU()
        got, want = got_m(got_x), want_m(want_x)
        _same_dtype(got, want)
        assert got.item() == want.item()
        got.backward()
        want.backward()
        assert got_x.grad.item() == want_x.grad.item()
        assert got_m.weight.grad.tolist() == want_m.weight.grad.tolist()
    _same_dtype(ember.nn.functional.prelu(ember.tensor(-2.0), ember.tensor([0.5])),
                torch.nn.functional.prelu(torch.tensor(-2.0), torch.tensor([0.5])))
    with pytest.raises(RuntimeError, match="Not allow zero-dim input tensor"):
        ember.nn.PReLU(3)(ember.tensor(2.0))


SIZE_ITEMS = {
    "int_tensor": lambda lib: [lib.tensor(2)],
    "int32_tensor": lambda lib: [lib.tensor(2, dtype=lib.int32)],
    "bool_tensor": lambda lib: [lib.tensor(True)],
    "one_element_tensor": lambda lib: [lib.tensor([2])],
    "a_tensor": lambda lib: lib.tensor([2, 3]),
    "bool": lambda lib: [True, 3],
    "numpy_ints": lambda lib: np.array([2, 3]),
    "float_tensor": lambda lib: [lib.tensor(2.0)],
    "two_element_tensor": lambda lib: [1, lib.tensor([2, 3])],
    "float": lambda lib: [2.0],
    "numpy_float": lambda lib: [np.float64(3.0)],
    "numpy_bool": lambda lib: [np.bool_(True)],
    "none": lambda lib: [None],
    "str": lambda lib: ["a"],
    "past_int64": lambda lib: [2 ** 70],
}


@pytest.mark.parametrize("name", SIZE_ITEMS)
def test_size_converts_and_refuses_items_as_torch(name):
    outcomes = []
    for lib in (ember, torch):
        try:
            size = lib.Size(SIZE_ITEMS[name](lib))
            outcomes.append((repr(size).split(".", 1)[1], [type(v).__name__ for v in size]))
        except (TypeError, ValueError) as error:
            outcomes.append((type(error), str(error).replace("torch.", "ember.")))
    assert outcomes[0] == outcomes[1]
