"""`ember.profiler`: `profile` (a recording dispatch mode, profiler.py), `record_function`,
`schedule`, chrome traces; events and PyTorch-style tables in events.py."""
import enum as _enum

from ember.profiler.events import EventList, FunctionEvent, FunctionEventAvg
from ember.profiler.profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = ["DeviceType", "EventList", "FunctionEvent", "FunctionEventAvg", "ProfilerAction",
           "ProfilerActivity", "kineto_available", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]

DeviceType = _enum.IntEnum("DeviceType", [
    ("CPU", 0), ("CUDA", 1), ("MKLDNN", 2), ("OPENGL", 3), ("OPENCL", 4), ("IDEEP", 5),
    ("HIP", 6), ("FPGA", 7), ("MAIA", 8), ("XLA", 9), ("Vulkan", 10), ("Metal", 11),
    ("XPU", 12), ("MPS", 13), ("MTIA", 19), ("Meta", 14), ("HPU", 15), ("VE", 16),
    ("Lazy", 17), ("IPU", 18), ("PrivateUse1", 20)], module=__name__)
DeviceType.__doc__ = "The device kinds a profiler event names (PyTorch's numbering)."


def kineto_available() -> bool:
    """Whether the Kineto tracing library is there: no, ember's profiler is its own dispatch
    mode (profiler.py)."""
    return False
