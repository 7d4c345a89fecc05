"""`GradScaler`: dynamic loss scaling for mixed-precision training. The loss is multiplied by
a scale before backward; before the optimizer steps, gradients are divided by it and checked
for inf/NaN; a step with non-finite gradients is skipped and the scale backs off, and after
`growth_interval` clean steps it grows (PyTorch's scale sequence)."""
from __future__ import annotations

import warnings
from collections import abc, defaultdict
from enum import Enum

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            import ember
            if not ember.cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available."
                              "  Disabling.", stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_state)

    def _check_initialised(self, what: str) -> None:
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {what} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {what} but _growth_tracker is None.  " + fix)

    def _lazy_init(self, device) -> None:
        import ember
        self._scale = ember.full((), self._init_scale, dtype=ember.float32, device=device)
        self._growth_tracker = ember.full((), self._init_growth_tracker, dtype=ember.int32,
                                          device=device)

    def scale(self, outputs):
        """`outputs` (a tensor, or an iterable of them) multiplied by the current scale."""
        import ember
        if not self._enabled:
            return outputs

        def apply(value):
            if isinstance(value, ember.Tensor):
                if self._scale is None:
                    self._lazy_init(value.device)
                return value * self._scale.to(value.device)
            if isinstance(value, abc.Iterable):
                mapped = map(apply, value)
                return type(value)(mapped) if isinstance(value, (list, tuple)) else mapped
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply(outputs)

    def _unscale_grads(self, optimizer, inv_scale: float, allow_fp16: bool) -> dict:
        """Multiply every gradient by inv_scale in place; per device, 1.0 if any was not
        finite."""
        import ember
        found: dict = {}
        with ember.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype == ember.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    device = grad.device
                    flag = found.get(device)
                    if flag is None:
                        flag = found[device] = ember.zeros((), dtype=ember.float32,
                                                           device=device)
                    if not bool(ember.isfinite(grad).all()):
                        flag.fill_(1.0)
                    grad.mul_(inv_scale)
        return found

    def unscale_(self, optimizer) -> None:
        """Divide the optimizer's gradients by the scale (once per step), recording inf/NaN."""
        if not self._enabled:
            return
        self._check_initialised("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        import numpy as np
        inv_scale = float(np.float32(1.0 / float(self._scale.double().item())))
        state["found_inf_per_device"] = self._unscale_grads(optimizer, inv_scale, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale (if not done yet) and step the optimizer unless a gradient was inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_initialised("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None) -> None:
        """Back off the scale after a skipped step, grow it after `growth_interval` clean
        ones (or set it to `new_scale`)."""
        import ember
        if not self._enabled:
            return
        self._check_initialised("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor "
                          "or torch.FloatTensor with requires_grad=False.")
                if not isinstance(new_scale, ember.Tensor) or \
                        new_scale.device.type != self._device or new_scale.numel() != 1 or \
                        new_scale.requires_grad:
                    raise AssertionError(reason)
                self._scale.copy_(new_scale)
        else:
            flags = [flag for state in self._per_optimizer_states.values()
                     for flag in state["found_inf_per_device"].values()]
            if len(flags) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            if sum(float(f.item()) for f in flags):
                self._scale.mul_(self._backoff_factor)
                self._growth_tracker.fill_(0)
            else:
                grown = int(self._growth_tracker.item()) + 1
                if grown == self._growth_interval:
                    self._scale.mul_(self._growth_factor)
                    grown = 0
                self._growth_tracker.fill_(grown)
        self._per_optimizer_states = defaultdict(_fresh_state)

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else \
            int(self._growth_tracker.item())

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the "
                                     "beginning of an iteration, or at the end after "
                                     "scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
