"""Libraries written for PyTorch run unchanged on ember (`python -m ember.run`).

Each script in scripts/ is the typical use of one popular PyPI library built on PyTorch. It runs
twice in fresh processes, first on real PyTorch and then under `python -m ember.run`, with the
same scratch folder as its argument, and both must print the same (shapes, dtypes and values
rounded; ember's reprs say "ember." where PyTorch's say "torch."). A rounded number may differ
by one unit in its last printed digit: PyTorch's kernels differ in their last bits by CPU
capability, and a value near a rounding boundary then prints either way. Where a script saves weights
(`_show.saved_by_torch`, a safetensors file, a `save_pretrained` folder), PyTorch's run writes
them and ember's run loads PyTorch's file through the library.

The libraries are pinned in pyproject.toml's `test` extra (those that would pull another torch
or torchvision are installed with --no-deps by the Makefile's test-deps step); a library that
is not installed skips its test, saying which.
"""
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

SCRIPTS = pathlib.Path(__file__).parent / "scripts"
slow = pytest.mark.slow

# (script, the module it imports, the PyPI distribution, marks)
CLIENTS = [
    ("lib_einops.py", "einops", "einops", ()),
    ("lib_opt_einsum.py", "opt_einsum", "opt_einsum", ()),
    ("lib_einx.py", "einx", "einx", ()),
    ("lib_torchmetrics.py", "torchmetrics", "torchmetrics", (slow,)),
    ("lib_torchinfo.py", "torchinfo", "torchinfo", ()),
    ("lib_torchsummary.py", "torchsummary", "torchsummary", ()),
    ("lib_thop.py", "thop", "ultralytics-thop", ()),
    ("lib_torch_optimizer.py", "torch_optimizer", "torch-optimizer", ()),
    ("lib_lion_pytorch.py", "lion_pytorch", "lion-pytorch", ()),
    ("lib_adam_atan2.py", "adam_atan2_pytorch", "adam-atan2-pytorch", ()),
    ("lib_schedulefree.py", "schedulefree", "schedulefree", ()),
    ("lib_torch_ema.py", "torch_ema", "torch-ema", ()),
    ("lib_ema_pytorch.py", "ema_pytorch", "ema-pytorch", ()),
    ("lib_torchdiffeq.py", "torchdiffeq", "torchdiffeq", (slow,)),
    ("lib_torchsde.py", "torchsde", "torchsde", ()),
    ("lib_kornia.py", "kornia", "kornia", (slow,)),
    ("lib_pytorch_msssim.py", "pytorch_msssim", "pytorch-msssim", ()),
    ("lib_roma.py", "roma", "roma", ()),
    ("lib_julius.py", "julius", "julius", ()),
    ("lib_efficientnet_pytorch.py", "efficientnet_pytorch", "efficientnet-pytorch", (slow,)),
    ("lib_x_transformers.py", "x_transformers", "x-transformers", (slow,)),
    ("lib_vector_quantize.py", "vector_quantize_pytorch", "vector-quantize-pytorch", (slow,)),
    ("lib_rotary_embedding.py", "rotary_embedding_torch", "rotary-embedding-torch", ()),
    ("lib_positional_encodings.py", "positional_encodings", "positional-encodings", ()),
    ("lib_entmax.py", "entmax", "entmax", ()),
    ("lib_loralib.py", "loralib", "loralib", ()),
    ("lib_pytorch_metric_learning.py", "pytorch_metric_learning", "pytorch-metric-learning",
     (slow,)),
    ("lib_jaxtyping.py", "jaxtyping", "jaxtyping", ()),
    ("lib_safetensors.py", "safetensors", "safetensors", ()),
    ("lib_huggingface_hub.py", "huggingface_hub", "huggingface_hub", (slow,)),
    ("lib_tqdm.py", "tqdm", "tqdm", ()),
    ("lib_ignite.py", "ignite", "pytorch-ignite", (slow,)),
]


_NUMBER = re.compile(r"-?\d+\.(\d+)")


def _same_output(ours: str, theirs: str) -> bool:
    """The same text, and numbers with the same printed digits up to one unit in the last."""
    if _NUMBER.split(ours)[::2] != _NUMBER.split(theirs)[::2]:
        return False                # (the same text between them: as many numbers too)
    return all(len(a.group(1)) == len(b.group(1)) and
               abs(float(a.group(0)) - float(b.group(0))) <= 1.01 * 10.0 ** -len(b.group(1))
               for a, b in zip(_NUMBER.finditer(ours), _NUMBER.finditer(theirs)))


def test_one_unit_in_the_last_digit_is_the_only_slack():
    assert _same_output("loss 188.0105 [1.5000]", "loss 188.0104 [1.5000]")
    assert not _same_output("loss 188.0106 [1.5000]", "loss 188.0104 [1.5000]")
    assert not _same_output("loss 188.010 [1.5000]", "loss 188.0104 [1.5000]")
    assert not _same_output("cost 188.0104 [1.5000]", "loss 188.0104 [1.5000]")
    assert not _same_output("loss 188.0104 [1.5000, 2.0]", "loss 188.0104 [1.5000]")


def _python(*args, **env):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          check=False, env={**os.environ, **env}, timeout=300)


@pytest.mark.parametrize("script,module,distribution", [
    pytest.param(script, module, dist, marks=marks, id=dist)
    for script, module, dist, marks in CLIENTS])
def test_library_runs_unchanged(script, module, distribution, tmp_path):
    pytest.importorskip("torch")
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{distribution} is not installed (pinned in pyproject.toml's test extra)")
    # PyTorch first: it writes the weights that ember's run then loads. One OpenMP thread for
    # the oracle, as in tests/test_run.py.
    theirs = _python(SCRIPTS / script, tmp_path, OMP_NUM_THREADS="1")
    assert theirs.returncode == 0, theirs.stderr
    ours = _python("-m", "ember.run", SCRIPTS / script, tmp_path)
    assert ours.returncode == 0, ours.stderr
    ours = ours.stdout.replace("ember.", "torch.")
    if not _same_output(ours, theirs.stdout):
        assert ours == theirs.stdout
    assert theirs.stdout.strip()


def test_every_script_is_listed():
    listed = {script for script, *_ in CLIENTS}
    assert listed == {p.name for p in SCRIPTS.glob("lib_*.py")}
