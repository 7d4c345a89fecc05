"""The front door, tested from outside as a user would: lazy submodules, the error taxonomy,
switches and their getters, defaults, device modules. Import-sensitive checks run in a fresh
interpreter."""
import subprocess
import sys
import threading

import pytest

import ember


def _fresh(code):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
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
    (lambda m: m.zeros(-1), "-1"),
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
    assert all("nondeterministic" in op.tags for op in tagged)


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
