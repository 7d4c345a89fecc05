"""The small helpers of ember.utils.checkpoint: its error class, the process-wide switches
(debug, early stop), the device RNG-state helpers and GraphExecGroup."""
from __future__ import annotations

import contextlib
import warnings

from ember._core import dispatch


class CheckpointError(RuntimeError):
    """A checkpointed region recomputed differently from its forward pass."""


class _Switches:
    debug = None         # set_checkpoint_debug_enabled: None defers to checkpoint(debug=)
    early_stop = None    # set_checkpoint_early_stop: None defers to checkpoint(early_stop=)
    graph_exec_group = None


switches = _Switches()


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """Within the block, checkpoint's `debug` is `enabled` (None: each call's own)."""
    previous = switches.debug
    switches.debug = enabled
    try:
        yield
    finally:
        switches.debug = previous


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Within the block, checkpoints made take `early_stop=enable`.

    NOTE [checkpoint recomputes the whole region]: ember's non-reentrant checkpoint reruns the
    region's function and backpropagates through the rerun from its outputs, so the recompute
    always runs to the end of the function: ember counts recomputes as PyTorch does with
    early stop off. Gradients are the same either way; the switch is kept for code that sets
    it.
    """
    previous = switches.early_stop
    switches.early_stop = enable
    try:
        yield
    finally:
        switches.early_stop = previous


def detach_variable(inputs):
    """A tuple of the inputs, each tensor detached with its requires_grad kept."""
    if not isinstance(inputs, tuple):
        message = ("Only tuple of tensors is supported. Got Unsupported input type: "
                   f"{type(inputs).__name__}")
        raise RuntimeError(message)  # noqa: TRY004 (PyTorch's class)
    detached = []
    for value in inputs:
        if isinstance(value, dispatch.Tensor):
            copy = value.detach()
            copy.requires_grad = value.requires_grad
            value = copy
        detached.append(value)
    return tuple(detached)


def check_backward_validity(inputs) -> None:
    """Warn when no tensor among the inputs requires grad."""
    if not any(x.requires_grad for x in inputs if isinstance(x, dispatch.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


class DefaultDeviceType:
    """The device type whose RNG state checkpointing saves when no argument is on an
    accelerator: the current accelerator's, else "cpu", unless set."""

    _default_device_type = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        if not DefaultDeviceType._default_device_type:
            from ember.accelerator import current_accelerator
            found = current_accelerator(True)
            DefaultDeviceType._default_device_type = found.type if found else "cpu"
        return DefaultDeviceType._default_device_type


def _accelerator_tensors(args):
    from ember.utils._pytree import _flatten
    return [x for x in _flatten(args)[0]
            if isinstance(x, dispatch.Tensor) and x.device.type not in ("cpu", "meta")]


def _infer_device_type(args):
    types = [t.device.type for t in _accelerator_tensors(args)]
    if len(set(types)) > 1:
        warnings.warn("Tensor arguments, excluding CPU tensors, are detected on at least two "
                      "types of devices. Device state will only be saved for devices of a "
                      "single device type, and the remaining devices will be ignored. "
                      "Consequently, if any checkpointed functions involve randomness, this "
                      "may result in incorrect gradients. (Note that if CUDA devices are among "
                      "the devices detected, it will be prioritized; otherwise, the first "
                      "device encountered will be selected.)\nDevice types: "
                      f"{sorted(set(types))} first device type: {types[0]}", stacklevel=3)
    if not types:
        return DefaultDeviceType.get_device_type()
    return "cuda" if "cuda" in types else types[0]


def _device_module(device_type):
    import ember
    return ember.get_device_module(device_type)


def get_device_states(*args):
    """(device indices, RNG states) of the accelerator devices the tensor arguments are on."""
    indices = [t.get_device() for t in _accelerator_tensors(args)]
    if not indices:
        return [], []
    module = _device_module(_infer_device_type(args))
    states = []
    for index in indices:
        with module.device(index):
            states.append(module.get_rng_state())
    return indices, states


def set_device_states(devices, states, *, device_type=None) -> None:
    """Set the RNG state of each device (of device_type, default DefaultDeviceType's)."""
    if device_type is None:
        device_type = DefaultDeviceType.get_device_type()
    if device_type == "meta":
        return
    module = _device_module(device_type)
    for index, state in zip(devices, states):
        with module.device(index):
            module.set_rng_state(state)


class GraphExecGroup:
    """Backward passes run inside one such block recompute each checkpointed region
    (use_reentrant=False) at most once, however many backward calls reach it."""

    def __enter__(self):
        if switches.graph_exec_group is not None:
            raise RuntimeError("GraphExecGroup contexts cannot be nested. Already inside group "
                               f"{switches.graph_exec_group}")
        switches.graph_exec_group = self
        return self

    def __exit__(self, *exc) -> None:
        switches.graph_exec_group = None
        # The reruns kept for this group go, and the regions whose release it held back are
        # released now (CheckpointRecomputeBackward in checkpoint.py).
        for node in self.__dict__.pop("_reran", ()):
            node.__dict__.pop("_group_rerun", None)
        for node in self.__dict__.pop("_held", ()):
            node.release()

    @classmethod
    def _get_current_group(cls):
        return switches.graph_exec_group
