"""`ember._dynamo`: graph capture behind `ember.compile` (PyTorch's TorchDynamo) — a symbolic
bytecode interpreter that records a function's tensor ops into FX graphs, guards, a cache per
code object, graph breaks split into resume functions. NOTE [how capture runs] in
convert_frame.py; the front (`compile`, `OptimizedModule`) in eval_frame.py."""
from ember._dynamo import config, exc
from ember._dynamo.backends import list_backends, lookup_backend, register_backend
from ember._dynamo.eval_frame import (
    OptimizedModule,
    compile_entry,
    disable,
    is_compiling,
    reset,
)
from ember._dynamo.explain import explain

__all__ = ["OptimizedModule", "compile_entry", "config", "disable", "exc", "explain",
           "is_compiling", "list_backends", "lookup_backend", "register_backend", "reset"]
