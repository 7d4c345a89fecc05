"""ember never imports torch: the oracle stays in the tests."""
import subprocess
import sys


def test_import_ember_does_not_import_torch():
    code = ("import sys, ember; ember.ones(2) + 1; "
            "bad = sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')); "
            "print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_import_ember_loads_no_optional_dependency():
    code = ("import sys, ember; "
            "heavy = [m for m in ('scipy', 'sympy', 'cupy', 'mpi4py', 'triton') if m in sys.modules]; "
            "print(heavy); sys.exit(1 if heavy else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
