"""as_strided's gradient: where a piece of a tensor's memory sends its gradient back.

``x.as_strided(size, stride, offset)`` reads any places of x's memory, some twice, and a
view whose history an in-place change of its base rewrote (history.py) is such a piece of
its base. Its node, ``AsStridedBackward0``, takes torch's as_strided_backward steps, so
that the sums round as torch's and, under create_graph, the graph is torch's.
"""
import numpy as np

from ..fidelity import dtypes
from .node import Node


def may_overlap(shape, strides):
    """torch's test of whether a strided layout may read one place twice
    (_maybe_overlapping_memory): dims by stride, each beyond the reach of the smaller ones."""
    reach = 0
    for size, stride in sorted(zip(shape, strides), key=lambda pair: pair[1]):
        if stride <= reach:
            return True
        reach += stride * (size - 1)
    return False


def _storage_needed(shape, strides, offset):
    """The fewest elements a storage needs for this layout (torch's _min_storage_size)."""
    if 0 in shape:
        return offset
    return offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides))


class AsStridedBackward0(Node):
    """out = a piece of x (given by sizes, strides, offset):  the gradient lands where the
    piece reads x: added where it reads a place twice, shared out where x itself does.

    Written with tensor operations as torch's as_strided_backward is (its sums over the
    piece's expanded dims, a copy into a zeroed storage, or index_add_ when the piece
    overlaps itself): the same rounding, and under create_graph the same graph."""

    geometry: tuple

    def backward(self, grad):
        base_shape, base_stride, shape, stride, offset = self.geometry
        kept_shape, kept_stride = [], []
        for dim in reversed(range(len(shape))):
            if shape[dim] == 0:
                return grad.new_empty(base_shape).zero_()
            if shape[dim] == 1:
                grad = grad.squeeze(dim)
            elif stride[dim] == 0:
                grad = grad.sum(dim)
            else:
                kept_shape.insert(0, shape[dim])
                kept_stride.insert(0, stride[dim])
        if 0 in base_shape:
            return grad.new_empty(base_shape).zero_()
        base_kept = [(n, s) for n, s in zip(base_shape, base_stride) if n != 1]
        base_overlaps = may_overlap([n for n, _ in base_kept], [s for _, s in base_kept])
        shared = min(0, offset)  # (the base sits at 0: offsets here are relative to it)
        base_offset, piece_offset = -shared, offset - shared
        size = max(_storage_needed([n for n, _ in base_kept], [s for _, s in base_kept],
                                   base_offset),
                   _storage_needed(kept_shape, kept_stride, piece_offset))
        storage = grad.new_zeros(size)
        places = None
        if base_overlaps or may_overlap(kept_shape, kept_stride):
            places = grad.new_tensor(np.arange(size), dtype=dtypes.from_numpy_dtype[
                np.dtype(np.int64)])
        if may_overlap(kept_shape, kept_stride):
            read = places.as_strided(kept_shape, kept_stride, piece_offset)
            storage.index_add_(0, read.reshape(-1), grad.reshape(-1))
        else:
            storage.as_strided(kept_shape, kept_stride, piece_offset).copy_(grad)
        if base_overlaps:  # each place x reads n times gets 1/n of the gradient there
            read = places.as_strided([n for n, _ in base_kept], [s for _, s in base_kept],
                                     base_offset).reshape(-1)
            count = storage.new_zeros(size)
            count.index_add_(0, read, grad.new_ones(1).expand(read.shape[0]))
            storage.div_(count)
        return storage.as_strided(base_shape, base_stride, base_offset)
