"""`ember.compile` as `ember.compiler` sees it: the default backend (`set_default_backend`) and
the stance (`set_stance`) applied around the capture front, `ember._dynamo.compile_entry`.

NOTE [compile stance]: the stance is read at each call of a compiled function or module, as in
PyTorch: under "force_eager" the original runs without capture. The stances that steer
recompilation ("eager_on_recompile", "fail_on_recompile", "eager_then_compile") need the
capture's cache, which this front does not reach: they raise NotImplementedError.
"""
from __future__ import annotations

import contextlib
import functools

_STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile",
            "eager_then_compile", "aot_eager_then_compile")
_SUPPORTED = ("default", "force_eager")
_state = {"backend": "inductor", "stance": "default", "force_backend": None}


def get_default_backend():
    return _state["backend"]


def set_default_backend(backend) -> None:
    """The backend `ember.compile` uses when it is given none (an unknown name raises when
    `compile` looks it up, as in PyTorch)."""
    _state["backend"] = backend


class set_stance(contextlib.ContextDecorator):
    """`set_stance("force_eager")`: compiled code runs eagerly (for the rest of the program, or
    inside a `with` block / decorated function) (NOTE [compile stance])."""

    def __init__(self, stance: str = "default", *, skip_guard_eval_unsafe: bool = False,
                 force_backend=None) -> None:
        if stance in _STANCES and stance not in _SUPPORTED:
            raise NotImplementedError(f"ember.compiler.set_stance({stance!r}): ember's capture "
                                      "supports the 'default' and 'force_eager' stances")
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        self.stance = stance
        self.prev = dict(_state)
        _state.update(stance=stance, force_backend=force_backend)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        _state.update(stance=self.prev["stance"], force_backend=self.prev["force_backend"])
        return False

    def clone(self):
        return set_stance(self.stance)


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend=None, mode=None,
            options=None, disable: bool = False):
    """`ember.compile`: `backend` defaults to `get_default_backend()`; calls honour the stance
    (NOTE [compile stance]). The capture itself is `ember._dynamo.compile_entry`'s."""
    from ember._dynamo.eval_frame import compile_entry
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
    backend = _state["backend"] if backend is None else backend
    compiled = compile_entry(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                             mode=mode, options=options, disable=disable)
    if compiled is model:
        return compiled
    from ember.nn import Module
    if isinstance(compiled, Module):
        compiled.__class__ = _stance_module_class(type(compiled))
        return compiled

    @functools.wraps(model)
    def staged(*args, **kw):
        if _state["stance"] != "default":
            _check_stance()
            if _state["stance"] == "force_eager":
                return model(*args, **kw)
        return compiled(*args, **kw)
    return staged


def _check_stance() -> None:
    if _state["stance"] not in _SUPPORTED:      # (PyTorch, too, finds out at the call)
        raise ValueError(f"Invalid stance: {_state['stance']!r}; expected one of "
                         f"{', '.join(_STANCES)}")


@functools.cache
def _stance_module_class(base):
    def forward(self, *args, **kwargs):
        _check_stance()
        if _state["stance"] == "force_eager":
            return self._orig_mod(*args, **kwargs)
        return base.forward(self, *args, **kwargs)
    return type(base.__name__, (base,), {"forward": forward, "__module__": base.__module__,
                                         "__qualname__": base.__qualname__})
