"""PyTorch's order of a row's moments in its CPU layer and group norm, replayed on the rows
near the dtype's largest value (NOTE [PyTorch's moments merge]); used by nn_norm.py."""
from __future__ import annotations

import numpy as np

# NOTE [PyTorch's moments merge]: PyTorch's CPU layer and group norm take a row's moments by
# Welford's updates in the compute dtype: F // B blocks of B elements (B = 8 for float32, 16
# for the half types widened to float32, 4 for float64) feed 8 (float64: 4) lane accumulators,
# lane i taking the block elements i, i + lanes, ... in order (mean m1 += d / k, m2 += d * (x -
# m1)); the scalar tail (the last F % B elements) is one more accumulator, and each lane is
# merged into the tail's (count m0, mean m1, m2) in turn: c = lane count / (m0 + lane count),
# delta = lane mean - m1, m1 += c * delta, m2 += m2_lane + delta * delta * c * m0. Near the
# dtype's largest value that order decides the result: a delta past sqrt(max) makes
# delta * delta inf, and inf * 0 NaN where m0 or c is 0 (no tail; no full block: group_norm of
# [1e30, 3e30] is NaN, not 0), and a delta past max itself (3.4e38 beside -3.4e38) makes the
# mean an infinity and the output NaN. ember takes the moments two-pass (exact where PyTorch's
# are finite) and replays PyTorch's order only on the rows that can reach such a value (|mean|
# past sqrt(max) / 2 or a variance past (sqrt(max) / 2) ** 2 / F; the largest mean and
# variance find them: the one cost on the common path). Longer rows take chunks of 16 blocks
# whose lanes merge in a binary cascade, replayed as well (a merge into an empty accumulator
# copies, as measured on PyTorch: no inf * 0 there).
LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
_ROOT_MAX = {dtype: float(np.sqrt(np.finfo(dtype).max)) for dtype in LANES}
_SUSPECT = {dtype: (root / 2) ** 2 for dtype, root in _ROOT_MAX.items()}
_CHUNK = 16
_LARGEST = np.maximum.reduce


def _replay_moments(rows, block):
    """(mean, biased variance) of the (R, F) `rows` in PyTorch's order (NOTE [PyTorch's
    moments merge])."""
    dtype = rows.dtype.type
    count, features = rows.shape
    lanes = LANES[rows.dtype]
    blocks = features // block
    halves = block // lanes        # (a half type's block is two float vectors, kept apart)
    body = rows[:, :blocks * block].reshape(count, blocks, halves, lanes)
    chunks = -(-blocks // _CHUNK)
    depth = (chunks - 1).bit_length() if chunks > 1 else 0
    stack = [[0, None, None] for _ in range(max(depth, 1))]
    for i in range(chunks):
        taken = min(_CHUNK, blocks - i * _CHUNK)
        for half in range(halves):
            lane_mean = np.zeros((count, lanes), rows.dtype)
            lane_m2 = np.zeros((count, lanes), rows.dtype)
            for k in range(taken):
                value = body[:, i * _CHUNK + k, half]
                delta = value - lane_mean
                lane_mean += delta * (dtype(1) / dtype(k + 1))
                lane_m2 += delta * (value - lane_mean)
            _merge_into(stack[0], taken, lane_mean, lane_m2, dtype)
        mask, j = i + 1, 1
        while j < depth and not mask & 1:
            _merge_into(stack[j], *stack[j - 1], dtype)
            stack[j - 1] = [0, None, None]
            mask >>= 1
            j += 1
    for j in range(1, depth):
        _merge_into(stack[0], *stack[j], dtype)
    steps = blocks * halves
    zeros = np.zeros((count, lanes), rows.dtype)
    lane_mean = zeros if stack[0][1] is None else stack[0][1]
    lane_m2 = zeros if stack[0][2] is None else stack[0][2]
    seen, mean, m2 = 0, np.zeros(count, rows.dtype), np.zeros(count, rows.dtype)
    for k in range(blocks * block, features):
        value = rows[:, k]
        delta = value - mean
        seen += 1
        mean += delta / dtype(seen)
        m2 += delta * (value - mean)
    for i in range(lanes):
        total = seen + steps
        c = dtype(steps) / dtype(total) if total else dtype(0)
        delta = lane_mean[:, i] - mean
        mean += c * delta
        m2 += lane_m2[:, i] + delta * delta * c * dtype(seen)
        seen = total
    return mean, m2 / dtype(features)


def _merge_into(into, seen, mean, m2, dtype):
    """Welford's merge of a chunk's lanes (seen, mean, m2) into the [count, mean, m2] `into`,
    in place; into an empty one they are copied (as measured: no inf * 0 there)."""
    if not seen:
        return
    if not into[0]:
        into[:] = [seen, mean, m2]
        return
    total = into[0] + seen
    c = dtype(seen) / dtype(total) if total else dtype(0)
    delta = mean - into[1]
    into[1] = into[1] + c * delta
    into[2] = into[2] + (m2 + delta * delta * c * dtype(into[0]))
    into[0] = total


def pytorch_row_moments(rows, mean, var, half=False):
    """Puts PyTorch's moments (NOTE [PyTorch's moments merge]) into `mean` and `var` (R,) of
    the (R, F) `rows` where they can differ from the two-pass ones; the mask of the rows
    changed, or None. `half`: the rows are a half type widened to float32."""
    features = rows.shape[1]
    if not features or not mean.size:
        return None
    # (two reductions over the rows' statistics, no errstate: the one cost on the common
    # path; a NaN fails both comparisons and the rows are examined)
    if float(_LARGEST(var)) * features < _SUSPECT[rows.dtype] and \
            float(_LARGEST(np.abs(mean))) <= _ROOT_MAX[rows.dtype] / 2:
        return None
    lanes = LANES[rows.dtype]
    block = 2 * lanes if half else lanes
    with np.errstate(all="ignore"):
        suspect = (np.abs(mean) > _ROOT_MAX[rows.dtype] / 2) | \
            ~(var * features < _SUSPECT[rows.dtype]) | np.isnan(var)
        replayed_mean, replayed_var = _replay_moments(rows[suspect], block)
    mean[suspect], var[suspect] = replayed_mean, replayed_var
    return suspect
