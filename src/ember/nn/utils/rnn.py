"""Packed sequences: a batch of sequences of different lengths stored without padding.

NOTE [packed layout]: `PackedSequence.data` holds the time steps one after another, and at step
t only the `batch_sizes[t]` longest sequences (the first rows of the batch, sorted by length,
longest first) contribute a row. `batch_sizes` is a CPU int64 tensor, non-increasing.
`sorted_indices[i]` is the original batch position of the i-th longest sequence and
`unsorted_indices` its inverse; both are None when the batch was already sorted.

Packing and unpacking are one `index_select` each over a flattened (time * batch, ...) view, so
values and gradients flow through ordinary registry ops.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

import ember
from ember._tensor import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation q with q[permutation[i]] = i (None stays None)."""
    if permutation is None:
        return None
    return ember.argsort(permutation)


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices",
                                                    "unsorted_indices"])):
    """A packed batch of variable-length sequences (see NOTE [packed layout]); built by
    `pack_padded_sequence` / `pack_sequence`, read back by `pad_packed_sequence`."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should "
                    "never be created manually. They should be instantiated by functions like "
                    "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                    "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise TypeError("PackedSequence(data) needs data and batch_sizes")
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        """The same sequence with `data` converted as `Tensor.to` does; the index tensors follow
        `data`'s device (batch_sizes stays on the CPU)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices, unsorted_indices = self.sorted_indices, self.unsorted_indices
        if sorted_indices is not None:
            sorted_indices = sorted_indices.to(data.device)
            unsorted_indices = unsorted_indices.to(data.device)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs) -> PackedSequence:
        return self.to(*args, device="cuda", **kwargs)

    def cpu(self, *args, **kwargs) -> PackedSequence:
        return self.to(*args, device="cpu", **kwargs)

    def pin_memory(self) -> PackedSequence:
        return self

    def double(self) -> PackedSequence:
        return self.to(dtype=ember.double)

    def float(self) -> PackedSequence:
        return self.to(dtype=ember.float)

    def half(self) -> PackedSequence:
        return self.to(dtype=ember.half)

    def long(self) -> PackedSequence:
        return self.to(dtype=ember.long)

    def int(self) -> PackedSequence:
        return self.to(dtype=ember.int)

    def short(self) -> PackedSequence:
        return self.to(dtype=ember.short)

    def char(self) -> PackedSequence:
        return self.to(dtype=ember.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=ember.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def _lengths_array(lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return lengths.detach().cpu().numpy().astype(np.int64).reshape(-1)
    return np.asarray([int(n) for n in lengths], dtype=np.int64)


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (T x B x * or, with batch_first, B x T x *) whose b-th sequence has
    `lengths[b]` valid steps. With `enforce_sorted` the lengths must be non-increasing;
    otherwise the batch is sorted here and the permutation kept in the result."""
    lengths_np = _lengths_array(lengths)
    batch_dim = 0 if batch_first else 1
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-lengths_np, kind="stable")
        lengths_np = lengths_np[order]
        sorted_indices = ember.from_numpy(order.astype(np.int64)).to(input.device)
        input = input.index_select(batch_dim, sorted_indices)
    if lengths_np.ndim != 1:
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor")
    batch = input.shape[batch_dim]
    if lengths_np.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lengths_np.shape[0]} (batch_size={batch})")
    if batch and lengths_np.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if np.any(lengths_np[1:] > lengths_np[:-1]):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability.")
    if batch_first:
        input = input.transpose(0, 1)
    steps = int(lengths_np[0]) if batch else 0
    if steps > input.shape[0]:
        raise RuntimeError(f"Expected the longest length ({steps}) to be at most the padded "
                           f"length ({input.shape[0]})")
    batch_sizes = (lengths_np[None, :] > np.arange(steps)[:, None]).sum(1)
    # Row t*B + b of the flattened input, for every (t, b) with b < batch_sizes[t], in order.
    rows = np.concatenate([t * batch + np.arange(n) for t, n in enumerate(batch_sizes)]) \
        if steps else np.zeros(0, np.int64)
    flat = input.reshape((input.shape[0] * batch,) + tuple(input.shape[2:]))
    data = flat.index_select(0, ember.from_numpy(rows.astype(np.int64)).to(input.device))
    return PackedSequence(data, ember.from_numpy(batch_sizes.astype(np.int64)), sorted_indices,
                          None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None):
    """Undo `pack_padded_sequence`: (padded batch, lengths), the batch back in its original
    order; `total_length` pads the time dimension to that many steps."""
    data, batch_sizes_t = sequence.data, sequence.batch_sizes
    batch_sizes = batch_sizes_t.numpy().astype(np.int64)
    steps = int(batch_sizes.shape[0])
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}")
        steps = total_length
    batch = int(batch_sizes[0]) if batch_sizes.shape[0] else 0
    used = batch_sizes.shape[0]
    # For each (t, b): the data row it comes from, or the padding row (index N) past the end.
    offsets = np.concatenate([[0], np.cumsum(batch_sizes)[:-1]]).astype(np.int64)
    b_index = np.arange(batch)
    rows = np.full((steps, batch), data.shape[0], dtype=np.int64)
    present = b_index[None, :] < batch_sizes[:, None]
    rows[:used][present] = (offsets[:, None] + b_index[None, :])[present]
    padding = ember.full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
                         device=data.device)
    source = ember.cat([data, padding], 0)
    padded = source.index_select(0, ember.from_numpy(rows.reshape(-1)).to(data.device))
    padded = padded.reshape((steps, batch) + tuple(data.shape[1:]))
    lengths = present.sum(0).astype(np.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths_t = ember.from_numpy(lengths)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths_t = ember.from_numpy(lengths[sequence.unsorted_indices.cpu().numpy()])
    return padded, lengths_t


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack tensors of shapes (L_i, *) into (max L, B, *) (or B x max L x * with batch_first),
    filling the missing steps with `padding_value` on `padding_side` ("right" or "left")."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for seq in sequences:
        missing = longest - seq.shape[0]
        if missing:
            fill = ember.full((missing,) + tuple(seq.shape[1:]), padding_value,
                              dtype=seq.dtype, device=seq.device)
            seq = ember.cat([seq, fill] if padding_side == "right" else [fill, seq], 0)
        padded.append(seq)
    return ember.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list:
    """Split a padded batch back into its sequences, the b-th cut to `lengths[b]` steps."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, _lengths_array(lengths))]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of tensors of shapes (L_i, *) (longest first unless enforce_sorted=False)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of tensors that `pack_sequence` packed."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
