"""The front door, tested from outside as a user would: lazy submodules, the error taxonomy,
switches and their getters, defaults, device modules. Import-sensitive checks run in a fresh
interpreter."""
import os
import pathlib
import subprocess
import sys
import threading

import pytest

import ember

SCRIPTS = pathlib.Path(__file__).parent / "scripts"


def _fresh(code, **env):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          env={**os.environ, **env})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


def test_heavy_submodules_load_lazily():
    out = _fresh("import sys, ember; print(sorted(m for m in ('ember.cuda', 'ember.accelerator',"
                 " 'ember._sym', 'sympy', 'scipy') if m in sys.modules))")
    assert out == "[]"


def test_lazy_names_work_both_ways():
    out = _fresh("import ember; from ember import cuda, finfo, SymInt; import ember.cuda as c; "
                 "print(c is ember.cuda, 'cuda' in dir(ember), 'manual_seed' in dir(ember))")
    assert out == "True True True"


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'definitely_not_here'"):
        ember.definitely_not_here  # noqa: B018


@pytest.mark.parametrize("check,error", [
    (ember._check, RuntimeError), (ember._check_index, IndexError),
    (ember._check_value, ValueError), (ember._check_type, TypeError),
    (ember._check_not_implemented, NotImplementedError),
])
def test_check_helpers_raise_their_class_with_lazy_message(check, error):
    calls = []

    def message():
        calls.append(1)
        return "argument 'x' is bad"
    check(True, message)
    assert calls == []                      # built only on failure
    with pytest.raises(error, match="argument 'x' is bad"):
        check(False, message)
    with pytest.raises(KeyError):
        ember._check_with(KeyError, False, message)


torch = pytest.importorskip("torch")

# Bad calls: (ember call, torch call, a word the message must contain). Each must raise the
# same class as PyTorch does, and name the offending argument or values.
BAD_CALLS = [
    (lambda m: m.zeros(2, 3).sum(dim=5), "5"),
    (lambda m: m.zeros(2, 3).view(4, 2), "[4, 2]"),
    (lambda m: m.zeros(2) + m.zeros(3), "size of tensor"),
    (lambda m: m.zeros(2, 3) @ m.zeros(2, 3), "2x3"),
    (lambda m: m.device("nope"), "nope"),
    (lambda m: m.zeros(2).size(3), "3"),
    (lambda m: m.tensor([[1, 2], [3]]), "length"),
    (lambda m: m.zeros(2, dtype=m.int64).requires_grad_(), "floating point"),
    (lambda m: m.zeros(2, 2).item(), "4 elements"),
    (lambda m: m.zeros(2).mean(dtype=m.int64), "mean"),
    (lambda m: m.promote_types(m.uint16, m.int8), "uint16"),
    (lambda m: len(m.tensor(1.0)), "0-d"),
    (lambda m: m.ones(-1), "-1"),
]


@pytest.mark.parametrize("call,word", BAD_CALLS)
def test_bad_calls_raise_pytorchs_class_and_name_the_argument(call, word):
    with pytest.raises(Exception) as torch_error:
        call(torch)
    with pytest.raises(Exception) as ember_error:
        call(ember)
    assert isinstance(ember_error.value, torch_error.type), (
        f"ember raised {ember_error.type.__name__}, torch {torch_error.type.__name__}")
    assert word in str(ember_error.value)


def test_deterministic_switch_and_getters():
    try:
        ember.use_deterministic_algorithms(True)
        assert ember.are_deterministic_algorithms_enabled()
        assert not ember.is_deterministic_algorithms_warn_only_enabled()
        assert ember.get_deterministic_debug_mode() == 2
        ember.set_deterministic_debug_mode("warn")
        assert ember.is_deterministic_algorithms_warn_only_enabled()
        assert ember.get_deterministic_debug_mode() == 1
        ember.set_deterministic_debug_mode(0)
        assert not ember.are_deterministic_algorithms_enabled()
        with pytest.raises(RuntimeError, match="debug_mode"):
            ember.set_deterministic_debug_mode("loud")
        with pytest.raises(TypeError):
            ember.use_deterministic_algorithms(1)
    finally:
        ember.use_deterministic_algorithms(False)


def test_deterministic_switch_raises_on_nondeterministic_ops():
    from ember._core.registry import OPS
    tagged = [op for op in OPS.values() if "nondeterministic" in op.tags]
    op = OPS["add.Tensor"]
    original = op.tags
    try:
        op.tags = original | {"nondeterministic"}
        ember.use_deterministic_algorithms(True)
        with pytest.raises(RuntimeError, match="deterministic"):
            ember.ones(2) + ember.ones(2)
        ember.use_deterministic_algorithms(True, warn_only=True)
        with pytest.warns(UserWarning, match="deterministic"):
            ember.ones(2) + ember.ones(2)
    finally:
        op.tags = original
        ember.use_deterministic_algorithms(False)
    # No CPU kernel is tagged today (put_ without accumulate, whose nondeterminism depends on
    # an argument, calls the alert itself: see tests/scripts/deterministic.py).
    assert all(op.schema.name for op in tagged)


def test_matmul_precision_is_validated():
    assert ember.get_float32_matmul_precision() == "highest"
    try:
        ember.set_float32_matmul_precision("high")
        assert ember.get_float32_matmul_precision() == "high"
        with pytest.raises(ValueError, match="fastest"):
            ember.set_float32_matmul_precision("fastest")
    finally:
        ember.set_float32_matmul_precision("highest")


def test_warn_always_and_threads():
    ember.set_warn_always(True)
    assert ember.is_warn_always_enabled()
    ember.set_warn_always(False)
    assert not ember.is_warn_always_enabled()
    before = ember.get_num_threads()
    ember.set_num_threads(1)
    assert ember.get_num_threads() == 1
    ember.set_num_threads(before)
    with pytest.raises(RuntimeError):
        ember.set_num_threads(0)


def test_default_dtype_is_observable():
    assert ember.get_default_dtype() is ember.float32
    ember.set_default_dtype(ember.float64)
    assert ember.tensor([1.0]).dtype is ember.float64
    assert (ember.tensor([1]) / 2).dtype is ember.float64
    assert ember.get_defaults().dtype is ember.float64
    ember.set_default_dtype(ember.float32)
    with pytest.raises(TypeError):
        ember.set_default_dtype(ember.int32)


def test_device_context_is_thread_local():
    seen = {}

    def other_thread():
        seen["device"] = ember.zeros(1).device

    with ember.device("meta"):
        assert ember.zeros(1).device.type == "meta"
        assert ember.get_defaults().device.type == "meta"
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
    assert seen["device"].type == "cpu"
    assert ember.zeros(1).device.type == "cpu"


def test_defaults_snapshot_is_read_only():
    snapshot = ember.get_defaults()
    with pytest.raises(AttributeError):
        snapshot.dtype = ember.float64


def test_set_default_device_warns_once():
    out = _fresh("import warnings, ember\n"
                 "with warnings.catch_warnings(record=True) as w:\n"
                 "    warnings.simplefilter('always')\n"
                 "    ember.set_default_device('meta'); a = ember.zeros(1).device.type\n"
                 "    ember.set_default_device('cpu'); b = ember.zeros(1).device.type\n"
                 "print(a, b, len(w))")
    assert out == "meta cpu 1"


def test_device_modules():
    assert ember.cuda.is_available() in (True, False)
    if not ember.cuda.is_available():
        assert ember.cuda.device_count() == 0
        assert ember.accelerator.device_count() in (0, 1)
    assert ember.get_device_module("cpu") is ember.cpu
    assert ember.cpu.is_available() and ember.cpu.device_count() == 1
    assert "ember" in ember.__config__.show()
    assert ember.version.__version__ == ember.__version__


# --------------------------------------------------------------------------- fresh processes
# Each script in tests/scripts/ runs on real PyTorch and under `python -m ember.run`; what they
# print (results, error classes, whether a message names the argument) must agree.

def _script_output(*command, **env):
    done = subprocess.run([sys.executable, *map(str, command)], capture_output=True, text=True, check=False,
                          env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    return done.stdout.replace("ember.", "torch.")


@pytest.mark.parametrize("script", [
    "bad_calls.py", "switches.py", "deterministic.py", "deprecated_names.py",
    "device_modules.py",
])
def test_front_door_script_matches_pytorch(script):
    # The test plug-in would be an accelerator; a CPU-only PyTorch has none.
    ours = _script_output("-m", "ember.run", SCRIPTS / script, EMBER_DEVICE_BACKEND_AUTOLOAD="0")
    theirs = _script_output(SCRIPTS / script)
    assert ours == theirs


def test_every_bad_call_names_its_argument():
    out = _script_output("-m", "ember.run", SCRIPTS / "bad_calls.py")
    lines = out.strip().splitlines()
    assert len(lines) > 30
    assert all(line.endswith("names it: True") for line in lines if "no error" not in line), out


def test_all_is_curated_and_star_import_stays_cheap():
    out = _fresh(
        "import sys, types, ember\n"
        "names = ember.__all__\n"
        "assert len(names) == len(set(names)) and names == sorted(names)\n"
        "assert not [n for n in names if n.startswith('_')]\n"
        "ns = {}\n"
        "exec('from ember import *', ns)\n"
        "assert not [n for n in names if isinstance(ns[n], types.ModuleType)]\n"
        "heavy = [m for m in ('sympy', 'scipy', 'ember.cuda', 'threadpoolctl') if m in sys.modules]\n"
        "print(heavy, all(n in ns for n in ('Tensor', 'float32', 'no_grad', 'SymInt',\n"
        "     'manual_seed', 'use_deterministic_algorithms', 'FloatTensor', 'get_defaults')))")
    assert out == "[] True"


def test_all_names_that_pytorch_also_exports_are_the_same_kind():
    common = sorted(set(ember.__all__) & set(torch.__all__))
    assert len(common) > 300
    for name in common:
        ours, theirs = getattr(ember, name), getattr(torch, name)
        assert callable(ours) == callable(theirs), name


def test_unimplemented_submodule_is_an_attribute_error():
    if "nn" in dir(ember):
        pytest.skip("ember.nn exists now")
    assert not hasattr(ember, "nn")
    with pytest.raises(AttributeError, match="ember.nn"):
        ember.nn  # noqa: B018
    assert {"cuda", "cpu", "accelerator", "utils", "autograd"} <= set(dir(ember))


def test_import_starts_no_process_and_no_network():
    out = _fresh(
        "import sys\n"
        "events = []\n"
        "def hook(event, args):\n"
        "    if event.startswith(('subprocess', 'socket', 'os.system', 'os.exec', 'os.fork',\n"
        "                         'os.posix_spawn', 'urllib')):\n"
        "        events.append(event)\n"
        "sys.addaudithook(hook)\n"
        "import ember\n"
        "print(events)")
    assert out == "[]"


def test_set_num_threads_limits_the_blas():
    pytest.importorskip("threadpoolctl")
    out = _fresh(
        "import ember, threadpoolctl\n"
        "def pools(): return sorted({p['num_threads'] for p in threadpoolctl.threadpool_info()})\n"
        "ember.set_num_threads(1); one = pools()\n"
        "ember.set_num_threads(2); two = pools()\n"
        "print(one, ember.get_num_threads(), ember.get_defaults().num_threads, two)",
        OMP_NUM_THREADS="2")
    one, threads, snapshot, two = out.split(" ", 3)
    assert one == "[1]" and threads == "2" and snapshot == "2"
    assert two in ("[2]", "[1, 2]", "[1]"), two      # a BLAS built for one thread stays at one


def test_warn_always_makes_once_only_warnings_repeat():
    out = _fresh(
        "import warnings, ember\n"
        "def count():\n"
        "    with warnings.catch_warnings(record=True) as w:\n"
        "        warnings.simplefilter('always')\n"
        "        ember.set_default_device('cpu')\n"
        "    return len(w)\n"
        "first, second = count(), count()\n"
        "ember.set_warn_always(True)\n"
        "third, fourth = count(), count()\n"
        "ember.set_warn_always(False)\n"
        "print(first, second, third, fourth, count())")
    assert out == "1 0 1 1 0"


def test_warnings_point_at_the_callers_line():
    out = _fresh(
        "import warnings, ember\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    ember.set_default_device('cpu')\n"
        "print(w[0].filename, w[0].lineno)")
    assert out == "<string> 4"


def test_empty_is_filled_under_deterministic_mode():
    out = _fresh(
        "import ember\n"
        "ember.use_deterministic_algorithms(True)\n"
        "print(ember.empty(3).isnan().all().item(), ember.empty_like(ember.zeros(2)).isnan().all()"
        ".item(), ember.empty(2, dtype=ember.int64).tolist())")
    assert out == f"True True {[2 ** 63 - 1] * 2}"


def test_config_names_versions_and_backends():
    import numpy
    out = _fresh("import ember; print(ember.__config__.show())", EMBER_DEVICE_BACKEND_AUTOLOAD="0")
    assert f"ember {ember.__version__}" in out and f"NumPy {numpy.__version__}" in out
    assert "BLAS" in out and "cpu (NumPy)" in out
    assert ember.version.cuda is None and ember.version.hip is None


def test_snapshot_follows_the_switches():
    try:
        ember.use_deterministic_algorithms(True, warn_only=True)
        ember.set_float32_matmul_precision("medium")
        snapshot = ember.get_defaults()
        assert snapshot.deterministic_algorithms and snapshot.deterministic_warn_only
        assert snapshot.float32_matmul_precision == "medium"
        with ember.no_grad():
            assert not ember.get_defaults().grad_enabled
    finally:
        ember.use_deterministic_algorithms(False)
        ember.set_float32_matmul_precision("highest")
    assert not ember.get_defaults().deterministic_algorithms
