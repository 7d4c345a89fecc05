"""Fuzz ember's bad-input handling against PyTorch and print the counts.

    python tests/bad_input/fuzz_cli.py [--examples N] [--seconds S] [--seed K] [--show M]
                                       [--family F ...]

(`make fuzz-bad-input`; EMBER_FUZZ_EXAMPLES sets N there, EMBER_FUZZ_FAMILIES the families.)
Draws N calls of each family (registry ops: fuzz_strategies.py; nn.functional and modules:
fuzz_entries_nn.py; tensor, asarray, frombuffer, legacy constructors, indexing and load:
fuzz_entries_data.py; linalg/fft/special and the other functions and Tensor methods:
fuzz_entries_api.py), runs each in an ember and a PyTorch worker (fuzz_runner.py) and prints
per family: calls tried, PyTorch's refusals and how many of them got PyTorch's class in ember,
bad calls ember accepted, crashes, hangs, foreign (leaked internal) exceptions; then the
findings grouped by op. The exit status is 1 when a crash, hang or foreign exception was found.
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz_entries_api import API_FAMILIES
from fuzz_entries_data import DATA_FAMILIES
from fuzz_entries_nn import functional_calls, module_calls
from fuzz_runner import Pair, draw, judge
from fuzz_strategies import calls

FAMILIES = dict({"registry": calls, "functional": functional_calls, "module": module_calls},
                **DATA_FAMILIES, **API_FAMILIES)

HARD = ("crash", "hang", "foreign")


class Report:
    def __init__(self):
        self.counts = collections.Counter()
        self.findings = collections.defaultdict(list)    # verdict -> [(call, detail)]
        self.tried = 0
        self.by_family = collections.defaultdict(collections.Counter)

    def add(self, call, verdict, detail, torch_refused=False):
        self.tried += 1
        self.counts[verdict] += 1
        family = self.by_family[call.get("family", "registry")]
        family["tried"] += 1
        family[verdict] += 1
        if torch_refused:
            family["refused"] += 1
            family["refused, same class"] += verdict == "same"
        family["accepted"] += verdict == "mismatch" and detail.startswith("ember returned")
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
                 + str(self.counts["skipped"]), "", self.family_table()]
        for verdict in ("crash", "hang", "foreign", "mismatch"):
            by_op = collections.defaultdict(list)
            for call, detail in self.findings[verdict]:
                by_op[f"{call.get('family', 'registry')} {call['form']} {call['name']} "
                      f"({call['key']})"].append((call, detail))
            if by_op:
                lines.append(f"\n{verdict} by op:")
            for label, found in sorted(by_op.items(), key=lambda kv: -len(kv[1])):
                lines.append(f"  {label}: {len(found)}")
                for call, detail in found[:show]:
                    lines.append(f"      {describe(call)}")
                    lines.append(f"        -> {detail[:300]}")
        return "\n".join(lines)


    def family_table(self) -> str:
        lines = [("family       tried  torch refused  same class (%)      accepted  foreign"
                  "  crash  hang  other mismatches")]
        for name, c in sorted(self.by_family.items()):
            refused = c["refused"]
            share = 100 * c["refused, same class"] / refused if refused else 100.0
            lines.append(
                f"{name:<12} {c['tried']:>5}  {refused:>13}  {c['refused, same class']:>6} "
                f"({share:5.1f}%)  {c['accepted']:>8}  {c['foreign']:>7}  {c['crash']:>5}  "
                f"{c['hang']:>4}  {c['mismatch'] - c['accepted']:>5}")
        return "\n".join(lines)


def describe(call) -> str:
    args = ", ".join(_show(v) for v in call["args"])
    kwargs = ", ".join(f"{k}={_show(v)}" for k, v in call["kwargs"].items())
    inner = ", ".join(p for p in (args, kwargs) if p)
    form = call["form"]
    if form == "module":
        ctor = ", ".join([_show(v) for v in call["ctor_args"]] +
                         [f"{k}={_show(v)}" for k, v in call["ctor_kwargs"].items()])
        return f"nn.{call['name']}({ctor})({inner})"
    where = {"function": "torch.", "functional": "F.", "method": "Tensor.",
             "inplace": "Tensor."}.get(form, "torch.")
    if form in ("namespace", "api") and call["namespace"] == "Tensor":
        rest = ", ".join([_show(v) for v in call["args"][1:]] +
                         [f"{k}={_show(v)}" for k, v in call["kwargs"].items()])
        return f"{_show(call['args'][0])}.{call['name']}({rest})"
    if form == "namespace":
        where = f"torch.{call['namespace']}."
    if form == "legacy" and call["name"] == "new":
        where = f"{_show(call['base'])}."
    if form in ("getitem", "setitem"):
        return f"{_show(call['args'][0])}[{', '.join(_show(v) for v in call['args'][1:])}]"
    return f"{where}{call['name']}({inner})"


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
    if kind == "slice":
        return ":".join("" if p == ("none",) else _show(p) for p in desc[1:])
    return f"{kind}:{':'.join(repr(p) for p in desc[1:])}"


def collect(examples: int, seconds: float, derandomize: bool = True, seed_value=None,
            timeout: float = 10.0, families=("registry",)) -> Report:
    """Draw up to `examples` calls of each family (stopping drawing new work after `seconds`
    in all) and judge them."""
    report = Report()
    pair = Pair(timeout=timeout)
    pair.start()                         # (the budget counts calls, not the two imports)
    stop_at = time.monotonic() + seconds
    try:
        for family in families:
            _collect_family(FAMILIES[family], pair, report, examples, stop_at, derandomize,
                            seed_value)
    finally:
        pair.close()
    return report


def _collect_family(strategy, pair, report, examples, stop_at, derandomize, seed_value):
    def each(call):
        got, want = pair.run(call)
        verdict, detail = judge(got, want, loose=call["random"])
        report.add(call, verdict, detail, torch_refused=want[0] == "raised")

    draw(strategy(), examples, stop_at, derandomize, seed_value, each)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int,
                        default=int(os.environ.get("EMBER_FUZZ_EXAMPLES", "3000")))
    parser.add_argument("--seconds", type=float, default=3600.0)
    parser.add_argument("--seed", type=int, default=None,
                        help="a random seed (default: the fixed draw CI makes)")
    parser.add_argument("--show", type=int, default=3, help="examples listed per op")
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES),
                        help="the families drawn (default: EMBER_FUZZ_FAMILIES or all)")
    options = parser.parse_args(argv)
    families = options.family or os.environ.get("EMBER_FUZZ_FAMILIES", "").split() or \
        list(FAMILIES)
    started = time.monotonic()
    report = collect(options.examples, options.seconds, derandomize=options.seed is None,
                     seed_value=options.seed, families=families)
    print(report.text(options.show))
    print(f"\n{time.monotonic() - started:.1f} s")
    return 1 if report.hard_failures() else 0


if __name__ == "__main__":
    sys.exit(main())
