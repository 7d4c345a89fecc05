"""ember.distributed.optim: ZeroRedundancyOptimizer (optimizer state sharded over ranks)."""
from ember.distributed.optim.zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]
