"""ember.random: the CPU generator's seeding and state functions, and `fork_rng`, which runs a
block with the random state saved and restored (torch.random)."""
from __future__ import annotations

import contextlib

from ember._random import (
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
    thread_safe_generator,
)

__all__ = ["default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed",
           "seed", "set_rng_state", "thread_safe_generator"]


def set_exact_rejection_sampling(enabled: bool) -> None:
    """ember's own switch: with it on, the CPU gamma, Dirichlet, poisson and binomial samplers
    (and the Gamma, Beta, Chi2, StudentT, Dirichlet, Poisson, Binomial distributions) give
    PyTorch's numbers for a seed and leave the generator where PyTorch leaves it, at many times
    the cost; off (the default) they give NumPy's samples seeded from the stream (NOTE [exact
    rejection streams are opt-in])."""
    from ember._ops import random_chain
    random_chain.EXACT[0] = bool(enabled)


def is_exact_rejection_sampling_enabled() -> bool:
    from ember._ops import random_chain
    return random_chain.EXACT[0]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Run the block, then put the CPU generator (and, where the device module keeps one, each
    listed device's generator) back in the state it had: numbers drawn inside leave no trace
    outside. With `enabled=False` nothing is saved."""
    if not enabled:
        yield
        return
    cpu_state = get_rng_state()
    device_module, device_states = _device_states(devices, device_type or "cuda")
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for index, state in device_states:
            device_module.set_rng_state(state, index)


def _device_states(devices, device_type):
    import ember
    module = getattr(ember, device_type, None)
    if module is None or not module.is_available() or not hasattr(module, "get_rng_state"):
        return module, []
    indices = range(module.device_count()) if devices is None else \
        [ember.device(d).index if not isinstance(d, int) else d for d in devices]
    return module, [(i, module.get_rng_state(i)) for i in indices]
