"""`ember._dynamo`: the front of `torch.compile` (`compile`, `OptimizedModule`, the backends'
names, `reset`, `disable`).

NOTE [compile runs eagerly]: ember has no graph compiler yet, so a compiled module or function
runs the original eagerly, exactly as PyTorch's `backend="eager"` does: same results, same
autograd, no speed-up. Everything a program can observe of the front is PyTorch's: the
`OptimizedModule` wrapper with its `_orig_mod` child (so state_dict keys carry PyTorch's
"_orig_mod." prefix), attribute forwarding, `functools.wraps` on functions, the argument
checks and their errors, `disable=True` giving the original back.
"""
from ember._dynamo import exc
from ember._dynamo.eval_frame import (
                                      OptimizedModule,
                                      compile_entry,
                                      disable,
                                      is_compiling,
                                      list_backends,
                                      reset,
)

__all__ = ["OptimizedModule", "compile_entry", "disable", "exc", "is_compiling",
           "list_backends", "reset"]
