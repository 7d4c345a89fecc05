"""ember.backends.miopen: AMD's MIOpen flag (`immediate` mode), stored: ember has no MIOpen."""
from __future__ import annotations

import contextlib

from ember.backends._props import ContextProp, PropModule, global_flag, wrap  # noqa: F401

immediate = False


def set_flags(_immediate=None) -> tuple:
    global immediate
    previous = (immediate,)
    if _immediate is not None:
        immediate = _immediate
    return previous


@contextlib.contextmanager
def flags(immediate=False):
    previous = set_flags(immediate)
    try:
        yield
    finally:
        set_flags(*previous)


class MiopenModule(PropModule):
    """This module with its flags as properties (NOTE [back-end flags are module properties])."""

    immediate = global_flag(globals(), 'immediate')


wrap(__name__, MiopenModule)
