"""`ember.profiler`: `profile` (a recording dispatch mode, profiler.py), `record_function`,
`schedule`, chrome traces; events and PyTorch-style tables in events.py."""
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

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "ProfilerAction",
           "ProfilerActivity", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]
