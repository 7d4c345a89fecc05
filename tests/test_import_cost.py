"""What `import ember` loads (issue 23: what a program does not use is not imported).

Each check runs in a fresh interpreter: the test process itself has imported everything. The
plug-in autoload is off (EMBER_DEVICE_BACKEND_AUTOLOAD=0) so that the test plug-in installed in
the development environment (`ember_npdev`, which imports `ember.utils` and its own module)
does not count; `benchmarks/bench_import.py` times the imports themselves.
"""
import ast
import json
import os
import subprocess
import sys

import numpy as np
import pytest

# The bound on `ember.*` modules after `import ember`. Today (December 2026) the count is 62: the
# core (`_core/`, 35 with the dispatcher), autograd (10: custom Functions and `Variable` load on
# first use), the back-ends (7), the bindings and the index of the op families (3), the facade's
# few modules (`_tensor`, `_C`, `version`) and the only op families imported at once (`_ops/`:
# conversion, complex_half_ops and what they import); the other 90-odd families load on first
# use (NOTE [op families load on first use]), and so do the bindings of the pointwise and the
# rarely used families (NOTE [rarely used bindings load on first use]). The bound is the count
# (issue 23): a new module imported by `import ember` raises it here, on purpose. A library
# package imported eagerly overshoots it (`ember.nn` is ~85 modules, `ember.fx` ~90,
# `ember.distributions` ~110, `ember.optim` ~28), and so does an op family imported at the top
# of a core file.
MAX_EMBER_MODULES = 62

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
    # op families and bindings loaded on first use (NOTE [op families load on first use])
    "ember._ops.pointwise", "ember._ops.creation", "ember._ops.linalg", "ember._ops.nn_conv",
    "ember._ops.foreach", "ember._ops.sparse", "ember._generated.bindings_more",
    "ember._generated.bindings_pointwise", "ember._core.schema", "ember.autograd.function",
    "dataclasses", "heapq",
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


def _run(code, autoload="0"):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["EMBER_DEVICE_BACKEND_AUTOLOAD"] = autoload
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          check=True).stdout


def test_op_family_loads_on_first_use():
    # NOTE [op families load on first use]: the indexed entry is the entry the family builds
    # (the bindings hold it), its light fields are read without loading, and the result of the
    # first call matches PyTorch.
    out = _run(
        "import sys, ember\n"
        "from ember._core.registry import OPS\n"
        "op = OPS['linalg_cholesky_ex']\n"
        "light = (op.python_name, bool(op.doc), 'ember._ops.linalg_factor' in sys.modules)\n"
        "a = ember.tensor([[4.0, 2.0], [2.0, 3.0]])\n"
        "l = ember.linalg.cholesky(a)\n"
        "print(light, OPS['linalg_cholesky_ex'] is op, type(op).__name__,\n"
        "      'ember._ops.linalg_factor' in sys.modules, l.tolist())\n")
    import torch
    expected = torch.linalg.cholesky(torch.tensor([[4.0, 2.0], [2.0, 3.0]])).tolist()
    assert out.strip() == (f"('linalg_cholesky_ex', True, False) True OpDef True {expected}")


def test_lazy_methods_take_their_place_on_first_use():
    # A frontend's method of a family not loaded yet and a generated method of the rarely used
    # bindings stand in the class until first read, then the real function is the class's own
    # attribute (no stand-in left on the call path); subclasses and class access see it too.
    out = _run(
        "import ember\n"
        "names = ('cumsum', 'diff', 'logdet', 'count_nonzero')\n"
        "before = [type(vars(ember.Tensor)[n]).__name__ for n in names]\n"
        "class Sub(ember.Tensor):\n    pass\n"
        "x = ember.arange(6.0).reshape(2, 3).as_subclass(Sub)\n"
        "values = [x.cumsum(1).tolist(), x.diff().tolist(), x.count_nonzero().item()]\n"
        "logdet = ember.Tensor.logdet\n"
        "after = [type(vars(ember.Tensor)[n]).__name__ for n in names]\n"
        "print(before, after, values, logdet is vars(ember.Tensor)['logdet'])\n")
    before, rest = out.split("] ", 1)
    assert "'function'" not in before and "LazyMethod" in before and "LazyGenerated" in before
    import torch
    x = torch.arange(6.0).reshape(2, 3)
    values = [x.cumsum(1).tolist(), x.diff().tolist(), x.count_nonzero().item()]
    assert rest.strip() == f"['function', 'function', 'function', 'function'] {values} True"


def test_modes_see_ops_of_families_not_loaded():
    # A TorchDispatchMode entered before the family loads sees its ops by PyTorch's names.
    out = _run(
        "import ember\n"
        "from ember.utils._python_dispatch import TorchDispatchMode\n"
        "seen = []\n"
        "class Log(TorchDispatchMode):\n"
        "    def __torch_dispatch__(self, func, types, args=(), kwargs=None):\n"
        "        seen.append(str(func))\n"
        "        return func(*args, **(kwargs or {}))\n"
        "x = ember.tensor([[2.0, 1.0], [1.0, 2.0]])\n"
        "with Log():\n"
        "    y = ember.cumsum(x, 1)\n"
        "    z = ember.linalg.cholesky(x)\n"
        "print(seen, y.tolist(), z.tolist())\n")
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode
    seen = []

    class Log(TorchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = torch.tensor([[2.0, 1.0], [1.0, 2.0]])
    with Log():
        y = torch.cumsum(x, 1)
        z = torch.linalg.cholesky(x)
    assert "aten._linalg_check_errors.default" in seen    # NOTE [error checks are an op]
    assert out.strip() == f"{seen} {y.tolist()} {z.tolist()}"


def test_every_indexed_entry_is_declared_by_its_family():
    # The generated index against the families it names: loading every family leaves no entry
    # or frontend waiting (a stale index raises when the entry is first used; `tools/
    # gen_bindings.py --check` catches it in CI).
    out = _run(
        "import ember\n"
        "from ember._ops import load_families\n"
        "from ember._core.registry import OPS, FRONTENDS, _DeclaredOp, _Family, Frontend\n"
        "load_families()\n"
        "waiting = [n for n, op in OPS.items() if type(op) is _DeclaredOp\n"
        "           and type(op._build) is _Family]\n"
        "frontends = [n for n, fe in FRONTENDS.items() if type(fe) is not Frontend]\n"
        "print(len(OPS), waiting, frontends)\n")
    total, rest = out.split(" ", 1)
    assert int(total) > 700 and rest.strip() == "[] []"


def test_inplace_function_forms_of_lazy_methods():
    # `ember.fill_`, `ember.as_strided_` ...: the method itself, its family loaded on first use.
    out = _run(
        "import ember\n"
        "x = ember.zeros(3)\n"
        "ember.fill_(x, 2.0)\n"
        "y = ember.tensor([-1.5, 2.5])\n"
        "ember.abs_(y)\n"
        "print(x.tolist(), y.tolist(), ember.fill_ is ember.Tensor.fill_,\n"
        "      ember.as_strided_ is ember.Tensor.as_strided_)\n")
    import torch
    x, y = torch.zeros(3), torch.tensor([-1.5, 2.5])
    torch.fill_(x, 2.0)
    torch.abs_(y)
    assert out.strip() == f"{x.tolist()} {y.tolist()} True True"


def test_threads_load_one_family_together():
    # Two threads reach the same unloaded family at once: one imports it, the other waits for
    # the import (no lock held across it), and both results match PyTorch.
    out = _run(
        "import threading, ember\n"
        "x = ember.tensor([[4.0, 2.0], [2.0, 3.0]])\n"
        "results = {}\n"
        "barrier = threading.Barrier(4)\n"
        "def run(name, f):\n"
        "    barrier.wait()\n"
        "    results[name] = f().tolist()\n"
        "jobs = {'cholesky': lambda: ember.linalg.cholesky(x), 'qr': lambda: ember.linalg.qr(x).R,\n"
        "        'cumsum': lambda: x.cumsum(0), 'det': lambda: ember.linalg.det(x)}\n"
        "threads = [threading.Thread(target=run, args=item) for item in jobs.items()]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(sorted(results.items()))\n")
    import torch
    x = torch.tensor([[4.0, 2.0], [2.0, 3.0]])
    expected = {"cholesky": torch.linalg.cholesky(x).tolist(), "qr": torch.linalg.qr(x).R.tolist(),
                "cumsum": x.cumsum(0).tolist(), "det": torch.linalg.det(x).tolist()}
    got = dict(ast.literal_eval(out))       # (the list of pairs the child printed)
    assert got.keys() == expected.keys()
    for name, values in expected.items():
        np.testing.assert_allclose(got[name], values, rtol=1e-5, atol=1e-6, err_msg=name)


# What a program that does not call them must not load (issue 23): the library packages name
# op families, but each loads on first use (LazyModule, LazyAttribute, `__getattr__`), and the
# lazy placeholders of nn/parameter.py hook Tensor's methods without resolving them.
_LIBRARY_IMPORTS = ("import ember.nn", "import ember.optim", "import ember.nn.functional",
                    "import ember, ember.nn, ember.nn.functional, ember.optim, ember.utils.data")


def _families(modules):
    return sorted(m for m in modules if m.startswith(("ember._ops.", "ember._generated.")))


@pytest.mark.parametrize("statement", _LIBRARY_IMPORTS)
def test_libraries_load_no_op_family(after_import, statement):
    assert _families(_loaded_after(statement)) == _families(after_import)


def test_nn_families_load_on_first_use():
    # After `import ember.nn` (no op family loaded), the layers and functions that name a family
    # load it on first use and compute as PyTorch does.
    code = (
        "import sys, json\n"
        "import ember\n"
        "import ember.nn as nn, ember.nn.functional as F\n"
        "before = sorted(m for m in sys.modules if m.startswith('ember._ops.nn'))\n"
        "x = ember.arange(2 * 3 * 5 * 5, dtype=ember.float32).reshape(2, 3, 5, 5) / 50\n"
        "conv = nn.Conv2d(3, 4, 3, padding=1, padding_mode='circular')\n"
        "with ember.no_grad():\n"
        "    conv.weight.copy_(ember.linspace(-1, 1, 4 * 3 * 9).reshape(4, 3, 3, 3))\n"
        "    conv.bias.copy_(ember.tensor([0.1, -0.2, 0.3, 0.0]))\n"
        "y = conv(x)\n"
        "z = F.group_norm(F.dropout(y, 0.5, training=False), 2)\n"
        "e = F.embedding(ember.tensor([[0, 2], [1, 1]]), ember.arange(12.0).reshape(3, 4),\n"
        "                max_norm=5.0)\n"
        "r = nn.GRUCell(4, 2)\n"
        "with ember.no_grad():\n"
        "    for p in r.parameters():\n"
        "        p.copy_(ember.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))\n"
        "h = r(e[0])\n"
        "print(json.dumps([before, F.conv2d is ember.conv2d, y.tolist(), z.tolist(), e.tolist(),\n"
        "                  h.tolist()]))\n")
    before, same, y, z, e, h = json.loads(_run(code))
    import torch
    import torch.nn as tnn
    import torch.nn.functional as tF
    x = torch.arange(2 * 3 * 5 * 5, dtype=torch.float32).reshape(2, 3, 5, 5) / 50
    conv = tnn.Conv2d(3, 4, 3, padding=1, padding_mode="circular")
    with torch.no_grad():
        conv.weight.copy_(torch.linspace(-1, 1, 4 * 3 * 9).reshape(4, 3, 3, 3))
        conv.bias.copy_(torch.tensor([0.1, -0.2, 0.3, 0.0]))
    ty = conv(x)
    tz = tF.group_norm(tF.dropout(ty, 0.5, training=False), 2)
    te = tF.embedding(torch.tensor([[0, 2], [1, 1]]), torch.arange(12.0).reshape(3, 4),
                      max_norm=5.0)
    r = tnn.GRUCell(4, 2)
    with torch.no_grad():
        for p in r.parameters():
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
    th = r(te[0])
    assert before == [] and same
    for got, want in ((y, ty), (z, tz), (e, te), (h, th)):
        np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_subclass_defined_before_its_families_load():
    # Defining a subclass that overrides __torch_function__ resolves none of Tensor's lazily
    # loaded methods (NOTE [subclass methods reach __torch_function__]); its calls of them then
    # reach __torch_function__ under the names PyTorch gives.
    code = (
        "import sys, json, ember\n"
        "families = lambda: sorted(m for m in sys.modules if m.startswith('ember._ops.'))\n"
        "before = families()\n"
        "seen = []\n"
        "class Logged(ember.Tensor):\n"
        "    @classmethod\n"
        "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        "        seen.append(func.__name__)\n"
        "        return super().__torch_function__(func, types, args, kwargs or {})\n"
        "unchanged = families() == before\n"
        "x = ember.tensor([[1.0, 2.0], [3.0, 4.0]]).as_subclass(Logged)\n"
        "seen.clear()\n"
        "out = [x.cumsum(0).tolist(), (x / 2).tolist(), x.logaddexp(x).tolist(),\n"
        "       x.logdet().item(), type(x.diff()).__name__]\n"
        "print(json.dumps([unchanged, seen, out]))\n")
    unchanged, seen, out = json.loads(_run(code))
    import torch
    torch_seen = []

    class Logged(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            torch_seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).as_subclass(Logged)
    torch_seen.clear()
    want = [x.cumsum(0).tolist(), (x / 2).tolist(), x.logaddexp(x).tolist(),
            x.logdet().item(), type(x.diff()).__name__]
    assert unchanged
    assert seen == torch_seen
    assert out[:3] == want[:3] and out[4] == want[4]
    np.testing.assert_allclose(out[3], want[3], rtol=1e-6)


def test_kernel_registered_before_its_family_loads():
    # A kernel entered for an op whose family is not loaded yet (a plug-in's at `import ember`)
    # loads nothing; the entry built later runs it, over the family's own entry for that key.
    code = (
        "import sys, json, ember\n"
        "from ember._core.registry import OPS\n"
        "def negated(xp, self, dim, dtype=None):\n"
        "    return -xp.cumsum(self, axis=dim)\n"
        "OPS['cumsum'].register_kernel('cpu', negated)\n"
        "try:\n"
        "    OPS['cummax'].register_kernel(('no_such_layout', 'cpu', None), negated)\n"
        "    refused = None\n"
        "except ValueError as exc:\n"
        "    refused = str(exc)\n"
        "loaded = 'ember._ops.cumulative' in sys.modules\n"
        "x = ember.arange(6.0).reshape(2, 3)\n"
        "print(json.dumps([loaded, refused, ember.cumsum(x, 1).tolist()]))\n")
    loaded, refused, got = json.loads(_run(code))
    import torch
    assert not loaded
    assert refused is not None and "unknown layout" in refused    # (checked at once)
    assert got == (-torch.arange(6.0).reshape(2, 3).cumsum(1)).tolist()
