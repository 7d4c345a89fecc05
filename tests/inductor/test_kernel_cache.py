"""The kernel cache across processes (NOTE [the kernel cache]) and the run without a C
compiler (NOTE [inductor without a C compiler]), each in fresh interpreters."""
import json
import os
import subprocess
import sys

import pytest

from ember._inductor import cpp_builder

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")

# Compiles softmax and a layer norm, checks them against ember's eager results, and prints
# the counters and the warnings seen.
SCRIPT = r"""
import json, warnings
import numpy as np
import ember
from ember._decomp import core_aten_decompositions
from ember._inductor import compile_fx, metrics
from ember.fx.experimental.proxy_tensor import make_fx

def f(x, w, b):
    return ember.softmax(x, -1), ember.nn.functional.layer_norm(x, (64,), w, b)

args = [ember.randn(32, 64), ember.randn(64), ember.randn(64)]
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    for _ in range(2):
        gm = make_fx(f, core_aten_decompositions())(*args)
        fn = compile_fx(gm, args)
        for got, expected in zip(fn(*args), f(*args)):
            np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)
print(json.dumps({"compiles": metrics.cpp_compiles, "hits": metrics.disk_cache_hits,
                  "kernels": metrics.generated_kernel_count,
                  "warnings": [str(w.message) for w in seen]}))
"""


def run_child(env_changes):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(SRC), OMP_NUM_THREADS="1")
    env.update(env_changes)
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(cpp_builder.compiler() is None, reason="no C compiler")
def test_a_second_process_compiles_nothing(tmp_path):
    first = run_child({"EMBER_CACHE_DIR": str(tmp_path)})
    assert first["compiles"] == 1          # the second compile_fx in the process loads it
    assert first["kernels"] > 0
    second = run_child({"EMBER_CACHE_DIR": str(tmp_path)})
    assert second["compiles"] == 0
    assert second["hits"] == 1
    files = sorted(os.listdir(tmp_path / "inductor"))
    # One shared object and its source, no temporary file left behind.
    assert len(files) == 2 and files[0].endswith(".c") and files[1].endswith(".so")


def test_without_a_compiler_the_graph_runs_eagerly_with_one_warning(tmp_path):
    result = run_child({"EMBER_CACHE_DIR": str(tmp_path), "CC": "ember-no-such-compiler"})
    assert result["compiles"] == 0 and result["kernels"] == 0
    assert len(result["warnings"]) == 1
    assert "no C compiler" in result["warnings"][0]
    assert not os.path.exists(tmp_path / "inductor")
