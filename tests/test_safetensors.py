"""safetensors both ways: ember.safetensors files read by safetensors.torch (real PyTorch) and
the other way; safetensors.torch itself running on ember under `python -m ember.run`."""
import subprocess
import sys

import numpy as np
import pytest
import safetensors.torch as st
import torch

import ember
import ember.safetensors as es

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool", "complex64"]


def _tensors(lib):
    out = {}
    for i, name in enumerate(DTYPES):
        values = np.arange(6).reshape(2, 3) % (2 if name == "bool" else 5)
        t = lib.tensor(values.astype(np.float32))
        out[name] = t.to(getattr(lib, name))
    out["empty"] = lib.zeros(0, 4)
    out["transposed"] = lib.arange(6.0).view(2, 3).t()
    return out


def _same(ours, theirs):
    assert list(ours) == list(theirs) or sorted(ours) == sorted(theirs)
    for key in theirs:
        a, b = ours[key], theirs[key]
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(_values(a), _values(b))


def _values(t):
    return t.float().numpy() if str(t.dtype).endswith("bfloat16") else t.numpy()


def test_ember_files_load_in_pytorch_and_back(tmp_path):
    path = tmp_path / "w.safetensors"
    es.save_file(_tensors(ember), path, metadata={"format": "pt"})
    theirs = st.load_file(path)
    _same(theirs, _tensors(torch))
    path2 = tmp_path / "t.safetensors"
    st.save_file({k: v.contiguous() for k, v in _tensors(torch).items()}, path2)
    _same(es.load_file(path2), _tensors(ember))
    assert es.load(es.save(_tensors(ember))).keys() == _tensors(ember).keys()


def test_safetensors_torch_runs_on_ember_under_ember_run(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(
        "import torch\nfrom safetensors.torch import save_file, load_file\n"
        f"save_file({{'a': torch.arange(6.0).view(2, 3), 'b': torch.ones(2, dtype=torch.bfloat16)}},"
        f" {str(tmp_path / 'x.safetensors')!r})\n"
        f"back = load_file({str(tmp_path / 'x.safetensors')!r})\n"
        "print(type(back['a']).__name__, back['a'].tolist(), back['b'].dtype)\n"
        "import ember\n"
        "print(type(back['a']) is ember.Tensor, type(back['a']).__module__)\n")
    done = subprocess.run([sys.executable, "-m", "ember.run", str(script)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # Under the alias ember's Tensor presents PyTorch's module path (NOTE [the alias answers
    # as PyTorch]); safetensors then takes PyTorch 2's path (UntypedStorage.from_file).
    assert done.stdout.split() == ["Tensor", "[[0.0,", "1.0,", "2.0],", "[3.0,", "4.0,",
                                   "5.0]]", "ember.bfloat16", "True", "torch"]


def test_bad_input_raises_as_safetensors_torch():
    with pytest.raises(ValueError, match="expected torch.Tensor"):
        es.save({"a": 1})
    with pytest.raises(ValueError, match="Expected a dict"):
        es.save([ember.ones(1)])


def test_save_model_and_load_model_dedupe_shared_tensors(tmp_path):
    class Tied(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = ember.nn.Parameter(ember.arange(4.0))
            self.b = self.a

    model = Tied()
    path = tmp_path / "m.safetensors"
    es.save_model(model, path)
    assert list(st.load_file(path)) == ["a"]
    fresh = Tied()
    with ember.no_grad():
        fresh.a.zero_()
    assert es.load_model(fresh, path) == ([], [])
    assert fresh.b.tolist() == [0.0, 1.0, 2.0, 3.0]
