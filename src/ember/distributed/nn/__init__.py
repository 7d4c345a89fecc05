"""ember.distributed.nn: collectives that autograd differentiates (functional.py)."""
from ember.distributed.nn.functional import (  # noqa: F401
    all_gather,
    all_reduce,
    broadcast,
    reduce,
)
