"""Run every benchmark: `make bench` (or python benchmarks/run_all.py [--quick])."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import bench_autograd
import bench_dispatch
import bench_import
import bench_ops

if __name__ == "__main__":
    bench_import.main(["--rounds", "3"] if "--quick" in sys.argv else [])
    bench_ops.main(quick="--quick" in sys.argv)
    bench_autograd.main(quick="--quick" in sys.argv)
    bench_dispatch.main(["--rounds", "3"] if "--quick" in sys.argv else [])
