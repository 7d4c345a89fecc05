"""ember: a deep-learning framework in Python that speaks PyTorch's API.

`import ember as torch` runs PyTorch programs unchanged. This module is the front door: it
wires the public names (dtypes, devices, `Tensor`, the functions generated from the op
registry) and loads heavier submodules lazily, on first attribute access.
"""
# NOTE [what import ember loads] (issue 23: `import ember` costs at most ~40 ms over NumPy; what
# a program does not use is not imported; tests/test_import_cost.py bounds the module count and
# lists what must not load, benchmarks/bench_import.py times it):
# - A new submodule `ember.X` is lazy: add "X" to `_LAZY_SUBMODULES` below. Never import it at
#   the top of this file (`from ember import X`, `import ember.X`): `ember.X` and
#   `from ember import X` then import it on first use through `__getattr__` (PEP 562), and
#   `dir(ember)` lists it.
# - A new public function or class that lives in a submodule: add it to `_LAZY_ATTRIBUTES`
#   (name -> (module, attribute)); it is then in `dir(ember)` and `ember.__all__`, and
#   `from ember import *` loads it.
# - Inside a package, do the same with a module-level `__getattr__` (ember.func, ember.utils,
#   ember.optim's lr_scheduler) rather than importing every file in its `__init__.py`.
# - Op families declare their entries cheaply: an `OpDef` is built on first use (NOTE [op
#   entries are built on first use], _core/registry.py); code that scans OPS reads only the
#   light fields (name, python_name, doc...) unless it needs the entries themselves. Most
#   families are not even imported: a generated index stands in for them (NOTE [op families
#   load on first use]); a new family file goes into `LAZY` in ember/_ops/__init__.py.
from __future__ import annotations

import importlib as _importlib
import math as _math
import sys as _sys

from ember import autograd  # noqa: F401  (connects the autograd recorder to the dispatcher)
from ember._core import dtype as _dt
from ember._core import upcalls as _upcalls
from ember._core.checks import (  # noqa: F401  (the error taxonomy, public as in PyTorch)
    _check,
    _check_index,
    _check_not_implemented,
    _check_type,
    _check_value,
    _check_with,
)
from ember._core.device import device  # noqa: F401
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.dtype import (  # noqa: F401  # noqa: F401
    bfloat16,
    complex32,
    complex64,
    complex128,
    dtype,
    float8_e4m3fn,
    float8_e5m2,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ember._core.layout import (  # noqa: F401  (the layout and memory-format tags)
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)
from ember._core.promotion import can_cast, promote_types  # noqa: F401
from ember._core.shape import Size  # noqa: F401
from ember._core.storage import UntypedStorage
from ember._generated import bindings as _bindings
from ember._tensor import Tensor
from ember.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from ember.version import __version__  # noqa: F401

globals()["bool"] = _dt.bool_
for _alias, _d in _dt.ALIASES.items():
    globals()[_alias] = _d

_bindings.install(Tensor)
# NOTE [upcalls]: the op families reach ember.nn (loaded on first use) through this.
_upcalls.nn_module = lambda name: _importlib.import_module(f"ember.nn.{name}")
_upcalls.accelerator_available = \
    lambda: _importlib.import_module("ember.accelerator").is_available()
_upcalls.public = lambda name: getattr(_bindings, name)
_upcalls.load_decompositions = lambda: _importlib.import_module("ember._decomp")
for _name in _bindings.FUNCTIONS:
    globals()[_name] = getattr(_bindings, _name)


newaxis = None           # x[:, ember.newaxis] adds a dim, as None does

inf = _math.inf
nan = _math.nan
pi = _math.pi
e = _math.e

# Submodules that load on first use: `ember.linalg` or `from ember import linalg`.
_LAZY_SUBMODULES = frozenset({
    "nn", "optim", "utils", "linalg", "fft", "special", "testing", "cuda", "cpu",
    "ops", "random", "accelerator", "backends", "amp", "fx", "distributed", "profiler", "func", "library",
    "overrides", "types", "sparse", "serialization", "jit", "hub", "onnx", "export", "version",
    "safetensors", "signal", "distributions", "masked", "compiler", "_dynamo", "return_types",
    "multiprocessing", "_subclasses", "ao", "quantization", "futures",
    "__config__", "torch_version",
})

_LAZY_ATTRIBUTES = {
    # name -> (module, attribute)
    **{name: ("ember._switches", name) for name in (
        "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
        "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
        "get_deterministic_debug_mode", "set_float32_matmul_precision",
        "get_float32_matmul_precision", "set_warn_always", "is_warn_always_enabled",
        "set_num_threads", "get_num_threads", "set_num_interop_threads",
        "get_num_interop_threads")},
    "finfo": ("ember._core.finfo", "finfo"),
    "iinfo": ("ember._core.finfo", "iinfo"),
    "Generator": ("ember._random", "Generator"),
    "manual_seed": ("ember._random", "manual_seed"),
    "seed": ("ember._random", "seed"),
    "initial_seed": ("ember._random", "initial_seed"),
    "get_rng_state": ("ember._random", "get_rng_state"),
    "set_rng_state": ("ember._random", "set_rng_state"),
    "default_generator": ("ember._random", "default_generator"),
    "set_printoptions": ("ember._tensor_str", "set_printoptions"),
    "from_dlpack": ("ember._dlpack", "from_dlpack"),
    "save": ("ember.serialization", "save"),
    "load": ("ember.serialization", "load"),
    **{d._cpp_name + "Tensor": ("ember._legacy_types", d._cpp_name + "Tensor")
       for d in _dt.ALL_DTYPES},
    "get_defaults": ("ember._defaults", "get_defaults"),
    "set_default_tensor_type": ("ember._defaults", "set_default_tensor_type"),
    **{name: ("ember._sym", name) for name in (
        "SymInt", "SymFloat", "SymBool", "sym_int", "sym_float", "sym_max", "sym_min",
        "sym_sum", "sym_not", "sym_ite")},
    "is_anomaly_enabled": ("ember.autograd.anomaly_mode", "is_anomaly_enabled"),
    "is_anomaly_check_nan_enabled": ("ember.autograd.anomaly_mode",
                                     "is_anomaly_check_nan_enabled"),
    "autocast": ("ember.amp.autocast_mode", "autocast"),
    **{name: ("ember.amp.autocast_mode", name) for name in (
        "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
        "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
        "clear_autocast_cache", "autocast_increment_nesting", "autocast_decrement_nesting",
        "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_cpu_dtype",
        "set_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_autocast_gpu_dtype",
        "is_autocast_ipu_enabled", "is_autocast_xla_enabled", "get_autocast_ipu_dtype",
        "get_autocast_xla_dtype", "set_autocast_ipu_enabled", "set_autocast_xla_enabled",
        "set_autocast_ipu_dtype", "set_autocast_xla_dtype")},
    "Stream": ("ember._streams", "Stream"),
    "Event": ("ember._streams", "Event"),
    "DisableTorchFunction": ("ember._C", "DisableTorchFunction"),
    "DisableTorchFunctionSubclass": ("ember._C", "DisableTorchFunctionSubclass"),
    **{name: ("ember._errors", name) for name in (
        "AcceleratorError", "OutOfMemoryError", "FatalError")},
    "thread_safe_generator": ("ember._random", "thread_safe_generator"),
    "lobpcg": ("ember._lobpcg", "lobpcg"),
    **{name: ("ember._typed_storage", name) for name in (
        "TypedStorage", "DoubleStorage", "FloatStorage", "HalfStorage", "BFloat16Storage",
        "LongStorage", "IntStorage", "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage",
        "ComplexFloatStorage", "ComplexDoubleStorage")},
    "GradScaler": ("ember.amp", "GradScaler"),
    "compile": ("ember.compiler._front", "compile"),
    # issue 22 (names): what PyTorch's C++ library and TorchScript expose at torch.*
    **{name: ("ember._dtypes_unsupported", name) for name in (
        "int1 int2 int3 int4 int5 int6 int7 uint1 uint2 uint3 uint4 uint5 uint6 uint7 bit "
        "bits1x8 bits2x4 bits4x2 bits8 bits16 float4_e2m1fn_x2 float8_e4m3fnuz float8_e5m2fnuz "
        "float8_e8m0fnu qint8 quint8 qint32 quint4x2 quint2x4 qscheme per_tensor_affine "
        "per_channel_affine per_tensor_symmetric per_channel_symmetric "
        "per_channel_affine_float_qparams").split()},
    **{name: ("ember._quantized_tensor", name) for name in (
        "quantize_per_tensor quantize_per_channel dequantize int_repr q_scale q_zero_point "
        "q_per_channel_scales q_per_channel_zero_points q_per_channel_axis "
        "quantize_per_tensor_dynamic empty_quantized quantized_max_pool1d "
        "quantized_max_pool2d").split()},
    **{name: ("ember.ao.quantization.fake_quantize", name) for name in (
        "fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine")},
    **{name: ("ember._vendor_ops", name) for name in (
        "cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution "
        "cudnn_convolution_add_relu cudnn_convolution_relu cudnn_convolution_transpose "
        "cudnn_grid_sampler cudnn_is_acceptable miopen_batch_norm miopen_convolution "
        "miopen_convolution_add_relu miopen_convolution_relu miopen_convolution_transpose "
        "miopen_ctc_loss miopen_depthwise_convolution miopen_rnn mkldnn_adaptive_avg_pool2d "
        "mkldnn_convolution mkldnn_linear_backward_weights mkldnn_max_pool2d mkldnn_max_pool3d "
        "mkldnn_rnn_layer fbgemm_linear_fp16_weight fbgemm_linear_fp16_weight_fp32_activation "
        "fbgemm_linear_int8_weight fbgemm_linear_int8_weight_fp32_activation "
        "fbgemm_linear_quantize_weight fbgemm_pack_gemm_matrix_fp16 "
        "fbgemm_pack_quantized_matrix batch_norm_backward_elemt batch_norm_backward_reduce "
        "batch_norm_elemt batch_norm_gather_stats batch_norm_gather_stats_with_counts "
        "batch_norm_stats batch_norm_update_stats has_lapack has_mkl has_openmp has_spectral "
        "init_num_threads is_vulkan_available").split()},
    **{name: ("ember._dispatch_keys", name) for name in (
        "DispatchKey", "DispatchKeySet", "ExcludeDispatchKeyGuard", "Tag")},
    **{name: ("ember._sym_extras", name) for name in (
        "cond", "sym_constrain_range", "sym_constrain_range_for_size", "sym_fresh_size",
        "sym_sqrt")},
    **{name: ("ember.jit._types", name) for name in (
        "AnyType AwaitType BoolType ClassType ComplexType DeviceObjType DictType EnumType "
        "FloatType FutureType InferredType IntType InterfaceType ListType NoneType NumberType "
        "OptionalType PyObjectType RRefType StreamObjType StringType SymBoolType SymIntType "
        "TensorType TupleType Type UnionType").split()},
    **{name: ("ember.jit._schema", name) for name in (
        "FunctionSchema", "Argument", "parse_schema")},
    **{name: ("ember.jit._runtime", name) for name in ("Future", "fork", "wait")},
    "vmap": ("ember.func", "vmap"),
    "get_default_device": ("ember._core.device", "get_default_device"),
    "set_default_device": ("ember._core.device", "set_default_device_global"),
}


def __getattr__(name: str):
    if name in _LAZY_SUBMODULES:
        try:
            module = _importlib.import_module(f"ember.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"ember.{name}":
                raise       # the submodule exists but something it needs is missing
            # Not written yet: an AttributeError, so hasattr(ember, name) is simply False.
            raise AttributeError(f"module 'ember' has no attribute '{name}' (ember.{name} is "
                                 "not implemented yet)") from None
        globals()[name] = module
        return module
    if name in _bindings.LAZY_FUNCTIONS:       # NOTE [op families load on first use]
        value = globals()[name] = getattr(_bindings, name)
        return value
    if name.startswith("_foreach_"):
        found = ("ember._foreach", name) if name in _importlib.import_module(
            "ember._foreach").FUNCTIONS else None
    else:
        found = _LAZY_ATTRIBUTES.get(name)
    if found is not None:
        value = getattr(_importlib.import_module(found[0]), found[1])
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ember' has no attribute '{name}'")


def __dir__():
    from importlib.util import find_spec
    present = {name for name in _LAZY_SUBMODULES if find_spec(f"ember.{name}") is not None}
    return sorted(set(globals()) | present | set(_LAZY_ATTRIBUTES) | _bindings.LAZY_FUNCTIONS)


def _register_device_module(device_type: str, module) -> None:
    """Attach `module` as `ember.<device_type>` (and importable as such); once per type."""
    from ember._backends.plugins import register_device_module
    register_device_module(_sys.modules[__name__], device_type, module)


def get_device_module(device=None):  # noqa: F811  (PyTorch's argument name)
    """The device module for `device` (`ember.cuda` for 'cuda'); the accelerator's if None."""
    from ember._backends.plugins import get_device_module as find
    accelerator_type = "cpu"
    if device is None:
        from ember import accelerator
        found = accelerator.current_accelerator()
        accelerator_type = "cpu" if found is None else found.type
    return find(device, accelerator_type,
                lambda name: _importlib.import_module(f"ember.{name}"))


def is_tensor(obj) -> bool:
    """Whether `obj` is an ember Tensor (a subclass instance counts)."""
    return isinstance(obj, Tensor)


def is_storage(obj) -> bool:
    """Whether `obj` is a storage."""
    return isinstance(obj, UntypedStorage)


def is_floating_point(input) -> bool:
    """Whether `input`'s dtype is a floating dtype."""
    if _state.entry and _wants(locals()):
        return _handle(is_floating_point, locals())
    if not isinstance(input, Tensor):
        from ember._core.arguments import refuse
        refuse(("is_floating_point", "input", 1), "Tensor", input)
    return input.is_floating_point()


def is_complex(input) -> bool:
    """Whether `input`'s dtype is a complex dtype."""
    if _state.entry and _wants(locals()):
        return _handle(is_complex, locals())
    if not isinstance(input, Tensor):
        from ember._core.arguments import refuse
        refuse(("is_complex", "input", 1), "Tensor", input)
    return input.is_complex()


def numel(input) -> int:
    """The number of elements of `input`."""
    if not isinstance(input, Tensor):
        from ember._core.arguments import refuse
        refuse(("numel", "input", 1), "Tensor", input)
    return input.numel()


def _assert(condition, message):
    """`assert condition, message` as a function, so that traced programs record it."""
    if _state.entry and _wants(locals()):
        return _handle(_assert, locals())
    assert condition, message


def typename(obj) -> str:
    """The legacy type name of `obj` ('torch.FloatTensor' for a float32 CPU tensor)."""
    from ember._legacy_types import typename as legacy_typename
    return legacy_typename(obj)


# The public names, as `from ember import *` takes them: everything defined above that is
# neither private nor a module, and the lazily loaded functions and classes (not submodules).
__all__ = [*sorted(  # noqa: PLE0604  (ruff cannot see that the set holds names)
    {name for name, value in globals().items()
     if not name.startswith("_") and type(value) is not type(_sys) and name != "annotations"}
    | {name for name in _LAZY_ATTRIBUTES if not name.startswith("_")}
    | {name for name in _bindings.LAZY_FUNCTIONS if not name.startswith("_")})]


def _autoload_backends() -> None:
    from ember._backends.plugins import autoload
    autoload()


_autoload_backends()
