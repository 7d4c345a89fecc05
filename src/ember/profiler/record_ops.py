"""record_function's ranges as the ops PyTorch's modes see: NOTE [record_function is an op].

NOTE [record_function is an op]: PyTorch's `record_function` opens and closes its range through
the ops `profiler::_record_function_enter_new(str name, str? args=None)` and
`profiler::_record_function_exit._RecordFunction(record)`, so a TorchFunctionMode and a
TorchDispatchMode see both (an optimizer's `step` and `zero_grad` run inside one). ember's
`record_function` calls them the same way while a mode is open (`state.slow`); otherwise it
begins and ends its profiler event directly, at no cost but one attribute test. Each op's
back-end step is its own (`runners.OWN_STEPS`): the enter step returns a `RecordHandle` (the
range's event, or none when no profiler records), the exit step ends it and returns None.
"""
from __future__ import annotations

from ember._core.dispatch import runners, stack
from ember.library import _declare


class RecordHandle:
    """What `_record_function_enter_new` returns: the open range (PyTorch's _RecordFunction)."""

    __slots__ = ("event", "session")

    def __init__(self, session, event):
        self.session = session
        self.event = event


def _enter_step(op, args):
    from ember.profiler.profiler import _active
    name, record_args = (tuple(args) + (None,))[:2]
    session = getattr(_active, "session", None)
    event = None if session is None else session.begin(name, user=True)
    return RecordHandle(session, event)


def _exit_step(op, args):
    handle = args[0]
    if handle.event is not None:
        handle.session.end(handle.event)
        handle.event = None


ENTER = _declare("profiler", "_record_function_enter_new(str name, str? args=None) -> Any")
EXIT = _declare("profiler", "_record_function_exit._RecordFunction(Any record) -> ()")
ENTER.doc = "_record_function_enter_new(name, args=None): open a record_function range."
EXIT.doc = "_record_function_exit(record): close the range _record_function_enter_new opened."
for _op, _step in ((ENTER, _enter_step), (EXIT, _exit_step)):
    _op.runner = _step
    _op.meta = None
    runners.OWN_STEPS[_op] = _step


def enter(name, args=None) -> RecordHandle:
    """Open a range as PyTorch's record_function does: a function mode sees the packet
    `_record_function_enter_new`, a dispatch mode its default overload."""
    if stack.torch_function_wanted((name,)):
        import ember
        from ember.overrides import handle_torch_function
        return handle_torch_function(ember.ops.profiler._record_function_enter_new, (),
                                     name, args)
    return stack.call_aten(ENTER, (name, args))


def exit_(handle) -> None:
    """Close the range `enter` opened (`_record_function_exit._RecordFunction`)."""
    if stack.torch_function_wanted((handle,)):
        from ember.overrides import handle_torch_function
        handle_torch_function(EXIT, (), handle)
        return
    stack.call_aten(EXIT, (handle,))
