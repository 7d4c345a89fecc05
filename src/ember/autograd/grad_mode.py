"""Grad modes: `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`, and the
engine switches `set_multithreading_enabled` and `enforce_grad_layout_policy`.

Each is a context manager and a decorator, and each is thread-local as in PyTorch: a mode set
in one thread does not leak into another.
"""
from __future__ import annotations

import functools
import inspect
import threading

from ember._core import dispatch
from ember._core.dispatch.process_state import state as _dispatch_state


class _ThreadState(threading.local):
    def __init__(self):
        self.grad_enabled = True
        self.inference = False
        self.marking_depth = 0     # open inference_mode blocks (the marking handler's users)
        self.multithreading = True         # set_multithreading_enabled (read by nothing:
        # ember's backward always runs on the calling thread)
        self.grad_layout_enforced = True   # enforce_grad_layout_policy (grad_layout.py)


_state = _ThreadState()


def is_grad_enabled() -> bool:
    """Whether ops record autograd history in this thread."""
    return _state.grad_enabled


def is_inference_mode_enabled() -> bool:
    """Whether this thread is inside `inference_mode`."""
    return _state.inference


# NOTE [grad mode switches reach function modes]: PyTorch's no_grad, enable_grad and
# set_grad_enabled switch through `torch._C._set_grad_enabled`, which a TorchFunctionMode sees
# (no_grad: False on entry, the previous mode on exit; set_grad_enabled: at construction, on
# entry and on exit; inference_mode is a C++ guard, unseen). ember's switches write the thread's
# flag directly while nothing is open (`state.slow` False) and go through `_set_grad_enabled`,
# public as `ember._C._set_grad_enabled`, otherwise: an optimizer's step shows its two calls.

def _set_grad_enabled(mode: bool) -> None:
    """Set this thread's grad mode (`torch._C._set_grad_enabled`)."""
    if _dispatch_state.slow:
        from ember._core.dispatch import stack
        if stack.torch_function_wanted(()):
            stack.handle_torch_function(_set_grad_enabled, (), (mode,), {})
            return
    _state.grad_enabled = bool(mode)


def _switch(mode: bool) -> None:
    # (the observed path of a grad-mode switch: NOTE [grad mode switches reach function modes])
    if _dispatch_state.slow:
        _set_grad_enabled(mode)
    else:
        _state.grad_enabled = mode


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generator functions)."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError("a grad mode can't decorate a class")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def generator_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                try:
                    with self.clone():
                        request = gen.send(None)
                    while True:
                        try:
                            response = yield request
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as exc:  # noqa: BLE001 -- forwarded into gen
                            with self.clone():
                                request = gen.throw(exc)
                        else:
                            with self.clone():
                                request = gen.send(response)
                except StopIteration as stop:
                    return stop.value
            return generator_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disable gradient recording inside the block (or the decorated function)."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _state.grad_enabled
        if _dispatch_state.slow:
            _set_grad_enabled(False)
        else:
            _state.grad_enabled = False

    def __exit__(self, *exc):
        if _dispatch_state.slow:
            _set_grad_enabled(self.prev)
        else:
            _state.grad_enabled = self.prev
        return False


class enable_grad(_DecoratorContextManager):
    """Enable gradient recording inside the block, even within `no_grad`."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _state.grad_enabled
        if _dispatch_state.slow:
            _set_grad_enabled(True)
        else:
            _state.grad_enabled = True

    def __exit__(self, *exc):
        if _dispatch_state.slow:
            _set_grad_enabled(self.prev)
        else:
            _state.grad_enabled = self.prev
        return False


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode on or off: immediately when called, undone when used as a context."""

    def __init__(self, mode: bool):
        if type(mode) is not bool:
            from ember._core.arguments import bool_
            mode = bool_(mode, ("set_grad_enabled", "enabled", 1))
        self.prev = _state.grad_enabled
        self.mode = mode
        _switch(mode)

    def __enter__(self):
        _switch(self.mode)

    def __exit__(self, *exc):
        _switch(self.prev)
        return False

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and tensors made inside are inference tensors (no autograd ever)."""

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)
        self.prev_grad = True
        self.prev_inference = False

    def __new__(cls, mode=True):
        if isinstance(mode, bool) or mode is None:
            return super().__new__(cls)
        # Used bare as a decorator: @inference_mode
        return cls()(mode)

    def __enter__(self):
        self.prev_grad = _state.grad_enabled
        self.prev_inference = _state.inference
        if self.mode:
            _state.grad_enabled = False
            _state.inference = True
        else:
            _state.inference = False
        _marker.enter()

    def __exit__(self, *exc):
        _state.grad_enabled = self.prev_grad
        _state.inference = self.prev_inference
        _marker.exit()
        return False

    def clone(self):
        return self.__class__(self.mode)


# NOTE [inference tensors]: while an inference_mode block is open in a thread, a handler at its
# autograd level marks every tensor an op makes while the thread is in inference mode
# (`_inference` in its __dict__). Such tensors refuse autograd later: recording a node that saves
# one raises, and so do in-place updates and requires_grad_(True) outside inference mode.
_INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")
_INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")


def is_inference(t) -> bool:
    return "_inference" in t.__dict__


def mark_inference(result) -> None:
    """Mark a tensor (or the tensors of a tuple) made inside inference mode."""
    if _state.inference:
        for t in result if isinstance(result, (tuple, list)) else (result,):
            if isinstance(t, dispatch.Tensor):
                t.__dict__["_inference"] = True


def check_requires_grad(t) -> None:
    """requires_grad_(True) on an inference tensor outside inference mode raises."""
    if "_inference" in t.__dict__ and not _state.inference:
        raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                           "InferenceMode is not allowed.")


def _inplace_guard(self) -> None:
    if not _state.inference and "_inference" in self.__dict__:
        raise RuntimeError(_INFERENCE_INPLACE)


class _Marker:
    """Installs the marking handler in this thread while its inference_mode blocks are open
    (NOTE [mode state is per thread], dispatch/stack.py)."""

    def enter(self) -> None:
        depth = _state.marking_depth
        _state.marking_depth = depth + 1
        if depth == 0:
            dispatch.modes.handlers.append(_mark_handler)
            dispatch.state.inplace_guard = _inplace_guard
            dispatch.open_entry()

    def exit(self) -> None:
        _state.marking_depth -= 1
        if _state.marking_depth == 0:
            dispatch.modes.handlers.remove(_mark_handler)
            dispatch.close_entry()


def _mark_handler(op, args, default):
    result = default(op, args)
    mark_inference(result)
    return result


_marker = _Marker()


class set_multithreading_enabled(_DecoratorContextManager):
    """Whether backward may run on per-device worker threads (this thread's switch; set when
    made, put back on leaving the block). ember's engine always runs backward on the calling
    thread, which is what False asks for, so the switch changes nothing else."""

    def __init__(self, mode: bool) -> None:
        self.prev = _state.multithreading
        _state.multithreading = bool(mode)
        self.mode = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _state.multithreading = self.prev

    def clone(self):
        return self.__class__(self.mode)


class enforce_grad_layout_policy(_DecoratorContextManager):
    """Whether a leaf's first gradient is made to follow NOTE [the gradient layout contract]
    (grad_layout.py). With False, a gradient the engine may steal is stolen whatever its
    strides; a gradient that must be copied is still copied in the contract's layout. This
    thread's switch: set when made, put back on leaving the block."""

    def __init__(self, enable: bool = True) -> None:
        self.prev = _state.grad_layout_enforced
        _state.grad_layout_enforced = bool(enable)
        self.mode = enable

    def __call__(self, func):
        _state.grad_layout_enforced = self.prev     # as a decorator: only while func runs
        return super().__call__(func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _state.grad_layout_enforced = self.prev

    def clone(self):
        return self.__class__(self.mode)
