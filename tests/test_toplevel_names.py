"""The `torch.*` names from PyTorch's C++ library and TorchScript that ember now has (issue 22):
dtypes without tensors, vendor entry points, dispatcher keys and tags, the symbolic-shape
helpers and `cond`, TorchScript's type objects and schemas. Each is held against PyTorch (CPU
build): values, printed forms, and the errors where PyTorch's CPU build has no kernel."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import torch

import ember

DTYPES = ["int1", "int2", "int3", "int4", "int5", "int6", "int7", "uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7", "bit", "bits1x8", "bits2x4", "bits4x2", "bits8", "bits16", "float4_e2m1fn_x2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "qint8", "quint8", "qint32", "quint4x2", "quint2x4"]


def _props(dtype):
    out = []
    for name in ("itemsize", "is_floating_point", "is_complex", "is_signed"):
        try:
            out.append(getattr(dtype, name))
        except RuntimeError as error:
            out.append(("RuntimeError", str(error)))
    return out + [str(dtype).split(".", 1)[1]]


@pytest.mark.parametrize("name", DTYPES)
def test_dtype_properties_match(name):
    ours, theirs = getattr(ember, name), getattr(torch, name)
    assert _props(ours) == _props(theirs)
    assert isinstance(ours, ember.dtype)
    assert pickle.loads(pickle.dumps(ours)) is ours
    with pytest.raises(TypeError):
        ember.zeros(2, dtype=ours)           # NOTE [dtypes without tensors]


def test_qschemes():
    assert ember.bit is ember.uint1 and torch.bit is torch.uint1
    for name in ("per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
                 "per_channel_symmetric", "per_channel_affine_float_qparams"):
        ours, theirs = getattr(ember, name), getattr(torch, name)
        assert isinstance(ours, ember.qscheme) and isinstance(theirs, torch.qscheme)
        assert repr(ours).split(".")[1] == repr(theirs).split(".")[1]
        assert pickle.loads(pickle.dumps(ours)) is ours


def test_build_flags():
    assert (ember.has_lapack, ember.has_spectral) == (torch.has_lapack, torch.has_spectral)
    # ember calls no MKL or OpenMP of its own (PyTorch's wheel does): answered as backends do
    assert ember.has_mkl == ember.backends.mkl.is_available() is False
    assert ember.has_openmp == ember.backends.openmp.is_available() is False
    assert ember.is_vulkan_available() == torch.is_vulkan_available()
    assert ember.init_num_threads() is torch.init_num_threads() is None


def _refused(lib):
    x, w = lib.ones(2, 3, 4, 4), lib.ones(5, 3, 3, 3)
    one, zero = lib.ones(3), lib.zeros(3)
    return {
        "cudnn_convolution": lambda: lib.cudnn_convolution(x, w, [0, 0], [1, 1], [1, 1], 1,
                                                           False, False, False),
        "cudnn_batch_norm": lambda: lib.cudnn_batch_norm(x, one, zero, zero, one, False, 0.1,
                                                         1e-5),
        "miopen_convolution": lambda: lib.miopen_convolution(x, w, None, [0, 0], [1, 1],
                                                             [1, 1], 1, False, False),
        "mkldnn_max_pool2d": lambda: lib.mkldnn_max_pool2d(x, [2, 2]),
        "mkldnn_max_pool3d": lambda: lib.mkldnn_max_pool3d(lib.ones(1, 1, 4, 4, 4), [2, 2, 2]),
        "mkldnn_adaptive_avg_pool2d": lambda: lib.mkldnn_adaptive_avg_pool2d(x, [2, 2]),
        "mkldnn_linear_backward_weights": lambda: lib.mkldnn_linear_backward_weights(
            lib.ones(4, 5), lib.ones(4, 3), lib.ones(5, 3), True),
        "batch_norm_stats": lambda: lib.batch_norm_stats(x, 1e-5),
        "batch_norm_elemt": lambda: lib.batch_norm_elemt(x, one, zero, zero, one, 1e-5),
        "batch_norm_gather_stats": lambda: lib.batch_norm_gather_stats(
            x, lib.zeros(1, 3), lib.ones(1, 3), None, None, 0.1, 1e-5, 32),
    }


@pytest.mark.parametrize("name", list(_refused(torch)))
def test_vendor_kernels_refuse_like_cpu_torch(name):
    prefix = f"Could not run 'aten::{name}' with arguments from the 'CPU' backend"
    with pytest.raises(NotImplementedError, match=prefix.replace("(", r"\(")):
        _refused(torch)[name]()
    with pytest.raises(NotImplementedError, match=prefix.replace("(", r"\(")):
        _refused(ember)[name]()


def test_cudnn_is_acceptable_and_mkldnn_convolution():
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = np.random.default_rng(2).standard_normal(4).astype(np.float32)
    assert ember.cudnn_is_acceptable(ember.from_numpy(x)) == \
        torch.cudnn_is_acceptable(torch.from_numpy(x))
    args = ([1, 1], [2, 2], [1, 1], 1)
    ours = ember.mkldnn_convolution(ember.from_numpy(x), ember.from_numpy(w),
                                    ember.from_numpy(b), *args)
    theirs = torch.mkldnn_convolution(torch.from_numpy(x), torch.from_numpy(w),
                                      torch.from_numpy(b), *args)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)


def test_batch_norm_update_stats():
    x = np.random.default_rng(3).standard_normal((4, 3, 5, 5)).astype(np.float32)
    results = []
    for lib in (ember, torch):
        running = (lib.zeros(3), lib.ones(3))
        mean, var = lib.batch_norm_update_stats(lib.from_numpy(x), *running, 0.1)
        results.append([t.numpy() for t in (mean, var, *running)])
        plain = lib.batch_norm_update_stats(lib.from_numpy(x), None, None, 0.1)
        np.testing.assert_allclose(plain[1].numpy(), var.numpy())
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_fbgemm_linear_layers():
    rng = np.random.default_rng(4)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lib in (ember, torch):
            packed = lib.fbgemm_pack_gemm_matrix_fp16(lib.from_numpy(w))
            out[lib, "fp16"] = lib.fbgemm_linear_fp16_weight(lib.from_numpy(x), packed,
                                                             lib.from_numpy(bias)).numpy()
            out[lib, "fp16 fp32"] = lib.fbgemm_linear_fp16_weight_fp32_activation(
                lib.from_numpy(x), packed, lib.from_numpy(bias)).numpy()
            q, offsets, scale, zero_point = lib.fbgemm_linear_quantize_weight(lib.from_numpy(w))
            out[lib, "quantized"] = (q.numpy(), offsets.numpy(), scale, zero_point)
            packed8 = lib.fbgemm_pack_quantized_matrix(q)
            out[lib, "int8"] = lib.fbgemm_linear_int8_weight(
                lib.from_numpy(x), lib.from_numpy(w), packed8, offsets, scale, zero_point,
                lib.from_numpy(bias)).numpy()
    for key in ("fp16", "fp16 fp32"):
        np.testing.assert_allclose(out[ember, key], out[torch, key], rtol=1e-5, atol=1e-5)
    (q1, o1, s1, z1), (q2, o2, s2, z2) = out[ember, "quantized"], out[torch, "quantized"]
    np.testing.assert_array_equal(q1, q2)
    np.testing.assert_array_equal(o1, o2)
    assert (s1, z1) == pytest.approx((s2, z2), rel=1e-6)
    # int8 GEMMs round the activations too: agree to the quantization step
    np.testing.assert_allclose(out[ember, "int8"], out[torch, "int8"], atol=0.05)


def test_cond_and_symbolic_helpers():
    for pred in (True, False):
        for lib in (torch, ember):
            got = lib.cond(lib.tensor(pred), lambda a: a + 1, lambda a: a - 1, (lib.ones(2),))
            assert got.tolist() == ([2.0, 2.0] if pred else [0.0, 0.0])
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="Invalid value range for 5 between"):
            lib.sym_constrain_range(5, min=0, max=3)
        with pytest.raises(RuntimeError, match="Invalid value range for 5 between"):
            lib.sym_constrain_range_for_size(5, min=0, max=3)
        assert lib.sym_constrain_range(2, min=0, max=3) is None
        assert lib.sym_constrain_range_for_size(2, max=3) is None
    assert ember.sym_fresh_size(5) == torch.sym_fresh_size(5)
    assert (ember.sym_sqrt(4), ember.sym_sqrt(2.0)) == (torch.sym_sqrt(4), torch.sym_sqrt(2.0))
    assert ember.sym_sqrt(ember.tensor(9.0)) == torch.sym_sqrt(torch.tensor(9.0)) == 3.0
    with pytest.raises(RuntimeError, match="single-element"):
        ember.cond(ember.ones(2), lambda: 1, lambda: 2)


def test_dispatch_keys_and_tags():
    assert list(ember.DispatchKey.__members__) == list(torch.DispatchKey.__members__)
    assert list(ember.Tag.__members__) == list(torch.Tag.__members__)
    for lib in (torch, ember):
        keys = lib.DispatchKeySet(lib.DispatchKey.CPU) | \
            lib.DispatchKeySet(lib.DispatchKey.AutogradCPU)
        assert repr(keys) == "DispatchKeySet(CPU, AutogradCPU)"
        assert keys.has(lib.DispatchKey.CPU) and not keys.has(lib.DispatchKey.CUDA)
        assert repr(keys.remove(lib.DispatchKey.CPU)) == "DispatchKeySet(AutogradCPU)"
        with lib.ExcludeDispatchKeyGuard(lib.DispatchKeySet(lib.DispatchKey.Python)):
            assert lib.ones(1).item() == 1.0


def _types(lib):
    i, f, t = lib.IntType.get(), lib.FloatType.get(), lib.TensorType.get()
    return {
        "simple": [str(getattr(lib, n).get()) for n in ["AnyType", "BoolType", "ComplexType", "DeviceObjType", "FloatType", "IntType", "NoneType", "NumberType", "PyObjectType", "StringType", "SymBoolType", "SymIntType", "TensorType", "StreamObjType"]],
        "kinds": [getattr(lib, n).get().kind() for n in ("IntType", "TensorType", "AnyType")],
        "containers": [str(lib.ListType(i)), str(lib.OptionalType(t)),
                       str(lib.TupleType([i, f])), str(lib.DictType(lib.StringType.get(), i)),
                       str(lib.UnionType([i, f])), str(lib.FutureType(i)),
                       str(lib.ListType.ofInts()), str(lib.OptionalType.ofTensor()),
                       str(lib.ListType(i).getElementType())],
        "subtypes": [i.isSubtypeOf(lib.NumberType.get()), t.isSubtypeOf(lib.AnyType.get()),
                     i.isSubtypeOf(f), t.isSubtypeOf(lib.OptionalType(t)),
                     lib.NoneType.get().isSubtypeOf(lib.OptionalType(t)),
                     i == lib.IntType.get(), lib.ListType(i) == lib.ListType(i)],
    }


def test_torchscript_type_objects():
    assert _types(ember) == _types(torch)


SCHEMAS = [
    "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    ("aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
     "ScalarType? dtype=None) -> Tensor"),
    ("mylib::foo(Tensor(a!) x, int[2] k=[1,1], float eps=1e-05, str mode='mean') -> "
     "(Tensor, Tensor)"),
    "aten::relu_(Tensor(a!) self) -> Tensor(a!)",
]


def _schema_view(lib, text):
    s = lib.parse_schema(text)
    return (s.name, s.overload_name, s.is_mutable, len(s.returns),
            [str(r.type) for r in s.returns],
            [(a.name, str(a.type), a.default_value, a.kwarg_only, a.is_write, a.N)
             for a in s.arguments])


@pytest.mark.parametrize("text", SCHEMAS)
def test_parse_schema_matches(text):
    assert _schema_view(ember, text) == _schema_view(torch, text)
    assert isinstance(ember.parse_schema(text), ember.FunctionSchema)
    assert isinstance(ember.parse_schema(text).arguments[0], ember.Argument)


def test_fork_wait_future():
    for lib in (torch, ember):
        future = lib.jit.fork(lambda a, b: a * b, lib.ones(2), 3)
        assert isinstance(future, lib.Future)
        assert lib.wait(future).tolist() == [3.0, 3.0]
        assert lib.fork is not None and lib.wait(lib.fork(lambda: 7)) == 7
