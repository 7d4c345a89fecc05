"""Compiled graphs large enough for their OpenMP `parallel for` pragmas (PARALLEL_MIN), run
with two threads in a fresh process, against PyTorch's results."""
import os
import subprocess
import sys

import pytest

from ember._inductor import cpp_builder

pytest.importorskip("torch")
SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")

SCRIPT = r"""
import numpy as np, torch, ember
from ember._decomp import core_aten_decompositions
from ember._inductor import compile_fx, metrics
from ember.fx.experimental.proxy_tensor import make_fx

rng = np.random.default_rng(0)
a = rng.standard_normal((256, 1024)).astype(np.float32)
b = rng.standard_normal((256, 1024)).astype(np.float32)
cases = [
    lambda L: lambda x, y: (x * y).sum(),
    lambda L: lambda x, y: (x - y).amax(),
    lambda L: lambda x, y: L.softmax(x, -1) + L.softmax(y, 0),
    lambda L: lambda x, y: L.nn.functional.layer_norm(x, (1024,)) * y,
    lambda L: lambda x, y: x.sum(0) + y.mean(1).sum(),
]
for make in cases:
    e = [ember.tensor(a), ember.tensor(b)]
    fn = compile_fx(make_fx(make(ember), core_aten_decompositions())(*e), e)
    expected = make(torch)(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(fn(*e).numpy(), expected.numpy(), rtol=1e-4, atol=1e-4)
assert metrics.eager_fallbacks == 0
print("ok")
"""


@pytest.mark.skipif(cpp_builder.compiler() is None, reason="no C compiler")
def test_parallel_loops_match_torch_with_two_threads():
    env = dict(os.environ, PYTHONPATH=os.path.abspath(SRC), OMP_NUM_THREADS="2")
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")
