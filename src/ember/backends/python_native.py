"""ember.backends.python_native: PyTorch's switches for ops overridden by kernels written in
Python DSLs (Triton, CuTe DSL). ember has no such kernels, so no DSL is available; the enable /
disable lists are kept and read back."""
from __future__ import annotations

import contextlib

from ember.backends._props import ContextProp, PropModule, flags_frozen, wrap  # noqa: F401

all_dsls = ["cutedsl", "triton"]
available_dsls: list = []
_disabled_ops: set = set()
_disabled_keys: set = set()


class DSLController:
    """The switch of one DSL's overrides."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.enabled = True

    @property
    def available(self) -> bool:
        return self.name in available_dsls

    def enable(self) -> None:
        self.enabled = True

    def disable(self) -> None:
        self.enabled = False

    def __repr__(self) -> str:
        state = "available" if self.available else "unavailable"
        return f"DSLController({self.name}, {state}, {'enabled' if self.enabled else 'disabled'})"


cutedsl = DSLController("cutedsl")
triton = DSLController("triton")


def is_dsl_disabled(dsl_name: str) -> bool:
    return dsl_name in all_dsls and not globals()[dsl_name].enabled


def get_dsl_operations(dsl_name: str) -> list:
    """The ops a DSL overrides: none in ember."""
    return []


def disable_operations(*op_symbols: str) -> None:
    _disabled_ops.update(op_symbols)


def enable_operations(*op_symbols: str) -> None:
    _disabled_ops.difference_update(op_symbols)


def is_operation_disabled(op_symbol: str) -> bool:
    return op_symbol in _disabled_ops


def disable_dispatch_keys(*dispatch_keys: str) -> None:
    _disabled_keys.update(dispatch_keys)


def enable_dispatch_keys(*dispatch_keys: str) -> None:
    _disabled_keys.difference_update(dispatch_keys)


@contextlib.contextmanager
def operations_disabled(*op_symbols: str):
    newly = [op for op in op_symbols if op not in _disabled_ops]
    disable_operations(*newly)
    try:
        yield
    finally:
        enable_operations(*newly)


class PythonNativeModule(PropModule):
    """This module as a module object (PyTorch's shape; it has no flags of its own)."""


wrap(__name__, PythonNativeModule)
