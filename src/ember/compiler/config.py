"""`ember.compiler.config`: the compiler's user-facing settings (PyTorch's names and defaults).
The capture's own settings (`recompile_limit`, `verbose` ...) are `ember._dynamo.config`'s,
read and written through this module."""
from __future__ import annotations

import sys
import types

job_id = None
pgo_extra_read_key = None
pgo_extra_write_key = None
cache_key_tag = ""
force_disable_caches = False
dynamic_sources = ""
dynamic_values = ""
unbacked_sources = ""
force_cudagraph_gc = False


class _ConfigModule(types.ModuleType):
    def __getattr__(self, name: str):
        from ember._dynamo import config
        if not name.startswith("_") and hasattr(config, name):
            return getattr(config, name)
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        if name not in vars(self) and not name.startswith("_"):
            from ember._dynamo import config
            if hasattr(config, name):
                setattr(config, name, value)
                return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _ConfigModule
