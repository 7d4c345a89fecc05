"""The exception classes of `ember._dynamo` (PyTorch's names and bases)."""


class TorchDynamoException(RuntimeError):
    """The base of the compile front's errors."""


class InvalidBackend(TorchDynamoException):
    """`compile(..., backend=name)` with a name no backend is registered under."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for "
                         "available backends.")
