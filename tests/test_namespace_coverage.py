"""ember's public names against PyTorch's, namespace by namespace.

A namespace's public names are its `__all__` where it has one, else the names `dir()` shows
without a leading underscore; either way less the modules and classes or functions it merely
imports from outside torch (`typing.Optional`, `math` ...). Every such name of PyTorch must exist
in ember or be listed below with the reason it is missing, and every listed name must still be
missing (so the lists stay true: implementing a name means deleting it here).

`python tests/test_namespace_coverage.py` prints the counts.
"""
from __future__ import annotations

import importlib
import inspect
import types
import warnings

import pytest
import torch

import ember


def _names(text: str) -> frozenset:
    return frozenset(text.split())


TORCHSCRIPT = (
    "TorchScript / JIT IR types and entry points (ember has no TorchScript)",
    ("AliasDb AnyType Argument ArgumentSpec AwaitType Block BoolType CallStack Capsule ClassType "
    "Code CompilationUnit CompleteArgumentSpec ComplexType ConcreteModuleType "
    "ConcreteModuleTypeBuilder DeepCopyMemoTable DeviceObjType DictType EnumType ErrorReport "
    "ExecutionPlan FileCheck FloatType FunctionSchema FutureType Gradient Graph "
    "GraphExecutorState IODescriptor InferredType IntType InterfaceType JITException ListType "
    "LiteScriptModule LockingLogger NoopLogger AggregationType AVG SUM Node NoneType NumberType "
    "OperatorInfo OptionalType PyObjectType RRefType ScriptClass ScriptClassFunction ScriptDict "
    "ScriptDictIterator ScriptDictKeyIterator ScriptFunction ScriptList ScriptListIterator "
    "ScriptMethod ScriptModule ScriptModuleSerializer ScriptObject ScriptObjectProperty "
    "StaticModule StreamObjType StringType SymBoolType SymIntType TensorType TracingState "
    "TupleType Type UnionType Use Value Future fork wait import_ir_module "
    "import_ir_module_from_buffer parse_ir parse_schema parse_type_comment "
    "merge_type_from_type_comment unify_type_list BenchmarkConfig BenchmarkExecutionStats "
    "ThroughputBenchmark cpp PyTorchFileReader PyTorchFileWriter "
    "SerializationStorageContext DeserializationStorageContext ModuleDict ParameterDict "
    "BufferDict"))
DISPATCHER = (
    "PyTorch's C++ dispatcher internals (ember's dispatcher is its own, in _core/dispatch)",
    "DispatchKey DispatchKeySet ExcludeDispatchKeyGuard Tag")
COMPILER = (
    ("the compiler stack past torch.compile's front (torch.export, control-flow operators): "
    "the compiler issues to come"),
    ("export cond sym_constrain_range sym_constrain_range_for_size sym_fresh_size "
    "sym_sqrt"))
QUANTIZED = (
    "quantized tensors and their kernels (out of scope)",
    ("qint8 qint32 quint8 quint4x2 quint2x4 qscheme quantize_per_channel quantize_per_tensor "
    "quantize_per_tensor_dynamic dequantize int_repr q_per_channel_axis q_per_channel_scales "
    "q_per_channel_zero_points q_scale q_zero_point fake_quantize_per_channel_affine "
    "fake_quantize_per_tensor_affine fused_moving_avg_obs_fake_quant choose_qparams_optimized "
    "empty_quantized quantized_batch_norm quantized_gru_cell quantized_lstm_cell "
    "quantized_max_pool1d quantized_max_pool2d quantized_max_pool3d quantized_rnn_relu_cell "
    "quantized_rnn_tanh_cell"))
VENDOR = (
    ("vendor kernels and build flags of PyTorch's C++ library (cuDNN, MIOpen, oneDNN, FBGEMM, "
    "Vulkan)"),
    ("cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution cudnn_convolution_add_relu "
    "cudnn_convolution_relu cudnn_convolution_transpose cudnn_grid_sampler cudnn_is_acceptable "
    "miopen_batch_norm miopen_convolution miopen_convolution_add_relu miopen_convolution_relu "
    "miopen_convolution_transpose miopen_ctc_loss miopen_depthwise_convolution miopen_rnn "
    "mkldnn_adaptive_avg_pool2d mkldnn_convolution mkldnn_linear_backward_weights "
    "mkldnn_max_pool2d mkldnn_max_pool3d mkldnn_rnn_layer fbgemm_linear_fp16_weight "
    "fbgemm_linear_fp16_weight_fp32_activation fbgemm_linear_int8_weight "
    "fbgemm_linear_int8_weight_fp32_activation fbgemm_linear_quantize_weight "
    "fbgemm_pack_gemm_matrix_fp16 fbgemm_pack_quantized_matrix is_vulkan_available has_lapack "
    "has_mkl has_openmp has_spectral init_num_threads"))
SYNC_BATCH_NORM = (
    "the CUDA kernels of SyncBatchNorm (distributed training is out of scope)",
    ("batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt "
    "batch_norm_gather_stats batch_norm_gather_stats_with_counts batch_norm_stats "
    "batch_norm_update_stats"))
NO_NUMPY_DTYPE = (
    "dtypes NumPy and ml_dtypes cannot hold (sub-byte and bit types): not yet emulated",
    ("bit bits16 bits1x8 bits2x4 bits4x2 bits8 int1 int2 int3 int4 int5 int6 "
    "int7 uint1 uint2 uint3 uint4 uint5 uint6 uint7 float4_e2m1fn_x2 float8_e4m3fnuz "
    "float8_e5m2fnuz float8_e8m0fnu"))

TENSOR_ELSEWHERE = (
    ("first-class dimensions (functorch.dim, which Tensor.index binds) and oneDNN's own "
     "tensor layout (to_mkldnn): neither exists in ember"),
    "index to_mkldnn")
TENSOR_REMOVED = (
    ("removed from PyTorch: the attribute only raises or warns (eig, lstsq, solve, symeig; "
    "Variable's volatile and reinforce)"),
    "eig lstsq solve symeig volatile reinforce")
TENSOR_QUANTIZED = (
    "quantized tensors (out of scope)",
    ("dequantize int_repr q_per_channel_axis q_per_channel_scales q_per_channel_zero_points "
    "q_scale q_zero_point qscheme"))

IMPORTED_HELPERS = (
    "typing helpers and modules the oracle's module imports for itself, not API",
    ("BroadcastingList1 BroadcastingList2 BroadcastingList3 Optional TYPE_CHECKING Tensor torch "
    "boolean_dispatch assert_int_or_pair handle_torch_function has_torch_function "
    "has_torch_function_unary has_torch_function_variadic grad reproducibility_notes "
    "sparse_support_notes tf32_notes GRID_SAMPLE_INTERPOLATION_MODES GRID_SAMPLE_PADDING_MODES"))

def _with_submodules(name):
    """The package with every public submodule imported: which ones other tests happened to
    import must not change its public names."""
    import pkgutil
    package = importlib.import_module(name)
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{name}.{info.name}")
    return package


# namespace -> (how to reach PyTorch's, how to reach ember's, the lists of missing names)
NAMESPACES = {
    "torch": (lambda: torch, lambda: ember, (
        TORCHSCRIPT, DISPATCHER, COMPILER, QUANTIZED, VENDOR, SYNC_BATCH_NORM,
        NO_NUMPY_DTYPE)),
    "Tensor": (lambda: torch.Tensor, lambda: ember.Tensor, (
        TENSOR_QUANTIZED, TENSOR_REMOVED, TENSOR_ELSEWHERE)),
    "autograd": (lambda: torch.autograd, lambda: ember.autograd, ()),
    "func": (lambda: torch.func, lambda: ember.func, ()),
    "utils.checkpoint": (lambda: importlib.import_module("torch.utils.checkpoint"),
                         lambda: importlib.import_module("ember.utils.checkpoint"), ()),
    "nn.functional": (lambda: torch.nn.functional, lambda: ember.nn.functional, (
        IMPORTED_HELPERS,)),
    "optim": (lambda: torch.optim, lambda: ember.optim, ()),
    "linalg": (lambda: torch.linalg, lambda: ember.linalg, (
        ("a dict of docstring fragments PyTorch's own docs use", "common_notes"),)),
    "fft": (lambda: torch.fft, lambda: ember.fft, ()),
    "special": (lambda: torch.special, lambda: ember.special, ()),
    "distributions": (lambda: torch.distributions, lambda: ember.distributions, ()),
    "sparse": (lambda: torch.sparse, lambda: ember.sparse, (
        ("semi-structured (2:4) sparsity: CUDA kernels (cuSPARSELt, CUTLASS)",
         ("SparseSemiStructuredTensor SparseSemiStructuredTensorCUSPARSELT "
          "SparseSemiStructuredTensorCUTLASS to_sparse_semi_structured")),
        ("in PyTorch's __all__ but not defined there (torch.sparse.solve raises AttributeError)",
         "solve"))),
    "masked": (lambda: importlib.import_module("torch.masked"), lambda: ember.masked, ()),
    "testing": (lambda: torch.testing, lambda: ember.testing, (
        ("TorchScript's IR pattern checker", "FileCheck"),)),
    "jit": (lambda: torch.jit, lambda: ember.jit, ()),
    "utils._pytree": (lambda: importlib.import_module("torch.utils._pytree"),
                      lambda: importlib.import_module("ember.utils._pytree"), ()),
    "multiprocessing": (lambda: importlib.import_module("torch.multiprocessing"),
                        lambda: ember.multiprocessing, ()),
    "random": (lambda: torch.random, lambda: ember.random, ()),
    "signal.windows": (lambda: importlib.import_module("torch.signal.windows"),
                       lambda: importlib.import_module("ember.signal.windows"), ()),
    "fx": (lambda: torch.fx, lambda: ember.fx, ()),
    "fx.node": (lambda: importlib.import_module("torch.fx.node"),
                lambda: importlib.import_module("ember.fx.node"), ()),
    "fx.proxy": (lambda: importlib.import_module("torch.fx.proxy"),
                 lambda: importlib.import_module("ember.fx.proxy"), (
        (("parameter proxies (Tracer.param_shapes_constant), meta-tensor proxies and the "
          "module scope stack of torch.fx's tracer: not built yet"),
         "MetaProxy ParameterProxy Scope ScopeContextManager"),)),
    "fx.subgraph_rewriter": (lambda: importlib.import_module("torch.fx.subgraph_rewriter"),
                             lambda: importlib.import_module("ember.fx.subgraph_rewriter"), ()),
    "distributed": (lambda: _with_submodules("torch.distributed"),
                    lambda: _with_submodules("ember.distributed"), (
        ("c10d's C++ option structs, reducer, logger and gloo process-group class (ember's "
         "groups run on MPI through backend.CommBackend)",
         ("AllToAllOptions AllreduceCoalescedOptions AllreduceOptions BarrierOptions "
          "BroadcastOptions GatherOptions ReduceOptions ReduceScatterOptions ScatterOptions "
          "Reducer Logger ProcessGroupGloo BackendConfig get_backend_config BuiltinCommHookType "
          "GroupName RankType QueueEmptyError")),
        ("device meshes, RPC, distributed autograd, rendezvous handlers, group split/shrink: "
         "not built yet",
         ("DeviceMesh device_mesh init_device_mesh rpc autograd rendezvous "
          "register_rendezvous_handler remote_device split_group shrink_group")),
        ("PyTorch's internal modules and logging helpers, a rank-gated pdb, the deprecated "
         "all_gather_coalesced",
         ("c10d_logger config constants distributed_c10d log logging_handlers record_comm "
          "utils breakpoint all_gather_coalesced torch argparse_util collective_utils debug "
          "flight_recorder launch")),
        ("FSDP, DTensor, sharded checkpoints, pipelining and elastic agents: out of scope "
         "(rank-0 ember.save is the pattern)",
         "fsdp tensor checkpoint pipelining elastic launcher"))),
    "library": (lambda: importlib.import_module("torch.library"),
                lambda: importlib.import_module("ember.library"), (
        (("Triton kernels, autocast and vmap rules, torch_dispatch rules and kernel lookup of "
          "users' ops; the deprecated impl_abstract and the fake-rule context: not built yet"),
         ("fallthrough_kernel get_ctx get_kernel impl_abstract register_autocast "
          "register_torch_dispatch register_vmap triton_op wrap_triton")),)),
    "utils.dlpack": (lambda: importlib.import_module("torch.utils.dlpack"),
                     lambda: importlib.import_module("ember.utils.dlpack"), ()),
    "fx.passes.shape_prop": (lambda: importlib.import_module("torch.fx.passes.shape_prop"),
                             lambda: importlib.import_module("ember.fx.passes.shape_prop"),
                             ()),
}


def public_names(namespace) -> frozenset:
    """The public names of a module or class, as the module docstring defines them."""
    listed = getattr(namespace, "__all__", None) if isinstance(namespace, types.ModuleType) \
        else None
    names = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # some attributes warn when read
        for name in (listed if listed is not None else dir(namespace)):
            if name.startswith("_"):
                continue
            value = getattr(namespace, name, None)
            if isinstance(value, types.ModuleType):
                if not value.__name__.startswith("torch"):
                    continue
            elif (inspect.isclass(value) or inspect.isfunction(value)) and \
                    not getattr(value, "__module__", "torch").startswith("torch"):
                continue
            names.add(name)
    return frozenset(names)


def _present(namespace, names) -> frozenset:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return frozenset(n for n in names if hasattr(namespace, n))


def coverage(key):
    """(oracle names, ember's present names, the listed names) of one namespace."""
    get_torch, get_ember, lists = NAMESPACES[key]
    oracle = public_names(get_torch())
    present = _present(get_ember(), oracle)
    listed = frozenset().union(*(_names(names) for _, names in lists))
    return oracle, present, listed


@pytest.mark.parametrize("key", list(NAMESPACES))
def test_every_public_name_is_present_or_listed(key):
    oracle, present, listed = coverage(key)
    unexplained = sorted(oracle - present - listed)
    assert not unexplained, (
        f"{key}: PyTorch's public names missing from ember and from the lists in this file: "
        f"{unexplained}")


@pytest.mark.parametrize("key", list(NAMESPACES))
def test_listed_names_are_still_missing(key):
    oracle, present, listed = coverage(key)
    implemented = sorted(listed & present)
    assert not implemented, f"{key}: now in ember, delete them from the lists: {implemented}"
    unknown = sorted(listed - oracle)
    assert not unknown, f"{key}: listed names PyTorch does not have: {unknown}"


def test_each_name_is_listed_once():
    for key, (_, _, lists) in NAMESPACES.items():
        seen = set()
        for _, names in lists:
            twice = seen & _names(names)
            assert not twice, f"{key}: listed twice: {sorted(twice)}"
            seen |= _names(names)


if __name__ == "__main__":
    for key in NAMESPACES:
        oracle, present, listed = coverage(key)
        print(f"{key:18} {len(present):4} of {len(oracle):4} public names "
              f"({100 * len(present) / len(oracle):.0f}%), {len(oracle - present)} missing")
