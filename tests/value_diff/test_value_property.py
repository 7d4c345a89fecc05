"""Property: a drawn valid call on edge tensors (inf, NaN, +-0, denormals, the dtype's largest
values; transposed, sliced, expanded and empty tensors; mixed dtypes and edge numbers) gives
PyTorch's result in ember: the same shape and dtype, NaN and infinity positions exact, finite
values within the dtype's tolerance; and a call PyTorch answers ember does not refuse.

Each call runs in an ember and a PyTorch worker process (vd_cli.py), so a crash is counted
rather than fatal. CI draws a fixed 1,000 calls (about 35 s alone on a shared 2-core machine); `make fuzz-values` runs
many more, with a random seed, and prints the findings by op.
"""
import math
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from vd_cli import judge

EXAMPLES = int(os.environ.get("EMBER_VALUE_FUZZ_CI_EXAMPLES", "1000"))
SECONDS = float(os.environ.get("EMBER_FUZZ_CI_SECONDS", "900"))


def test_drawn_valid_calls_give_pytorchs_results():
    # The fixed draw is made in a fresh interpreter (vd_cli.py): in this process, what the
    # tests before it imported and seeded (they vary with xdist's placement) changed which
    # calls hypothesis drew.
    done = subprocess.run(
        [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vd_cli.py"),
         "--examples", str(EXAMPLES), "--seconds", str(SECONDS), "--show", "3"],
        capture_output=True, text=True, timeout=SECONDS + 300)
    text = done.stdout + done.stderr
    counts = dict(re.findall(r"^(calls tried|same): (\d+)$", done.stdout, re.M))
    tried, same = int(counts.get("calls tried", 0)), int(counts.get("same", 0))
    assert tried >= min(EXAMPLES, 100), text[-4000:]
    assert same >= tried // 4, text[-4000:]
    assert done.returncode == 0, text[-8000:]


def _tensor(values, dtype="float32", strides=None):
    array = np.array(values, dtype=np.float64)
    return ("tensor", array.shape, dtype, array, strides)


def test_the_judge_sees_each_kind_of_difference():
    ok = ("ok", _tensor([1.0, math.nan, math.inf]))
    assert judge(ok, ok)[0] == "same"
    assert judge(("ok", _tensor([1.0, 2.0, math.inf])), ok)[0] == "differs"
    assert judge(("ok", _tensor([1.0, math.nan, -math.inf])), ok)[0] == "differs"
    assert judge(("ok", _tensor([1.001, math.nan, math.inf])), ok)[0] == "differs"
    assert judge(("ok", _tensor([1.0, math.nan, math.inf], "float64")), ok)[0] == "differs"
    assert judge(("ok", _tensor([[1.0, math.nan, math.inf]])), ok)[0] == "differs"
    assert judge(("ok", _tensor([1.0, math.nan, math.inf], strides=(2,))),
                 ("ok", _tensor([1.0, math.nan, math.inf], strides=(1,))))[0] == "strides"
    raised = ("raised", ("RuntimeError", "builtins", ("RuntimeError",), "no"))
    assert judge(raised, ok)[0] == "refused"
    assert judge(ok, raised)[0] == "accepted"
    assert judge(raised, raised)[0] == "both raised"
    assert judge(("ok", ("sequence", [_tensor([1.0]), _tensor([2.0])])),
                 ("ok", ("sequence", [_tensor([1.0]), _tensor([3.0])])))[0] == "differs"


def test_tied_indices_are_not_compared_but_values_are():
    values = _tensor([1.0, 2.0])
    mine = ("ok", ("sequence", [values, _tensor([0, 2], "int64")]))
    theirs = ("ok", ("sequence", [values, _tensor([2, 2], "int64")]))
    assert judge(mine, theirs, key="kthvalue")[0] == "same"
    assert judge(mine, theirs, key="max.dim")[0] == "differs"
    other = ("ok", ("sequence", [_tensor([1.0, 3.0]), _tensor([2, 2], "int64")]))
    assert judge(other, theirs, key="kthvalue")[0] == "differs"


def test_a_quotient_nan_of_pytorchs_vector_loop_passes_but_not_one_of_embers():
    # QUOTIENT_OVERFLOW_NAN (vd_cli.py): PyTorch's AVX2 fmod is NaN where a / b overflows.
    finite, nan = ("ok", _tensor([-0.0, 1.0])), ("ok", _tensor([math.nan, 1.0]))
    assert judge(finite, nan, key="remainder.Tensor")[0] == "same"
    assert judge(nan, finite, key="remainder.Tensor")[0] == "differs"
    assert judge(finite, nan, key="add.Tensor")[0] == "differs"
