"""One process, started alone (no mpiexec): argv[1] says what to check."""
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from check import check, done, raises, same

import ember

what = sys.argv[1]
check("mpi4py" not in sys.modules, "import ember loads no MPI")
import ember.distributed as dist

check("mpi4py" not in sys.modules, "import ember.distributed loads no MPI")
check(dist.is_available() and dist.is_gloo_available() and dist.is_mpi_available(),
      "available")
check(not dist.is_nccl_available(), "no NCCL")
check(hasattr(ember, "distributed") and ember.distributed is dist, "ember.distributed")
if what == "world_of_one":
    raises(ValueError, lambda: dist.get_rank(), "get_rank before init")
    raises(RuntimeError, lambda: dist.init_process_group("nccl"), "nccl without CUDA")
    raises(ValueError, lambda: dist.init_process_group("tcp"), "unknown backend")
    dist.init_process_group("gloo", init_method="env://",
                            timeout=datetime.timedelta(seconds=5))
    check(dist.get_rank() == 0 and dist.get_world_size() == 1, "a world of one")
    raises(ValueError, lambda: dist.init_process_group("gloo"), "initialized twice")
    t = ember.arange(4.0)[::2]
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    same(t, [0.0, 2.0], "all_reduce on one rank")
    out = [None]
    dist.all_gather_object(out, {"a": 1})
    check(out == [{"a": 1}], "all_gather_object on one rank")
    dist.destroy_process_group()
    check(not dist.is_initialized(), "destroyed")
elif what == "too_many":
    raises(RuntimeError, lambda: dist.init_process_group("gloo"), "WORLD_SIZE=2 alone")
    check("mpi4py" not in sys.modules, "the refusal loads no MPI")
done()
