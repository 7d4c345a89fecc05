"""Random number generators: `ember.Generator`, the default generator and global seeding.

A Generator wraps NumPy's PCG64 bit generator. Same seed, same numbers within ember; the stream
is not PyTorch's (NOTE [random streams differ from PyTorch]). Its state is a uint8 tensor that
packs the PCG64 state, so `get_state`/`set_state` round-trip exactly.
"""
from __future__ import annotations

import os

import numpy as np

from ember._core.checks import _check, _check_type, _check_value
from ember._core.device import as_device

# PyTorch's documented default seed of a fresh CPU generator.
DEFAULT_SEED = 67280421310721
_MASK64 = (1 << 64) - 1
_MAGIC = b"ember-pcg64\x00"
# Layout of the state tensor: magic, initial seed, PCG64 state and increment (128-bit each),
# the cached half-word flag and value.
_STATE_BYTES = len(_MAGIC) + 8 + 16 + 16 + 8 + 8


class Generator:
    """A source of random numbers; pass it as `generator=` to the random ops."""

    def __init__(self, device="cpu"):
        device = as_device(device)
        _check(device.type != "meta", "META device type not an accelerator.")
        self._device = device
        self.manual_seed(DEFAULT_SEED)

    @property
    def device(self):
        return self._device

    def manual_seed(self, seed) -> Generator:
        """Reseed; negative seeds wrap to 64 bits as in PyTorch."""
        _check(isinstance(seed, (int, np.integer)), lambda: (
                   f"manual_seed expected a long, but got {type(seed).__name__}"))
        seed = int(seed)
        _check_value(-(1 << 63) <= seed <= _MASK64, "Overflow when unpacking long long")
        self._initial_seed = seed & _MASK64
        self._bits = np.random.PCG64(self._initial_seed)
        self._numpy = np.random.Generator(self._bits)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        seed = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        return self._initial_seed

    def get_state(self):
        """The generator's full state as a uint8 tensor (feed it to `set_state`)."""
        from ember._ops.creation_data import from_numpy
        state = self._bits.state
        raw = (_MAGIC + self._initial_seed.to_bytes(8, "little") +
               int(state["state"]["state"]).to_bytes(16, "little") +
               int(state["state"]["inc"]).to_bytes(16, "little") +
               int(state["has_uint32"]).to_bytes(8, "little") +
               int(state["uinteger"]).to_bytes(8, "little"))
        return from_numpy(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state) -> Generator:
        from ember._core import dtype as dt
        from ember._core.dispatch import Tensor
        _check_type(isinstance(new_state, Tensor), lambda: (
            f"expected a torch.ByteTensor, but got {type(new_state).__name__}"))
        _check_type(new_state._dtype is dt.uint8, "RNG state must be a torch.ByteTensor")
        raw = bytes(np.ascontiguousarray(new_state._host()).reshape(-1))
        _check(len(raw) == _STATE_BYTES and raw.startswith(_MAGIC), lambda: (
            f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input RNG "
            f"state size to be {len(raw)}"))
        at = len(_MAGIC)
        fields = [int.from_bytes(raw[at + a:at + b], "little")
                  for a, b in ((0, 8), (8, 24), (24, 40), (40, 48), (48, 56))]
        seed, pcg_state, inc, has_uint32, uinteger = fields
        self._initial_seed = seed
        self._bits = np.random.PCG64()
        self._bits.state = {"bit_generator": "PCG64",
                            "state": {"state": pcg_state, "inc": inc},
                            "has_uint32": has_uint32, "uinteger": uinteger}
        self._numpy = np.random.Generator(self._bits)
        return self

    def __repr__(self) -> str:
        return f"<ember._C.Generator object at {hex(id(self))}>"


default_generator = Generator()


def numpy_generator(generator=None) -> np.random.Generator:
    """The NumPy generator behind `generator` (the default one when None)."""
    if generator is None:
        return default_generator._numpy
    _check_type(isinstance(generator, Generator), lambda: (
        f"generator must be a ember.Generator, not {type(generator).__name__}"))
    return generator._numpy


def manual_seed(seed) -> Generator:
    """Seed the default generator (and so every op called without `generator=`)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from a fresh nondeterministic seed and return that seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state, as a uint8 tensor (`set_rng_state` restores it)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the default generator's state from a tensor `get_rng_state` returned."""
    default_generator.set_state(new_state)
