"""ember.distributed.optim: ZeroRedundancyOptimizer (optimizer state sharded over ranks)."""
from ember.distributed.optim.zero_redundancy_optimizer import ZeroRedundancyOptimizer  # noqa: F401

__all__ = ["ZeroRedundancyOptimizer"]
