"""torch.multiprocessing.spawn as distributed launchers use it: ranks run a function with
their index, a rank that raises surfaces in the parent as ProcessRaisedException carrying its
traceback, a rank that exits with a code as ProcessExitedException, join=False hands back the
ProcessContext; the children (started with 'spawn') import torch again and must get the same
framework as the parent."""
import os
import sys
import tempfile

import torch
import torch.multiprocessing as mp


def work(rank, path, queue):
    with open(os.path.join(path, f"rank{rank}"), "w") as f:
        f.write(str(torch.arange(3).sum().item() + rank))
    queue.put((rank, torch.__name__ == mp.__name__.split(".")[0]))


def fails(rank):
    if rank == 1:
        raise ValueError(f"boom in rank {rank}")


def exits(rank):
    sys.exit(3)


if __name__ == "__main__":
    path = tempfile.mkdtemp()
    queue = mp.get_context("spawn").SimpleQueue()
    print(mp.spawn(work, args=(path, queue), nprocs=2))
    print(sorted(queue.get() for _ in range(2)))
    for name in sorted(os.listdir(path)):
        with open(os.path.join(path, name)) as f:
            print(name, f.read())
    try:
        mp.spawn(fails, nprocs=2)
    except mp.ProcessRaisedException as e:
        print("raised", e.error_index, str(e).splitlines()[2], "ValueError: boom in rank 1" in str(e))
    context = mp.start_processes(exits, nprocs=1, join=False, start_method="spawn")
    print(type(context).__name__, len(context.pids()))
    try:
        while not context.join():
            pass
    except mp.ProcessExitedException as e:
        print("exited", e.error_index, e.exit_code, e.signal_name, str(e))
    print(sorted(mp.get_all_sharing_strategies()), mp.get_sharing_strategy(), mp.cpu_count() > 0)
