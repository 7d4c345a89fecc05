"""The time loop of one direction of one recurrent layer as one op, forward and backward.

`_fused_rnn_direction` runs the steps of an LSTM, GRU or plain RNN layer over a padded sequence
whose input projection is already done (NOTE [input projection once] in
nn/modules/_rnn_steps.py): per step one `h @ W_hh^T` and the gates, all in the array module.
Its backward walks the steps in reverse and then forms the gradient of W_hh (and b_hh) with
one matmul over every step at once, which is where most of the saving over a recorded
per-step graph lies (about 2x on the 2-layer LSTM benchmark).

NOTE [fused rnn workspace]: the forward keeps, per step in the order it ran them, what the
backward needs: LSTM the four activated gates and the new cell state (5H), GRU the reset,
update and candidate gates and W_hn h + b_hn (4H); the plain RNN needs only its outputs. The
LSTM runs transposed, its states (H, B): a step's (B, 5H) block holds its gates^T (4H, B) and
then its cell state^T (H, B), each contiguous (`_lstm_parts`). OpenBLAS forms W_hh h^T (as
stored, no copy of W_hh^T) about 1.3x faster than h W_hh^T for the benchmark's (20, 256)
states, writes it straight into the gates, and each gate is a contiguous block of rows. The
products and activations are the same sums as untransposed, so the values are too.

NOTE [fused rnn second order]: the backward op has no derivative of its own. When the backward
itself is being recorded (create_graph=True), the gradients come instead from the same steps
written with recorded ops (the `*_step` functions here, which the modules also use for packed
input), run again from the saved inputs, so double backward works as through any composite.

Sigmoids are computed as 0.5 * tanh(x / 2) + 0.5, which neither overflows nor warns.
"""
from __future__ import annotations

from ember._core import dispatch, upcalls
from ember._core.checked_entry import checked
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import size_at

_MODES = ("LSTM", "GRU", "RNN_TANH", "RNN_RELU")


def _workspace_width(mode: str, hidden: int) -> int:
    return {"LSTM": 5 * hidden, "GRU": 4 * hidden}.get(mode, 0)


def _lstm_parts(workspace, batch, hidden):
    """(gates^T (T, 4H, B), cell states^T (T, H, B)), views of an LSTM's workspace (T, B, 5H):
    each step's block holds its gates^T and then its cell state^T, NOTE [fused rnn
    workspace]."""
    steps = workspace.shape[0]
    flat = workspace.reshape(steps, batch * 5 * hidden)
    split = batch * 4 * hidden
    return (flat[:, :split].reshape(steps, 4 * hidden, batch),
            flat[:, split:].reshape(steps, hidden, batch))


def _lstm_forward(xp, gates_in, hx, cx, weight_hh, run_out, workspace):
    """The LSTM's steps, transposed (NOTE [fused rnn workspace]); (last h, last c)."""
    batch, hidden = hx.shape
    all_gates, cells = _lstm_parts(workspace, batch, hidden)
    w = xp.ascontiguousarray(weight_hh)
    h = xp.ascontiguousarray(hx.T)
    c = cx.T
    for t in range(gates_in.shape[0]):
        gates, c_new = all_gates[t], cells[t]
        xp.matmul(w, h, out=gates)
        gates += gates_in[t].T
        # sigmoid(x) = tanh(x/2)/2 + 1/2 for i, f, o and tanh(x) for g: one tanh for all
        # (the sigmoid rows are two blocks: scalar products, no broadcast column).
        in_forget, out_gate = gates[:2 * hidden], gates[3 * hidden:]
        in_forget *= 0.5
        out_gate *= 0.5
        xp.tanh(gates, out=gates)
        for block in (in_forget, out_gate):
            block *= 0.5
            block += 0.5
        xp.multiply(gates[hidden:2 * hidden], c, out=c_new)
        c_new += gates[:hidden] * gates[2 * hidden:3 * hidden]
        h = xp.tanh(c_new)
        h *= gates[3 * hidden:]
        run_out[t] = h.T
        c = c_new
    return h.T.copy(), c.T.copy()


def _lstm_backward(xp, run_grad, grad_hy, grad_cy, cx, weight_hh, workspace, run_d_in):
    """The LSTM's steps in reverse, transposed as the forward ran them; (d hx, d cx), and
    each step's gradient of its gates in `run_d_in`. What does not depend on the incoming
    gradient (tanh(c)'s slope, each gate's activation slope) is formed for every step at
    once."""
    batch, hidden = grad_hy.shape
    all_acts, cells = _lstm_parts(workspace, batch, hidden)
    tanh_cells = xp.tanh(cells)
    tanh_slopes = 1 - tanh_cells * tanh_cells
    slopes = all_acts * (1 - all_acts)
    g_all = all_acts[:, 2 * hidden:3 * hidden]
    xp.subtract(1, g_all * g_all, out=slopes[:, 2 * hidden:3 * hidden])
    w_t = xp.ascontiguousarray(weight_hh.T)
    dh = grad_hy.T.copy()       # (copies: both are added into)
    dc = grad_cy.T.copy()
    d = xp.empty((4 * hidden, batch), grad_hy.dtype)
    for t in range(run_grad.shape[0] - 1, -1, -1):
        dh += run_grad[t].T
        acts = all_acts[t]
        i, f = acts[:hidden], acts[hidden:2 * hidden]
        g, o = acts[2 * hidden:3 * hidden], acts[3 * hidden:]
        c_prev = cells[t - 1] if t > 0 else cx.T
        through_c = dh * o
        through_c *= tanh_slopes[t]
        dc += through_c
        # d (loss) / d (activated gate), then times each activation's slope at once.
        xp.multiply(dc, g, out=d[:hidden])
        xp.multiply(dc, c_prev, out=d[hidden:2 * hidden])
        xp.multiply(dc, i, out=d[2 * hidden:3 * hidden])
        xp.multiply(dh, tanh_cells[t], out=d[3 * hidden:])
        d *= slopes[t]
        dc *= f
        run_d_in[t] = d.T
        dh = xp.matmul(w_t, d)
    return dh.T.copy(), dc.T.copy()


def _sigmoid_(xp, x):
    x *= 0.5
    xp.tanh(x, out=x)
    x *= 0.5
    x += 0.5


def _forward_meta(input_gates, hx, cx, weight_hh, bias_hh, mode, reverse):
    steps, batch = input_gates.shape[0], input_gates.shape[1]
    hidden = hx.shape[1]
    dtype = input_gates._dtype
    cell = (batch, hidden) if mode == "LSTM" else (0,)
    return [((steps, batch, hidden), dtype), ((batch, hidden), dtype), (cell, dtype),
            ((steps, batch, _workspace_width(mode, hidden)), dtype)]


# --------------------------------------------------------------------------- the steps as ops

def rnn_tanh_step(gi, state, w_hh_t, b_hh, w_hr_t):
    """One step of the tanh RNN: gi is x W_ih^T + both biases, state (h,)."""
    return (gi.addmm(state[0], w_hh_t).tanh(),)


def rnn_relu_step(gi, state, w_hh_t, b_hh, w_hr_t):
    return (gi.addmm(state[0], w_hh_t).relu(),)


def lstm_step(gi, state, w_hh_t, b_hh, w_hr_t):
    """One LSTM step (gates i, f, g, o); gi is x W_ih^T + both biases, state (h, c)."""
    h, c = state
    in_gate, forget_gate, cell_gate, out_gate = gi.addmm(h, w_hh_t).chunk(4, 1)
    c = forget_gate.sigmoid() * c + in_gate.sigmoid() * cell_gate.tanh()
    h = out_gate.sigmoid() * c.tanh()
    if w_hr_t is not None:
        h = h.mm(w_hr_t)
    return h, c


def gru_step(gi, state, w_hh_t, b_hh, w_hr_t):
    """One GRU step (gates r, z, n); gi is x W_ih^T + b_ih, b_hh is added here."""
    h = state[0]
    gh = h.mm(w_hh_t) if b_hh is None else b_hh.addmm(h, w_hh_t)
    size = h.shape[1]
    i_rz, i_n = gi.split([2 * size, size], 1)
    h_rz, h_n = gh.split([2 * size, size], 1)
    reset, update = (i_rz + h_rz).sigmoid().chunk(2, 1)
    new = (i_n + reset * h_n).tanh()
    return (new + update * (h - new),)


STEPS = {"RNN_TANH": rnn_tanh_step, "RNN_RELU": rnn_relu_step, "LSTM": lstm_step,
         "GRU": gru_step}


def _recorded_grads(ctx):
    """NOTE [fused rnn second order]: the gradients through the steps rerun as recorded ops."""
    gates = ctx.input_gates
    mode, reverse = ctx.mode, ctx.reverse
    inputs = [gates, ctx.hx, ctx.cx, ctx.weight_hh, ctx.bias_hh]
    state = (inputs[1], inputs[2]) if mode == "LSTM" else (inputs[1],)
    w_hh_t = inputs[3].t()
    outputs = [None] * gates.shape[0]
    for t in (range(gates.shape[0] - 1, -1, -1) if reverse else range(gates.shape[0])):
        state = STEPS[mode](gates[t], state, w_hh_t, inputs[4], None)
        outputs[t] = state[0]
    results = [dispatch.call(OPS["stack"], (outputs, 0)), *state]
    wanted = [k for k, x in enumerate(inputs) if x is not None and x.requires_grad]
    found = upcalls.grad(results, [inputs[k] for k in wanted], list(ctx.grads[:len(results)]),
                         create_graph=True, allow_unused=True)
    grads = [None] * len(inputs)
    for k, g in zip(wanted, found):
        grads[k] = g
    return grads


def _grads(ctx):
    """Every input's gradient from one call of the backward op (shared through ctx.memo)."""
    if ctx.memo is None:
        if dispatch.state.grad_enabled():
            ctx.memo = _recorded_grads(ctx)
            return ctx.memo
        output, _, _, workspace = ctx.results
        grads = ctx.grads
        ctx.memo = dispatch.call(OPS["_fused_rnn_direction_backward"], (
            grads[0], grads[1], grads[2], ctx.hx, ctx.cx, ctx.weight_hh, output, workspace,
            ctx.mode, ctx.reverse))
    return ctx.memo


@register_op("_fused_rnn_direction(Tensor input_gates, Tensor hx, Tensor? cx, Tensor weight_hh, "
             "Tensor? bias_hh, str mode, bool reverse) -> (Tensor, Tensor, Tensor, Tensor)",
             function=False, method=False, meta=_forward_meta,
             saves=("input_gates", "hx", "cx", "weight_hh", "bias_hh", "result"),
             derivatives={"input_gates": lambda c: _grads(c)[0],
                          "hx": lambda c: _grads(c)[1],
                          "cx": lambda c: _grads(c)[2],
                          "weight_hh": lambda c: _grads(c)[3],
                          "bias_hh": lambda c: _grads(c)[4]})
def fused_rnn_direction(xp, input_gates, hx, cx, weight_hh, bias_hh, mode, reverse):
    """(outputs (T, B, H) in time order, last h, last c (LSTM; else empty), workspace) of one
    direction of a recurrent layer; `input_gates` (T, B, G) is x W_ih^T + biases (GRU: b_ih
    only, its b_hh given here). `reverse` runs the steps from last to first."""
    steps, batch, _ = input_gates.shape
    hidden = hx.shape[1]
    dtype = input_gates.dtype
    gates_in = input_gates[::-1] if reverse else input_gates
    out = xp.empty((steps, batch, hidden), dtype)
    run_out = out[::-1] if reverse else out
    workspace = xp.empty((steps, batch, _workspace_width(mode, hidden)), dtype)
    if mode == "LSTM":
        hy, cy = _lstm_forward(xp, gates_in, hx, cx, weight_hh, run_out, workspace)
        return out, hy, cy, workspace
    # A row-major W_hh^T: OpenBLAS multiplies small (B, H) states by it about 1.6x faster than
    # by the transposed view.
    w_t = xp.ascontiguousarray(weight_hh.T)
    h = hx
    for t in range(steps):
        if mode == "GRU":
            ws = workspace[t]
            gh = xp.matmul(h, w_t)
            if bias_hh is not None:
                gh += bias_hh
            rz = ws[:, :2 * hidden]
            xp.add(gates_in[t][:, :2 * hidden], gh[:, :2 * hidden], out=rz)
            _sigmoid_(xp, rz)
            ws[:, 3 * hidden:] = gh[:, 2 * hidden:]
            n = ws[:, 2 * hidden:3 * hidden]
            xp.multiply(rz[:, :hidden], gh[:, 2 * hidden:], out=n)
            n += gates_in[t][:, 2 * hidden:]
            xp.tanh(n, out=n)
            new_h = run_out[t]
            xp.subtract(h, n, out=new_h)          # h' = n + z (h - n)
            new_h *= rz[:, hidden:]
            new_h += n
            h = new_h
        else:
            new_h = run_out[t]
            xp.matmul(h, w_t, out=new_h)
            new_h += gates_in[t]
            if mode == "RNN_TANH":
                xp.tanh(new_h, out=new_h)
            else:
                xp.maximum(new_h, 0, out=new_h)
            h = new_h
    return out, h.copy(), xp.empty((0,), dtype), workspace


def _backward_meta(grad_output, grad_hy, grad_cy, hx, cx, weight_hh, output, workspace, mode,
                   reverse):
    dtype = output._dtype
    steps, batch, _ = output.shape
    gates = weight_hh.shape[0]
    hidden = hx.shape[1]
    cell = (batch, hidden) if mode == "LSTM" else (0,)
    return [((steps, batch, gates), dtype), ((batch, hidden), dtype), (cell, dtype),
            (tuple(weight_hh.shape), dtype), ((gates,), dtype)]


@register_op("_fused_rnn_direction_backward(Tensor grad_output, Tensor grad_hy, Tensor grad_cy, "
             "Tensor hx, Tensor? cx, Tensor weight_hh, Tensor output, Tensor workspace, "
             "str mode, bool reverse) -> (Tensor, Tensor, Tensor, Tensor, Tensor)",
             function=False, method=False, meta=_backward_meta,
             tags=("keeps_layout",))   # the LSTM's input gradient as laid out for W_ih's
def fused_rnn_direction_backward(xp, grad_output, grad_hy, grad_cy, hx, cx, weight_hh, output,
                                 workspace, mode, reverse):
    """Gradients (input_gates, hx, cx, weight_hh, bias_hh) of `_fused_rnn_direction`
    (NOTE [fused rnn workspace]); the weight's over every step in one matmul."""
    steps, batch, hidden = output.shape
    dtype = output.dtype
    gates_width = weight_hh.shape[0]
    run_out = output[::-1] if reverse else output
    run_grad = grad_output[::-1] if reverse else grad_output
    if mode == "LSTM":      # as the transposed input projection gives them (_rnn_steps.py)
        d_gates_in = xp.empty((gates_width, steps * batch), dtype).T.reshape(
            steps, batch, gates_width)
    else:
        d_gates_in = xp.empty((steps, batch, gates_width), dtype)
    run_d_in = d_gates_in[::-1] if reverse else d_gates_in
    # dW_hh multiplies the gradient that reaches `h @ W_hh^T` by the state each step read.
    d_hidden_gates = run_d_in if mode != "GRU" else xp.empty((steps, batch, gates_width), dtype)
    if mode == "LSTM":
        dh, d_cx = _lstm_backward(xp, run_grad, grad_hy, grad_cy, cx, weight_hh, workspace,
                                  run_d_in)
    else:
        dh, d_cx = grad_hy.copy(), xp.empty((0,), dtype)
    for t in range(steps - 1, -1, -1) if mode != "LSTM" else ():
        dh += run_grad[t]
        if mode == "GRU":
            ws = workspace[t]
            r, z = ws[:, :hidden], ws[:, hidden:2 * hidden]
            n, gh_n = ws[:, 2 * hidden:3 * hidden], ws[:, 3 * hidden:]
            h_prev = run_out[t - 1] if t > 0 else hx
            d_in = run_d_in[t]
            d_h = d_hidden_gates[t]
            d_n = d_in[:, 2 * hidden:]
            xp.multiply(dh, 1 - z, out=d_n)
            d_n *= 1 - n * n
            d_z = d_in[:, hidden:2 * hidden]
            xp.multiply(dh, h_prev - n, out=d_z)
            d_z *= z * (1 - z)
            d_r = d_in[:, :hidden]
            xp.multiply(d_n, gh_n, out=d_r)
            d_r *= r * (1 - r)
            d_h[:, :2 * hidden] = d_in[:, :2 * hidden]
            xp.multiply(d_n, r, out=d_h[:, 2 * hidden:])
            dh = dh * z + xp.matmul(d_h, weight_hh)
        else:
            h = run_out[t]
            d = run_d_in[t]
            if mode == "RNN_TANH":
                xp.multiply(dh, 1 - h * h, out=d)
            else:
                xp.multiply(dh, h > 0, out=d)
            dh = xp.matmul(d, weight_hh)
    # The states each step read, in the order the steps ran: hx, then the outputs but the last.
    previous = xp.concatenate([hx[None], run_out[:-1]], 0).reshape(steps * batch, hidden)
    flat = d_hidden_gates.reshape(steps * batch, gates_width)
    d_weight = xp.matmul(flat.T, previous)
    # (only GRU's steps read b_hh: the others fold both biases into the input projection)
    d_bias = flat.sum(0) if mode == "GRU" else xp.zeros(gates_width, dtype)
    return d_gates_in, dh, d_cx, d_weight, d_bias


# --------------------------------------------------------------------------- single-step functions

def _check_cell(input, states, w_ih, w_hh, gates):
    """The cells' shape checks in PyTorch's order, with its messages (a dimension a tensor lacks
    is PyTorch's IndexError, as its `size(dim)` reads give): the input's width against w_ih,
    the weights' rows (`gates` per hidden unit), then the states; the plain RNN cells check
    the weights' rows first."""
    if gates == 1:
        _check_cell_weights(w_ih, w_hh, gates)
    input_size = size_at(w_ih.shape, 1)
    got = size_at(input.shape, 1)
    if got != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {got} expected "
                           f"{input_size}")
    if gates != 1:
        _check_cell_weights(w_ih, w_hh, gates)
    hidden_size = size_at(w_hh.shape, 1)
    for k, state in enumerate(states):
        batch, state_batch = size_at(input.shape, 0), size_at(state.shape, 0)
        if batch != state_batch:
            raise RuntimeError(f"Input batch size {batch} doesn't match hidden{k} "
                               f"batch size {state_batch}")
        width = size_at(state.shape, 1)
        if width != hidden_size:
            raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {width}, "
                               f"expected {hidden_size}")


def _check_cell_weights(w_ih, w_hh, gates):
    hidden_size = size_at(w_hh.shape, 1)
    for name, weight in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        rows = size_at(weight.shape, 0)
        if rows != gates * hidden_size:
            raise RuntimeError(f"{name} first dim must be {gates} * hidden_size = "
                               f"{gates * hidden_size}, but got {rows}")


def _cell_input_gates(input, w_ih, b_ih, b_hh, fold_hidden_bias):
    gates = input.mm(w_ih.t())
    if b_ih is not None:
        gates = gates + b_ih
    if fold_hidden_bias and b_hh is not None:
        gates = gates + b_hh
    return gates


@register_frontend("lstm_cell", method=False)
@checked("lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
         "Tensor? b_hh=None)")
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> (hy, cy): one LSTM step
    from hx = (h, c)."""
    if _state.entry and _wants(locals()):
        return _handle(lstm_cell, locals())
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check_cell(input, hx, w_ih, w_hh, 4)
    return lstm_step(_cell_input_gates(input, w_ih, b_ih, b_hh, True), tuple(hx), w_hh.t(),
                     None, None)


@register_frontend("gru_cell", method=False)
@checked("gru_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
         "Tensor? b_hh=None)")
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor: one GRU step."""
    if _state.entry and _wants(locals()):
        return _handle(gru_cell, locals())
    _check_cell(input, (hx,), w_ih, w_hh, 3)
    return gru_step(_cell_input_gates(input, w_ih, b_ih, b_hh, False), (hx,), w_hh.t(), b_hh,
                    None)[0]


@register_frontend("rnn_tanh_cell", method=False)
@checked("rnn_tanh_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
         "Tensor? b_hh=None)")
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor: one tanh RNN
    step."""
    if _state.entry and _wants(locals()):
        return _handle(rnn_tanh_cell, locals())
    _check_cell(input, (hx,), w_ih, w_hh, 1)
    return rnn_tanh_step(_cell_input_gates(input, w_ih, b_ih, b_hh, True), (hx,), w_hh.t(),
                         None, None)[0]


@register_frontend("rnn_relu_cell", method=False)
@checked("rnn_relu_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
         "Tensor? b_hh=None)")
def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor: one relu RNN
    step."""
    if _state.entry and _wants(locals()):
        return _handle(rnn_relu_cell, locals())
    _check_cell(input, (hx,), w_ih, w_hh, 1)
    return rnn_relu_step(_cell_input_gates(input, w_ih, b_ih, b_hh, True), (hx,), w_hh.t(),
                         None, None)[0]
