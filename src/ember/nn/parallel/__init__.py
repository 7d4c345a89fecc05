"""ember.nn.parallel: `DataParallel` and `data_parallel` (data_parallel.py). ember runs one
device per process, so they run the module on the first device of `device_ids` (on the CPU when
CUDA is not available, as PyTorch then does); DistributedDataParallel belongs to distributed
training, which ember does not have yet."""
from ember.nn.parallel.data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
