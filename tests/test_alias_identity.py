"""Under the alias `torch.__version__` is the PyTorch API level ember implements, as a version
that compares like PyTorch's TorchVersion (NOTE [the alias answers as PyTorch]); plain
`import ember` keeps ember's own version and installs no finder."""
import importlib
import itertools
import operator
import subprocess
import sys

import pytest
import torch
from torch.torch_version import TorchVersion as TheirVersion

import ember
from ember.torch_version import TorchVersion as OurVersion

VERSIONS = ["2.13.0", "2.13.0+cpu", "2.13", "2.2.0a0", "2.2.0a0+git1234", "2.2.0rc1", "2.2.0.dev20240101",
            "2.2.0.post1", "1.10.0a", "1!0.1", "2.13.0b2", "parrot", "2.2.0-1", "v2.1"]
OTHERS = ["2.2", "2.13.0", "2.13.0a0", "2.13.0.dev1", "2.13.0+cu121", "3", "parrot",
          (2, 2), (2, 13), (2, 13, 0), (1,), [2, 13, 1]]
OPS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


def _outcome(op, a, b):
    try:
        return op(a, b)
    except TypeError:
        return TypeError


@pytest.mark.parametrize("mine,other", list(itertools.product(VERSIONS, OTHERS)))
def test_comparisons_match_torch_version(mine, other):
    for op in OPS:
        assert _outcome(op, OurVersion(mine), other) == _outcome(op, TheirVersion(mine), other), \
            (op.__name__, mine, other)


def test_packaging_version_and_hash():
    from torch._vendor.packaging.version import Version
    for mine in ["2.13.0", "2.2.0rc1"]:
        for op in OPS:
            assert op(OurVersion(mine), Version("2.2")) == op(TheirVersion(mine), Version("2.2"))
    assert hash(OurVersion("2.13.0")) == hash("2.13.0")
    assert {OurVersion("2.13.0"): 1}["2.13.0"] == 1


def test_api_level_is_the_oracles():
    assert OurVersion(ember.version.api_version) == torch.__version__.split("+")[0]


def _run(code):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_alias_reports_the_api_level_and_a_distribution():
    out = _run(
        "import importlib.metadata as md, sys\n"
        "from ember.utils import alias_torch\n"
        "alias_torch()\n"
        "import torch\n"
        "print(torch.__version__, type(torch.__version__).__name__, torch.__version__ >= (2, 2),"
        " md.version('torch'), torch.version.__version__, torch.version.ember_version,"
        " md.distribution('torch').metadata['Name'])\n"
        "from ember.utils._alias import unalias_torch\n"
        "unalias_torch()\n"
        "import ember\n"
        "print(ember.__version__)\n")
    assert out == [ember.version.api_version, "TorchVersion", "True", ember.version.api_version,
                   ember.version.api_version, ember.version.ember_version, "torch",
                   ember.version.ember_version]


def test_plain_import_changes_nothing():
    out = _run("import sys; before = list(sys.meta_path); import ember, importlib.metadata as md\n"
               "print(ember.__version__, sys.meta_path == before, type(ember.__version__).__name__)")
    assert out == [ember.version.ember_version, "True", "str"]


def test_alias_presents_pytorch_module_paths(tmp_path):
    """Each public class ember has at a path of PyTorch's is importable from it under the alias,
    says PyTorch's `__module__`, and a model pickled there loads in PyTorch."""
    checked = [(module, name) for module, name in sorted(set(PATHS_TO_CHECK))]
    code = ("import importlib, pickle, sys\n"
            "from ember.utils import alias_torch\n"
            "alias_torch()\n"
            "import torch, torch.nn as nn\n"
            f"for module, name in {checked!r}:\n"
            "    cls = getattr(importlib.import_module(module), name)\n"
            "    print(module, name, cls.__module__, cls.__qualname__)\n"
            "m = nn.Sequential(nn.Linear(2, 3), nn.MultiheadAttention(4, 2))\n"
            "again = pickle.loads(pickle.dumps(m))\n"
            "print('pickle', type(again[1]).__module__, type(again[1]) is nn.MultiheadAttention)\n"
            f"torch.save(m, {str(tmp_path / 'm.pt')!r})\n"
            "from ember.utils._alias import unalias_torch\n"
            "unalias_torch()\n"
            "import ember\n"
            "print('after', ember.nn.Linear.__module__, ember.Tensor.__module__)\n")
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    for line, (module, name) in zip(lines, checked):
        cls = getattr(importlib.import_module(module), name)
        assert line.split() == [module, name, cls.__module__, cls.__qualname__]
    assert lines[len(checked)] == "pickle torch.nn.modules.activation True"
    assert lines[-1] == "after ember.nn.modules.linear ember._tensor"
    loaded = torch.load(tmp_path / "m.pt", weights_only=False)
    assert type(loaded[1]) is torch.nn.MultiheadAttention


PATHS_TO_CHECK = [
    ("torch.nn.modules.activation", "MultiheadAttention"), ("torch.nn.modules.linear", "Linear"),
    ("torch.nn.modules.linear", "NonDynamicallyQuantizableLinear"),
    ("torch.optim.adam", "Adam"), ("torch.optim.sgd", "SGD"),
    ("torch.utils.data.dataset", "Dataset"), ("torch.utils.data.dataloader", "DataLoader"),
    ("torch", "Tensor"), ("torch", "Size"), ("torch", "dtype"), ("torch", "device"),
    ("torch.nn.parameter", "Parameter"), ("torch.distributions.geometric", "Geometric"),
    ("torch.nn.modules.container", "Sequential"), ("torch.optim.lr_scheduler", "StepLR"),
    ("torch.autograd.function", "Function"), ("torch.nn.modules.module", "Module"),
]
