"""Property: a drawn call of a registered op, mostly with wrong arguments, gets PyTorch's
exception class in ember (or both libraries return equal results); it never crashes, hangs or
raises a class PyTorch does not (AttributeError, KeyError, NumPy's errors ...).

Each call runs in an ember worker and a PyTorch worker process (fuzz_runner.py), so a crash
is counted rather than fatal. CI draws a fixed set of calls within a time budget (about 15 s
on two cores); `make fuzz-bad-input` runs many more and prints the counts (fuzz_cli.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz_cli import collect, describe

# Mismatches found and not fixed yet, by (form, name), with the reason; a mismatch of any other
# op fails the test, and so does one of these once it is fixed (the entry must then go).
KNOWN_MISMATCHES = {
    ("function", "repeat_interleave"): "the frontend takes a NumPy float for repeats, which "
                                       "PyTorch's overloads refuse",
    ("function", "binomial"): "a negative count: ember refuses it, PyTorch's kernel returns",
    ("function", "std_mean"): "std_mean(x, int, int): PyTorch has no overload for it, ember's "
                              "frontend reads the second int as the correction",
    ("inplace", "ldexp_"): "PyTorch fails in pow on complex32 before it compares the shapes",
    ("method", "softmax"): "softmax of a complex tensor: PyTorch's kernel returns for the drawn "
                           "shape, ember refuses complex",
}

EXAMPLES = int(os.environ.get("EMBER_FUZZ_CI_EXAMPLES", "600"))
SECONDS = float(os.environ.get("EMBER_FUZZ_CI_SECONDS", "9"))


def test_drawn_calls_get_pytorchs_class():
    report = collect(EXAMPLES, SECONDS, derandomize=True)
    assert report.tried >= min(EXAMPLES, 50), report.text()
    hard = report.hard_failures()
    assert not hard, "\n".join(f"{verdict}: {describe(call)} -> {detail}"
                               for verdict, call, detail in hard)
    mismatched = report.findings["mismatch"]
    unknown = [(call, detail) for call, detail in mismatched
               if (call["form"], call["name"]) not in KNOWN_MISMATCHES]
    assert not unknown, "\n".join(f"{describe(call)} -> {detail}" for call, detail in unknown)
    if report.tried == EXAMPLES:
        seen = {(call["form"], call["name"]) for call, _ in mismatched}
        assert seen == set(KNOWN_MISMATCHES), f"fixed, drop from KNOWN_MISMATCHES: " \
            f"{set(KNOWN_MISMATCHES) - seen}"
