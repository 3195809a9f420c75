"""Sequences of different lengths for the recurrent layers, as ``torch.nn.utils.rnn``.

``pad_sequence`` stacks sequences into one (T, B, *) tensor, filling the short ones;
``pack_padded_sequence`` keeps only the real steps: a ``PackedSequence`` whose ``data`` holds,
step by step, the rows of the sequences still running (``batch_sizes`` of them, the longest
sequences first). An RNN given a PackedSequence skips the padding; ``pad_packed_sequence``
turns its output back into a padded tensor and the lengths.
"""
from collections import namedtuple

import numpy as np

from ...core.node import Node, record
from ...core.tensor import Tensor, wrap
from ...fidelity import dtypes
from ...ops import creation, join

_PackedSequenceBase = namedtuple("PackedSequence_",
                                 ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    """(data, batch_sizes, sorted_indices, unsorted_indices): the real steps of a batch of
    sequences. ``sorted_indices`` says which sequence of the original batch is at each place
    (the longest first); ``unsorted_indices`` puts them back."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError("batch_sizes should always be on CPU. Instances of "
                                 "PackedSequence should never be created manually. They "
                                 "should be instantiated by functions like pack_sequence and "
                                 "pack_padded_sequences in nn.utils.rnn. "
                                 "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn"
                                 ".pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        # PackedSequence((data, batch_sizes)) : a tuple of the first two
        data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def float(self):
        return self.to(dtype=dtypes.float32)

    def double(self):
        return self.to(dtype=dtypes.float64)

    def cpu(self, *args, **kwargs):
        return self

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    output = creation.empty_like(permutation)
    output.scatter_(0, permutation, creation.arange(0, permutation.numel()))
    return output


def _as_lengths(lengths):
    if isinstance(lengths, Tensor):
        return lengths.to(dtype=dtypes.int64)
    return creation.tensor(lengths, dtype=dtypes.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded (T, B, *) batch (B, T, * with ``batch_first``) whose sequence b has
    ``lengths[b]`` real steps. With ``enforce_sorted`` the lengths must already decrease;
    otherwise the batch is sorted here and the order kept in the result."""
    lengths = _as_lengths(lengths)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = lengths.sort(descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _pack_padded(input, lengths, batch_first):
    """torch's _pack_padded_sequence: the rows of each step's running sequences, in order."""
    values = lengths._data
    if values.size and (values <= 0).any():
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    if (np.diff(values) > 0).any():
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    array = input._data.swapaxes(0, 1) if batch_first else input._data
    if values.size != array.shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{values.size} (batch_size={array.shape[1]})")
    if values.size and values[0] > array.shape[0]:
        # torch reads past the end of the input here; the engine refuses
        raise RuntimeError(f"a length ({values[0]}) is longer than the padded sequences "
                           f"({array.shape[0]} steps)")
    batch_sizes = np.array([(values > t).sum() for t in range(int(values[0]))], np.int64)
    data = np.concatenate([array[t, :n] for t, n in enumerate(batch_sizes)]) if \
        batch_sizes.size else array[:0, 0]
    result = wrap(np.ascontiguousarray(data))
    record(PackPaddedSequenceBackward0, result, (input,), saved=(),
           input_sym_sizes=tuple(input._data.shape), batch_first=batch_first,
           batch_sizes_list=tuple(int(n) for n in batch_sizes))
    return result, wrap(batch_sizes)


class PackPaddedSequenceBackward0(Node):
    """data = the padded input's real steps, one after another:  d/d input = grad's rows put
    back at their (step, sequence) places, zeros on the padding"""

    input_sym_sizes: tuple
    batch_first: bool
    batch_sizes_list: tuple

    def backward(self, grad):
        # engine operations (not numpy): the gradient can be differentiated again
        shape = self.input_sym_sizes
        steps, batch = (shape[1], shape[0]) if self.batch_first else shape[:2]
        rest = tuple(shape[2:])
        rows, first = [], 0
        for n in self.batch_sizes_list:
            piece = grad.narrow(0, first, n)
            if n < batch:
                piece = join.cat([piece, creation.zeros((batch - n,) + rest, dtype=grad.dtype)])
            rows.append(piece)
            first += n
        rows += [creation.zeros((batch,) + rest, dtype=grad.dtype)] * \
            (steps - len(self.batch_sizes_list))
        padded = join.stack(rows)
        return padded.transpose(0, 1).contiguous() if self.batch_first else padded


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """A PackedSequence back to a padded tensor, and each sequence's length (int64)."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_seq_length}")
        max_seq_length = total_length
    data, sizes = sequence.data, sequence.batch_sizes._data
    batch = int(sizes[0]) if sizes.size else 0
    padded = creation.full((max_seq_length, batch) + tuple(data.shape[1:]), padding_value,
                           dtype=data.dtype)
    first = 0
    for t, n in enumerate(sizes):
        padded.select(0, t).narrow(0, 0, int(n)).copy_(data.narrow(0, first, int(n)))
        first += int(n)
    lengths = wrap(np.array([(sizes > b).sum() for b in range(batch)], np.int64))
    if batch_first:
        padded = padded.transpose(0, 1)
    unsorted = sequence.unsorted_indices
    if unsorted is not None:
        batch_dim = 0 if batch_first else 1
        return padded.index_select(batch_dim, unsorted), lengths[unsorted]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Sequences of shape (L_i, *) padded with ``padding_value`` into (max L, B, *)."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    shape = (len(sequences), longest) + trailing if batch_first else \
        (longest, len(sequences)) + trailing
    out = creation.full(shape, padding_value, dtype=sequences[0].dtype)
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = 0 if padding_side == "right" else longest - length
        place = out.select(0, i) if batch_first else out.select(1, i)
        place.narrow(0, start, length).copy_(seq)
    return out


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of (L_i, *) sequences (longest first, unless ``enforce_sorted=False``)."""
    lengths = creation.tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences ``pad_sequence`` made ``padded_sequences`` from. (Without
    ``batch_first`` torch transposes ``padded_sequences`` itself, in place: so does this.)"""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    steps = creation.arange(padded_sequences.shape[1])
    return [seq[steps < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence was packed from."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "pack_sequence", "unpad_sequence",
           "unpack_sequence"]
