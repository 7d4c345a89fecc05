"""What the libraries of tests/clients needed from ember, each checked against PyTorch: the old
(alpha, other) order of add, `torch.torch`, fx's get_proxy_mode, the padding layers' private
bases, `hub` with `utils.model_zoo`, and distributed.nn's differentiable collectives."""
import hashlib
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import ember

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _both(code, tmp_path, *args):
    """`code` as a script run by PyTorch and under ember.run; both outputs."""
    script = tmp_path / "script.py"
    script.write_text(code)
    outs = []
    for prefix in ([], ["-m", "ember.run"]):
        done = subprocess.run([sys.executable, *prefix, str(script), *map(str, args)],
                              capture_output=True, text=True, timeout=240, check=False)
        assert done.returncode == 0, done.stderr
        outs.append(done.stdout.replace("ember.", "torch."))
    return outs


@pytest.mark.parametrize("call", [
    lambda L, a, b: L.add(a, 2, b),
    lambda L, a, b: a.add(0.5, b),
    lambda L, a, b: a.clone().add_(-3, b),
    lambda L, a, b: a.add(b, alpha=2),
    lambda L, a, b: a.add(other=b),
    lambda L, a, b: L.add(input=a, other=b, alpha=3),
])
def test_add_takes_the_old_alpha_first_order(call):
    values = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    results = []
    for lib in (torch, ember):
        with warnings.catch_warnings():
            # (the old orders warn that they are deprecated; PyTorch once per process)
            warnings.simplefilter("ignore")
            results.append(call(lib, lib.tensor(values), lib.tensor(values[::-1].copy())).numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)


def test_add_with_both_orders_at_once_is_a_type_error():
    for lib in (torch, ember):
        a = lib.ones(2)
        with pytest.raises(TypeError):
            a.add(2, a, alpha=3)


def test_torch_torch_is_the_module_under_the_alias(tmp_path):
    code = "import torch\nprint(torch.torch is torch, torch.torch.Tensor is torch.Tensor)\n"
    ours, theirs = _both(code, tmp_path)[::-1]
    assert ours == theirs == "True True\n"
    # (in a fresh process: alias_torch() here would drop the loaded PyTorch from sys.modules)
    code = ("import ember, ember.utils as u; u.alias_torch(); a = ember.torch is ember; "
            "u.unalias_torch(); print(a, hasattr(ember, 'torch'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.stdout == "True False\n", done.stderr


def _records_proxy_mode(proxy, inside):
    def f(x):
        inside.append(proxy.get_proxy_mode() is not None)
        return x * 2
    return f


def test_get_proxy_mode_is_set_only_while_make_fx_traces():
    seen = {}
    for lib in (torch, ember):
        from importlib import import_module
        proxy = import_module(f"{lib.__name__}.fx.experimental.proxy_tensor")
        inside = []
        proxy.make_fx(_records_proxy_mode(proxy, inside))(lib.ones(2))
        seen[lib.__name__] = (proxy.get_proxy_mode() is None, inside)
    assert seen["ember"] == seen["torch"] == (True, [True])


def test_padding_layers_have_pytorchs_private_bases():
    from torch.nn.modules import padding as theirs

    from ember.nn.modules import padding as ours
    bases = ("_ConstantPadNd", "_ReflectionPadNd", "_ReplicationPadNd", "_CircularPadNd")
    for name in theirs.__all__:
        for base in bases:
            assert issubclass(getattr(ours, name), getattr(ours, base)) == \
                issubclass(getattr(theirs, name), getattr(theirs, base)), (name, base)


def test_hub_cache_folder_follows_torch_home(tmp_path, monkeypatch):
    import torch.hub as their_hub

    import ember.hub as our_hub
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    assert our_hub.get_dir() == their_hub.get_dir() == str(tmp_path / "home" / "hub")
    assert our_hub.HASH_REGEX.pattern == their_hub.HASH_REGEX.pattern
    assert ember.utils.model_zoo.load_url is our_hub.load_state_dict_from_url


def test_hub_checkpoint_from_a_url_saved_by_pytorch(tmp_path):
    weights = {"w": torch.arange(6.0).reshape(2, 3), "b": torch.ones(2, dtype=torch.float64)}
    source = tmp_path / "source.pt"
    torch.save(weights, source)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    named = tmp_path / f"net-{digest[:8]}.pt"
    named.write_bytes(source.read_bytes())
    code = (
        "import sys, torch, torch.hub as hub\n"
        "from torch.utils import model_zoo\n"
        "url, folder = sys.argv[1], sys.argv[2] + '/' + torch.__name__\n"
        "hub.set_dir(folder)\n"
        "sd = hub.load_state_dict_from_url(url, check_hash=True)\n"
        "print({k: (v.dtype, v.tolist()) for k, v in sd.items()}, hub.get_dir() == folder)\n"
        "print(sorted(__import__('os').listdir(folder + '/checkpoints')))\n"
        "print(model_zoo.load_url(url, model_dir=folder + '/zoo')['w'].sum().item())\n"
        "try:\n"
        "    hub.download_url_to_file(url, folder + '/bad.pt', hash_prefix='0000')\n"
        "except RuntimeError as e:\n"
        "    print('RuntimeError', str(e).split('(')[0])\n")
    # (each run its own cache folder, so that both download)
    theirs, ours = (out.replace(str(tmp_path / "hubs" / name), "HUB") for out, name in
                    zip(_both(code, tmp_path, named.as_uri(), tmp_path / "hubs"), ("torch", "ember")))
    assert "Downloading" in ours
    assert ours == theirs and "RuntimeError invalid hash value" in ours


def test_hub_loads_a_local_hubconf(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "hubconf.py").write_text(
        "dependencies = ['torch']\nimport torch\n\n"
        "def tiny(width=3):\n    '''A tiny linear model.'''\n    torch.manual_seed(0)\n"
        "    return torch.nn.Linear(width, 2)\n\n_private = 1\n")
    code = ("import sys, torch\nrepo = sys.argv[1]\n"
            "m = torch.hub.load(repo, 'tiny', width=4, source='local')\n"
            "print(type(m).__name__, [round(v, 4) for v in m.weight.flatten().tolist()])\n"
            "m = torch.hub.load(repo, 'tiny', source='local')\n"
            "print(m.weight.shape, m.weight.requires_grad)\n")
    ours, theirs = _both(code, tmp_path, repo)[::-1]
    assert ours == theirs


def test_distributed_nn_collectives_differentiate(tmp_path):
    code = (
        "import os, torch, torch.distributed as dist, warnings\n"
        "import torch.distributed.nn.functional as F\n"
        "warnings.simplefilter('ignore')\n"
        "os.environ['MASTER_ADDR'] = '127.0.0.1'; os.environ['MASTER_PORT'] = str(29500 + os.getpid() % 500)\n"
        "dist.init_process_group('gloo' if torch.__name__ == 'torch' else 'mpi', rank=0, world_size=1)\n"
        "x = torch.arange(3.0, requires_grad=True)\n"
        "y, g, b, r = F.all_reduce(x * 2), F.all_gather(x * 3), F.broadcast(x * 4, 0), F.reduce(x * 5, 0)\n"
        "(y.sum() + g[0].sum() + b.sum() + r.sum()).backward()\n"
        "print(y.tolist(), len(g), g[0].tolist(), b.tolist(), r.tolist(), x.grad.tolist())\n"
        "dist.destroy_process_group()\n")
    ours, theirs = _both(code, tmp_path)[::-1]
    assert ours == theirs


def test_types_module_names_the_same_kinds():
    import torch.types as theirs

    import ember.types as ours
    for name in ("_bool", "_bytes", "_complex", "_float", "_int", "_str", "_Number"):
        assert getattr(ours, name) == getattr(theirs, name), name
    for value, kinds in ((ember.float32, "_dtype"), (ember.device("cpu"), "_device"),
                         (ember.strided, "_layout"), (ember.Size([2]), "Size")):
        assert isinstance(value, getattr(ours, kinds)), kinds
    assert len(ours.py_sym_types) == len(theirs.py_sym_types)
    assert set(ours.Number.__args__) == set(theirs.Number.__args__)
