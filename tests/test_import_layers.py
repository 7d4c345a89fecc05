"""The import contracts in pyproject.toml ([tool.importlinter]): ember's layers import downward
only (NOTE [upcalls] in src/ember/_core/upcalls.py says how an op reaches a layer above it),
and ember never imports torch. Run by import-linter's `lint-imports`, which reads every import
statement, function-level ones included."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
LINT_IMPORTS = pathlib.Path(sys.executable).with_name("lint-imports")


def _lint(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_imports_point_downward():
    done = _lint()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Imports point downward KEPT" in done.stdout
    assert "ember never imports torch" in done.stdout and "BROKEN" not in done.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    # The same checker on the real tree with the core put above the op families: every
    # registration (`_ops` -> `_core.registry`) is then an upward import and must be reported.
    config = tmp_path / "inverted.toml"
    config.write_text(
        '[tool.importlinter]\nroot_package = "ember"\n\n'
        '[[tool.importlinter.contracts]]\nname = "inverted"\ntype = "layers"\n'
        'containers = ["ember"]\nlayers = ["_core", "_ops"]\n')
    done = _lint("--config", str(config))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "inverted BROKEN" in done.stdout
    assert "ember._ops is not allowed to import ember._core" in done.stdout
    assert "ember._core.registry" in done.stdout
