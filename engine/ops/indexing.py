"""Indexing: ``x[...]`` and ``x[...] = v``.

ints, slices, None and ``...`` make views; lists, index tensors and masks ("advanced"
indexing) copy.
"""
import builtins
import operator
import warnings

import numpy as np

from ..fidelity import dtypes
from ..fidelity.layout import contiguous_strides, is_non_overlapping_and_dense, iterator_strides
from ..fidelity.scalars import checked_scalar
from ..fidelity.size import wrap_dim
from ..core.grad_mode import mode as grad_mode
from ..core.grad_mode import no_grad
from ..core.history import check_inplace, rebase_history
from ..core.node import Node, new_node, record
from ..core.tensor import Tensor, empty_strided, make_view, wrap
from .creation import index_tensor_from_sequence
from .views import (AliasBackward0, _permuted, _select, _shape_str, _slice, alias, expand,
                    expand_geometry, unsqueeze, view, view_strides)
from .inplace import _PARTIAL_OVERLAP, _overlap, copy_into

# ---------------------------------------------------------------- indexing: x[index]
def _treat_as_tuple(index):
    """numpy's old rule, kept by torch: a short list holding lists/slices/None/... is a tuple."""
    if isinstance(index, (Tensor, np.ndarray)) or not _is_sequence(index):
        return False
    try:
        n = len(index)
    except TypeError:
        return False
    if n >= 32:
        return False
    for item in index:
        if isinstance(item, (Tensor, slice)) or item is None or item is Ellipsis or \
                _is_sequence(item):
            return True
    return False


def _is_sequence(value):
    return isinstance(value, (list, tuple, range, str, np.ndarray))


def _is_int(value):
    """A Python int (not bool) or numpy integer: torch selects with it directly."""
    return isinstance(value, (builtins.int, np.integer)) and not isinstance(value, builtins.bool)


def _count_specified(items):
    """How many dimensions of the tensor an index uses (None, ... and bools use none)."""
    count = 0
    for item in items:
        if isinstance(item, Tensor):
            count += item._data.ndim if _is_mask(item) else 1  # a mask covers its dims
        elif item is not None and item is not Ellipsis and item is not True and \
                item is not False:
            count += 1
    return count


def _select_bounds(shape, dim, index, real_dim):
    """torch's applySelect checks, with its two messages."""
    if index == 0 and dim == 0 and not shape:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    size = shape[dim] if dim < len(shape) else 0
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size "
                         f"{size}")


def _apply_select(input, dim, index, real_dim):
    """x[index] for one int: the slice at ``index`` (a view)."""
    index = operator.index(index)
    _select_bounds(input._data.shape, dim, index, real_dim)
    return _select(input, dim, index)


def _slice_step(item):
    """The step of a slice as an int, checked as torch checks it (only positive steps)."""
    step = item.step
    if step is None:
        return 1
    step = operator.index(step)
    if step <= 0:
        raise ValueError("slice step cannot be zero" if step == 0 else
                         "step must be greater than zero")
    return step


def _apply_slice(input, dim, item):
    """x[start:stop:step] (a view)."""
    step = _slice_step(item)
    if not input._data.ndim:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    return _slice(input, dim, item.start, item.stop, step)


def _invalid_index(item):
    cls = type(item)
    name = cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"
    name = name.replace("numpy.core.", "numpy.").replace("numpy._core.", "numpy.")
    return IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                      f"Variables are valid indices (got {name})")


def _is_mask(tensor):
    """bool (and, deprecated, uint8) index tensors select by position: they are masks."""
    return tensor._data.dtype.kind == "b" or tensor._data.dtype == np.uint8


def _apply_indexing(input, items):
    """Apply ints, slices, None and ... as one view; collect the tensor indices by dimension.

    Returns the view and a list of (dimension, index tensor) pairs (torch's applySlicing).
    The basic items only change shape, strides and offset, so they are worked out on those
    and the view is made once at the end.
    """
    ndim = input._data.ndim
    specified = _count_specified(items)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    shape, stride = list(input._data.shape), list(input.stride())
    offset = input.storage_offset()
    dim, indices = 0, []
    steps = []  # the same indexing as a chain of views, which autograd records one by one
    for real_dim, item in enumerate(items):
        cls = item.__class__
        if cls is slice:
            step = _slice_step(item)
            wrap_dim(dim, len(shape))  # only two ellipses can get past the last dimension
            start, stop, _ = item.indices(shape[dim])  # clamped into 0..size, as torch does
            if (start, stop, step) != (0, shape[dim], 1):  # torch skips a full ":" here
                steps.append((_slice, dim, item.start, item.stop, step))
            offset += start * stride[dim]
            shape[dim] = builtins.max(0, -(-(stop - start) // step))
            stride[dim] *= step
            dim += 1
            continue
        if cls is Tensor and item._data.ndim == 0 and item._data.dtype.kind in "iu" and \
                not _is_mask(item):
            item = builtins.int(item._data)  # a 0-d integer tensor selects, like an int
        elif item is True or item is False or cls is Tensor and item._data.ndim == 0 and \
                item._data.dtype.kind in "iub":
            # a bool adds a dimension of size 1, kept (True) or emptied (False) by an index
            keep = builtins.bool(item if cls is builtins.bool else item._data)
            wrap_dim(dim, len(shape) + 1)
            shape.insert(dim, 1)
            stride.insert(dim, shape[dim + 1] * stride[dim] if dim < len(stride) else 1)
            indices.append((dim, wrap(np.zeros(1 if keep else 0, np.int64))))
            steps.append((unsqueeze, dim))
            dim += 1
            continue
        if _is_int(item):
            index = operator.index(item)
            _select_bounds(shape, dim, index, real_dim)
            steps.append((_select, dim, index))
            offset += (index % shape[dim]) * stride[dim]
            del shape[dim], stride[dim]
        elif item is None:
            wrap_dim(dim, len(shape) + 1)
            steps.append((unsqueeze, dim))
            stride.insert(dim, shape[dim] * stride[dim] if dim < len(shape) else 1)
            shape.insert(dim, 1)
            dim += 1
        elif item is Ellipsis:
            dim += ndim - specified
        elif cls is Tensor or _is_sequence(item):
            if cls is not Tensor:
                item = index_tensor_from_sequence(item)
            indices.append((dim, item))
            dim += item._data.ndim if _is_mask(item) else 1
        else:
            try:
                index = operator.index(item)
            except TypeError:
                raise _invalid_index(item) from None
            _select_bounds(shape, dim, index, real_dim)
            steps.append((_select, dim, index))
            offset += (index % shape[dim]) * stride[dim]
            del shape[dim], stride[dim]
    if grad_mode.grad_enabled and input.requires_grad:
        # autograd records the indexing as torch does: one select / slice / unsqueeze per item
        for view_function, *arguments in steps:
            input = view_function(input, *arguments)
        if not steps and not indices:
            input = record(AliasBackward0, alias(input), (input,))
        return input, indices
    if indices and not steps:
        return input, indices  # x[mask] = v writes into x itself (not into a view of it)
    return make_view(input, tuple(shape), tuple(stride), offset), indices


def _as_index_tuple(index):
    if index.__class__ is tuple:
        return index
    if _treat_as_tuple(index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and "
                      "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                      "pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
                      "which will result either in an error or a different result", UserWarning,
                      stacklevel=3)
        return tuple(index)
    return (index,)


def getitem(input, index):
    """``x[index]``: a view for ints, slices, None and ..., a copy for masks and index tensors."""
    # a single int or slice is the most common index: go straight to select / slice
    if index.__class__ is builtins.int or isinstance(index, np.integer):
        return _apply_select(input, 0, index, 0)
    if index.__class__ is slice:
        return _apply_slice(input, 0, index)
    result, indices = _apply_indexing(input, _as_index_tuple(index))
    if not indices:
        return result
    return _advanced_getitem(result, indices)


_INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint8), np.dtype(np.bool_))


class _IndexInfo:
    """torch's AdvancedIndex: the tensor indices lined up with (a permutation of) src."""

    def __init__(self, src, indices):
        for _, index in indices:
            if index._data.dtype not in _INDEX_DTYPES:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        # masks become one index per masked dimension (their nonzero positions)
        by_dim = [None] * src._data.ndim
        for dim, index in indices:
            data = index._data
            if _is_mask(index):
                if data.dtype == np.uint8:
                    warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use "
                                  "a dtype torch.bool instead.", UserWarning, stacklevel=4)
                for j in range(data.ndim):
                    wrap_dim(dim + j, src._data.ndim)
                    if data.shape[j] != src._data.shape[dim + j]:
                        raise IndexError(f"The shape of the mask {_shape_str(data.shape)} at "
                                         f"index {j} does not match the shape of the indexed "
                                         f"tensor {_shape_str(src._data.shape)} at index "
                                         f"{dim + j}")
                positions = np.nonzero(data)
                for j, position in enumerate(positions):
                    # nonzero() gives an (n, k) tensor; each index is one of its columns
                    by_dim[dim + j] = (position, (builtins.max(data.ndim, 1),))
            elif dim < len(by_dim):
                by_dim[dim] = (data.astype(np.int64, copy=False), index.stride())
            else:  # only two ellipses can get an index past the last dimension
                raise IndexError(f"too many indices for tensor of dimension {src._data.ndim} "
                                 f"(got {dim + 1})")
        used = [d for d in range(len(by_dim)) if by_dim[d] is not None]
        shapes = [by_dim[d][0].shape for d in used]
        try:
            self.index_shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes " + ", ".join(_shape_str(s) for s in shapes)) from None
        if builtins.any(s != self.index_shape for s in shapes):
            for d in used:
                array, stride = by_dim[d]
                _, stride = expand_geometry(array.shape, stride, self.index_shape)
                by_dim[d] = (np.broadcast_to(array, self.index_shape), stride)
        # indexed dimensions that are not next to each other go to the front
        if used != list(range(used[0], used[-1] + 1)):
            order = used + [d for d in range(len(by_dim)) if by_dim[d] is None]
            src = _permuted(src, order)
            by_dim = [by_dim[d] for d in order]
            used = list(range(len(used)))
        self.src = src
        self.before, self.after = used[0], src._data.ndim - used[-1] - 1
        self.indices = [by_dim[d] for d in used]
        self.indexed_sizes = [src._data.shape[d] for d in used]
        if 0 in self.indexed_sizes and 0 not in self.index_shape:
            raise IndexError("index is out of bounds for dimension with size 0")
        shape = src._data.shape
        self.result_shape = shape[:self.before] + tuple(self.index_shape) + \
            shape[len(shape) - self.after:]

    def numpy_index(self):
        return (slice(None),) * self.before + tuple(array for array, _ in self.indices)

    def check_bounds(self):
        """torch's kernel reports the first bad index it meets, with its position in indices."""
        if not np.prod(self.result_shape, dtype=np.int64):
            return  # nothing is read or written, so nothing is checked
        bad = [(array < -size) | (array >= size)
               for (array, _), size in zip(self.indices, self.indexed_sizes)]
        anywhere = np.logical_or.reduce(np.broadcast_arrays(*bad)) if len(bad) > 1 else bad[0]
        if anywhere.any():
            first = np.unravel_index(np.argmax(anywhere), anywhere.shape)
            for i, (array, _) in enumerate(self.indices):
                if bad[i][first]:
                    raise IndexError(f"index {array[first]} is out of bounds for dimension {i} "
                                     f"with size {self.indexed_sizes[i]}")

    def result_strides(self):
        """The layout torch's TensorIterator gives the result (it follows src and indices)."""
        src_stride = self.src.stride()
        n_index = len(self.index_shape)
        before, after = self.before, self.after
        operands = [src_stride[:before] + (0,) * n_index + src_stride[len(src_stride) - after:]]
        same_shape = True
        for array, stride in self.indices:
            new_shape = (1,) * before + tuple(array.shape) + (1,) * after
            strides = view_strides(array.shape, stride, new_shape) or \
                contiguous_strides(new_shape)
            operands.append(tuple(0 if n == 1 and m != 1 else s for n, m, s in
                                  zip(new_shape, self.result_shape, strides)))
            same_shape = same_shape and new_shape == self.result_shape
        return iterator_strides(self.result_shape, operands, same_shape)


def _advanced_getitem(src, indices):
    info = _IndexInfo(src, indices)
    info.check_bounds()
    result = empty_strided(info.result_shape, info.result_strides(), src._data.dtype)
    if result._data.size:  # an empty result reads nothing (and checks no index)
        np.copyto(result._data, info.src._data[info.numpy_index()])
    return record(IndexBackward0, result, (src,), saved=_torch_indices(indices),
                  self_sym_sizes=src._data.shape)


def _torch_indices(indices):
    """The index tensors as torch lists them: one place per dimension, None where unindexed."""
    listed = [None] * (builtins.max(dim for dim, _ in indices) + 1)
    for dim, index in indices:
        listed[dim] = index
    return tuple(listed)


def _scatter_add(grad, shape, indices):
    """Zeros of ``shape`` with ``grad`` added at the indexed positions (repeats add up).

    That is ``zeros.index_put_(indices, grad, accumulate=True)``, recorded as such so
    that a second derivative can go through it.
    """
    zeros = wrap(np.zeros(shape, grad._data.dtype))
    result = wrap(zeros._data.copy())
    info = _IndexInfo(result, [(dim, t) for dim, t in enumerate(indices) if t is not None])
    np.add.at(info.src._data, info.numpy_index(), grad._data)
    return record(IndexPutImplBackward0, result, (zeros, grad), saved=indices, accumulate=True)


def _index_tuple(indices):
    """``x[...]``'s index for torch-style indices: ``:`` where a dimension is not indexed."""
    return tuple(slice(None) if index is None else index for index in indices)


class _SavesIndices(Node):
    """A node that keeps the index tensors as saved tensors (torch's ``indices``, None where
    a dimension is not indexed): backward frees them, and an index changed in place since
    is caught, as with any saved tensor."""

    @property
    def _saved_indices(self):
        return self.saved_tensors


class IndexBackward0(_SavesIndices):
    """out = x[indices]:  each element's gradient is added back where it was read from"""

    self_sym_sizes: tuple

    def backward(self, grad):
        return _scatter_add(grad, self.self_sym_sizes, self.saved_tensors)


# ---------------------------------------------------------------- indexing: x[index] = value
def _value_to_tensor(input, value):
    """The assigned value as a tensor; Python numbers take the dtype of ``input``."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (builtins.bool, builtins.int, builtins.float, np.number, np.bool_)) \
            and not isinstance(value, np.complexfloating):
        if isinstance(value, (builtins.int, np.integer)) and not -2**63 <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")
        return wrap(np.array(checked_scalar(value, input._data.dtype, check_half=False)))
    cls = type(value)
    name = cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"
    raise TypeError(f"can't assign a {name} to a {dtypes.legacy_type_name(input.dtype)}")


def _copy_to(dst, src):
    """torch's copy_to for ``x[basic index] = value``: leading 1s of value may be dropped."""
    if src._data.shape == dst._data.shape or src._data.ndim == 0:
        return copy_into(dst, src)
    shape = src._data.shape
    first = next((i for i, n in enumerate(shape) if n != 1), len(shape))
    src = view(src, shape[first:])
    with no_grad():
        expand(src, dst._data.shape)  # (only for torch's error when the shapes do not fit)
    return copy_into(dst, src)


def setitem(input, index, value):
    """``x[index] = value``: writes into x's memory (an in-place change)."""
    value = _value_to_tensor(input, value)
    if index is False:
        return
    if index.__class__ is builtins.int or isinstance(index, np.integer):
        _copy_to(_apply_select(input, 0, index, 0), value)
        return
    if index.__class__ is slice:
        _copy_to(_apply_slice(input, 0, index), value)
        return
    if index is None or index is True:
        _copy_to(unsqueeze(input, 0), value)
        return
    result, indices = _apply_indexing(input, _as_index_tuple(index))
    if not indices:
        _copy_to(result, value)
        return
    # index_put_: the value may have extra leading dimensions of size 1
    shape = value._data.shape
    first = next((i for i, n in enumerate(shape) if n != 1), len(shape))
    if first:
        value = view(value, shape[first:])
    check_inplace(result, value)
    # recorded before the write: the node's first edge is the target's history before it
    node = new_node(IndexPutBackward0, (result, value), saved=_torch_indices(indices),
                    accumulate=False) if result._data.dtype.kind == "f" else None
    _index_put(result, indices, value)
    input._bump_version()
    rebase_history(result, node)


class IndexPutBackward0(_SavesIndices):
    """x[indices] = values:  the overwritten elements of x get no gradient; values get
    the gradient of the places they were written to"""

    accumulate: bool

    def backward(self, grad):
        index = _index_tuple(self.saved_tensors)
        grad_self = grad
        if not self.accumulate:  # (with accumulate=True x's old values were kept)
            grad_self = grad.clone()
            grad_self[index] = 0
        return grad_self, grad[index]


class IndexPutImplBackward0(IndexPutBackward0):
    """zeros with grad added at indices (the backward of x[indices]):  as index_put_"""


def _index_put(target, indices, value):
    expanded = not is_non_overlapping_and_dense(target._data.shape, target.stride()) and \
        builtins.any(n > 1 and s == 0 for n, s in zip(target._data.shape, target.stride()))
    if expanded:
        warnings.warn("Use of index_put_ on expanded tensors is deprecated. Please clone() the "
                      "tensor before performing this operation. This also applies to advanced "
                      "indexing e.g. tensor[indices] = tensor", UserWarning, stacklevel=3)
    if value._data.size == 1 and len(indices) == 1 and _is_mask(indices[0][1]):
        if expanded:
            warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() "
                          "the tensor before performing this operation. This also applies to "
                          "advanced indexing e.g. tensor[mask] = scalar", UserWarning,
                          stacklevel=3)
        return _masked_fill(target, indices[0], value)  # torch's shortcut: no dtype check
    status = _overlap(target, value)
    if status in ("partial", "full"):
        raise RuntimeError(_PARTIAL_OVERLAP)
    info = _IndexInfo(target, indices)
    shape = info.result_shape
    value_shape = value._data.shape
    expandable = len(value_shape) <= len(shape) and builtins.all(
        v == 1 or v == s for v, s in zip(value_shape[::-1], shape[::-1]))
    if not expandable:
        raise RuntimeError(f"shape mismatch: value tensor of shape {_shape_str(value_shape)} "
                           f"cannot be broadcast to indexing result of shape {_shape_str(shape)}")
    if value._data.dtype != target._data.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{dtypes.scalar_type_name[target.dtype]} for the destination and "
                           f"{dtypes.scalar_type_name[value.dtype]} for the source.")
    info.check_bounds()
    if builtins.all(info.result_shape):  # an empty region writes nothing (and checks nothing)
        info.src._data[info.numpy_index()] = value._data


def _masked_fill(target, dim_and_mask, value):
    dim, mask = dim_and_mask
    data = mask._data
    for j in range(data.ndim):
        if data.shape[j] != target._data.shape[dim + j]:
            raise IndexError(f"The shape of the mask {_shape_str(data.shape)} at index {j} does "
                             f"not match the shape of the indexed tensor "
                             f"{_shape_str(target._data.shape)} at index {dim + j}")
    if data.dtype == np.uint8:
        warnings.warn("masked_fill_ received a mask with dtype torch.uint8, this behavior is now "
                      "deprecated,please use a mask with dtype torch.bool instead.", UserWarning,
                      stacklevel=4)
    region = (slice(None),) * dim + (data.astype(bool),)
    with np.errstate(invalid="ignore", over="ignore"):
        target._data[region] = value._data.reshape(()).astype(target._data.dtype)
