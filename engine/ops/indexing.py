"""Indexing: ``x[...]`` and ``x[...] = v``.

ints, slices, None and ``...`` make views; lists, index tensors and masks ("advanced"
indexing) copy.
"""
import builtins
import math
import operator
import warnings

import numpy as np

from ..fidelity import calls, dtypes, messages, signatures
from ..fidelity.layout import contiguous_strides, is_non_overlapping_and_dense, iterator_strides
from ..fidelity.scalars import checked_scalar, parsed_number
from ..fidelity.size import contiguous_format, dim_index, wrap_dim
from ..fidelity.messages import CPP_TYPE_NAMES, type_name
from ..core.forward import each_level, has_tangent, state as dual, tangent_of, write_tangent
from ..core.grad_mode import mode as grad_mode, no_grad
from ..core.history import check_inference_inplace, check_inplace, rebase_history
from ..core.node import Node, new_node, record
from ..core.tensor import Tensor, empty_strided, make_view, wrap
from .creation import index_tensor_from_sequence, zeros_like
from .join import cat
from .views import (AliasBackward0, alias, clone, expand, expand_geometry, permuted_view,
                    selected_view, shape_text, sliced_view, unsqueeze, view, view_strides)
from .inplace import (PARTIAL_OVERLAP_MESSAGE, check_no_overlap, copy_into, in_place,
                      overlap_status, write_inplace)
from .common import histories_read_first
from .common import number_parameters, refuse_integer_history
from .common import (PYTHON_AND_NUMPY_NUMBERS, broadcast_error, invalid_arguments_error,
                     laid_out_like, operand_type_error, operands_broadcast_shape,
                     named_arguments, not_implemented_for, numpy_names, out_dtype_is,
                     require_tensor_sequence, resize_out_first, takes_out)

__all__ = ["gather", "index_fill", "index_put", "index_put_", "index_select", "masked_fill",
           "masked_scatter", "put", "repeat_interleave", "scatter", "scatter_add",
           "take_along_dim"]

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
    return selected_view(input, dim, index)


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
    return sliced_view(input, dim, item.start, item.stop, step)


def _takes_everything(item, size):
    """A slice torch leaves out as written, not as it works out: from 0, step 1, to the end
    or past it (``x[-3:]`` of 3 elements is still a slice)."""
    return (item.start is None or operator.index(item.start) == 0) and \
        (item.step is None or operator.index(item.step) == 1) and \
        (item.stop is None or operator.index(item.stop) >= size)


def _invalid_index(item):
    name = type_name(item).replace("numpy.core.", "numpy.").replace("numpy._core.", "numpy.")
    return IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                      f"Variables are valid indices (got {name})")


def _is_mask(tensor):
    """bool (and, deprecated, uint8) index tensors select by position: they are masks."""
    return tensor._data.dtype.kind == "b" or tensor._data.dtype == np.uint8


def _apply_indexing(input, items, for_write=False, tensors_index=False):
    """Apply ints, slices, None and ... as one view; collect the tensor indices by dimension.

    Returns the view and a list of (dimension, index tensor) pairs (torch's applySlicing).
    The basic items only change shape, strides and offset, so they are worked out on those
    and the view is made once at the end. With ``for_write``, items that select everything
    give ``input`` itself, not a view of it (``x[...] = 1`` fills x). ``tensors_index``
    (index_put_): a 0-d integer tensor is an index tensor too, not a select.
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
            if not _takes_everything(item, shape[dim]):  # torch skips a full ":" here
                steps.append((sliced_view, dim, item.start, item.stop, step))
            offset += start * stride[dim]
            shape[dim] = builtins.max(0, -(-(stop - start) // step))
            stride[dim] *= step
            dim += 1
            continue
        zero_dim_integer = cls is Tensor and item._data.ndim == 0 and \
            item._data.dtype.kind in "iu" and not _is_mask(item)
        if zero_dim_integer and not tensors_index:
            item = builtins.int(item._data)  # a 0-d integer tensor selects, like an int
        elif item is True or item is False or cls is Tensor and item._data.ndim == 0 and \
                item._data.dtype.kind in "iub" and not zero_dim_integer:
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
            steps.append((selected_view, dim, index))
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
            steps.append((selected_view, dim, index))
            offset += (index % shape[dim]) * stride[dim]
            del shape[dim], stride[dim]
    if grad_mode.grad_enabled and input.requires_grad or dual.active and has_tangent(input):
        # (a dual tensor's tangent is viewed the same way: core/forward.py)
        # autograd records the indexing as torch does: one select / slice / unsqueeze per item
        for view_function, *arguments in steps:
            input = view_function(input, *arguments)
        if not steps and not indices and not for_write:
            input = record(AliasBackward0, alias(input), (input,))
        return input, indices
    if (indices or for_write) and not steps:
        return input, indices  # x[mask] = v writes into x itself (not into a view of it)
    return make_view(input, tuple(shape), tuple(stride), offset), indices


def _as_index_tuple(index):
    if index.__class__ is tuple:
        return index
    if _treat_as_tuple(index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and "
                      "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                      "pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
                      "which will result either in an error or a different result"
                      + messages.triggered_in(
                          "torch/csrc/autograd/python_variable_indexing.cpp:375"),
                      UserWarning,
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
                    messages.warn_from_learner(messages.INDEXING_WITH_UINT8)
                for j in range(data.ndim):
                    wrap_dim(dim + j, src._data.ndim)
                    if data.shape[j] != src._data.shape[dim + j]:
                        raise IndexError(f"The shape of the mask {shape_text(data.shape)} at "
                                         f"index {j} does not match the shape of the indexed "
                                         f"tensor {shape_text(src._data.shape)} at index "
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
                             "with shapes " + ", ".join(shape_text(s) for s in shapes)) from None
        if builtins.any(s != self.index_shape for s in shapes):
            for d in used:
                array, stride = by_dim[d]
                _, stride = expand_geometry(array.shape, stride, self.index_shape)
                by_dim[d] = (np.broadcast_to(array, self.index_shape), stride)
        # indexed dimensions that are not next to each other go to the front
        if used != list(range(used[0], used[-1] + 1)):
            order = used + [d for d in range(len(by_dim)) if by_dim[d] is None]
            src = permuted_view(src, order)
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
# The numbers torch writes with x[index] = number: numpy's integers count as ints, its float64
# as a float (a subclass), but its other floats and its bool are refused as any other object.
_NUMBERS = (builtins.bool, builtins.int, builtins.float, np.integer)


def _value_to_tensor(input, value):
    """The assigned value as a tensor; Python numbers take the dtype of ``input``."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, _NUMBERS):
        if isinstance(value, (builtins.int, np.integer)) and not -2**63 <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")
        return wrap(np.array(checked_scalar(value, input._data.dtype, check_half=False)))
    raise TypeError(f"can't assign a {type_name(value)} to a "
                    f"{dtypes.legacy_type_name(input.dtype)}")


def _copy_to(dst, src):
    """torch's copy_to for ``x[basic index] = tensor``: a value of dst's shape is copied, a
    0-d one fills; another one loses its leading 1s (a view) and is expanded to dst's shape."""
    if src._data.shape == dst._data.shape:
        return copy_into(dst, src)
    if src._data.ndim == 0:
        return dst.fill_(src)
    shape = src._data.shape
    first = next((i for i, n in enumerate(shape) if n != 1), len(shape))
    src = view(src, shape[first:])
    if src._data.shape != dst._data.shape:
        src = expand(src, dst._data.shape)
    return copy_into(dst, src)


def setitem(input, index, value):
    """``x[index] = value``: writes into x's memory (an in-place change)."""
    if index is False:
        return
    if isinstance(value, _NUMBERS):
        return _fill_at(input, index, value)
    value = _value_to_tensor(input, value)
    if index.__class__ is builtins.int or isinstance(index, np.integer):
        _copy_to(_apply_select(input, 0, index, 0), value)
        return
    if index.__class__ is slice and not (input._data.ndim and
                                         _takes_everything(index, input._data.shape[0])):
        _copy_to(_apply_slice(input, 0, index), value)
        return
    if index is None or index is True:
        _copy_to(unsqueeze(input, 0), value)
        return
    result, indices = _apply_indexing(input, _as_index_tuple(index), for_write=True)
    if indices:
        _put(input, result, indices, value)
    else:
        _copy_to(result, value)


def _put(input, result, indices, value, accumulate=False, leading_ones=True):
    """index_put_: ``value`` into the places of ``result`` that ``indices`` pick (added there
    with ``accumulate``). ``leading_ones``: x[indices] = value drops the value's extra leading
    dimensions of size 1 (index_put_ itself does not)."""
    shape = value._data.shape
    first = next((i for i, n in enumerate(shape) if n != 1), len(shape))
    if first and leading_ones:
        value = view(value, shape[first:])
    check_inplace(result, value)
    # recorded before the write: the node's first edge is the target's history before it
    node = new_node(IndexPutBackward0, (result, value), saved=_torch_indices(indices),
                    accumulate=accumulate) if result._data.dtype.kind == "f" else None
    _index_put(result, indices, value, accumulate)
    check_inference_inplace(input)
    input._bump_version()
    rebase_history(result, node)
    if dual.active:  # forward mode: the same places of the tangent (core/forward.py)
        each_level(lambda: _put_tangent(result, indices, value))


def _put_tangent(result, indices, value):
    """``result``'s tangent after ``result[indices] = value``: value's tangent (zeros if it
    has none) in the places written, the old tangent (zeros if none) elsewhere."""
    new, old = tangent_of(value), tangent_of(result)
    if new is None and old is None:
        return
    tangent = zeros_like(result) if old is None else old.clone()
    _index_put(tangent, indices, zeros_like(value) if new is None else new.to(tangent.dtype))
    write_tangent(result, tangent)



def _fill_at(input, index, value):
    """``x[index] = number``: one fill of the indexed part, as torch 2.15 does it: fill_ (on
    x, or on the view the basic items make), masked_fill_ for a mask, index_fill_ for one
    index tensor; with several index tensors, index_put_ of the number as a tensor."""
    if isinstance(value, (builtins.int, np.integer)) and not -2**63 <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")
    if index.__class__ is builtins.int or isinstance(index, np.integer):
        _apply_select(input, 0, index, 0).fill_(value)
        return
    if index.__class__ is slice and not input._data.ndim:
        _apply_slice(input, 0, index)  # (raises torch's error for a 0-dim tensor, as x[:2])
    target, indices = _apply_indexing(input, _as_index_tuple(index), for_write=True)
    if not indices:
        target.fill_(value)
        return
    if len(indices) > 1:
        _put(input, target, indices, _value_to_tensor(input, value))
        return
    dim, where = indices[0]
    if where._data.dtype.kind in "bu" and where._data.ndim:  # a mask (uint8 masks: refused)
        _check_mask_shape(target, dim, where)
        trailing = target._data.ndim - dim - where._data.ndim
        # viewed only to add trailing dims: a view of the same shape gets fresh strides, and
        # torch compares the mask's strides with the target's (y[y] = True of a strided y)
        mask = view(where, where._data.shape + (1,) * trailing) if trailing else where
        target.masked_fill_(mask, value)
    elif where._data.dtype == np.int64:
        # autograd's refusals first (a leaf that requires grad: fuzz 2072228), then the
        # kernel checks the number before the index
        check_inplace(target)
        checked_scalar(value, input._data.dtype)
        target.index_fill_(dim, view(where, (-1,)), value)
    else:  # (an int32 or a float index: torch's index_put_ of the number as a tensor)
        _put(input, target, indices, _value_to_tensor(input, value))


def index_put_(self, indices, values, accumulate=False):
    """In place: ``values`` into the places ``indices`` (one index tensor per dimension, from
    the first) pick, as ``self[indices] = values`` but without casting; with ``accumulate``
    added there instead, a place picked twice getting both."""
    items = _index_put_arguments(self, indices, values)
    target, picked = _apply_indexing(self, items, for_write=True, tensors_index=True)
    _put(self, target, picked, values, accumulate, leading_ones=False)
    return self


def index_put(input, indices, values, accumulate=False):
    """out = a copy of input with ``values`` put where ``indices`` pick (see index_put_)."""
    items = _index_put_arguments(input, indices, values)
    with no_grad():
        result = input.clone()
        target, picked = _apply_indexing(result, items, for_write=True, tensors_index=True)
    _index_put(target, picked, values, accumulate)  # (a fresh result: at version 0)
    if result._data.dtype.kind != "f":
        return result
    return record(IndexPutBackward0, result, (input, values), saved=_torch_indices(picked),
                  accumulate=accumulate)


def _index_put_arguments(target, indices, values):
    """index_put's indices as an index tuple, after torch's parser's checks and its count of
    the dimensions they index (a mask indexes as many as it has)."""
    name, first = calls.called_name(), calls.position(2)  # (a method numbers without self)
    require_tensor_sequence(indices, name, "indices", first)
    if not isinstance(values, Tensor):
        raise TypeError(f"{name}(): argument 'values' (position {first + 1}) must be Tensor, "
                        f"not {type_name(values)}")
    if not indices:
        raise RuntimeError("sym_strides() called on an undefined Tensor")
    ndim = target._data.ndim
    if len(indices) > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {len(indices)})")
    dim = 0  # then each index's dimensions, a mask's one by one, must exist
    for index in indices:
        for _ in range(index._data.ndim if _is_mask(index) else 1):
            wrap_dim(dim, ndim)
            dim += 1
    return tuple(indices)


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


def _index_put(target, indices, value, accumulate=False):
    expanded = not is_non_overlapping_and_dense(target._data.shape, target.stride()) and \
        builtins.any(n > 1 and s == 0 for n, s in zip(target._data.shape, target.stride()))
    if expanded:
        messages.warn_from_learner(messages.INDEX_PUT_EXPANDED)
    if value._data.size == 1 and len(indices) == 1 and _is_mask(indices[0][1]) and \
            not accumulate:
        if expanded:
            messages.warn_from_learner(messages.MASKED_FILL_EXPANDED)
        return _masked_fill(target, indices[0], value)  # torch's shortcut: masked_fill_
    for other in (value, *(where for _, where in indices)):
        if overlap_status(target, other) in ("partial", "full"):
            raise RuntimeError(PARTIAL_OVERLAP_MESSAGE)
    info = _IndexInfo(target, indices)
    shape = info.result_shape
    value_shape = value._data.shape
    expandable = len(value_shape) <= len(shape) and builtins.all(
        v == 1 or v == s for v, s in zip(value_shape[::-1], shape[::-1]))
    if not expandable:
        raise RuntimeError(f"shape mismatch: value tensor of shape {shape_text(value_shape)} "
                           f"cannot be broadcast to indexing result of shape {shape_text(shape)}")
    if value._data.dtype != target._data.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{dtypes.scalar_type_name[target.dtype]} for the destination and "
                           f"{dtypes.scalar_type_name[value.dtype]} for the source.")
    info.check_bounds()
    if not builtins.all(info.result_shape):  # an empty region writes nothing (checks nothing)
        return
    if accumulate:  # one place after the other, as torch's serial kernel: repeats add up
        with np.errstate(over="ignore"):  # (integers wrap around)
            np.add.at(info.src._data, info.numpy_index(), np.broadcast_to(value._data, shape))
    else:
        info.src._data[info.numpy_index()] = value._data


def _check_mask_shape(target, dim, mask):
    data = mask._data
    for j in range(data.ndim):
        if data.shape[j] != target._data.shape[dim + j]:
            raise IndexError(f"The shape of the mask {shape_text(data.shape)} at index {j} does "
                             f"not match the shape of the indexed tensor "
                             f"{shape_text(target._data.shape)} at index {dim + j}")


def _masked_fill(target, dim_and_mask, value):
    dim, mask = dim_and_mask
    data = mask._data
    _check_mask_shape(target, dim, mask)
    if data.dtype == np.uint8:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           "unsigned char")
    region = (slice(None),) * dim + (data.astype(bool),)
    # torch fills with value.item(), a number: one that does not fit the dtype is refused
    # (even where the mask selects nothing), not wrapped as a tensor-to-tensor copy would
    target._data[region] = checked_scalar(value._data.reshape(()).item(), target._data.dtype)


# ============================================================ gather, scatter, index_select
# The "index along one dimension" family: ``out[i][j] = input[index[i][j]][j]`` (gather along
# dim 0) and its inverse ``out[index[i][j]][j] = src[i][j]`` (scatter), then index_select
# (one index vector for a whole dimension), masked_fill, repeat_interleave and take_along_dim.
_INT32_64 = (np.dtype(np.int64), np.dtype(np.int32))
_COUNT_DTYPES = _INT32_64 + (np.dtype(np.int16), np.dtype(np.int8), np.dtype(np.uint8))


def _index_argument(name, index, position=2):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' (position {position}) must be Tensor, not "
                        f"{type_name(index)}")
    if index._data.dtype not in _INT32_64:
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    return index


def _nonempty_ndim(tensor):
    return builtins.max(tensor._data.ndim, 1)  # torch counts a 0-d tensor as 1-d here


def _check_bounds(index, size, dim):
    """torch's gather/scatter kernels report the first index out of [0, size)."""
    bad = (index < 0) | (index >= size)
    if bad.any():
        raise RuntimeError(f"index {index.reshape(-1)[np.argmax(bad.reshape(-1))]} is out of "
                           f"bounds for dimension {dim} with size {size}")


def _along(index, dim):
    """numpy's fancy index that reads ``index`` along ``dim`` and the position elsewhere."""
    grids = np.indices(index.shape, sparse=True)
    return tuple(index if d == dim else grid for d, grid in enumerate(grids))


def _as_1d(data):
    return data.reshape(1) if data.ndim == 0 else data


def _gather_out(out, *args, **kwargs):
    """torch's gather declares its result (out= of input's dtype, resized to index's shape)
    once dim is wrapped, before it looks at index's dtype and shape."""
    named = named_arguments(("input", "dim", "index"), args, kwargs)
    input, dim, index = named.get("input"), named.get("dim"), named.get("index")
    if isinstance(dim, Tensor) and dim._data.ndim == 0 and dim._data.dtype.kind in "iu":
        dim = int(dim._data)  # (torch's parser reads a 0-d integer tensor as the int)
    if isinstance(input, Tensor) and isinstance(index, Tensor) and isinstance(dim, int):
        wrap_dim(dim, input._data.ndim)
        out_dtype_is(out, input._data.dtype)
        resize_out_first(out, index._data.shape)


@number_parameters("gather", {"dim": "int", "index": "Tensor"})  # (before out='s checks)
@takes_out(before=_gather_out)
@numpy_names
@number_parameters("gather", {"dim": "int", "index": "Tensor"})
def gather(input, dim, index, *, sparse_grad=False):
    """out[i][j] = input[index[i][j]][j] (dim=0), input[i][index[i][j]] (dim=1) ...
    ``index`` has input's number of dimensions, and the result has index's shape."""
    index = _index_argument("gather", index)
    dim = wrap_dim(dim, input._data.ndim)
    if _nonempty_ndim(index) != _nonempty_ndim(input):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    data, where = _as_1d(input._data), _as_1d(index._data)
    for d, (n, m) in enumerate(zip(where.shape, data.shape)):
        if d != dim and n > m:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{shape_text(index._data.shape)} to be no larger than self "
                               f"{shape_text(input._data.shape)} apart from dimension {dim}")
    _check_bounds(where, data.shape[dim], dim)
    result = wrap(np.ascontiguousarray(data[_along(where, dim)]).reshape(index._data.shape))
    return record(GatherBackward0, result, (input,), saved=(input, index), dim=dim,
                  self_sym_sizes=input._data.shape, sparse_grad=sparse_grad)


class GatherBackward0(Node):
    """out = input.gather(dim, index):  each element's gradient goes back to where it was read
    (added up where an element was read more than once)"""

    _saved_names = ("self", "index")  # (self as torch keeps it: changing it in place is caught)
    _internal = ("self_sym_sizes",)
    dim: int
    self_sym_sizes: tuple
    sparse_grad: bool

    def backward(self, grad):
        _, index = self.saved_tensors
        zeros = wrap(np.zeros(self.self_sym_sizes, grad._data.dtype))
        return scatter_add(zeros, self.dim, index, grad)


def _scatter_checks(name, input, dim, index, src):
    """torch's scatter_meta_impl: the dim, the dtypes, then (for a non-empty index) the
    shapes, in torch's order."""
    index = _index_argument(name, index)
    dim = wrap_dim(dim, input._data.ndim)
    if isinstance(src, Tensor) and src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    where = _as_1d(index._data)
    if not where.size:
        return dim, where  # (nothing is written: no shape checks, a number is not converted)
    if _nonempty_ndim(index) != _nonempty_ndim(input):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    target = _as_1d(input._data)
    too_big = builtins.any(d != dim and n > m
                           for d, (n, m) in enumerate(zip(where.shape, target.shape)))
    if isinstance(src, Tensor):
        if not too_big:
            for d, n in enumerate(where.shape):
                # (torch reads src's size along each of self's dimensions: IndexError past its
                # last one; a 0-d src has size 1)
                if n > (src._data.shape[wrap_dim(d, src._data.ndim)] if src._data.ndim else 1):
                    too_big = True
                    break
        if _nonempty_ndim(index) != _nonempty_ndim(src):
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
        if too_big:
            raise RuntimeError(f"Expected index {shape_text(index._data.shape)} to be no larger "
                               f"than self {shape_text(input._data.shape)} apart from dimension "
                               f"{dim} and to be no larger size than src "
                               f"{shape_text(src._data.shape)}")
    elif too_big:
        raise RuntimeError(f"Expected index {shape_text(index._data.shape)} to be no larger than "
                           f"self {shape_text(input._data.shape)} apart from dimension {dim}")
    _check_bounds(where, target.shape[dim], dim)
    return dim, where


def _scattered(input, dim, where, src, accumulate):
    """A copy of input with src (cut to index's shape) written, or added, along dim."""
    result = input._data.copy()
    target = _as_1d(result)  # (a view: writing into it writes into result)
    if where.size:
        position = _along(where, dim)
        if isinstance(src, Tensor):
            values = _as_1d(src._data)[tuple(slice(0, n) for n in where.shape)]
        else:
            values = checked_scalar(src, result.dtype)
        if accumulate:
            np.add.at(target, position, values)
        else:
            target[position] = values  # (a repeated position keeps the last value, as torch)
    return wrap(result)


_SCATTER = tuple(f"(Tensor input, int dim, Tensor index, {src}, *, {reduce}Tensor out = None)"
                 for src in ("Tensor src", "Number value") for reduce in ("", "str reduce, "))


@numpy_names
def scatter(input, dim, index, src=None, *, value=None):
    """A copy of input with out[index[i][j]][j] = src[i][j] (dim=0) ...; ``src`` may be a
    number (``value=``). Where index repeats a position, one of the values is kept."""
    if src is None:
        src = value
    if src is None:
        raise invalid_arguments_error("scatter", input, dim, index, first_is_self=True)
    if not isinstance(src, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)):
        raise invalid_arguments_error("scatter", input, dim, index, src, first_is_self=True)
    if not signatures.is_int(dim):  # (torch's overloads all have an int dim)
        raise invalid_arguments_error("scatter", input, dim, index, src, first_is_self=True,
                                      printed=_SCATTER)
    dim, where = _scatter_checks("scatter", input, dim, index, src)
    result = _scattered(input, dim, where, src, accumulate=False)
    if isinstance(src, Tensor):
        return record(ScatterBackward0, result, (input, src), saved=(index,), dim=dim)
    return record(ScatterBackward1, result, (input,), saved=(index,), dim=dim)


class ScatterBackward0(Node):
    """out = input.scatter(dim, index, src):  input's gradient is 0 where it was overwritten;
    src's is the gradient of the place each element was written to"""

    _saved_names = ("index",)
    dim: int

    def backward(self, grad):
        (index,) = self.saved_tensors
        return grad.scatter(self.dim, index, 0), grad.gather(self.dim, index)


class ScatterBackward1(Node):
    """out = input.scatter(dim, index, value):  input's gradient is 0 where it was overwritten"""

    _saved_names = ("index",)
    dim: int

    def backward(self, grad):
        (index,) = self.saved_tensors
        return grad.scatter(self.dim, index, 0)


@numpy_names
def scatter_add(input, dim, index, src):
    """A copy of input with src[i][j] added to out[index[i][j]][j] (dim=0) ...: repeated
    positions add up (the backward of gather)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' (position 3) must be Tensor, not "
                        f"{type_name(src)}")
    dim, where = _scatter_checks("scatter_add", input, dim, index, src)
    result = _scattered(input, dim, where, src, accumulate=True)
    return record(ScatterAddBackward0, result, (input, src), saved=(index,), dim=dim)


class ScatterAddBackward0(Node):
    """out = input.scatter_add(dim, index, src):  d/d input = 1;  src's gradient is the
    gradient of the place each element was added to"""

    _saved_names = ("index",)
    dim: int

    def backward(self, grad):
        (index,) = self.saved_tensors
        return grad, grad.gather(self.dim, index)


def _index_select_out(out, *args, **kwargs):
    """torch's index_select checks out='s dtype after index's dimensions and dtype, then
    resizes it before it looks for indices out of range."""
    named = named_arguments(("input", "dim", "index"), args, kwargs)
    input, dim, index = named.get("input"), named.get("dim"), named.get("index")
    if not (isinstance(input, Tensor) and isinstance(index, Tensor) and isinstance(dim, int)):
        return
    dim = wrap_dim(dim, input._data.ndim)
    if index._data.ndim > 1 or index._data.dtype not in _INT32_64 or (
            input._data.ndim == 0 and index._data.size != 1):
        return  # (the op's own errors come first)
    if out._data.dtype != input._data.dtype:
        raise RuntimeError("index_select(): self and result must have the same scalar type")
    shape = list(input._data.shape)
    if shape:
        shape[dim] = index._data.size
    resize_out_first(out, shape)


@number_parameters("index_select", {"dim": "int", "index": "Tensor"})  # (before out='s)
@takes_out(before=_index_select_out)
@numpy_names
@number_parameters("index_select", {"dim": "int", "index": "Tensor"})
def index_select(input, dim, index):
    """The slices of input at ``index`` (a vector) along dim: x.index_select(0, idx) is x[idx]."""
    if not isinstance(index, Tensor):
        raise TypeError(f"index_select(): argument 'index' (position 2) must be Tensor, not "
                        f"{type_name(index)}")
    dim = wrap_dim(dim, input._data.ndim)
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    where = _as_1d(index._data)
    if input._data.ndim == 0 and where.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{where.size} value(s)")
    if index._data.dtype not in _INT32_64:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    size = _as_1d(input._data).shape[dim]
    bad = (where < 0) | (where >= size)
    if bad.any():
        raise _index_select_bounds_error(input._data, dim, size, where[np.argmax(bad)])
    values = np.take(_as_1d(input._data), where, axis=dim)
    result = wrap(np.ascontiguousarray(values).reshape(
        () if input._data.ndim == 0 else values.shape))
    return record(IndexSelectBackward0, result, (input,), saved=(index,), dim=dim,
                  self_sym_sizes=input._data.shape)


def _index_select_bounds_error(data, dim, size, index):
    """torch's kernels check the indices in their own words: a tensor of two or more dims
    through its empty-tensor check or its dim-1 kernel, anything else as IndexError."""
    if data.ndim > 1 and data.size == 0 and size == 0:
        return RuntimeError("index_select(): self indexing axis dim should be positive")
    if data.ndim > 1 and (data.size == 0 or dim == 1):
        return RuntimeError(f"INDICES element is out of DATA bounds, id={index} axis_dim={size}")
    return IndexError("index out of range in self")


class IndexSelectBackward0(Node):
    """out = input.index_select(dim, index):  each slice's gradient is added back to the
    slice it was read from"""

    _saved_names = ("index",)
    dim: int
    self_sym_sizes: tuple

    def backward(self, grad):
        (index,) = self.saved_tensors
        shape = self.self_sym_sizes
        if not shape:
            return grad.reshape(())
        # index_add_ along dim: scatter_add with the index repeated over the other dimensions
        along = [1] * len(shape)
        along[self.dim] = -1
        spread = index.reshape(along).expand(grad._data.shape)
        return scatter_add(wrap(np.zeros(shape, grad._data.dtype)), self.dim, spread, grad)


def masked_fill(input, mask, value):
    """A copy of input with ``value`` where ``mask`` (bool, broadcast to input) is True."""
    return _masked_copy(input, mask, value, in_place=False)


_MASKED_FILL = ("(Tensor input, Tensor mask, Tensor value)",
                "(Tensor input, Tensor mask, Number value)")


def _masked_copy(input, mask, value, in_place):
    if not isinstance(mask, Tensor) or not isinstance(value, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)):
        method = in_place or calls.called_as_method()
        raise signatures.refuse("masked_fill_" if in_place else "masked_fill", _MASKED_FILL,
                                method, (mask, value) if method else (input, mask, value), {},
                                notes=True)
    # torch's order: masked_fill broadcasts mask and input first (mask is "tensor a"), then
    # fills the copy in place: masked_fill_ checks the value, the mask's dtype, then
    # broadcasts (the tensor filled is "tensor a")
    if not in_place:
        operands_broadcast_shape(mask._data, input._data)
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but "
                           f"got tensor with {value._data.ndim} dimension(s).")
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{CPP_TYPE_NAMES[mask._data.dtype.name]}")
    operands_broadcast_shape(input._data, mask._data)
    fill = checked_scalar(value, input._data.dtype)
    filled = np.where(mask._data, fill, input._data)
    result = wrap(np.array(filled, input._data.dtype, order="C"))
    if isinstance(value, Tensor):
        refuse_integer_history(result, input, value)
        return record(MaskedFillBackward1, result, (input, value), saved=(mask,))
    return record(MaskedFillBackward0, result, (input,), saved=(mask,))


class MaskedFillBackward0(Node):
    """out = input.masked_fill(mask, value):  d/d input = 1 where mask is False, else 0"""

    _saved_names = ("mask",)

    def backward(self, grad):
        (mask,) = self.saved_tensors
        return grad.masked_fill(mask, 0)


class MaskedFillBackward1(Node):
    """out = input.masked_fill(mask, value) for a 0-d tensor value:  input's gradient is 0
    where masked; value's is the sum of the gradient where it was written"""

    _saved_names = ("mask",)

    def backward(self, grad):
        (mask, ) = self.saved_tensors
        return grad.masked_fill(mask, 0), grad.masked_fill(mask.logical_not(), 0).sum()


def masked_scatter(input, mask, source):
    """A copy of input (broadcast with mask) with source's elements, in order, where mask is
    True"""
    for name, value, position in (("mask", mask, 2), ("source", source, 3)):
        if not isinstance(value, Tensor):
            raise operand_type_error(calls.called_name() or "masked_scatter", value, position,
                                     name)
    shape = operands_broadcast_shape(mask._data, input._data)  # (mask is "tensor a")
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {dtypes.scalar_type_name[mask.dtype]}")
    _check_source_dtype(input, source)
    values = np.array(np.broadcast_to(input._data, shape), order="C")
    where = np.broadcast_to(mask._data, shape)
    count = int(np.count_nonzero(where))
    if count > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    values[where] = source._data.reshape(-1)[:count]
    return record(MaskedScatterBackward0, wrap(values), (input, source), saved=(mask,),
                  source_sym_sizes=source._data.shape)


def _check_source_dtype(input, source):
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{dtypes.scalar_type_name[input.dtype]} and "
                           f"{dtypes.scalar_type_name[source.dtype]}")


def masked_scatter_(self, mask, source):
    """x.masked_scatter_(mask, source): the mask expands to x's shape (x does not broadcast);
    torch checks source's dtype first"""
    for name, value, position in (("mask", mask, 1), ("source", source, 2)):
        if not isinstance(value, Tensor):
            raise TypeError(f"masked_scatter_(): argument '{name}' (position {position}) must "
                            f"be Tensor, not {type_name(value)}")
    _check_source_dtype(self, source)
    return _masked_scatter_written(self, expand(mask, self._data.shape), source)


class MaskedScatterBackward0(Node):
    """out = input.masked_scatter(mask, source):  input's gradient where mask is False;
    source's the gradient where mask is True, in order (0 for the elements not used)"""

    _saved_names = ("mask",)
    source_sym_sizes: tuple

    def backward(self, grad):
        (mask,) = self.saved_tensors
        taken = grad.masked_select(mask)
        unused = math.prod(self.source_sym_sizes) - taken.numel()
        if unused > 0:  # (torch: the selected values, then zeros)
            taken = cat([taken, taken.new_zeros(unused)])
        return grad.masked_fill(mask, 0), taken.view(self.source_sym_sizes)


_masked_scatter_written = in_place(masked_scatter)


def put(input, index, source, accumulate=False):
    """A copy of input with source's elements written at the places ``index`` names in the
    flattened input (negative counts from the end), or added there with ``accumulate``"""
    for name, value, position in (("index", index, 2), ("source", source, 3)):
        if not isinstance(value, Tensor):
            raise operand_type_error(calls.called_name() or "put", value, position, name)
    if index._data.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{dtypes.scalar_type_name[index.dtype]}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {dtypes.scalar_type_name[input.dtype]} and "
                           f"source.dtype = {dtypes.scalar_type_name[source.dtype]}")
    places, size = index._data.reshape(-1), input._data.size
    if source._data.size != places.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source._data.size}, "
                         f"index.numel() = {places.size}")
    if places.size and size == 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    bad = (places >= size) | (places < -size)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(places[bad][0])} on a "
                         f"tensor of {size} elements.")
    flat = input._data.reshape(-1).copy()  # (row-major: the places count so)
    written = source._data.reshape(-1)
    if accumulate:
        np.add.at(flat, places % max(size, 1), written)
    else:
        flat[places % max(size, 1)] = written  # (a place named twice keeps the last)
    result = laid_out_like(flat.reshape(input._data.shape), input)  # (torch: a clone, then put_)
    return record(PutBackward0, result, (input, source), saved=(index, source),
                  accumulate=bool(accumulate))


class PutBackward0(Node):
    """out = input.put(index, source):  input's gradient is 0 at the places written (all of
    it passes with accumulate); source's is the gradient at its places"""

    _saved_names = ("index", "source")
    accumulate: bool

    def backward(self, grad):
        index, source = self.saved_tensors
        passed = grad if self.accumulate else grad.put(index, zeros_like(source))
        return passed, grad.take(index).reshape_as(source)


_INDEX_FILL = ("(Tensor input, int dim, Tensor index, Tensor value)",
               "(Tensor input, int dim, Tensor index, Number value)")


def index_fill(input, dim, index, value):
    """A copy of input with ``value`` in the slices along dim that ``index`` names."""
    if not isinstance(index, Tensor) or not isinstance(value, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)) \
            or not signatures.is_int(dim):  # (torch's overloads all have an int dim)
        raise invalid_arguments_error("index_fill", input, dim, index, value, first_is_self=True,
                                      printed=_INDEX_FILL)
    # (torch's clone().index_fill_(): the value, the index's dtype, then the dim, the index's
    # dims)
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    if index._data.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    dim = wrap_dim(dim, input._data.ndim)
    if index._data.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    where, data = _as_1d(index._data), _as_1d(input._data)
    size = data.shape[dim]
    filled = data.copy()
    if data.size:
        bad = (where < -size) | (where >= size)
        if bad.any():
            raise IndexError(f"index {where[np.argmax(bad)]} is out of bounds for dimension "
                             f"{dim} with size {size}")
        filled[(slice(None),) * dim + (where,)] = checked_scalar(value, input._data.dtype)
    else:
        _restride_for_index_fill(input, dim, where.size)  # (torch's kernel sees no element)
    result = laid_out_like(filled.reshape(input._data.shape), input)  # (torch: a clone)
    if isinstance(value, Tensor):
        refuse_integer_history(result, input, value)
        return record(IndexFillBackward1, result, (input, value), saved=(index,), dim=dim)
    return record(IndexFillBackward0, result, (input,), saved=(index,), dim=dim)


def _restride_for_index_fill(input, dim, count):
    """torch's index_fill kernel views input with ``count`` rows of stride 0 along dim: on an
    empty dim with other elements, that view reaches past the storage, and torch's check of
    it refuses (with another dim empty there is nothing to look at: no index is checked)."""
    sizes, strides = list(input._data.shape or (1,)), list(input.stride() or (1,))
    sizes[dim], strides[dim] = count, 0
    if 0 in sizes:
        return
    itemsize = input._data.dtype.itemsize
    needed = (input.storage_offset() + 1 + builtins.sum((n - 1) * s for n, s in
                                                          zip(sizes, strides))) * itemsize
    raise RuntimeError(f"setStorage: sizes {sizes}, strides {strides}, storage offset "
                       f"{input.storage_offset()}, and itemsize {itemsize} requiring a storage "
                       f"size of {needed} are out of bounds for storage of size "
                       f"{input.untyped_storage().nbytes()}")


class IndexFillBackward0(Node):
    """out = input.index_fill(dim, index, number):  the filled slices get no gradient"""

    _saved_names = ("index",)
    dim: int

    def backward(self, grad):
        (index,) = self.saved_tensors
        return grad.index_fill(self.dim, index, 0)


class IndexFillBackward1(Node):
    """out = input.index_fill(dim, index, value) for a 0-d tensor value:  the filled slices
    get no gradient; value gets the sum of theirs (each slice once)"""

    _saved_names = ("index",)
    dim: int

    def backward(self, grad):
        (index,) = self.saved_tensors
        # (as torch: a negative index makes index_select fail here)
        slices = grad.index_select(self.dim, index.unique())
        return grad.index_fill(self.dim, index, 0), slices.sum()


def masked_fill_(self, mask, value):
    """In place: ``value`` where ``mask`` is True, the rest untouched."""
    parsed_number(value)  # (torch's parser, before autograd's refusals)
    filled = _fill_in_place(self, (mask, value), messages.MASKED_FILL_EXPANDED,
                            lambda: _masked_copy(self, mask, value, in_place=True))
    fits = filled._data.shape == self._data.shape  # (else write_inplace raises torch's error)
    return write_inplace(self, filled, np.broadcast_to(mask._data, self._data.shape) if fits
                         else True)


def index_fill_(self, dim, index, value):
    """In place: ``value`` in the slices along dim that ``index`` names, the rest untouched."""
    if not isinstance(index, Tensor) or not isinstance(value, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)) \
            or not signatures.is_int(dim):
        raise invalid_arguments_error("index_fill", self, dim, index, value, first_is_self=True,
                                      printed=_INDEX_FILL)
    parsed_number(value)  # (torch's parser, before autograd's refusals)
    check_inplace(self)  # (autograd's refusals, before the kernel's checks)
    # torch checks these two before it warns about an expanded tensor (the rest after)
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    if isinstance(index, Tensor) and index._data.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    filled = _fill_in_place(self, (value,), messages.INDEX_FILL_EXPANDED,
                            lambda: index_fill(self, dim, index, value), index=index)
    if not self._data.size:  # (no element to write: no index was checked either)
        return write_inplace(self, filled)
    places = np.zeros(_as_1d(self._data).shape, bool)
    places[(slice(None),) * wrap_dim(dim, self._data.ndim) + (_as_1d(index._data),)] = True
    return write_inplace(self, filled, places.reshape(self._data.shape))


def _fill_in_place(self, args, expanded_warning, fill, index=None):
    """The checks of an in-place fill, then the filled copy. Unlike other in-place ops, a
    fill may write into an expanded tensor (its repeated elements), with torch's warning.
    An ``index`` may not share self's memory at all (torch's assert_no_overlap: x[x] = 0)."""
    check_inplace(self)
    if isinstance(index, Tensor) and overlap_status(self, index) in ("partial", "full"):
        raise RuntimeError(PARTIAL_OVERLAP_MESSAGE)
    shape, stride = self._data.shape, self.stride()
    # (torch's internal-overlap check: a tensor without elements has none)
    if self._data.size and builtins.any(n > 1 and s == 0 for n, s in zip(shape, stride)):
        messages.warn_from_learner(expanded_warning)
    else:
        check_no_overlap(self, args)
    if self._data.dtype.kind != "f":  # (no history for an integer result: the engine's
        with no_grad():               # difference, not the not-in-place error of torch)
            return fill()
    return fill()


_REPEAT_INTERLEAVE = ("(Tensor input, Tensor repeats, int dim = None, *, int output_size = None)",
                      "(Tensor repeats, *, int output_size = None)",
                      "(Tensor input, int repeats, int dim = None, *, int output_size = None)")


NO_REPEATS = object()  # (torch.repeat_interleave(counts): the overload of the counts alone)


@numpy_names
def repeat_interleave(input, repeats=NO_REPEATS, *by_position, dim=None, output_size=None,
                      **unknown):
    """Each element (each slice along dim) repeated ``repeats`` times in a row:
    [a, b].repeat_interleave(2) is [a, a, b, b]. Without dim, input is flattened first.
    ``torch.repeat_interleave(counts)`` alone gives 0 counts[0] times, 1 counts[1] times ..."""
    # (dim by position or by keyword: torch's errors list them so)
    named_dim = {} if dim is None else {"dim": dim}
    if len(by_position) > 1 or (by_position and named_dim):  # (no overload takes them)
        method = calls.called_as_method()
        given = (repeats, *by_position) if method else (input, repeats, *by_position)
        raise signatures.refuse("repeat_interleave", _REPEAT_INTERLEAVE[::2] if method
                                else _REPEAT_INTERLEAVE, method, given,
                                {**named_dim, **({} if output_size is None else
                                                 {"output_size": output_size}), **unknown})
    dim_by_position = bool(by_position)  # (None given there is listed too)
    if by_position:
        dim = by_position[0]
    if unknown:  # (x.repeat_interleave(2, dims=0): no overload takes it, torch lists them all)
        _refuse_repeat_interleave(input, repeats, dim, output_size, {**named_dim, **unknown})
    if repeats is None or repeats is NO_REPEATS and calls.called_as_method():
        # (None is no count; a method needs them: x.repeat_interleave())
        by_keyword = repeats is None and calls.given_by_keyword("repeats")
        _refuse_repeat_interleave(input, NO_REPEATS if by_keyword else repeats, dim, output_size,
                                  {**named_dim, **({"repeats": None} if by_keyword else {})},
                                  dim_by_position)
    if not isinstance(input, Tensor):  # (alone it is the overload of repeats alone)
        if repeats is NO_REPEATS and dim is None:
            if calls.given_by_keyword("input"):
                raise TypeError('repeat_interleave() missing 1 required positional arguments: '
                                '"repeats"')
            raise operand_type_error("repeat_interleave", input, 1, "repeats")
        _refuse_repeat_interleave(input, repeats, dim, output_size, named_dim)
    if repeats is NO_REPEATS:
        return _positions_repeated(input)
    if (not isinstance(repeats, Tensor) and not _is_int(repeats)) or not signatures.fits(
            dim, "int?") or not signatures.fits(output_size, "int?"):
        _refuse_repeat_interleave(input, repeats, dim, output_size, named_dim, dim_by_position)
    if dim is None:  # (flatten returns a 1-d input itself: torch records no view of it)
        input, dim = input.flatten(), 0
    if isinstance(repeats, Tensor):
        if repeats._data.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        size = input._data.shape[dim_index(dim, input._data.ndim)]
        if repeats._data.size == 1:
            repeats = repeats.reshape(1).expand(size)
        elif repeats._data.size != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats._data.size} and input.size({dim}) = "
                               f"{size}")
        positions = _positions_repeated(repeats)
        if positions._data.dtype not in _INT32_64:  # (counts of int8, int16, uint8)
            positions = wrap(positions._data.astype(np.int64))
        return index_select(input, dim, positions)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    # as torch composes it: a new dimension after dim, expanded, copied, merged into dim
    dim = wrap_dim(dim, input._data.ndim)
    spread = unsqueeze(input, dim + 1)
    shape = list(spread._data.shape)
    shape[dim + 1] = repeats
    merged = shape[:dim] + [shape[dim] * repeats] + shape[dim + 2:]
    copied = clone(expand(spread, shape), memory_format=contiguous_format)
    return view(copied, merged)


def _refuse_repeat_interleave(input, repeats, dim, output_size, keywords,
                              dim_by_position=False):
    """torch's TypeError for arguments no overload takes (``keywords``: those given by
    keyword, dim among them if it was; repeats taken as given by position)."""
    method = calls.called_as_method()
    if dim is None and "dim" not in keywords and calls.given_by_keyword("dim"):
        keywords = {**keywords, "dim": None}  # (dim=None written out: torch lists it)
    given = [] if repeats is NO_REPEATS else [repeats]  # (by place, not identity: 2.5 and 2.5 in
    if dim_by_position or (dim is not None and "dim" not in keywords):  # one line are one object)
        given.append(dim)
    named = {**({} if output_size is None else {"output_size": output_size}), **keywords}
    printed = _REPEAT_INTERLEAVE[::2] if method else _REPEAT_INTERLEAVE
    raise signatures.refuse("repeat_interleave", printed, method,
                            given if method else [input, *given], named, notes=True)


def _positions_repeated(counts):
    """0 counts[0] times, then 1 counts[1] times ... (no gradient: the result is indices)."""
    if counts._data.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if counts._data.dtype not in _COUNT_DTYPES:  # (torch's integral types, not bool)
        raise not_implemented_for("repeat_interleave_cpu", counts._data.dtype)
    if (counts._data < 0).any():
        raise RuntimeError("repeats can not be negative")
    positions = np.repeat(np.arange(counts._data.size, dtype=counts._data.dtype), counts._data)
    return wrap(positions)


@numpy_names
def take_along_dim(input, indices, dim=None):
    """input.gather(dim, indices) after broadcasting the two (except along dim); without dim,
    ``input.flatten()[indices.flatten()]``. numpy's take_along_axis."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"take_along_dim(): argument 'indices' (position 2) must be Tensor, not "
                        f"{type_name(indices)}")
    if dim is not None and dim.__class__ is not builtins.int:  # (torch's parser's int?)
        if not signatures.is_int(dim):
            raise calls.argument_error(dim, "int")
        dim = operator.index(dim)
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{dtypes.scalar_type_name[indices.dtype]}")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if input._data.ndim == 0 and indices._data.ndim == 0 and dim in (0, -1):
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input._data.ndim != indices._data.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input._data.ndim} dimensions for "
                           f"input, and {indices._data.ndim} dimensions for indices")
    dim = wrap_dim(dim, input._data.ndim)
    input_shape, index_shape = list(input._data.shape), list(indices._data.shape)
    input_shape[dim] = index_shape[dim] = 1
    try:
        shape = list(np.broadcast_shapes(tuple(input_shape), tuple(index_shape)))
    except ValueError:
        raise broadcast_error(np.empty(input_shape), np.empty(index_shape)) from None
    input_shape, index_shape = list(shape), list(shape)
    input_shape[dim], index_shape[dim] = input._data.shape[dim], indices._data.shape[dim]
    return gather(expand(input, input_shape), dim, expand(indices, index_shape))

histories_read_first(globals(), [name for name in __all__ if name not in ("repeat_interleave",)])
