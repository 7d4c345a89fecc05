"""Faults, one per run (argv[1]): a collective a peer never joins times out with a clear error;
a rank that is killed, raises, or exits ends the job. argv[2] marks the processes for the test's
search for leftovers."""
import datetime
import os
import signal
import sys
import time

import ember
import ember.distributed as dist

mode = sys.argv[1]
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=2))
rank = dist.get_rank()

if mode == "timeout":
    if rank == 0:
        start = time.monotonic()
        try:
            dist.all_reduce(ember.ones(4))
        except dist.DistBackendError as error:
            print(f"CAUGHT {time.monotonic() - start:.2f} {error}", flush=True)
            try:
                dist.barrier()
            except dist.DistBackendError as again:
                print(f"BROKEN {again}", flush=True)
            raise
    else:
        time.sleep(60)                  # never joins: ended when rank 0's error aborts the job
elif mode in ("kill", "raise", "exit"):
    dist.all_reduce(ember.ones(1))
    if rank == 1:
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "raise":
            raise ValueError("rank 1 fails on purpose")
        os._exit(7)
    for _ in range(1000):
        dist.all_reduce(ember.ones(1))      # the peer is gone: this never completes
    print("UNREACHABLE", flush=True)
