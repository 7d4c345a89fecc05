"""Random number generators: `ember.Generator`, the default generator and global seeding.

A Generator is PyTorch's CPU generator: a 32-bit Mersenne Twister (mt19937) whose key is set up
from the low 32 bits of the seed by the standard mt19937 initialisation, plus the cached second
Box-Muller sample of the scalar normal sampler. NumPy's MT19937 bit generator runs the same
recurrence, so the words are drawn from it in blocks: `random32` and `random64` use its raw
words or, for large blocks, NumPy's full-range integer samplers, which take one word per uint32
and two per uint64 (the first one high, PyTorch's composition) and never reject. What turns words into numbers lives in
`_ops/random_transforms.py` (NOTE [ember draws PyTorch's CPU stream]).

`get_state`/`set_state` speak PyTorch's CPU state layout, a 5056-byte uint8 tensor:

    offset  field
    0       uint64 initial seed
    8       int32  words left before the next twist (1: the next draw twists)
    12      int32  seeded flag
    16      uint64 index of the next word in the key
    24      uint64[624] the key (one 32-bit word in each 64-bit slot)
    5016    double unused, double cached double normal sample, double unused
    5040    int32  cached double normal sample valid
    5048    float  cached float normal sample
    5052    bool   cached float normal sample valid (then padding to 5056)

so a state taken from PyTorch continues PyTorch's stream here, and the other way round.
"""
from __future__ import annotations

import os

import numpy as np

from ember._core.checks import _check, _check_type, _check_value
from ember._core.device import as_device

# PyTorch's documented default seed of a fresh CPU generator.
DEFAULT_SEED = 67280421310721
_MASK64 = (1 << 64) - 1
_KEY_WORDS = 624
_STATE_BYTES = 5056
# Below this many draws NumPy's raw words are cheaper than its integer samplers' set-up.
_SMALL_DRAW = 4096
_KEY_AT = 24
_DOUBLE_NORMAL_AT, _DOUBLE_VALID_AT = 5024, 5040
_FLOAT_NORMAL_AT, _FLOAT_VALID_AT = 5048, 5052


def _seeded_key(seed32: int) -> np.ndarray:
    """The standard mt19937 key for a 32-bit seed (Knuth's multiplier 1812433253)."""
    key = [seed32]
    word = seed32
    for index in range(1, _KEY_WORDS):
        word = (1812433253 * (word ^ (word >> 30)) + index) & 0xFFFFFFFF
        key.append(word)
    return np.array(key, dtype=np.uint32)


class Generator:
    """A source of random numbers; pass it as `generator=` to the random ops."""

    def __init__(self, device="cpu"):
        device = as_device(device)
        _check(device.type != "meta", "META device type not an accelerator.")
        self._device = device
        self.manual_seed(DEFAULT_SEED)

    def __getattr__(self, name):
        # NOTE [NumPy's random module on first draw]: NumPy's bit generators live in
        # numpy.random (~12 ms to import), which `import ember` need not pay for: a generator
        # keeps its key as a pending state until the first draw or state read asks for
        # `_bits`, then makes them (later lookups find the attributes and never come here).
        if name in ("_bits", "_numpy"):
            import numpy.random
            bits = self._bits = numpy.random.MT19937()
            bits.state = self.__dict__.pop("_pending_state")
            self._numpy = numpy.random.Generator(bits)
            return self.__dict__[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def device(self):
        return self._device

    # ----------------------------------------------------------------- seeding

    def _set_key(self, key, position, word_index_if_exhausted=0):
        state = {"bit_generator": "MT19937", "state": {"key": key, "pos": position}}
        if "_bits" in self.__dict__:
            self._bits.state = state
        else:
            self._pending_state = state     # NOTE [NumPy's random module on first draw]
        # NumPy keeps one position where PyTorch keeps (words left, next index): at position
        # 624 PyTorch's index is 0 right after seeding but 624 after a full block; remember
        # which until the next draw so get_state gives PyTorch's bytes exactly.
        self._exhausted_index = word_index_if_exhausted

    def manual_seed(self, seed) -> Generator:
        """Reseed; negative seeds wrap to 64 bits as in PyTorch."""
        _check(isinstance(seed, (int, np.integer)), lambda: (
                   f"manual_seed expected a long, but got {type(seed).__name__}"))
        seed = int(seed)
        _check_value(-(1 << 63) <= seed <= _MASK64, "Overflow when unpacking long long")
        self._initial_seed = seed & _MASK64
        self._set_key(_seeded_key(self._initial_seed & 0xFFFFFFFF), _KEY_WORDS)
        self.next_double_normal = None
        self.next_float_normal = None
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        seed = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        return self._initial_seed

    # ----------------------------------------------------------------- drawing

    def random32(self, count: int) -> np.ndarray:
        """The next `count` 32-bit words of the stream (uint32)."""
        self._exhausted_index = _KEY_WORDS
        if count < _SMALL_DRAW:
            return self._bits.random_raw(count).astype(np.uint32)
        return self._numpy.integers(0, 1 << 32, count, dtype=np.uint32)

    def random64(self, count: int) -> np.ndarray:
        """The next `count` 64-bit draws (uint64), each two words, the first one high."""
        self._exhausted_index = _KEY_WORDS
        if count < _SMALL_DRAW:
            words = self._bits.random_raw(2 * count)
            return (words[0::2] << np.uint64(32)) | words[1::2]
        return self._numpy.integers(0, _MASK64, count, dtype=np.uint64, endpoint=True)

    # ----------------------------------------------------------------- state

    def get_state(self):
        """The generator's full state as a uint8 tensor in PyTorch's CPU layout."""
        from ember._ops.creation_data import from_numpy
        state = self._bits.state["state"]
        position = int(state["pos"])
        raw = np.zeros(_STATE_BYTES, dtype=np.uint8)
        raw[:24].view(np.uint64)[[0, 2]] = (
            self._initial_seed, position if position < _KEY_WORDS else self._exhausted_index)
        raw[8:16].view(np.int32)[:] = (_KEY_WORDS + 1 - position, 1)
        raw[_KEY_AT:_KEY_AT + 8 * _KEY_WORDS].view(np.uint64)[:] = state["key"]
        if self.next_double_normal is not None:
            raw[_DOUBLE_NORMAL_AT:_DOUBLE_NORMAL_AT + 8].view(np.float64)[0] = \
                self.next_double_normal
            raw[_DOUBLE_VALID_AT] = 1
        if self.next_float_normal is not None:
            raw[_FLOAT_NORMAL_AT:_FLOAT_NORMAL_AT + 4].view(np.float32)[0] = \
                self.next_float_normal
            raw[_FLOAT_VALID_AT] = 1
        return from_numpy(raw)

    def set_state(self, new_state) -> Generator:
        """Continue from a state `get_state` (ember's or PyTorch's) returned."""
        from ember._core import dtype as dt
        from ember._core.dispatch import Tensor
        _check_type(isinstance(new_state, Tensor), lambda: (
            f"expected a torch.ByteTensor, but got {type(new_state).__name__}"))
        _check_type(new_state._dtype is dt.uint8, "RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state._host()).reshape(-1)
        _check(raw.size == _STATE_BYTES, lambda: (
            f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input RNG "
            f"state size to be {raw.size}"))
        raw = raw.copy()
        seed, index = (int(v) for v in raw[:24].view(np.uint64)[[0, 2]])
        left = int(raw[8:12].view(np.int32)[0])
        key = raw[_KEY_AT:_KEY_AT + 8 * _KEY_WORDS].view(np.uint64).astype(np.uint32)
        self._initial_seed = seed
        # PyTorch twists when `left` runs down to 0 on a draw: at 1 the next draw twists.
        position = _KEY_WORDS if left <= 1 else min(index, _KEY_WORDS)
        self._set_key(key, position, index)
        self.next_double_normal = (
            float(raw[_DOUBLE_NORMAL_AT:_DOUBLE_NORMAL_AT + 8].view(np.float64)[0])
            if raw[_DOUBLE_VALID_AT:_DOUBLE_VALID_AT + 4].view(np.int32)[0] else None)
        self.next_float_normal = (
            float(raw[_FLOAT_NORMAL_AT:_FLOAT_NORMAL_AT + 4].view(np.float32)[0])
            if raw[_FLOAT_VALID_AT] else None)
        return self

    def __repr__(self) -> str:
        return f"<ember._C.Generator object at {hex(id(self))}>"


default_generator = Generator()


def cpu_generator(generator=None) -> Generator:
    """`generator`, or the default generator when None."""
    if generator is None:
        return default_generator
    _check_type(isinstance(generator, Generator), lambda: (
        f"generator must be a ember.Generator, not {type(generator).__name__}"))
    return generator


def manual_seed(seed) -> Generator:
    """Seed the default generator (and so every op called without `generator=`). As in
    PyTorch the seed goes through int() first: '5' and 1.7 are seeds, 'a' a ValueError."""
    return default_generator.manual_seed(int(seed))


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


def thread_safe_generator():
    """The generator a DataLoader thread worker keeps for itself, or None (the default
    generator) in the main process and in process workers, which are all ember's workers."""
    from ember._core import upcalls
    info = None if upcalls.worker_info is None else upcalls.worker_info()
    if info is not None and getattr(info, "worker_method", None) == "thread":
        rng = getattr(info, "rng", None)
        return None if rng is None else rng.torch_generator
    return None
