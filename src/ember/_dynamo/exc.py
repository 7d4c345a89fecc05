"""The exception classes of `ember._dynamo` (PyTorch's names and bases)."""


class TorchDynamoException(RuntimeError):
    """The base of the compile front's errors."""


class InvalidBackend(TorchDynamoException):
    """`compile(..., backend=name)` with a name no backend is registered under."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for "
                         "available backends.")


class Unsupported(TorchDynamoException):
    """Capture met something it cannot record faithfully (a graph break). Raised to the user
    only under `fullgraph=True`; otherwise the frame is split there or runs eagerly."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def unimplemented(reason: str):
    """Stop capture here: `reason` becomes the graph break's reason."""
    raise Unsupported(reason)
