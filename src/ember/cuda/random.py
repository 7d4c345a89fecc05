"""`ember.cuda.random`: the CUDA generators' seeds and states. Without CUDA the seeding calls are
no-ops and `get_rng_state_all` is empty, as in a CPU-only PyTorch; asking for a state or the
initial seed raises its "not compiled with CUDA" error."""
from __future__ import annotations

from ember._backends.cuda import (
    _cupy,
    _require,
    _seed,
    device_count,
    manual_seed,
    manual_seed_all,
    not_supported,
)

__all__ = [
    "get_rng_state",
    "get_rng_state_all",
    "initial_seed",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "set_rng_state",
    "set_rng_state_all",
]


def get_rng_state(device="cuda"):
    _require()
    raise not_supported("torch.cuda.get_rng_state (CuPy's generator state)")


def get_rng_state_all() -> list:
    return [get_rng_state(f"cuda:{i}") for i in range(device_count())]


def set_rng_state(new_state, device="cuda") -> None:
    """Queued until CUDA starts in PyTorch, so without CUDA nothing happens."""
    if _cupy() is not None:
        raise not_supported("torch.cuda.set_rng_state (CuPy's generator state)")


def set_rng_state_all(new_states) -> None:
    for index, state in enumerate(new_states):
        set_rng_state(state, index)


def seed() -> None:
    """Seed the current GPU's generator from the OS's entropy (a no-op without CUDA)."""
    cupy = _cupy()
    if cupy is not None:
        import secrets
        manual_seed(secrets.randbits(63))


def seed_all() -> None:
    seed()


def initial_seed() -> int:
    _require()
    if _seed[0] is None:            # never seeded: seed it now, so that the answer is true
        seed()
    return _seed[0]
