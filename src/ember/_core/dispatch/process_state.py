"""The process-wide switches the per-op path reads, one attribute each (`dispatch.state`).

Mode state that differs per thread (modes, inference marking) lives in stack.py's
thread-local `modes`; forward AD's handler, open for every thread as in PyTorch, sits in
stack.py's `global_handlers`. `state.slow` only says that some thread has some of it.
"""
from __future__ import annotations


class _State:
    __slots__ = (
        "deterministic",
        "entry",
        "entry_subclass",
        "grad_enabled",
        "inplace_guard",
        "on_inplace",
        "overriding",
        "record",
        "record_inplace",
        "slow",
    )

    def __init__(self):
        # NOTE [the slow path]: True while any thread has a mode, handler or guard open, or
        # deterministic checks are on; the plain path reads nothing else.
        self.slow = False
        self.record = None           # autograd: record(op, args, result) when inputs need grad
        self.record_inplace = None   # autograd: record_inplace(op, args) for in-place ops
        self.grad_enabled = lambda: False  # autograd installs its grad-mode getter
        self.deterministic = None    # (op) -> None, raises or warns for nondeterministic ops
        # (self) before an in-place op; set once inference tensors exist (they refuse it)
        self.inplace_guard = None
        # True once a Tensor subclass that overrides __torch_function__ exists (subclasses.py)
        self.overriding = False
        self.on_inplace = None       # (self, result) after a layered in-place op (forward AD)
        # NOTE [the public entry] (entry.py): `slow or entry_subclass`, the one test a
        # hand-written public function makes before it looks for __torch_function__.
        self.entry = False
        # True once a subclass exists whose __torch_function__ must see hand-written public
        # functions (every overriding one but the lazy placeholders, which refuse ops only)
        self.entry_subclass = False


state = _State()
