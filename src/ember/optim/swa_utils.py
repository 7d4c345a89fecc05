"""Stochastic weight averaging and EMA: `AveragedModel` (a running average of a model's
parameters), the averaging functions (`get_ema_multi_avg_fn` ...), `update_bn` (recompute
BatchNorm statistics for the averaged weights) and the `SWALR` schedule."""
from __future__ import annotations

import itertools
import math
from copy import deepcopy

from ember.optim._lr_base import LRScheduler, per_group, warn_get_lr_outside_step

__all__ = ["SWALR", "AveragedModel", "get_ema_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_avg_fn", "get_swa_multi_avg_fn", "update_bn"]


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place exponential moving average over lists of tensors."""
    _check_decay(decay)

    def ema_update(ema_params, current_params, _num_averaged) -> None:
        import ember
        with ember.no_grad():
            floating = ema_params[0].is_floating_point() or ema_params[0].is_complex()
            for ema, current in zip(ema_params, current_params):
                if floating:
                    ema.lerp_(current, 1 - decay)
                else:
                    ema.copy_(ema * decay + current * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """An in-place running mean over lists of tensors."""
    def swa_update(averaged_params, current_params, num_averaged) -> None:
        import ember
        with ember.no_grad():
            floating = averaged_params[0].is_floating_point() or averaged_params[0].is_complex()
            for averaged, current in zip(averaged_params, current_params):
                if floating:
                    averaged.lerp_(current, float(1 / (num_averaged + 1)))
                else:
                    averaged.add_((current - averaged) / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """decay * averaged + (1 - decay) * current, per tensor."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        import ember
        with ember.no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """The running mean, per tensor."""
    def swa_update(averaged_param, current_param, num_averaged):
        import ember
        with ember.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def _averaged_model_class():
    import ember
    from ember.nn import Module

    class AveragedModel(Module):
        """A deep copy of `model` whose parameters `update_parameters(model)` averages
        (SWA by default; EMA with `multi_avg_fn=get_ema_multi_avg_fn(decay)`)."""

        def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None,
                     use_buffers=False) -> None:
            super().__init__()
            if avg_fn is not None and multi_avg_fn is not None:
                raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
            self.module = deepcopy(model)
            if device is not None:
                self.module = self.module.to(device)
            self.register_buffer("n_averaged", ember.tensor(0, dtype=ember.long,
                                                             device=device))
            self.avg_fn = avg_fn
            self.multi_avg_fn = multi_avg_fn
            self.use_buffers = use_buffers

        def forward(self, *args, **kwargs):
            return self.module(*args, **kwargs)

        def update_parameters(self, model) -> None:
            """Fold `model`'s current parameters (and buffers with use_buffers) into the
            average."""
            if self.use_buffers:
                own = itertools.chain(self.module.parameters(), self.module.buffers())
                theirs = itertools.chain(model.parameters(), model.buffers())
            else:
                own, theirs = self.parameters(), model.parameters()
            own_detached, their_detached = [], []
            first = bool(self.n_averaged == 0)
            for p_averaged, p_model in zip(own, theirs):
                current = p_model.detach().to(p_averaged.device)
                own_detached.append(p_averaged.detach())
                their_detached.append(current)
                if first:
                    p_averaged.detach().copy_(current)
            if self.n_averaged > 0:
                if self.avg_fn is None:
                    update = self.multi_avg_fn or get_swa_multi_avg_fn()
                    groups: dict = {}
                    for a, b in zip(own_detached, their_detached):
                        key = (a.device, a.dtype)
                        groups.setdefault(key, ([], []))
                        groups[key][0].append(a)
                        groups[key][1].append(b)
                    for (device, _), (mine, current) in groups.items():
                        update(mine, current, self.n_averaged.to(device))
                else:
                    for a, b in zip(own_detached, their_detached):
                        a.copy_(self.avg_fn(a, b, self.n_averaged.to(a.device)))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            with ember.no_grad():
                self.n_averaged += 1

    return AveragedModel


def update_bn(loader, model, device=None) -> None:
    """Recompute every BatchNorm's running statistics with one pass over `loader` (the
    cumulative average: momentum None)."""
    import ember
    from ember.nn.modules.batchnorm import _BatchNorm
    with ember.no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


def _cosine_anneal(t):
    return (1 - math.cos(math.pi * t)) / 2


def _linear_anneal(t):
    return t


class SWALR(LRScheduler):
    """Anneals each group's rate to `swa_lr` over `anneal_epochs`, then holds it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1) -> None:
        for value, group in zip(per_group("swa_lr", optimizer, swa_lr),
                                optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @property
    def anneal_func(self):
        return _cosine_anneal if self._anneal_strategy == "cos" else _linear_anneal

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        warn_get_lr_outside_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        groups = self.optimizer.param_groups
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, prev_lrs)]


def __getattr__(name):
    # AveragedModel is an nn.Module: built on first use so that importing ember.optim does
    # not import ember.nn.
    if name == "AveragedModel":
        cls = _averaged_model_class()
        globals()["AveragedModel"] = cls
        return cls
    raise AttributeError(f"module 'ember.optim.swa_utils' has no attribute '{name}'")
