"""Recurrent layers: `RNN` (tanh or relu), `LSTM` (with optional projection), `GRU`, and their
single-step cells. Parameter names, shapes, order and initialisation are PyTorch's, so state
dicts and seeded initialisations carry over; the time loop is in `_rnn_steps.py`."""
from __future__ import annotations

import math
import numbers
import warnings
from typing import ClassVar

import ember
from ember._core import arguments
from ember._tensor import Tensor
from ember.nn import init
from ember.nn.modules import _rnn_steps
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.nn.utils.rnn import PackedSequence

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _uniform_init(parameters, bound):
    for weight in parameters:
        init.uniform_(weight, -bound, bound)


def _check_input_dtype(input, weight):
    if input.dtype != weight.dtype:
        raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                         f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                         f"convert model: model.to({input.dtype})")


class RNNBase(Module):
    """The common part of RNN, LSTM and GRU: parameters per layer and direction, argument
    checks, the packed/unbatched handling around the time loop."""

    __constants__: ClassVar[list[str]] = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        factory = {"device": device, "dtype": dtype}
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                shapes = [(gate_size, layer_input), (gate_size, real_hidden)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    shapes += [(gate_size,), (gate_size,)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    shapes.append((proj_size, hidden_size))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(ember.empty(shape, **factory)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self) -> None:
        self._flat_weights = [getattr(self, name, None) for name in self._flat_weights_names]
        self.flatten_parameters()

    def __setattr__(self, attr, value) -> None:
        names = self.__dict__.get("_flat_weights_names")
        if names is not None and attr in names:
            self._flat_weights[names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self) -> None:
        """Nothing to do: the weights are used where they are (no fused weight buffer)."""

    def _apply(self, fn, recurse=True):
        result = super()._apply(fn, recurse)
        self._init_flat_weights()
        return result

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        _uniform_init(self.parameters(), stdv)

    @property
    def all_weights(self) -> list:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ------------------------------------------------------------------ checks
    def check_input(self, input: Tensor, batch_sizes) -> None:
        _check_input_dtype(input, self._flat_weights[0])
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes) -> tuple:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * directions, mini_batch, size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    # ------------------------------------------------------------------ forward
    def _zeros(self, input, rows, size):
        directions = 2 if self.bidirectional else 1
        return ember.zeros((self.num_layers * directions, rows, size), dtype=input.dtype,
                           device=input.device)

    def _run(self, input, states, batch_sizes):
        """The time loop: (output, [stacked final states]); `states` are (L*D, B, H)
        tensors, `input` is packed data (batch_sizes given) or a (T, B, I)/(B, T, I) batch."""
        per_state = [s.unbind(0) for s in states]
        initial = list(zip(*per_state))
        if batch_sizes is not None:
            out, finals = _rnn_steps.run_layers(self, input, initial, batch_sizes.tolist(),
                                                None)
        else:
            if self.batch_first:
                input = input.transpose(0, 1)
            steps, batch = input.shape[0], input.shape[1]
            x2d = input.reshape(steps * batch, input.shape[2])
            out, finals = _rnn_steps.run_layers(self, x2d, initial, None, steps)
            out = out.reshape(steps, batch, out.shape[1])
            if self.batch_first:
                out = out.transpose(0, 1)
        stacked = [ember.stack([f[i] for f in finals], 0) for i in range(len(states))]
        return out, stacked

    def _prepare(self, input, hx, name):
        """Unpack/unsqueeze: (input, hx, batch_sizes, sorted, unsorted, batched, batch_dim)."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            return data, hx, batch_sizes, sorted_indices, unsorted_indices, True, None
        if input.dim() not in (2, 3):
            tail = " tensor" if name == "RNN" else ""
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                             f"{tail} instead")
        batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        return input, hx, None, None, None, batched, batch_dim

    def _finish(self, output, hidden, batch_sizes, sorted_indices, unsorted_indices, batched,
                batch_dim):
        if batch_sizes is not None:
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), hidden
        if not batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1) if isinstance(hidden, Tensor) else \
                tuple(h.squeeze(1) for h in hidden)
        return output, hidden

    def forward(self, input, hx=None):
        name = "GRU" if self.mode == "GRU" else "RNN"
        input, hx, batch_sizes, sorted_indices, unsorted_indices, batched, batch_dim = \
            self._prepare(input, hx, name)
        if batch_sizes is None:
            if not batched:
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D "
                                           f"but got {hx.dim()}-D tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                                   f"{hx.dim()}-D tensor")
        rows = int(batch_sizes[0]) if batch_sizes is not None else \
            input.size(0 if self.batch_first else 1)
        if hx is None:
            hx = self._zeros(input, rows, self.hidden_size)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, (hidden,) = self._run(input, [hx], batch_sizes)
        hidden = self.permute_hidden(hidden, unsorted_indices)
        return self._finish(output, hidden, batch_sizes, sorted_indices, unsorted_indices,
                            batched, batch_dim)


class RNN(RNNBase):
    """Elman RNN: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit (gates r, z, n in that order in the weights)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory (gates i, f, g, o); `proj_size > 0` projects h by W_hr."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes) -> tuple:
        expected = self.get_expected_hidden_size(input, batch_sizes)
        return expected[:2] + (self.hidden_size,)

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        input, hx, batch_sizes, sorted_indices, unsorted_indices, batched, batch_dim = \
            self._prepare(input, hx, "LSTM")
        if batch_sizes is None and hx is not None:
            dims = (hx[0].dim(), hx[1].dim())
            if not batched:
                if dims != (2, 2):
                    raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D "
                                       f"but got ({dims[0]}-D, {dims[1]}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            elif dims != (3, 3):
                raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but "
                                   f"got ({dims[0]}-D, {dims[1]}-D) tensors")
        rows = int(batch_sizes[0]) if batch_sizes is not None else \
            input.size(0 if self.batch_first else 1)
        if hx is None:
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros(input, rows, real_hidden),
                  self._zeros(input, rows, self.hidden_size))
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, list(hx), batch_sizes)
        hidden = self.permute_hidden(tuple(hidden), unsorted_indices)
        return self._finish(output, hidden, batch_sizes, sorted_indices, unsorted_indices,
                            batched, batch_dim)


# --------------------------------------------------------------------------- cells

class RNNCellBase(Module):
    """Parameters and checks shared by the single-step cells."""

    __constants__: ClassVar[list[str]] = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(ember.empty((num_chunks * hidden_size, input_size),
                                               **factory))
        self.weight_hh = Parameter(ember.empty((num_chunks * hidden_size, hidden_size),
                                               **factory))
        if bias:
            self.bias_ih = Parameter(ember.empty(num_chunks * hidden_size, **factory))
            self.bias_hh = Parameter(ember.empty(num_chunks * hidden_size, **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        _uniform_init(self.parameters(), stdv)

    def _check_shapes(self, input, states):
        """PyTorch's cell checks (the kernel's messages)."""
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.input_size}")
        for k, state in enumerate(states):
            if input.size(0) != state.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{k} "
                                   f"batch size {state.size(0)}")
            if state.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got "
                                   f"{state.size(1)}, expected {self.hidden_size}")

    def _batch(self, name, input, hx):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        # (an LSTM cell iterates its hx, (h, c), as PyTorch's does: an int is not iterable)
        states = () if hx is None else tuple(hx) if name == "LSTMCell" else (
            hx if isinstance(hx, tuple) else (hx,))
        for i, state in enumerate(states):
            if state.dim() not in (1, 2):
                which = f"hx[{i}]" if name == "LSTMCell" else "hidden"
                raise ValueError(f"{name}: Expected {which} to be 1D or 2D, got "
                                 f"{state.dim()}D instead")
        batched = input.dim() == 2
        if name == "LSTMCell" and batched and hx is not None and \
                not isinstance(hx, (tuple, list)):
            # (PyTorch passes a batched hx on as it came: lstm_cell's parser wants a tuple)
            arguments.refuse(("lstm_cell", "hx", 2), "tuple of Tensors", hx)
        if not batched:
            input = input.unsqueeze(0)
            states = tuple(s.unsqueeze(0) for s in states)
        return input, states, batched

    def _cell(self, mode, input, states, batched):
        if not states:
            zeros = ember.zeros((input.size(0), self.hidden_size), dtype=input.dtype,
                                device=input.device)
            states = (zeros,) * (2 if mode == "LSTM" else 1)
        self._check_shapes(input, states)
        gi = _rnn_steps._input_projection(mode, input, self.weight_ih, self.bias_ih,
                                          self.bias_hh)
        result = _rnn_steps.step(mode)(gi, states, self.weight_hh.t(),
                                       self.bias_hh if mode == "GRU" else None, None)
        if not batched:
            result = tuple(r.squeeze(0) for r in result)
        return result


class RNNCell(RNNCellBase):
    """One step of the Elman RNN: h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)."""

    __constants__: ClassVar[list[str]] = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, states, batched = self._batch("RNNCell", input, hx)
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._cell(mode, input, states, batched)[0]


class LSTMCell(RNNCellBase):
    """One LSTM step: (h', c') from x and (h, c)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor, hx=None):
        input, states, batched = self._batch("LSTMCell", input, hx)
        return self._cell("LSTM", input, states, batched)


class GRUCell(RNNCellBase):
    """One GRU step: h' from x and h."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, states, batched = self._batch("GRUCell", input, hx)
        return self._cell("GRU", input, states, batched)[0]
