"""`Measurement`: the times of one benchmarked statement (per run), their statistics and
PyTorch's printed form."""
from __future__ import annotations

import statistics

__all__ = ["Measurement", "TaskSpec"]

_UNITS = (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0))
# Spread of the measurements (IQR / median) above which the printout warns.
_SPREAD = 0.1
_GROSS_SPREAD = 0.25


def select_unit(seconds: float):
    """The unit (name, scale) in which `seconds` reads between 1 and 1000."""
    for name, scale in _UNITS:
        if seconds < scale * 1000:
            return name, scale
    return "s", 1.0


class TaskSpec:
    """What was timed: statement, setup, labels, threads."""

    def __init__(self, stmt, setup, global_setup="", label=None, sub_label=None,
                 description=None, env=None, num_threads=1) -> None:
        self.stmt = stmt
        self.setup = setup
        self.global_setup = global_setup
        self.label = label
        self.sub_label = sub_label
        self.description = description
        self.env = env
        self.num_threads = num_threads

    @property
    def title(self) -> str:
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n" + "\n".join(
            "  " + line for line in self.stmt.splitlines())

    def summarize(self) -> str:
        lines = [self.title]
        if self.description:
            lines.append(self.description)
        if self.setup and self.setup != "pass":
            if "\n" in self.setup:
                lines.append("setup:\n" + "\n".join("  " + s for s in self.setup.splitlines()))
            else:
                lines.append(f"setup: {self.setup}")
        return "\n".join(lines)


class Measurement:
    """`raw_times` are seconds per block of `number_per_run` runs; `times` per run."""

    def __init__(self, number_per_run: int, raw_times: list, task_spec: TaskSpec,
                 metadata=None) -> None:
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata

    def __getattr__(self, name):
        spec = self.__dict__.get("task_spec")
        if spec is not None and name in ("stmt", "setup", "label", "sub_label", "description",
                                         "env", "num_threads", "title"):
            return getattr(spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self) -> list:
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def mean(self) -> float:
        return statistics.mean(self.times)

    def _quartiles(self):
        times = sorted(self.times)
        if len(times) < 2:
            return times[0], times[0]
        q = statistics.quantiles(times, n=4, method="inclusive")
        return q[0], q[2]

    @property
    def iqr(self) -> float:
        low, high = self._quartiles()
        return high - low

    @property
    def has_warnings(self) -> bool:
        return len(self.times) > 1 and not self.meets_confidence(_SPREAD)

    def meets_confidence(self, threshold: float = 0.1) -> bool:
        return self.iqr / self.median < threshold

    @property
    def significant_figures(self) -> int:
        return 3

    def __repr__(self) -> str:
        unit, scale = select_unit(self.median)
        count = len(self.times)
        threads = self.task_spec.num_threads
        lines = [f"<{type(self).__module__}.Measurement object at {hex(id(self))}>",
                 self.task_spec.summarize(),
                 f"  {'Median: ' if count > 1 else ''}{self.median / scale:.2f} {unit}"]
        if count >= 4:
            low, high = self._quartiles()
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({low / scale:.2f} to "
                         f"{high / scale:.2f})")
        lines.append(f"  {count} measurement{'s' if count > 1 else ''}, "
                     f"{self.number_per_run} runs {'per measurement,' if count > 1 else ','} "
                     f"{threads} thread{'s' if threads > 1 else ''}")
        if count > 1 and not self.meets_confidence(_GROSS_SPREAD):
            lines += self._warning("This suggests significant environmental influence.")
        elif count > 1 and not self.meets_confidence(_SPREAD):
            lines += self._warning("This could indicate system fluctuation.")
        return "\n".join(lines)

    def _warning(self, text: str) -> list:
        return [f"  WARNING: Interquartile range is {100 * self.iqr / self.median:.1f}% of the "
                "median measurement.", f"           {text}"]

    __str__ = __repr__
