"""An unchanged PyTorch program using torch.distributions prints the same under
`python -m ember.run` as under PyTorch."""
import os
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).parent / "scripts" / "fit_and_sample.py"


def _python(*args):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          check=False, env=dict(os.environ))


def test_distributions_script_prints_what_pytorch_prints():
    ours = _python("-m", "ember.run", SCRIPT)
    theirs = _python(SCRIPT)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.replace("ember.", "torch.") == theirs.stdout
    assert "policy gradient" in ours.stdout
