"""`ember.ops.aten`: every registry op by its ATen name, as in `torch.ops.aten`; the namespace
and its overload packets live in `_core/aten.py`."""
from ember._core.aten import OpOverloadPacket, aten  # noqa: F401  (the public names)


def __getattr__(name: str):
    # A namespace of users' ops (ember.library): `ember.ops.mylib.scale.default`.
    from ember import library
    return library.namespace(name)
