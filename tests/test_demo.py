"""The README's main job, `python -m ember.demo`, runs from a fresh process on its short
setting, trains, reports a test accuracy and saves a checkpoint that real PyTorch loads into
the same model."""
import re
import subprocess
import sys

import torch


def test_demo_trains_and_saves_a_checkpoint_pytorch_loads(tmp_path):
    done = subprocess.run([sys.executable, "-m", "ember.demo", "--short", "--out",
                           str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    accuracy = re.search(r"final test accuracy ([\d.]+)%", done.stdout)
    assert accuracy, done.stdout
    assert 0.0 <= float(accuracy.group(1)) <= 100.0
    checkpoint = torch.load(tmp_path / "digits_cnn.pt")
    from ember.demo import build_model
    model = build_model(torch.nn)
    assert model.load_state_dict(checkpoint["model"]) is not None
    optimizer = torch.optim.AdamW(model.parameters())
    optimizer.load_state_dict(checkpoint["optimizer"])
    assert checkpoint["epochs"] == 1
    assert abs(checkpoint["test_accuracy"] * 100 - float(accuracy.group(1))) < 0.06
