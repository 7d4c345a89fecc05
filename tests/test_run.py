"""`python -m ember.run script.py` runs unchanged PyTorch scripts on ember."""
import pathlib
import subprocess
import sys

SCRIPTS = pathlib.Path(__file__).parent / "scripts"


def _run(*args):
    return subprocess.run([sys.executable, "-m", "ember.run", *map(str, args)],
                          capture_output=True, text=True)


def _run_torch(*args):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True)


def test_tensor_script_matches_pytorch():
    ours = _run(SCRIPTS / "tensors_basics.py", "a", "b")
    theirs = _run_torch(SCRIPTS / "tensors_basics.py", "a", "b")
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.replace("ember.", "torch.") == theirs.stdout


def test_autograd_script_matches_pytorch():
    ours = _run(SCRIPTS / "autograd_basics.py")
    theirs = _run_torch(SCRIPTS / "autograd_basics.py")
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout


def test_missing_module_is_a_clear_import_error():
    done = _run(SCRIPTS / "missing_module.py")
    assert done.returncode != 0
    assert "ModuleNotFoundError" in done.stderr and "torch.definitely_missing" in done.stderr


def test_torch_resolves_to_ember_in_process():
    code = ("import ember.utils; ember.utils.alias_torch(); import torch, ember; "
            "import torch.autograd as ag; print(torch is ember, ag is ember.autograd)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "True True", done.stderr


def test_usage_without_arguments():
    done = _run()
    assert done.returncode == 2 and "usage" in done.stderr
