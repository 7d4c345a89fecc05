#!/usr/bin/env bash
# The GPU check of ember's CUDA back-end: run on a machine with an NVIDIA GPU and CuPy.
#
#     bash tools/gpu_check.sh            # writes its reports under $OUT (default /tmp/gpu_check)
#
# 1. the versions (GPU, Python, CuPy, NumPy, ml_dtypes) and an import smoke test of ember on CUDA;
# 2. tests/cuda (ember on 'cuda' against ember on 'cpu'), 12 workers: the whole log in
#    $OUT/cuda_tests_full.txt, its last 300 lines in $OUT/cuda_tests.txt;
# 3. benchmarks/bench_cuda_train.py --quick (ember against PyTorch's CUDA, separate processes)
#    in $OUT/bench_cuda_train.txt.
# Each step has a time limit (TEST_LIMIT, BENCH_LIMIT seconds), so the reports come back even
# when a step hangs. About 4 to 6 minutes on a fresh H100 (CuPy compiles every kernel once).
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
TEST_LIMIT=${TEST_LIMIT:-300}
BENCH_LIMIT=${BENCH_LIMIT:-100}
WORKERS=${WORKERS:-12}          # of the machine's 16 cores: the CPU half of each comparison
export PYTHONPATH=src PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1

{
  date -u
  nvidia-smi -L
  python3 --version
  python3 -c "import cupy, numpy, ml_dtypes; print('cupy', cupy.__version__, '| numpy', \
numpy.__version__, '| ml_dtypes', ml_dtypes.__version__)"
  python3 -c "import ember; print('ember', ember.__version__, '| cuda available:', \
ember.cuda.is_available(), '|', ember.cuda.device_count(), 'device(s):', \
ember.cuda.get_device_name()); x = ember.randn(3, device='cuda'); print('smoke:', x.device, \
float((x * 2).sum() - 2 * x.sum()))"
} 2>&1 | tee "$OUT/versions.txt"

start=$(date +%s)
# -v: one line per test as it ends, so a run stopped at its limit still says what failed.
timeout -k 10 "$TEST_LIMIT" python3 -m pytest -o addopts="" -v -p no:cacheprovider \
  -n "$WORKERS" tests/cuda --tb=short -rf --durations=15 -W ignore::DeprecationWarning \
  > "$OUT/cuda_tests_full.txt" 2>&1
status=$?
tail -300 "$OUT/cuda_tests_full.txt" > "$OUT/cuda_tests.txt"
echo "tests/cuda: exit $status after $(( $(date +%s) - start )) s (124: stopped at ${TEST_LIMIT} s)" \
  | tee -a "$OUT/cuda_tests.txt"
grep -oE "FAILED tests/[^ ]+" "$OUT/cuda_tests_full.txt" | sort -u > "$OUT/cuda_failed.txt"
echo "failed tests: $(wc -l < "$OUT/cuda_failed.txt") (list in cuda_failed.txt)"
grep -E "^(FAILED|ERROR)" "$OUT/cuda_tests_full.txt" | cut -c1-200 | head -40
tail -2 "$OUT/cuda_tests_full.txt"

start=$(date +%s)
timeout -k 10 "$BENCH_LIMIT" python3 benchmarks/bench_cuda_train.py --quick \
  > "$OUT/bench_cuda_train.txt" 2>&1
echo "bench: exit $? after $(( $(date +%s) - start )) s" | tee -a "$OUT/bench_cuda_train.txt"
tail -12 "$OUT/bench_cuda_train.txt"
