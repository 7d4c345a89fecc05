"""Out-of-tree back-ends: the test plug-in `ember_npdev` (tests/plugins/) is autoloaded at
import through the `ember.backends` entry point; each check runs in a fresh interpreter."""
import os
import subprocess
import sys

import pytest


def _run(code, **env):
    full_env = {**os.environ, **env}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          env=full_env)


def _plugin_installed():
    done = _run("import ember_npdev")
    return done.returncode == 0


pytestmark = pytest.mark.skipif(not _plugin_installed(),
                                reason="the test plug-in ember_npdev is not installed")


def test_plugin_device_is_autoloaded_and_runs_its_kernels():
    code = """
import ember
x = ember.tensor([1.0, 2.0, 3.0]).to("npdev")
assert x.device.type == "npdev" and str(x.device) == "npdev", x.device
assert x.is_npdev
y = (x + x) * x
s = y.sum()
assert s.device == ember.device("npdev")
assert s.cpu().item() == 2 * (1 + 4 + 9), s.cpu().item()
calls = ember.npdev.CALLS
assert calls["add"] == 1 and calls["mul"] == 1 and calls["sum"] == 1, calls
z = ember.ones(2).npdev()
assert z.device.type == "npdev"
assert ember.get_device_module("npdev") is ember.npdev
import ember.npdev as m
assert m is ember.npdev
print("ok")
"""
    done = _run(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_autoload_can_be_turned_off():
    code = "import ember; print(hasattr(ember, 'npdev'))"
    done = _run(code, EMBER_DEVICE_BACKEND_AUTOLOAD="0")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_failing_plugin_names_itself_and_the_variable():
    done = _run("import ember", EMBER_NPDEV_FAIL="1")
    assert done.returncode != 0
    assert "npdev_failing" in done.stderr
    assert "EMBER_DEVICE_BACKEND_AUTOLOAD=0" in done.stderr


def test_device_module_registers_once():
    code = """
import types, ember
try:
    ember._register_device_module("npdev", types.ModuleType("again"))
except RuntimeError as exc:
    print("refused:", "already been registered" in str(exc))
"""
    done = _run(code)
    assert done.stdout.strip() == "refused: True", done.stdout + done.stderr


def test_plugin_is_the_accelerator_and_shows_in_config():
    code = """
import ember
print(ember.accelerator.current_accelerator(), ember.accelerator.device_count(),
      ember.get_device_module() is ember.npdev, "npdev (plug-in)" in ember.__config__.show())
"""
    done = _run(code)
    assert done.stdout.strip() == "npdev 1 True True", done.stderr


def test_opted_out_device_type_is_unknown():
    done = _run("import ember\ntry:\n    ember.device('npdev')\nexcept RuntimeError as e:\n"
                "    print('npdev' in str(e))", EMBER_DEVICE_BACKEND_AUTOLOAD="0")
    assert done.stdout.strip() == "True", done.stderr


def test_ops_without_a_plugin_kernel_run_the_shared_kernel_on_the_device():
    code = """
import ember
x = ember.tensor([[1.0, -2.0], [3.0, 4.0]], device="npdev")
y = x.abs().t() @ x
assert y.device.type == "npdev", y.device
print(y.cpu().tolist(), ember.npdev.CALLS["add"])
"""
    done = _run(code)
    assert done.stdout.strip() == "[[10.0, 10.0], [14.0, 12.0]] 0", done.stderr


def test_privateuse1_is_renamed_once():
    code = """
from ember.utils import backend_registration as r
print(r._get_privateuse1_backend_name())
r.rename_privateuse1_backend("npdev")          # same name again: fine
try:
    r.rename_privateuse1_backend("other")
except RuntimeError as exc:
    print("refused", "npdev" in str(exc))
"""
    done = _run(code)
    assert done.stdout.split() == ["npdev", "refused", "True"], done.stderr
