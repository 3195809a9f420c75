"""Joining tensors: ``cat``, ``stack``, ``hstack``, ``vstack``.
"""
import numpy as np

from ..fidelity import calls, dtypes, signatures
from ..fidelity.dtypes import result_type, scalar_type_name
from ..fidelity.layout import format_strides, suggested_memory_format
from ..fidelity.size import memory_format, wrap_dim
from ..fidelity.messages import type_name
from ..core.node import Node, record
from ..core.tensor import Tensor, empty_strided, wrap
from .common import histories_read_first
from .common import (ABSENT, histories_first, keyword_sizes, named_arguments, numpy_names,
                     size_arguments, takes_out)

__all__ = ["cat", "concat", "hstack", "stack", "vstack", "concatenate"]

# ====================================================================== joining
def _check_cat_inputs(tensors, name, dim):
    """torch's parser's checks of the tensors and the dim (an int), then its kernel's."""
    if not isinstance(tensors, (list, tuple)):
        where = "" if calls.given_by_keyword("tensors") else " (position 1)"
        raise TypeError(f"{name}(): argument 'tensors'{where} must be tuple of Tensors, "
                        f"not {type_name(tensors)}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type_name(t)}")
    if dim.__class__ is not int and not signatures.is_int(dim):
        raise calls.argument_error(dim, "int")
    if len(tensors) == 0:
        if name == "cat":
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        raise RuntimeError(f"{name} expects a non-empty TensorList")


def _check_cat_out(result, out, *args):
    """out= for cat and stack: the result must be castable to out's dtype."""
    _castable_to_out(result.dtype, out)


def _castable_to_out(dtype, out):
    if not dtypes.can_cast(dtype, out.dtype):
        raise TypeError("torch.cat(): input types can't be cast to the desired output type "
                        f"{scalar_type_name[out.dtype]}")


def _cat_out_first(out, *args, **kwargs):
    """torch's cat checks that the inputs' dtype casts to out's once it has found no 0-d
    input and wrapped dim, before it compares the inputs' shapes (stack compares first)."""
    named = named_arguments(("tensors", "dim"), args, kwargs)
    tensors, dim = named.get("tensors"), named.get("dim", 0)
    if not (isinstance(tensors, (list, tuple)) and tensors and isinstance(dim, int) and
            all(isinstance(t, Tensor) and t._data.ndim for t in tensors)):
        return
    parts = [t for t in tensors if t._data.shape != (0,)] or [tensors[0]]
    wrap_dim(dim, parts[0]._data.ndim)
    _castable_to_out(result_type(*tensors), out)


@takes_out(check=_check_cat_out, before=_cat_out_first)
@numpy_names
def cat(tensors, dim=0):
    """Join tensors along an existing dimension (sizes must match in every other one)"""
    _check_cat_inputs(tensors, "cat", dim)
    histories_first(*tensors)  # (a stale view's error before the shapes': fuzz 5101160)
    common = result_type(*tensors).numpy_dtype
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    # torch still skips legacy empty 1-D tensors of shape (0,) in cat
    parts = [t for t in tensors if t._data.shape != (0,)] or [tensors[0]]
    first = parts[0]._data
    axis = wrap_dim(dim, first.ndim)
    for i, t in enumerate(tensors):
        shape = t._data.shape
        if shape == (0,):
            continue
        if len(shape) != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} "
                               f"and {len(shape)}")
        for d in range(first.ndim):
            if d != axis and shape[d] != first.shape[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {axis}. "
                                   f"Expected size {first.shape[d]} but got size {shape[d]} "
                                   f"for tensor number {i} in the list.")
    arrays = [t._data.astype(common, copy=False) for t in parts]
    joined = np.concatenate(arrays, axis=axis)
    # row-major whatever the inputs' layouts (numpy would keep theirs), unless every input,
    # even a skipped one, reads as channels-last: then that
    formats = {suggested_memory_format(t._data.shape, t.stride()) for t in tensors}
    if len(formats) == 1 and "contiguous_format" not in formats:
        result = empty_strided(joined.shape, format_strides(
            joined.shape, None, memory_format(formats.pop())), joined.dtype)
        np.copyto(result._data, joined)
    else:
        result = wrap(np.ascontiguousarray(joined))
    return record(CatBackward0, result, tuple(tensors), dim=axis,
                  sizes=[t._data.shape[axis] if t._data.shape != (0,) else None for t in tensors])


class CatBackward0(Node):
    """out = the inputs joined along dim:  each input's gradient is its own piece of grad"""

    dim: int
    sizes: list

    def backward(self, grad, batched=False):
        pieces, start = [], 0
        dim = self.dim + 1 if batched and self.dim >= 0 else self.dim
        for size in self.sizes:
            if size is None:  # a legacy empty 1-D input, skipped: its gradient is empty too
                pieces.append(grad.new_zeros((0,)))
                continue
            pieces.append(grad.narrow(dim, start, size))
            start += size
        return tuple(pieces)

    def batched_backward(self, grad):  # (autograd.grad's is_grads_batched: a leading batch dim)
        return self.backward(grad, batched=True)

    def jvp(self, *tangents):
        """Forward mode: the tangents joined the same way (zeros for an input without one).
        Joined directly, as torch's, so a tangent's -0.0 stays -0.0 (the generic rule sums)."""
        return cat(_each_tangent(self, tangents), self.dim)


concat = concatenate = cat


@takes_out(check=_check_cat_out)
@numpy_names
def stack(tensors, dim=0):
    """Join tensors of equal shape along a new dimension"""
    _check_cat_inputs(tensors, "stack", dim)
    histories_first(*tensors)
    first = tensors[0]._data.shape
    axis = wrap_dim(dim, len(first) + 1)
    for i, t in enumerate(tensors):
        if t._data.shape != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(first)} at entry 0 and {list(t._data.shape)} at entry {i}")
    common = result_type(*tensors).numpy_dtype
    arrays = [t._data.astype(common, copy=False) for t in tensors]
    result = wrap(np.ascontiguousarray(np.stack(arrays, axis=axis)))
    return record(StackBackward0, result, tuple(tensors), dim=axis)


class StackBackward0(Node):
    """out = the inputs stacked along a new dim:  each input's gradient is its slice of grad"""

    dim: int

    def backward(self, grad):
        return tuple(grad.select(self.dim, i) for i in range(grad._data.shape[self.dim]))

    def batched_backward(self, grad):  # (autograd.grad's is_grads_batched: a leading batch dim)
        dim = self.dim + 1 if self.dim >= 0 else self.dim
        return tuple(grad.select(dim, i) for i in range(grad._data.shape[dim]))

    def jvp(self, *tangents):
        """Forward mode: the tangents stacked the same way (zeros for an input without one)."""
        return stack(_each_tangent(self, tangents), self.dim)


def _each_tangent(node, tangents):
    """Every input's tangent, zeros of the input's shape where it has none (for cat and stack)"""
    some = next(t for t in tangents if t is not None)
    return [some.new_zeros(meta[0]) if t is None else t
            for t, meta in zip(tangents, node._input_meta)]


def hstack(tensors):
    """Join along dim 1 (dim 0 for vectors); numbers count as vectors"""
    _check_cat_inputs(tensors, "hstack", 0)
    tensors = [t.reshape(1) if t._data.ndim == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors):
    """Join along dim 0; vectors and numbers count as rows"""
    _check_cat_inputs(tensors, "vstack", 0)
    # torch's atleast_2d: a vector unsqueezed (UnsqueezeBackward0), a number reshaped
    return cat([t if t._data.ndim >= 2 else t.unsqueeze(0) if t._data.ndim == 1 else
                t.reshape(1, 1) for t in tensors], 0)


# ====================================================================== repeating
def repeat(input, *sizes, repeats=ABSENT):
    """x.repeat(2, 3): x tiled 2 times along dim 0 and 3 times along dim 1 (numpy's tile).
    More repeats than dimensions add leading dimensions."""
    repeats = keyword_sizes("repeat", "repeats", sizes, repeats)
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    repeats = size_arguments(repeats, "repeat", "repeats",
                             position=None if repeats is not sizes else 1)
    data = input._data
    if len(repeats) < data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    padded = (1,) * (len(repeats) - data.ndim) + data.shape
    shape = [n * r for n, r in zip(padded, repeats)]
    if any(n < 0 for n in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(shape)}: [{', '.join(str(n) for n in shape)}]")
    result = wrap(np.asarray(np.tile(data.reshape(padded), repeats), order="C"))  # (row-major)
    return record(RepeatBackward0, result, (input,), repeats=repeats,
                  self_sym_sizes=data.shape)


class RepeatBackward0(Node):
    """out = x.repeat(*repeats):  each element's gradient is the sum over its copies"""

    repeats: tuple
    self_sym_sizes: tuple

    def backward(self, grad):
        # torch's steps (its layouts and roundings): the leading new dims summed one by one,
        # then each repeated dim split in (copies, size) and the copies summed at once; a
        # dim repeated once is left as it is (all once: the gradient itself, reshaped)
        if 0 in self.repeats:
            return grad.new_zeros(self.self_sym_sizes)
        new = len(self.repeats) - len(self.self_sym_sizes)
        for _ in range(new):
            grad = grad.sum(0)
        split, copies = [], []
        for repeat, size in zip(self.repeats[new:], self.self_sym_sizes):
            if repeat != 1:
                split.append(repeat)
                copies.append(len(split) - 1)
            split.append(size)
        grad = grad.reshape(split)
        return grad.sum(copies) if copies else grad


histories_read_first(globals(), ["repeat"])  # (cat and stack: histories_first)
