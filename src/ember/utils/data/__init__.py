"""`ember.utils.data`: datasets (dataset.py), samplers (sampler.py, distributed.py), the
DataLoader (dataloader.py) and its internals (_utils/: collation, fetchers, worker loop,
shared-memory transfer), DataPipes (datapipes/) and their graph's sharding (graph_settings.py)."""
from ember.utils.data._utils.collate import default_collate, default_convert
from ember.utils.data._utils.worker import get_worker_info
from ember.utils.data.dataloader import DataLoader
from ember.utils.data.datapipes._decorator import (
    argument_validation,
    functional_datapipe,
    guaranteed_datapipes_determinism,
    non_deterministic,
    runtime_validation,
    runtime_validation_disabled,
)
from ember.utils.data.datapipes.datapipe import DataChunk, DFIterDataPipe, IterDataPipe, MapDataPipe
from ember.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from ember.utils.data.distributed import DistributedSampler
from ember.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DFIterDataPipe", "DataChunk",
           "DataLoader", "Dataset", "DistributedSampler", "IterDataPipe", "IterableDataset",
           "MapDataPipe", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset",
           "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
           "argument_validation", "default_collate", "default_convert", "functional_datapipe",
           "get_worker_info", "guaranteed_datapipes_determinism", "non_deterministic",
           "random_split", "runtime_validation", "runtime_validation_disabled"]
