"""`ember._dynamo.config`: the capture's settings (PyTorch's names)."""

# How many compiled entries one code object may hold; one more guard failure runs it eagerly
# with a warning naming the failing guard.
recompile_limit = 8
# Deepest chain of inlined calls before the call becomes a graph break.
inline_depth_limit = 32
