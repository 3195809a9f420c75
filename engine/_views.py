"""Operations that return a *view*: a new tensor over the same storage.

A view changes only shape, strides and storage offset, never the values, so
writing through a view changes the original. Each function below computes the
new (shape, stride, offset) by torch's rules and calls ``make_view``.
"""
import builtins

import numpy as np

from . import _dtype
from ._ops import _common, _dims, wrap_dim
from ._size import Size
from ._tensor import Tensor, contiguous_strides, make_view, wrap


def _size_args(sizes):
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the shape (2, 3)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    try:
        return tuple(s.__index__() for s in sizes)
    except AttributeError:
        bad = next(s for s in sizes if not hasattr(s, "__index__"))
        raise TypeError(f"view(): argument 'size' (position 1) must be tuple of ints, but found "
                        f"element of type {type(bad).__name__} at pos 0") from None


def infer_size(shape, numel):
    """``shape`` with its one ``-1`` replaced so that it holds ``numel`` elements."""
    known, infer_at = 1, None
    for i, n in enumerate(shape):
        if n == -1:
            if infer_at is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer_at = i
        elif n < 0:
            raise RuntimeError(f"invalid shape dimension {n}")
        else:
            known *= n
    if infer_at is not None and known != 0 and numel % known == 0:
        shape = list(shape)
        shape[infer_at] = numel // known
        return tuple(shape)
    if known == numel and infer_at is None:
        return tuple(shape)
    raise RuntimeError(f"shape '[{', '.join(str(n) for n in shape)}]' is invalid for input of "
                       f"size {numel}")


def view_strides(old_shape, old_stride, new_shape):
    """Strides that let ``new_shape`` view memory laid out as (old_shape, old_stride), or None.

    Dimensions of the old tensor that are contiguous with each other form chunks;
    a view may split or merge dimensions only inside one chunk (torch's computeStride).
    """
    if not old_shape:
        return contiguous_strides(new_shape)
    numel = 1
    for n in old_shape:
        numel *= n
    if numel == 0:
        return old_stride if tuple(old_shape) == tuple(new_shape) else \
            contiguous_strides(new_shape)
    new_stride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        chunk_ends = tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and
                                       old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride)
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def view(input, *shape):
    """The same memory with a new shape; fails when the strides do not allow it."""
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return _view_dtype(input, shape[0])
    shape = infer_size(_size_args(shape), input._data.size)
    stride = view_strides(input._data.shape, input.stride(), shape)
    if stride is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return make_view(input, shape, stride, input.storage_offset())


def _view_dtype(input, target):
    if target.itemsize != input._data.itemsize:
        raise RuntimeError(f"self.size(-1) must be divisible by {target.itemsize // input._data.itemsize or 1} "
                           f"to view {_dtype.scalar_type_name[input.dtype]} as "
                           f"{_dtype.scalar_type_name[target]} (different element sizes), but got "
                           f"{input._data.shape[-1] if input._data.ndim else 1}")
    result = wrap(input._data.view(target.numpy_dtype))
    result._stride, result._storage = input.stride(), None
    result._vc = input._version_counter()
    return result


def view_as(input, other):
    return view(input, other._data.shape)


def reshape(input, *shape):
    """Like view when the strides allow it (shared memory), otherwise a copy."""
    shape = infer_size(_size_args(shape), input._data.size)
    stride = view_strides(input._data.shape, input.stride(), shape)
    if stride is not None:
        return make_view(input, shape, stride, input.storage_offset())
    return wrap(np.ascontiguousarray(input._data).reshape(shape))


def reshape_as(input, other):
    return reshape(input, other._data.shape)


def _permuted(input, order):
    shape, stride = input._data.shape, input.stride()
    return make_view(input, tuple(shape[d] for d in order), tuple(stride[d] for d in order),
                     input.storage_offset())


def transpose(input, dim0, dim1):
    """Swap two dimensions (a view: the strides swap, the memory stays)."""
    ndim = input._data.ndim
    d0, d1 = wrap_dim(dim0, ndim), wrap_dim(dim1, ndim)
    order = list(range(ndim))
    order[d0], order[d1] = order[d1], order[d0]
    return _permuted(input, order)


swapaxes = swapdims = transpose


def permute(input, *dims):
    """Reorder the dimensions (a view)."""
    dims = _size_args(dims)
    ndim = input._data.ndim
    if len(dims) != ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not "
                           "match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {ndim} is not equal to len(dims) = {len(dims)}")
    order = [wrap_dim(d, ndim) for d in dims]
    if len(set(order)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _permuted(input, order)


def t(input):
    """Transpose a matrix; 0-d and 1-d tensors come back as they are (as views)."""
    ndim = input._data.ndim
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return _permuted(input, list(range(ndim))[::-1])


def _T(input):
    ndim = input._data.ndim
    if ndim != 2 and ndim != 0:
        import warnings
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                      "shape is deprecated and it will throw an error in a future release. "
                      "Consider `x.mT` to transpose batches of matrices or "
                      "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions "
                      "of a tensor.", UserWarning, stacklevel=3)
    return _permuted(input, list(range(ndim))[::-1])


def _mT(input):
    ndim = input._data.ndim
    if ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {ndim}-D tensor.")
    return transpose(input, -2, -1)


def squeeze(input, dim=None):
    """Drop dimensions of size 1 (all of them, or those in dim that have size 1)."""
    shape, stride = input._data.shape, input.stride()
    ndim = len(shape)
    drop = set(range(ndim)) if dim is None else set(_dims(dim, ndim))
    keep = [d for d in range(ndim) if not (d in drop and shape[d] == 1)]
    return make_view(input, tuple(shape[d] for d in keep), tuple(stride[d] for d in keep),
                     input.storage_offset())


def unsqueeze(input, dim):
    """Insert a dimension of size 1 at ``dim``."""
    shape, stride = list(input._data.shape), list(input.stride())
    dim = wrap_dim(dim, len(shape) + 1)
    new_stride = shape[dim] * stride[dim] if dim < len(shape) else 1
    shape.insert(dim, 1)
    stride.insert(dim, new_stride)
    return make_view(input, tuple(shape), tuple(stride), input.storage_offset())


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dimensions start_dim..end_dim into one (a view when the strides allow)."""
    ndim = input._data.ndim
    if ndim == 0:
        return reshape(input, 1)
    start, end = wrap_dim(start_dim, ndim), wrap_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input._data.shape
    merged = 1
    for n in shape[start:end + 1]:
        merged *= n
    return reshape(input, shape[:start] + (merged,) + shape[end + 1:])


def unflatten(input, dim, sizes):
    shape = input._data.shape
    dim = wrap_dim(dim, len(shape))
    sizes = infer_size(tuple(sizes), shape[dim])
    return view(input, shape[:dim] + sizes + shape[dim + 1:])


def ravel(input):
    return reshape(input, -1)


def expand(input, *sizes):
    """Repeat size-1 dimensions without copying: their stride becomes 0."""
    sizes = _size_args(sizes)
    shape, stride = input._data.shape, input.stride()
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand(torch.FloatTensor{{[{', '.join(map(str, shape))}]}}, "
                           f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided "
                           f"({len(sizes)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    new_shape, new_stride = [], []
    for i, target in enumerate(sizes):
        if i < lead:
            if target < 0:
                raise RuntimeError(f"The expanded size of the tensor ({target}) isn't allowed in "
                                   "a leading, non-existing dimension 0")
            new_shape.append(target)
            new_stride.append(0)
            continue
        size, step = shape[i - lead], stride[i - lead]
        if target == -1:
            target = size
        if size == target:
            new_shape.append(size)
            new_stride.append(step)
        elif size == 1:
            new_shape.append(target)
            new_stride.append(0)
        else:
            raise RuntimeError(f"The expanded size of the tensor ({target}) must match the "
                               f"existing size ({size}) at non-singleton dimension {i}.  Target "
                               f"sizes: [{', '.join(map(str, sizes))}].  Tensor sizes: "
                               f"[{', '.join(map(str, shape))}]")
    return make_view(input, tuple(new_shape), tuple(new_stride), input.storage_offset())


def expand_as(input, other):
    return expand(input, other._data.shape)


def broadcast_to(input, shape):
    return expand(input, shape)


def broadcast_tensors(*tensors):
    shape = np.broadcast_shapes(*(t._data.shape for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


def broadcast_shapes(*shapes):
    try:
        return Size(np.broadcast_shapes(*shapes))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape") \
            from None


def narrow(input, dim, start, length):
    """Elements start..start+length along dim (a view)."""
    shape, stride = list(input._data.shape), input.stride()
    dim = wrap_dim(dim, len(shape))
    if start < 0:
        start += shape[dim]
    if start < 0 or start + length > shape[dim] or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({shape[dim]}).")
    shape[dim] = length
    return make_view(input, tuple(shape), stride, input.storage_offset() + start * stride[dim])


def select(input, dim, index):
    """The slice at ``index`` along ``dim``, which disappears (a view)."""
    shape, stride = list(input._data.shape), list(input.stride())
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, len(shape))
    size = shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    index %= size
    offset = input.storage_offset() + index * stride[dim]
    del shape[dim], stride[dim]
    return make_view(input, tuple(shape), tuple(stride), offset)


def unbind(input, dim=0):
    """Every slice along dim, as a tuple of views."""
    dim = wrap_dim(dim, input._data.ndim)
    return tuple(select(input, dim, i) for i in range(input._data.shape[dim]))


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of ``split_size`` along dim (the last may be smaller), or of the given sizes."""
    dim = wrap_dim(dim, tensor._data.ndim)
    size = tensor._data.shape[dim]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0 and size:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {size}")
        sections = [builtins.min(step, size - i) for i in range(0, size, step)] if step else [0]
    else:
        sections = list(split_size_or_sections)
        if builtins.sum(sections) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} "
                               f"(input tensor's size at dimension {dim}), but got "
                               f"split_sizes={sections}")
    pieces, start = [], 0
    for length in sections:
        pieces.append(narrow(tensor, dim, start, length))
        start += length
    return tuple(pieces)


def chunk(input, chunks, dim=0):
    """At most ``chunks`` pieces of equal size (the last may be smaller) along dim."""
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    size = input._data.shape[wrap_dim(dim, input._data.ndim)]
    step = builtins.max(-(-size // chunks), 1)
    return split(input, step, dim)


def as_strided(input, size, stride, storage_offset=None):
    """A view with exactly these sizes and strides (no checks beyond the storage bounds)."""
    offset = input.storage_offset() if storage_offset is None else storage_offset
    return make_view(input, tuple(size), tuple(stride), offset)


def movedim(input, source, destination):
    ndim = input._data.ndim
    order = list(np.moveaxis(np.arange(ndim), source, destination))
    return _permuted(input, [int(d) for d in order])


moveaxis = movedim


def detach(input):
    """The same memory and version counter, cut from the graph (requires_grad False)."""
    result = make_view(input, input._data.shape, input.stride(), input.storage_offset())
    result._base = None
    return result


def alias(input):
    return make_view(input, input._data.shape, input.stride(), input.storage_offset())


# ---------------------------------------------------------------- copies
def clone(input, *, memory_format=None):
    """A copy in new memory, keeping the layout (strides) of a dense input."""
    if memory_format is not None and memory_format != "torch.preserve_format":
        return wrap(np.array(input._data, order="C"))
    return wrap(input._data.copy(order="K"))


def contiguous(input, memory_format=None):
    """``self`` when already row-major, otherwise a row-major copy."""
    if input.is_contiguous():
        return input
    return wrap(np.ascontiguousarray(input._data))


# ---------------------------------------------------------------- indexing
def _is_basic(item):
    return item is None or item is Ellipsis or isinstance(item, (builtins.int, slice)) and \
        not isinstance(item, builtins.bool)


def _expand_ellipsis(index, ndim):
    consumed = builtins.sum(1 for item in index if item is not None and item is not Ellipsis)
    if consumed > ndim:
        if ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if Ellipsis not in index:
        return list(index) + [slice(None)] * (ndim - consumed)
    at = index.index(Ellipsis)
    return list(index[:at]) + [slice(None)] * (ndim - consumed) + list(index[at + 1:])


def getitem(input, index):
    """``x[index]``: a view for ints, slices, None and ..., a copy for masks and index tensors."""
    if not isinstance(index, tuple):
        index = (index,)
    if not builtins.all(_is_basic(item) for item in index):
        return _advanced_getitem(input, index)
    items = _expand_ellipsis(index, input._data.ndim)
    shape, stride = list(input._data.shape), list(input.stride())
    offset = input.storage_offset()
    dim = 0
    for item in items:
        if item is None:
            # torch unsqueezes the partial result: the new stride is size * stride of the next dim
            stride.insert(dim, shape[dim] * stride[dim] if dim < len(shape) else 1)
            shape.insert(dim, 1)
            dim += 1
        elif isinstance(item, slice):
            start, stop, step = item.indices(shape[dim])
            if step <= 0:
                raise ValueError("step must be greater than zero")
            offset += start * stride[dim] if start < shape[dim] else 0
            shape[dim] = builtins.max(0, -(-(stop - start) // step))
            stride[dim] *= step
            dim += 1
        else:
            size = shape[dim]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            offset += (item % size) * stride[dim]
            del shape[dim], stride[dim]
    return make_view(input, tuple(shape), tuple(stride), offset)


def _numpy_index(input, index):
    """``index`` with tensors and lists turned into numpy arrays, checked as torch checks."""
    converted, dim = [], 0
    items = _expand_ellipsis(index, input._data.ndim) if not builtins.any(
        isinstance(i, (Tensor, list, np.ndarray)) and np.asarray(
            i._data if isinstance(i, Tensor) else i).dtype == bool for i in index) else list(index)
    for item in items:
        if isinstance(item, Tensor):
            item = item._data
        elif isinstance(item, (list, tuple)):
            item = np.asarray(item)
            if item.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if isinstance(item, np.ndarray):
            if item.dtype.kind == "b":
                wanted = input._data.shape[dim:dim + item.ndim]
                if item.shape != wanted:
                    raise IndexError(f"The shape of the mask {list(item.shape)} at index {dim} "
                                     f"does not match the shape of the indexed tensor "
                                     f"{list(input._data.shape)} at index {dim}")
                dim += item.ndim
            elif item.dtype.kind in "iu":
                if dim >= input._data.ndim:
                    raise IndexError(f"too many indices for tensor of dimension "
                                     f"{input._data.ndim}")
                size = input._data.shape[dim]
                bad = item[(item >= size) | (item < -size)]
                if bad.size:
                    raise IndexError(f"index {bad.flat[0]} is out of bounds for dimension {dim} "
                                     f"with size {size}")
                dim += 1
            else:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        elif item is not None and item is not Ellipsis:
            dim += 1
        converted.append(item)
    return tuple(converted)


def _advanced_getitem(input, index):
    return wrap(input._data[_numpy_index(input, index)])


def setitem(input, index, value):
    """``x[index] = value``: writes into x's memory (an in-place change)."""
    if not isinstance(index, tuple):
        index = (index,)
    target = input._data
    if builtins.all(_is_basic(item) for item in index):
        region = getitem(input, index)._data
    else:
        region = None
        np_index = _numpy_index(input, index)
    if isinstance(value, Tensor):
        source = value._data
    else:
        _, source, _ = _common(input, value, "setitem")
    try:
        if region is not None:
            np.copyto(region, source, casting="unsafe")
        else:
            target[np_index] = source
    except ValueError:
        shape = list(region.shape) if region is not None else list(target[np_index].shape)
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(np.shape(source))} "
                           f"cannot be broadcast to indexing result of shape {shape}") from None
    input._bump_version()


# ---------------------------------------------------------------- in-place shape changes
def _restride(input, view):
    """Make ``input`` itself take the shape and strides of ``view`` (t_, squeeze_ ...)."""
    input._data, input._stride = view._data, view._stride
    input._storage, input._offset = view._storage, view._offset
    return input


def t_(input):
    return _restride(input, t(input))


def transpose_(input, dim0, dim1):
    return _restride(input, transpose(input, dim0, dim1))


def unsqueeze_(input, dim):
    return _restride(input, unsqueeze(input, dim))


def squeeze_(input, dim=None):
    return _restride(input, squeeze(input, dim))

