"""ZeroRedundancyOptimizer: each rank keeps the optimizer state of its share of the parameters.

NOTE [ZeRO partition]: within each parameter group, the parameters, largest first, go one by one
to the rank whose share is smallest so far (the first such rank on a tie). Each rank's local
optimizer (`optim`, of the class given) steps only its share; after each step every parameter
is broadcast from the rank that owns it, so all ranks hold the same parameters. The wrapper's own
`param_groups` are the global ones: hyper-parameters set there (a scheduler's lr) reach the local
optimizer before each step. `state_dict` needs `consolidate_state_dict(to)` first and answers on
rank `to` with the whole state in the global parameter order.
"""
from __future__ import annotations

import ember
from ember.distributed import collectives, objects
from ember.distributed.group import get_global_rank, get_rank, get_world_size, resolve
from ember.optim.optimizer import Optimizer


class ZeroRedundancyOptimizer(Optimizer):
    """ZeroRedundancyOptimizer(params, optimizer_class, process_group=None,
    parameters_as_bucket_view=False, overlap_with_ddp=False, **defaults)."""

    def __init__(self, params, optimizer_class, process_group=None,
                 parameters_as_bucket_view: bool = False, overlap_with_ddp: bool = False,
                 **defaults):
        if overlap_with_ddp:
            raise NotImplementedError("ZeroRedundancyOptimizer: overlap_with_ddp=True (steps "
                                      "inside DDP's communication hook) is not built")
        self._ready = False
        super().__init__(params, defaults)
        self.process_group = process_group
        self.world_size = get_world_size(process_group)
        self.rank = get_rank(process_group)
        self.global_rank = get_rank()
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._optim_constructor = optimizer_class
        self._optim_defaults = defaults
        self._all_state_dicts: list = []
        self._partition()
        self.optim = optimizer_class(self._local_groups(), **defaults)
        self._ready = True
        self._sync_hyperparameters()

    # NOTE [ZeRO partition]
    def _partition(self) -> None:
        self._owner: dict = {}
        for group in self.param_groups:
            sizes = [0] * self.world_size
            for param in sorted(group["params"], key=lambda p: -p.numel()):
                rank = sizes.index(min(sizes))
                self._owner[param] = rank
                sizes[rank] += param.numel()

    def _local_groups(self) -> list:
        return [{**{k: v for k, v in group.items() if k != "params"},
                 "params": [p for p in group["params"] if self._owner[p] == self.rank]}
                for group in self.param_groups]

    def _sync_hyperparameters(self) -> None:
        for ours, local in zip(self.param_groups, self.optim.param_groups):
            for key, value in ours.items():
                if key != "params":
                    local[key] = value

    def add_param_group(self, param_group: dict) -> None:
        """Add a group; its parameters are partitioned over the ranks like the others."""
        super().add_param_group(param_group)
        if self._ready:
            self._partition()
            self.optim.add_param_group(self._local_groups()[-1])

    def _owner_global_rank(self, param) -> int:
        rank = self._owner[param]
        group = resolve(self.process_group)
        return rank if group is None or self.process_group is None else \
            get_global_rank(self.process_group, rank)

    def step(self, closure=None, **kwargs):
        """Step the local share, then broadcast every parameter from its owner."""
        self._sync_hyperparameters()
        loss = self.optim.step(closure=closure, **kwargs) if kwargs else self.optim.step(closure)
        with ember.no_grad():
            for group in self.param_groups:
                for param in group["params"]:
                    collectives.broadcast(param.detach(), src=self._owner_global_rank(param),
                                          group=self.process_group)
        return loss

    def zero_grad(self, set_to_none: bool = True) -> None:
        super().zero_grad(set_to_none)

    def _local_to_global(self) -> dict:
        """Index in the local optimizer's state_dict -> index in the global order."""
        global_index = {}
        for param in (p for g in self.param_groups for p in g["params"]):
            global_index.setdefault(param, len(global_index))
        local = [p for g in self.optim.param_groups for p in g["params"]]
        return {i: global_index[p] for i, p in enumerate(local)}

    def consolidate_state_dict(self, to: int = 0) -> None:
        """Gather every rank's share of the state on rank `to` (a collective: every rank
        calls it)."""
        local = self.optim.state_dict()
        mapped = {self._local_to_global()[k]: v for k, v in local["state"].items()}
        gathered = [None] * self.world_size if self.global_rank == to else None
        objects.gather_object(mapped, gathered, dst=to, group=self.process_group)
        self._all_state_dicts = gathered if self.global_rank == to else []

    def state_dict(self) -> dict:
        """The whole state, on the rank consolidate_state_dict gathered it to."""
        if not self._all_state_dicts:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please "
                               "call `consolidate_state_dict(to=...)` on all ranks beforehand if "
                               "you meant to save the global state.")
        self._sync_hyperparameters()
        result = super().state_dict()
        result["state"] = {k: v for part in self._all_state_dicts for k, v in part.items()}
        result["state"] = dict(sorted(result["state"].items()))
        return result

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a whole state (every rank): each keeps its share."""
        super().load_state_dict(state_dict)
        for group, local in zip(self.param_groups, self.optim.param_groups):
            for key, value in group.items():
                if key != "params":
                    local[key] = value
        for param in (p for g in self.optim.param_groups for p in g["params"]):
            if param in self.state:
                self.optim.state[param] = self.state[param]
        self.state.clear()
