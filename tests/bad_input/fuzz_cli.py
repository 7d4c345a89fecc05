"""Fuzz ember's bad-input handling against PyTorch and print the counts.

    python tests/bad_input/fuzz_cli.py [--examples N] [--seconds S] [--seed K] [--show M]

(`make fuzz-bad-input`; EMBER_FUZZ_EXAMPLES sets N there.) Draws N calls (fuzz_strategies.py),
runs each in an ember and a PyTorch worker (fuzz_runner.py) and prints: calls tried, same
class (or equal results), mismatched (grouped by op), crashes, hangs, foreign exceptions.
The exit status is 1 when a crash, hang or foreign exception was found.
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz_runner import Pair, judge
from fuzz_strategies import calls
from hypothesis import HealthCheck, given, seed, settings

HARD = ("crash", "hang", "foreign")


class Report:
    def __init__(self):
        self.counts = collections.Counter()
        self.findings = collections.defaultdict(list)    # verdict -> [(call, detail)]
        self.tried = 0

    def add(self, call, verdict, detail):
        self.tried += 1
        self.counts[verdict] += 1
        if verdict != "same":
            self.findings[verdict].append((call, detail))

    def hard_failures(self):
        return [(verdict, call, detail) for verdict in HARD
                for call, detail in self.findings[verdict]]

    def mismatch_rate(self) -> float:
        judged = self.tried - self.counts["skipped"]
        return self.counts["mismatch"] / judged if judged else 0.0

    def text(self, show: int = 3) -> str:
        lines = [f"calls tried: {self.tried}",
                 f"same class / equal results: {self.counts['same']}",
                 f"mismatched: {self.counts['mismatch']} ({100 * self.mismatch_rate():.2f}%)",
                 f"crashes: {self.counts['crash']}", f"hangs: {self.counts['hang']}",
                 f"foreign exceptions: {self.counts['foreign']}",
                 "skipped (torch itself crashed or could not build the call): "
                 + str(self.counts["skipped"])]
        for verdict in ("crash", "hang", "foreign", "mismatch"):
            by_op = collections.defaultdict(list)
            for call, detail in self.findings[verdict]:
                by_op[f"{call['form']} {call['name']} ({call['key']})"].append((call, detail))
            if by_op:
                lines.append(f"\n{verdict} by op:")
            for label, found in sorted(by_op.items(), key=lambda kv: -len(kv[1])):
                lines.append(f"  {label}: {len(found)}")
                for call, detail in found[:show]:
                    lines.append(f"      {describe(call)}")
                    lines.append(f"        -> {detail[:300]}")
        return "\n".join(lines)


def describe(call) -> str:
    args = ", ".join(_show(v) for v in call["args"])
    kwargs = ", ".join(f"{k}={_show(v)}" for k, v in call["kwargs"].items())
    where = "torch." if call["form"] == "function" else "Tensor."
    return f"{where}{call['name']}({', '.join(p for p in (args, kwargs) if p)})"


def _show(desc) -> str:
    kind = desc[0]
    if kind == "tensor":
        return f"T{list(desc[1])}:{desc[2]}{'(grad)' if desc[3] else ''}"
    if kind in ("list", "tuple"):
        inner = ", ".join(_show(v) for v in desc[1])
        return f"[{inner}]" if kind == "list" else f"({inner},)"
    if kind in ("int", "float", "bool", "complex", "str", "bytes"):
        return repr(desc[1])
    if kind == "none":
        return "None"
    return f"{kind}:{desc[1] if len(desc) > 1 else ''}"


def collect(examples: int, seconds: float, derandomize: bool = True, seed_value=None,
            timeout: float = 10.0) -> Report:
    """Draw up to `examples` calls (stopping drawing new work after `seconds`) and judge them."""
    report = Report()
    pair = Pair(timeout=timeout)
    pair.start()                         # (the budget counts calls, not the two imports)
    stop_at = time.monotonic() + seconds

    @settings(max_examples=examples, deadline=None, derandomize=derandomize, database=None,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(calls())
    def draw_and_judge(call):
        if time.monotonic() > stop_at:
            return
        got, want = pair.run(call)
        verdict, detail = judge(got, want, loose=call["random"])
        report.add(call, verdict, detail)

    if seed_value is not None and not derandomize:
        draw_and_judge = seed(seed_value)(draw_and_judge)
    try:
        draw_and_judge()
    finally:
        pair.close()
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int,
                        default=int(os.environ.get("EMBER_FUZZ_EXAMPLES", "3000")))
    parser.add_argument("--seconds", type=float, default=3600.0)
    parser.add_argument("--seed", type=int, default=None,
                        help="a random seed (default: the fixed draw CI makes)")
    parser.add_argument("--show", type=int, default=3, help="examples listed per op")
    options = parser.parse_args(argv)
    started = time.monotonic()
    report = collect(options.examples, options.seconds, derandomize=options.seed is None,
                     seed_value=options.seed)
    print(report.text(options.show))
    print(f"\n{time.monotonic() - started:.1f} s")
    return 1 if report.hard_failures() else 0


if __name__ == "__main__":
    sys.exit(main())
