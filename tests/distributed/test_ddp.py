"""DistributedDataParallel on 3 MPI ranks equals single-process training on the combined batch
(workers/ddp.py: default, small buckets, gradient_as_bucket_view, static_graph, no_sync, the
default comm hooks, find_unused_parameters with usage equal and unequal across ranks; the
unfinished-reduction error; buffers from rank 0); SyncBatchNorm equals BatchNorm on the combined
batch; DistributedSampler takes the group's rank and size."""
from tests.distributed.launch import checked, run_workers


def test_ddp_steps_equal_single_process_training():
    checked(run_workers(3, "ddp.py"), 3)


def test_zero_redundancy_optimizer_equals_the_plain_optimizer():
    checked(run_workers(2, "zero.py"), 2)
    checked(run_workers(3, "zero.py"), 3)
