"""Profiler events: `FunctionEvent` (one timed call: an op, or a `record_function` range),
`FunctionEventAvg` (the calls of one name summed) and `EventList` with `key_averages()` and
`table()` in PyTorch's layout."""
from __future__ import annotations

from collections import OrderedDict

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]


def format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def format_memory(nbytes: int) -> str:
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} b"


class FunctionEvent:
    """One recorded call: name, start/end (microseconds), thread, children, input shapes,
    memory its outputs took, the Python stack (with_stack)."""

    def __init__(self, id, name, thread, start_us, end_us=None, input_shapes=None,
                 stack=None, cpu_memory_usage=0, is_user_annotation=False) -> None:
        self.id = id
        self.name = name
        self.key = name
        self.thread = thread
        self.start_us = start_us
        self.end_us = end_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.cpu_memory_usage = cpu_memory_usage
        self.is_user_annotation = is_user_annotation
        self.cpu_children: list = []
        self.cpu_parent = None
        self.count = 1
        self.device_type = "CPU"

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time="
                f"{format_time(self.cpu_time_total)} start_us={self.start_us:.3f} "
                f"end_us={self.end_us:.3f} input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """The events of one key (name, and input shapes or stack when grouped by them)."""

    def __init__(self) -> None:
        self.key = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes = None
        self.stack = None
        self.is_user_annotation = False
        self.device_type = "CPU"

    def add(self, event) -> FunctionEventAvg:
        if self.key is None:
            self.key = event.key
            self.input_shapes = event.input_shapes
            self.stack = event.stack
            self.is_user_annotation = event.is_user_annotation
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        self.cpu_memory_usage += event.cpu_memory_usage
        self.self_cpu_memory_usage += event.self_cpu_memory_usage
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self) -> str:
        self_time = format_time(self.self_cpu_time_total)
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self_time} "
                f"cpu_time={format_time(self.cpu_time)} input_shapes={self.input_shapes}>")


_SORT_KEYS = {"cpu_time", "cpu_time_total", "self_cpu_time_total", "count",
              "cpu_memory_usage", "self_cpu_memory_usage"}


class EventList(list):
    """A list of events that can average itself by name and print PyTorch's table."""

    def __init__(self, *args, profile_memory=False, with_stack=False,
                 record_shapes=False) -> None:
        super().__init__(*args)
        self._profile_memory = profile_memory
        self._with_stack = with_stack
        self._record_shapes = record_shapes

    def key_averages(self, group_by_input_shape: bool = False,
                     group_by_stack_n: int = 0) -> EventList:
        groups: OrderedDict = OrderedDict()
        for event in self:
            key = [event.key]
            if group_by_input_shape:
                key.append(str(event.input_shapes))
            if group_by_stack_n > 0:
                key.append(str(event.stack[:group_by_stack_n]))
            groups.setdefault(tuple(key), FunctionEventAvg()).add(event)
        result = EventList(groups.values(), profile_memory=self._profile_memory,
                           with_stack=self._with_stack, record_shapes=self._record_shapes)
        result._grouped_by_shape = group_by_input_shape
        return result

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80,
              header=None, top_level_events_only: bool = False) -> str:
        """The events as PyTorch's profiler prints them."""
        events = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
            events.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        if row_limit > 0:
            events = events[:row_limit]
        shapes = getattr(self, "_grouped_by_shape", False)
        name_width = min(max((len(e.key) for e in events), default=4) + 4,
                         max_name_column_width)
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                   "CPU time avg"]
        widths = [name_width] + [12] * 5
        if self._profile_memory:
            headers += ["CPU Mem", "Self CPU Mem"]
            widths += [12, 12]
        headers.append("# of Calls")
        widths.append(12)
        if shapes:
            shape_width = min(max((len(str(e.input_shapes)) for e in events), default=12)
                              + 4, max_shapes_column_width)
            headers.append("Input Shapes")
            widths.append(shape_width)
        line = "".join("-" * w + "  " for w in widths)
        total = sum(e.self_cpu_time_total for e in self) or 1.0
        rows = [line, "".join(h.rjust(w) + "  " for h, w in zip(headers, widths)), line]
        for e in events:
            name = e.key if len(e.key) <= name_width - 3 else e.key[:name_width - 6] + "..."
            cells = [name, f"{100 * e.self_cpu_time_total / total:.2f}%",
                     format_time(e.self_cpu_time_total),
                     f"{100 * e.cpu_time_total / total:.2f}%", format_time(e.cpu_time_total),
                     format_time(e.cpu_time)]
            if self._profile_memory:
                cells += [format_memory(e.cpu_memory_usage),
                          format_memory(e.self_cpu_memory_usage)]
            cells.append(str(e.count))
            if shapes:
                text = str(e.input_shapes)
                cells.append(text if len(text) <= shape_width else text[:shape_width - 3]
                             + "...")
            rows.append("".join(c.rjust(w) + "  " for c, w in zip(cells, widths)))
        rows.append(line)
        rows.append(f"Self CPU time total: {format_time(sum(e.self_cpu_time_total for e in self))}")
        return "\n".join(rows) + "\n"

    def __str__(self) -> str:
        return self.table()
