"""Property: a drawn call of a registered op, mostly with wrong arguments, gets PyTorch's
exception class in ember (or both libraries return equal results); it never crashes, hangs or
raises a class PyTorch does not (AttributeError, KeyError, NumPy's errors ...).

Each call runs in an ember worker and a PyTorch worker process (fuzz_runner.py), so a crash
is counted rather than fatal. CI draws a fixed number of calls (about 6 s alone); the time
limit is only a guard against a hang, so a slow or busy machine judges the same calls.
`make fuzz-bad-input` runs many more and prints the counts grouped by op (fuzz_cli.py).

Crashes, hangs and foreign exceptions fail the test one by one. Mismatched classes are held
to a rate: the draw's exact sequence may differ between processes, and the mismatches left
(listed by `make fuzz-bad-input`) are spread over many ops, each rare.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz_cli import collect, describe

EXAMPLES = int(os.environ.get("EMBER_FUZZ_CI_EXAMPLES", "300"))
SECONDS = float(os.environ.get("EMBER_FUZZ_CI_SECONDS", "600"))
# The share of drawn calls whose class may still differ from PyTorch's (measured: 1.4% of
# the fixed 3000-call draw, 4.0% of a random 5000-call one; the aim is under 1%).
MISMATCH_RATE_LIMIT = 0.05


def test_drawn_calls_get_pytorchs_class():
    report = collect(EXAMPLES, SECONDS, derandomize=True)
    assert report.tried >= min(EXAMPLES, 50), report.text()
    hard = report.hard_failures()
    assert not hard, "\n".join(f"{verdict}: {describe(call)} -> {detail}"
                               for verdict, call, detail in hard)
    assert report.mismatch_rate() <= MISMATCH_RATE_LIMIT, report.text()
