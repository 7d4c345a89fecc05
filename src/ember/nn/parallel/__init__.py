"""ember.nn.parallel: `DataParallel` and `data_parallel` (data_parallel.py), which run the module
on the first device of `device_ids` (ember runs one device per process), and
`DistributedDataParallel` (distributed.py), one replica per process over ember.distributed."""
from ember.nn.parallel.data_parallel import DataParallel, data_parallel
from ember.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
