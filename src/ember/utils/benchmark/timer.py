"""`Timer`: times a Python statement with `timeit`, `blocked_autorange` (enough blocks of runs
to fill `min_run_time`) or `adaptive_autorange` (until the spread is small), at a set number of
threads, returning a `Measurement`."""
from __future__ import annotations

import timeit as _timeit

from ember.utils.benchmark.common import Measurement, TaskSpec

__all__ = ["Timer"]


def timer() -> float:
    import time
    return time.perf_counter()


class Timer:
    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer=timer, globals=None, label=None, sub_label=None, description=None,
                 env=None, num_threads: int = 1, language="python") -> None:
        import ember
        if str(language).lower() not in ("python", "language.python", "0"):
            raise ValueError("ember's Timer times Python statements only")
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        # The statement sees `torch` (and `ember`) as ember unless the caller says otherwise.
        namespace = {"torch": ember, "ember": ember}
        namespace.update(globals or {})
        self._globals = namespace
        self._task_spec = TaskSpec(stmt, setup, global_setup, label, sub_label, description,
                                   env, num_threads)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=namespace)

    def _timeit(self, number: int) -> float:
        import ember
        previous = ember.get_num_threads()
        ember.set_num_threads(self._task_spec.num_threads)
        try:
            return max(self._timer.timeit(number), 1e-9)
        finally:
            ember.set_num_threads(previous)

    def timeit(self, number: int = 1000000) -> Measurement:
        """Run the statement `number` times (after one warm-up call)."""
        self._timeit(number=max(int(number // 100), 2))
        return Measurement(number, [self._timeit(number)], self._task_spec)

    def _estimate_block_size(self, min_run_time: float) -> int:
        import statistics
        overhead = statistics.median(self._timeit(0) for _ in range(5))
        number = 1
        while True:
            taken = self._timeit(number)
            if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                break
            if taken > min_run_time or number * 10 > 2147483647:
                break
            number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> Measurement:
        """Blocks of runs (sized so that timer overhead is negligible) until `min_run_time`
        seconds have been spent."""
        number = self._estimate_block_size(min_run_time=0.05)
        times, total = [], 0.0
        while total < min_run_time or len(times) == 0:
            taken = self._timeit(number)
            total += taken
            if callback is not None:
                callback(number, taken)
            times.append(taken)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0, callback=None) -> Measurement:
        """Blocks of runs until the interquartile range is within `threshold` of the median
        (or `max_run_time` is spent)."""
        number = self._estimate_block_size(min_run_time=0.05)
        times, total = [], 0.0
        while True:
            taken = self._timeit(number)
            total += taken
            if callback is not None:
                callback(number, taken)
            times.append(taken)
            measurement = Measurement(number, times, self._task_spec)
            if len(times) > 3 and total >= min_run_time and \
                    measurement.meets_confidence(threshold):
                return measurement
            if total >= max_run_time:
                return measurement
