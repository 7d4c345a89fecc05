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
import pathlib
import sys
import warnings

import pytest
import torch

import ember

# One definition of a namespace's public names, the tool's (tools/name_coverage.py).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
from name_coverage import public_names


def _names(text: str) -> frozenset:
    return frozenset(text.split())


TORCHSCRIPT = (
    ("TorchScript's compiler, IR and runtime objects (ember has no TorchScript: its type "
     "objects, schemas, fork/wait are in, ember/jit/_types.py, _schema.py)"),
    ("AliasDb ArgumentSpec Block CallStack Capsule Code CompilationUnit CompleteArgumentSpec "
    "ConcreteModuleType ConcreteModuleTypeBuilder DeepCopyMemoTable ErrorReport ExecutionPlan "
    "FileCheck Gradient Graph GraphExecutorState IODescriptor JITException LiteScriptModule "
    "LockingLogger NoopLogger AggregationType AVG SUM Node OperatorInfo ScriptClass "
    "ScriptClassFunction ScriptDict ScriptDictIterator ScriptDictKeyIterator ScriptFunction "
    "ScriptList ScriptListIterator ScriptMethod ScriptModule ScriptModuleSerializer "
    "ScriptObject ScriptObjectProperty StaticModule TracingState Use Value import_ir_module "
    "import_ir_module_from_buffer parse_ir parse_type_comment merge_type_from_type_comment "
    "unify_type_list BenchmarkConfig BenchmarkExecutionStats ThroughputBenchmark cpp "
    "PyTorchFileReader PyTorchFileWriter SerializationStorageContext "
    "DeserializationStorageContext ModuleDict ParameterDict BufferDict"))
QUANTIZED = (
    ("quantized tensors' other kernels (quantized tensors are in, NOTE [quantized tensors])"),
    ("fused_moving_avg_obs_fake_quant choose_qparams_optimized "
    "quantized_batch_norm quantized_gru_cell quantized_lstm_cell "
    "quantized_max_pool3d quantized_rnn_relu_cell "
    "quantized_rnn_tanh_cell"))

TENSOR_ELSEWHERE = (
    ("first-class dimensions (functorch.dim, which Tensor.index binds) and oneDNN's own "
     "tensor layout (to_mkldnn): neither exists in ember"),
    "index to_mkldnn")
TENSOR_REMOVED = (
    ("removed from PyTorch: the attribute only raises or warns (eig, lstsq, solve, symeig; "
    "Variable's volatile and reinforce)"),
    "eig lstsq solve symeig volatile reinforce")
IMPORTED_HELPERS = (
    "dicts of docstring fragments PyTorch's own docs use",
    "reproducibility_notes sparse_support_notes tf32_notes")

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
        TORCHSCRIPT, QUANTIZED)),
    "Tensor": (lambda: torch.Tensor, lambda: ember.Tensor, (
        TENSOR_REMOVED, TENSOR_ELSEWHERE)),
    "autograd": (lambda: torch.autograd, lambda: ember.autograd, ()),
    "func": (lambda: torch.func, lambda: ember.func, ()),
    "utils.checkpoint": (lambda: importlib.import_module("torch.utils.checkpoint"),
                         lambda: importlib.import_module("ember.utils.checkpoint"), ()),
    "nn": (lambda: torch.nn, lambda: ember.nn, ()),
    "nn.functional": (lambda: torch.nn.functional, lambda: ember.nn.functional, (
        IMPORTED_HELPERS,)),
    "optim": (lambda: torch.optim, lambda: ember.optim, ()),
    "linalg": (lambda: torch.linalg, lambda: ember.linalg, (
        ("a dict of docstring fragments PyTorch's own docs use", "common_notes"),)),
    "fft": (lambda: torch.fft, lambda: ember.fft, ()),
    "special": (lambda: torch.special, lambda: ember.special, ()),
    "distributions": (lambda: torch.distributions, lambda: ember.distributions, ()),
    "sparse": (lambda: torch.sparse, lambda: ember.sparse, ()),
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
          "utils breakpoint all_gather_coalesced argparse_util collective_utils debug "
          "flight_recorder launch")),
        ("FSDP, DTensor, sharded checkpoints, pipelining and elastic agents: out of scope "
         "(rank-0 ember.save is the pattern)",
         "fsdp tensor checkpoint pipelining elastic launcher"))),
    "library": (lambda: importlib.import_module("torch.library"),
                lambda: importlib.import_module("ember.library"), ()),
    "utils.dlpack": (lambda: importlib.import_module("torch.utils.dlpack"),
                     lambda: importlib.import_module("ember.utils.dlpack"), ()),
    "cuda": (lambda: torch.cuda, lambda: ember.cuda, ()),
    "quantization": (lambda: importlib.import_module("torch.quantization"),
                     lambda: importlib.import_module("ember.quantization"), ()),
    **{name: (
        (lambda name=name: importlib.import_module(f"torch.{name}")),
        (lambda name=name: importlib.import_module(f"ember.{name}")), ())
       for name in ("accelerator", "cpu", "futures", "types", "hub")},
    "export": (lambda: importlib.import_module("torch.export"),
               lambda: importlib.import_module("ember.export"), ()),
    "compiler": (lambda: torch.compiler, lambda: importlib.import_module("ember.compiler"), ()),
    "utils.data": (lambda: importlib.import_module("torch.utils.data"),
                   lambda: importlib.import_module("ember.utils.data"), ()),
    "cuda.memory": (lambda: importlib.import_module("torch.cuda.memory"),
                    lambda: importlib.import_module("ember.cuda.memory"), ()),
    "cuda.amp": (lambda: importlib.import_module("torch.cuda.amp"),
                 lambda: importlib.import_module("ember.cuda.amp"), ()),
    **{f"backends{'.' + name if name else ''}": (
        (lambda name=name: importlib.import_module(f"torch.backends{'.' + name if name else ''}")),
        (lambda name=name: importlib.import_module(f"ember.backends{'.' + name if name else ''}")),
        ()) for name in ("", "cuda", "cudnn", "mkldnn", "mkl", "mps", "openmp", "opt_einsum",
                         "quantized", "cpu", "miopen", "mha", "nnpack", "cusparselt",
                         "kleidiai", "python_native")},
    "fx.passes.shape_prop": (lambda: importlib.import_module("torch.fx.passes.shape_prop"),
                             lambda: importlib.import_module("ember.fx.passes.shape_prop"),
                             ()),
}


# The share of PyTorch's public names each namespace must keep (issue 22: 90% of `torch.*`, 95% of
# each namespace that runs without a GPU). Raise a floor when a namespace gains names.
FLOORS = {"torch": 90, "nn": 100, "nn.functional": 98, "library": 100, "cuda": 100, "cuda.memory": 100, "cuda.amp": 100, "backends": 100,
          "backends.cuda": 100, "backends.cudnn": 100, "backends.mkldnn": 100, "utils.data": 100, "compiler": 100, "export": 100,
          "sparse": 100, "quantization": 100,
          "accelerator": 100, "cpu": 100, "futures": 100, "types": 100,
          "hub": 100}




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


@pytest.mark.parametrize("key", sorted(FLOORS))
def test_coverage_stays_above_its_floor(key):
    oracle, present, _ = coverage(key)
    share = 100 * len(present) / len(oracle)
    assert share >= FLOORS[key], f"{key}: {share:.1f}% of PyTorch's public names, floor {FLOORS[key]}%"


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
