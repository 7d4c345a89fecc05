"""`ember.compiler`: the compiler's public switches (graph capture lives in `ember/_dynamo`,
NOTE [how capture runs])."""
from ember._dynamo.backends import list_backends
from ember._dynamo.eval_frame import disable, is_compiling, reset


def is_dynamo_compiling() -> bool:
    """Whether the caller is being captured (True in captured code)."""
    return is_compiling()


def assume_constant_result(fn):
    """Mark `fn`'s result as constant for tracing: not used by capture yet, `fn` comes back."""
    return fn


def allow_in_graph(fn):
    """Let `fn` into captured graphs as one call: not used by capture yet, `fn` comes back."""
    return fn


__all__ = ["allow_in_graph", "assume_constant_result", "disable", "is_compiling",
           "is_dynamo_compiling", "list_backends", "reset"]
