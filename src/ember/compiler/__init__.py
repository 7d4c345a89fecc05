"""`ember.compiler`: the compiler's public switches (NOTE [compile runs eagerly] in
`ember/_dynamo`: with no graph compiler yet, nothing is ever being compiled)."""
from ember._dynamo.eval_frame import disable, is_compiling, list_backends, reset


def is_dynamo_compiling() -> bool:
    """Whether the caller is being traced by the graph capture: never, in ember."""
    return False


def assume_constant_result(fn):
    """Mark `fn`'s result as constant for tracing; nothing is traced, so `fn` comes back."""
    return fn


def allow_in_graph(fn):
    """Let `fn` into captured graphs as one call; nothing is captured, so `fn` comes back."""
    return fn


__all__ = ["allow_in_graph", "assume_constant_result", "disable", "is_compiling",
           "is_dynamo_compiling", "list_backends", "reset"]
