"""What `import ember` loads (issue 23: what a program does not use is not imported).

Each check runs in a fresh interpreter: the test process itself has imported everything. The
plug-in autoload is off (EMBER_DEVICE_BACKEND_AUTOLOAD=0) so that the test plug-in installed in
the development environment (`ember_npdev`, which imports `ember.utils` and its own module)
does not count; `benchmarks/bench_import.py` times the imports themselves.
"""
import json
import os
import subprocess
import sys

import pytest

# The bound on `ember.*` modules after `import ember`. Today (December 2026) the count is 154:
# the op families (`_ops/`, 93 files, all imported because the generated bindings bind their
# hand-written frontends; their op entries are built on first use, NOTE [op entries are built
# on first use]), the core (`_core/`, 35 with the dispatcher), autograd (13), the back-ends (6),
# the bindings (2) and the facade's few modules (`_tensor`, `_random`, `_C`, `version`). The
# bound leaves about 10% for new op families and core files; a library package imported
# eagerly overshoots it (`ember.nn` is ~75 modules, `ember.fx` ~90, `ember.distributions`
# ~110, `ember.optim` ~24). Lower it when the families load on first use.
MAX_EMBER_MODULES = 170

# Never loaded by `import ember`: each loads on first use (`ember.__getattr__`, NOTE at the top of
# ember/__init__.py), or, for third-party libraries, inside the kernels that need them.
NOT_AT_IMPORT = (
    "ember.nn", "ember.optim", "ember.distributions", "ember.fx", "ember._dynamo",
    "ember._inductor", "ember._decomp", "ember._subclasses", "ember.linalg", "ember.fft",
    "ember.special", "ember.testing", "ember.func", "ember.utils", "ember.sparse",
    "ember.masked", "ember.serialization", "ember.amp", "ember.jit", "ember.onnx",
    "ember.profiler", "ember.export", "ember.compiler", "ember.signal", "ember.distributed",
    "ember._functorch", "ember.multiprocessing", "ember.cuda", "ember.backends",
    "ember._foreach", "ember._lobpcg", "ember._sym", "ember._tensor_str",
    "scipy", "sympy", "cupy", "torch", "threadpoolctl", "json", "multiprocessing",
)

# What `import ember.nn` must not pull in with it.
NOT_WITH_NN = (
    "ember.optim", "ember.distributions", "ember.fx", "ember._dynamo", "ember._inductor",
    "ember._decomp", "ember.func._transforms", "ember.func._vmap", "ember.testing",
    "scipy", "sympy", "json",
)


def _loaded_after(statement: str) -> list:
    code = (f"import sys\n{statement}\n"
            "import json\n"     # (after the statement: the test's own reporting)
            "print(json.dumps(sorted(sys.modules)))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["EMBER_DEVICE_BACKEND_AUTOLOAD"] = "0"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          check=True)
    return json.loads(done.stdout)


def _under(modules, prefix):
    return [m for m in modules if m == prefix or m.startswith(prefix + ".")]


@pytest.fixture(scope="module")
def after_import():
    # ('json' is imported by the reporting code after the statement: checked separately)
    return _loaded_after("import ember; import ember._core.registry")


def test_import_ember_module_count(after_import):
    ember_modules = _under(after_import, "ember")
    assert len(ember_modules) <= MAX_EMBER_MODULES, (
        f"import ember loads {len(ember_modules)} ember modules (bound {MAX_EMBER_MODULES}): "
        "make the new ones load on first use (see the NOTE at the top of ember/__init__.py)")


@pytest.mark.parametrize("name", [m for m in NOT_AT_IMPORT if m != "json"])
def test_not_imported_eagerly(after_import, name):
    assert not _under(after_import, name), f"import ember loaded {_under(after_import, name)}"


def test_import_ember_does_not_load_json():
    code = "import sys, ember; sys.exit(1 if 'json' in sys.modules else 0)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["EMBER_DEVICE_BACKEND_AUTOLOAD"] = "0"
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0


def test_import_nn_loads_no_other_library():
    code = ("import sys, ember.nn\n"
            f"bad = [m for m in sys.modules for p in {NOT_WITH_NN!r} "
            "if m == p or m.startswith(p + '.')]\n"
            "print(bad); sys.exit(1 if bad else 0)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["EMBER_DEVICE_BACKEND_AUTOLOAD"] = "0"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_op_entries_are_built_on_first_use():
    # NOTE [op entries are built on first use]: after `import ember` most entries are still
    # declared only; a call builds the entries it reaches, and the result matches PyTorch.
    code = ("import ember\n"
            "from ember._core.registry import OPS, _DeclaredOp\n"
            "declared = sum(type(op) is _DeclaredOp for op in OPS.values())\n"
            "x = ember.arange(6.0).reshape(2, 3)\n"
            "y = (x * 2).sum(1)\n"
            "print(declared, len(OPS), type(OPS['mul.Tensor']).__name__, y.tolist())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["EMBER_DEVICE_BACKEND_AUTOLOAD"] = "0"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    declared, total, kind, values = done.stdout.split(maxsplit=3)
    import torch
    expected = (torch.arange(6.0).reshape(2, 3) * 2).sum(1).tolist()
    assert int(declared) > int(total) * 3 // 4      # most entries not built at import
    assert kind == "OpDef"
    assert json.loads(values) == expected


def test_lazy_names_still_public():
    # Lazy attributes and submodules answer as eager ones did: dir, __all__, star-import,
    # attribute access, and a tensor pickled in one process loads in another.
    code = ("import pickle, ember\n"
            "assert {'linalg', 'nn', 'optim', 'fft', 'manual_seed', 'add'} <= set(dir(ember))\n"
            "assert 'manual_seed' in ember.__all__ and 'add' in ember.__all__\n"
            "ns = {}; exec('from ember import *', ns)\n"
            "assert ns['manual_seed'] is ember.manual_seed and ns['add'] is ember.add\n"
            "assert ember.linalg.norm(ember.ones(4)).item() == 2.0\n"
            "assert ember.ops.aten.add.Tensor(ember.ones(1), ember.ones(1)).item() == 2.0\n"
            "print(pickle.dumps(ember.arange(3)).hex())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    loaded = subprocess.run(
        [sys.executable, "-c", ("import pickle, sys, ember; "
                                "print(pickle.loads(bytes.fromhex(sys.stdin.read().strip()))"
                                ".tolist())")],
        input=done.stdout, capture_output=True, text=True, env=env, check=True)
    assert loaded.stdout.strip() == "[0, 1, 2]"
