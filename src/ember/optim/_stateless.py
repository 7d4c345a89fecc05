"""`swap_in_optimizer_params_and_state`: run an optimizer for a while on other parameter
tensors and another state (a `state_dict()`-shaped dict), then put the live ones back."""
from __future__ import annotations

import contextlib

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _refuse(message: str):
    raise RuntimeError(f"{_NAME} requires {message}")


def _checked_state(state) -> dict:
    from ember import Tensor
    if not isinstance(state, dict):
        _refuse("swapin_optim_state['state'] to be a dict mapping packed parameter ids to "
                f"per-param state dicts, got {type(state).__name__}.")
    if any(isinstance(key, Tensor) for key in state):
        _refuse("optimizer.state_dict()-style state keyed by packed parameter ids.")
    if any(isinstance(key, int) and not isinstance(value, dict) for key, value in state.items()):
        _refuse("per-parameter optimizer state entries to be dictionaries.")
    return state


def _checked_groups(optimizer, groups) -> list:
    if not isinstance(groups, list):
        _refuse("swapin_optim_state['param_groups'] to be a list of param-group dicts, got "
                f"{type(groups).__name__}.")
    if len(groups) != len(optimizer.param_groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups than "
                           "the live optimizer.")
    return groups


def _checked_ids(index: int, live: dict, given) -> list:
    if not isinstance(given, dict):
        _refuse("each optimizer param group to be a dictionary.")
    ids = given.get("params")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        _refuse("optimizer.state_dict()-style param_groups[*]['params'] entries keyed by packed "
                "parameter ids.")
    if len(ids) != len(live["params"]):
        raise RuntimeError(f"swapin_optim_state param group {index} has a different number of "
                           "params than the live optimizer param group.")
    only_given = [key for key in given if key not in live]
    only_live = [key for key in live if key not in given]
    if only_given or only_live:
        _refuse("optimizer.state_dict()-style param group keys to exactly match the live "
                f"optimizer group keys for group {index}. Keys only in swap-in: {only_given}. "
                f"Keys only in live: {only_live}.")
    return ids


def _plan(optimizer, parameters: dict, optim_state) -> tuple:
    """(the given per-id state, [(live group, given group, its parameter tensors)])."""
    if not optimizer.state:
        _refuse("initialized optimizer state.")
    if not isinstance(optim_state, dict):
        _refuse("a DCP-style optimizer state_dict.")
    state = _checked_state(optim_state.get("state"))
    groups = _checked_groups(optimizer, optim_state.get("param_groups"))
    tensors = list(parameters.values())
    start, seen, plan = 0, set(), []
    for index, (live, given) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _checked_ids(index, live, given)
        seen.update(ids)
        if start + len(ids) > len(tensors):
            _refuse("the explicit parameter state to match optimizer.param_groups ordering.")
        plan.append((live, given, tensors[start:start + len(ids)]))
        start += len(ids)
    extra = [key for key in state if key not in seen]
    if extra:
        _refuse("swapin_optim_state['state'] to be keyed only by packed parameter ids from "
                f"param_groups[*]['params']; got extra keys {extra!r}.")
    return state, plan


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters: dict,
                                       swapin_optim_state: dict):
    """Within the block, `optimizer` works on the tensors of `swapin_parameters` (in the order
    of its param groups) with the state and hyperparameters of `swapin_optim_state` (an
    `optimizer.state_dict()`-shaped dict keyed by packed ids); on exit the live groups and
    state come back. In-place updates of the given state tensors stay visible to the caller;
    entries the step adds or replaces are dropped."""
    from collections import defaultdict
    state, plan = _plan(optimizer, swapin_parameters, swapin_optim_state)
    live_state = optimizer.state
    snapshots = [dict(group) for group in optimizer.param_groups]
    try:
        swapped = defaultdict(dict)
        for live, given, tensors in plan:
            live["params"] = tensors
            live.update((key, value) for key, value in given.items() if key != "params")
            for tensor, param_id in zip(tensors, given["params"]):
                swapped[tensor] = dict(state.get(param_id, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = live_state
