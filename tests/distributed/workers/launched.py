"""A script for the launcher: prints its variables, runs one collective (when MPI is there)."""
import os
import sys

import torch
import torch.distributed as dist

# (each line in one write: the ranks share the pipe, and separate writes interleave)
sys.stdout.write(f"ENV {os.environ['RANK']} {os.environ['LOCAL_RANK']} "
                 f"{os.environ['WORLD_SIZE']} {torch.__name__} {sys.argv[1:]}\n")
sys.stdout.flush()
if sys.argv[1:2] == ["collective"]:
    dist.init_process_group("gloo")
    t = torch.ones(1)
    dist.all_reduce(t)
    sys.stdout.write(f"SUM {int(t.item())}\n")
    sys.stdout.flush()
if sys.argv[1:2] == ["fail"] and os.environ["RANK"] == "1":
    raise KeyError("rank one breaks")
if sys.argv[1:2] == ["fail"]:
    import time
    time.sleep(60)
