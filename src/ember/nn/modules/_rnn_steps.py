"""The time loop behind `RNN`, `LSTM` and `GRU` (and the single steps behind their cells).

NOTE [input projection once]: a layer's input-to-hidden product does not depend on the hidden
state, so it is one matmul over every time step at once (`x @ W_ih^T + b`, x flattened to
(steps * batch, input)); the loop then only adds `h @ W_hh^T` and applies the gates. For LSTM
and the plain RNN both biases enter that one product; GRU keeps `b_hh` in the per-step product,
because its candidate gate multiplies `W_hn h + b_hn` by the reset gate.

NOTE [rows of a packed step]: with packed input (see NOTE [packed layout] in
nn/utils/rnn.py) step t has batch_sizes[t] rows, the first rows of the batch. Running forward
the batch shrinks: the rows that drop out keep their state as the final state. Running
backward it grows: new rows start from the initial state. Padded input is the case of equal
batch sizes, so both take one path.

The per-step functions (`STEPS`) live with the fused op in _ops/nn_rnn.py, which reruns them
for second-order gradients; padded float input takes the fused op (one per layer direction).
"""
from __future__ import annotations

import ember
from ember._core import dispatch
from ember._core.lazy_method import LazyModule
from ember._core.registry import OPS

_nn_rnn = LazyModule("ember._ops.nn_rnn", globals(), "_nn_rnn")   # (loads on first use)

_FUSED_DTYPES = (ember.float32, ember.float64)


def step(mode):
    """The per-step function of `mode` ("LSTM", "GRU", "RNN_TANH" ...), `STEPS` of
    _ops/nn_rnn.py."""
    return _nn_rnn.STEPS[mode]


def _input_projection(mode, x2d, w_ih, b_ih, b_hh, transposed=False):
    """NOTE [input projection once]. `transposed`: formed as W_ih x^T (+ b), (gates, rows), and
    returned as its transpose, a view whose each step's gates^T is a block of contiguous rows
    (the fused LSTM's layout, NOTE [fused rnn workspace] in _ops/nn_rnn.py): the same sums."""
    if transposed:
        if b_ih is None:
            return w_ih.mm(x2d.t()).t()
        return ember.addmm((b_ih + b_hh).unsqueeze(1), w_ih, x2d.t()).t()
    if b_ih is None:
        return x2d.mm(w_ih.t())
    bias = b_ih if mode == "GRU" else b_ih + b_hh
    return ember.addmm(bias, x2d, w_ih.t())


def run_direction(step, gi, initial, w_hh, b_hh, w_hr, batch_sizes, steps, reverse):
    """One direction of one layer: (outputs as (rows, hidden) in packed/time order, final
    state tuple). `gi` is the projected input (rows, gates); `batch_sizes` is None for padded
    input of `steps` steps."""
    w_hh_t = w_hh.t()
    w_hr_t = None if w_hr is None else w_hr.t()
    if batch_sizes is None:
        pieces = gi.reshape(steps, gi.shape[0] // steps, gi.shape[1]).unbind(0)
        order = range(steps - 1, -1, -1) if reverse else range(steps)
        state = initial
        outputs = [None] * steps
        for t in order:
            state = step(pieces[t], state, w_hh_t, b_hh, w_hr_t)
            outputs[t] = state[0]
        return ember.cat(outputs, 0), state
    # NOTE [rows of a packed step]
    pieces = gi.split(batch_sizes, 0)
    outputs = [None] * len(batch_sizes)
    if reverse:
        rows = batch_sizes[-1]
        state = tuple(s[:rows] for s in initial)
        for t in range(len(batch_sizes) - 1, -1, -1):
            size = batch_sizes[t]
            if size > rows:
                state = tuple(ember.cat([s, s0[rows:size]], 0) for s, s0 in zip(state, initial))
                rows = size
            state = step(pieces[t], state, w_hh_t, b_hh, w_hr_t)
            outputs[t] = state[0]
        return ember.cat(outputs, 0), state
    state = initial
    rows = initial[0].shape[0]
    finished = []
    for t, size in enumerate(batch_sizes):
        if size < rows:
            finished.append(tuple(s[size:rows] for s in state))
            state = tuple(s[:size] for s in state)
            rows = size
        state = step(pieces[t], state, w_hh_t, b_hh, w_hr_t)
        outputs[t] = state[0]
    if finished:
        finished.append(state)
        finished.reverse()
        state = tuple(ember.cat(parts, 0) for parts in zip(*finished))
    return ember.cat(outputs, 0), state


def run_direction_fused(mode, gi, initial, w_hh, b_hh, steps, reverse):
    """As run_direction for padded input without projection, the loop being one op
    (`_fused_rnn_direction`, _ops/nn_rnn.py)."""
    batch = gi.shape[0] // steps
    cell = initial[1] if mode == "LSTM" else None
    out, hy, cy, _ = dispatch.call(OPS["_fused_rnn_direction"], (
        gi.view(steps, batch, gi.shape[1]), initial[0], cell, w_hh, b_hh, mode, reverse))
    final = (hy, cy) if mode == "LSTM" else (hy,)
    return out.reshape(steps * batch, out.shape[2]), final


def run_layers(module, x2d, initial_states, batch_sizes, steps):
    """Every layer and direction of `module` over the flattened input x2d; returns (output
    rows, [final state tuple per layer and direction]). `initial_states[k]` is the k-th
    layer-direction's state tuple."""
    mode = module.mode
    step = _nn_rnn.STEPS[mode]
    directions = 2 if module.bidirectional else 1
    weights = module._flat_weights
    per_direction = len(weights) // (module.num_layers * directions)
    has_bias = module.bias
    fused = batch_sizes is None and module.proj_size == 0 and x2d.dtype in _FUSED_DTYPES
    finals = []
    layer_input = x2d
    for layer in range(module.num_layers):
        outputs = []
        for direction in range(directions):
            k = layer * directions + direction
            group = weights[k * per_direction:(k + 1) * per_direction]
            w_ih, w_hh = group[0], group[1]
            b_ih, b_hh = (group[2], group[3]) if has_bias else (None, None)
            w_hr = group[-1] if module.proj_size > 0 else None
            gi = _input_projection(mode, layer_input, w_ih, b_ih, b_hh,
                                   transposed=fused and mode == "LSTM")
            b_hidden = b_hh if mode == "GRU" else None
            if fused:
                out, final = run_direction_fused(mode, gi, initial_states[k], w_hh, b_hidden,
                                                 steps, direction == 1)
            else:
                out, final = run_direction(step, gi, initial_states[k], w_hh, b_hidden, w_hr,
                                           batch_sizes, steps, direction == 1)
            outputs.append(out)
            finals.append(final)
        layer_input = outputs[0] if directions == 1 else ember.cat(outputs, 1)
        if module.dropout and module.training and layer < module.num_layers - 1:
            from ember.nn import functional as F
            layer_input = F.dropout(layer_input, module.dropout, True)
    return layer_input, finals
