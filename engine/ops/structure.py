"""Operations on a tensor's structure: triangles and diagonals (attention masks, ``diag``),
sliding windows (``unfold``), picking and placing slices (``masked_select``, ``index_add``,
``index_copy``; ``narrow_copy`` and the ``*_scatter`` ops, which write ``src`` into a copy
of a slice, a diagonal ...), uneven splits and the flips of a matrix.

Each ends in ``record`` with its node below it, as elsewhere; the views (``diagonal``,
``unfold``, ``tensor_split``'s pieces) share their input's memory, with torch's strides.
"""
import builtins
import functools
import operator

import numpy as np

from ..fidelity import calls, dtypes, messages, signatures
from ..fidelity.layout import has_internal_overlap, strided_array
from ..fidelity.messages import type_name
from ..fidelity.size import wrap_dim
from ..core.grad_mode import mode as grad_mode
from ..core.grad_mode import no_grad
from ..core.history import rebase_history
from ..core.node import Node, new_node, record
from ..core.tensor import Tensor, make_view, wrap
from .common import histories_read_first
from .common import (copy_preserving_layout, numpy_names, operands_broadcast_shape,
                     out_dtype_is, overloads, resize_out, resize_out_first, takes_out,
                     tensor_inputs)
from .arithmetic import NotImplementedBackward, add
from .views import as_strided, embed, flip, select, shape_text, sliced_view
from .reduce import nonzero

__all__ = ["tril", "triu", "diagonal", "diag", "diagflat", "masked_select", "index_add",
           "index_copy", "tensor_split", "argwhere", "fliplr", "flipud", "narrow_copy",
           "select_scatter", "slice_scatter", "diagonal_scatter", "as_strided_scatter"]


# ---------------------------------------------------------------- triangles
def _triangle(name, input, diagonal, keep_lower):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    if not signatures.is_symint(diagonal):  # (torch's SymInt)
        where = "" if calls.given_by_keyword("diagonal") else f" (position {calls.position(2)})"
        raise TypeError(f"{name}(): argument 'diagonal'{where} must be int, not "
                        f"{type_name(diagonal)}")
    diagonal = signatures.symint_value(diagonal)
    data = input._data
    if data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    rows, cols = data.shape[-2:]
    # row i keeps column j when j - i <= diagonal (tril), or j - i >= diagonal (triu)
    offsets = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = offsets <= diagonal if keep_lower else offsets >= diagonal
    # (torch's result is contiguous, whatever the input's layout)
    return wrap(np.where(keep, data, np.zeros((), data.dtype)).astype(data.dtype, order="C"))


@overloads("(Tensor input, SymInt diagonal = 0, *, Tensor out = None)")
@takes_out
def tril(input, diagonal=0):
    """The lower triangle of the last two dims (row i keeps columns up to i + diagonal), zeros
    above: ``torch.tril(torch.ones(n, n))`` is a causal mask of ones."""
    result = _triangle("tril", input, diagonal, keep_lower=True)
    return record(TrilBackward0, result, (input,), diagonal=operator.index(diagonal))


class TrilBackward0(Node):
    """out = x.tril(diagonal):  the gradient of the kept triangle, zeros above it"""

    diagonal: int

    def backward(self, grad):
        return tril(grad, self.diagonal)


@overloads("(Tensor input, SymInt diagonal = 0, *, Tensor out = None)")
@takes_out
def triu(input, diagonal=0):
    """The upper triangle of the last two dims (row i keeps columns from i + diagonal on),
    zeros below: ``torch.triu(torch.ones(n, n), diagonal=1).bool()`` masks the future."""
    result = _triangle("triu", input, diagonal, keep_lower=False)
    return record(TriuBackward0, result, (input,), diagonal=operator.index(diagonal))


class TriuBackward0(Node):
    """out = x.triu(diagonal):  the gradient of the kept triangle, zeros below it"""

    diagonal: int

    def backward(self, grad):
        return triu(grad, self.diagonal)


# ---------------------------------------------------------------- diagonals
def _diagonal_length(shape, offset, dim1, dim2):
    if offset >= 0:
        return builtins.max(builtins.min(shape[dim1], shape[dim2] - offset), 0)
    return builtins.max(builtins.min(shape[dim1] + offset, shape[dim2]), 0)


@overloads("(Tensor input, int offset = 0, int dim1 = 0, int dim2 = 1)")
@numpy_names
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The elements (i, i + offset) of dims dim1 and dim2, as a new last dim (a view: writing
    into it writes into input)."""
    ndim, given = input._data.ndim, (dim1, dim2)
    dim1, dim2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {given[0]}, {given[1]}")
    offset = operator.index(offset)
    shape, stride = input._data.shape, input.stride()
    length = _diagonal_length(shape, offset, dim1, dim2)
    start = input.storage_offset()
    if length:  # (an empty diagonal keeps the input's offset, as torch's)
        start += offset * stride[dim2] if offset >= 0 else -offset * stride[dim1]
    kept = [d for d in range(ndim) if d not in (dim1, dim2)]
    result = make_view(input, tuple(shape[d] for d in kept) + (length,),
                       tuple(stride[d] for d in kept) + (stride[dim1] + stride[dim2],), start)
    return record(DiagonalBackward0, result, (input,), dim1=dim1, dim2=dim2, offset=offset,
                  self_sym_sizes=shape)


def _diagonal_placed(grad, shape, offset, dim1, dim2):
    """Zeros of ``shape`` with ``grad`` on the diagonal (offset, dim1, dim2)."""
    result = wrap(np.zeros(shape, grad._data.dtype))
    np.copyto(diagonal(result.detach(), offset, dim1, dim2)._data, grad._data)
    return result


class DiagonalBackward0(Node):
    """out = x.diagonal(offset, dim1, dim2):  the gradient goes back onto that diagonal, zeros
    elsewhere"""

    dim1: int
    dim2: int
    offset: int
    self_sym_sizes: tuple

    def backward(self, grad):
        result = _diagonal_placed(grad, self.self_sym_sizes, self.offset, self.dim1, self.dim2)
        return record(DiagonalBackwardBackward0, result, (grad,), dim1=self.dim1,
                      dim2=self.dim2, offset=self.offset)


class DiagonalBackwardBackward0(Node):
    """out = zeros with grad on a diagonal:  its own gradient is that diagonal"""

    dim1: int
    dim2: int
    offset: int

    def backward(self, grad):
        return diagonal(grad, self.offset, self.dim1, self.dim2)


def _matrix_with_diagonal(values, offset):
    """A square matrix with the vector ``values`` on diagonal ``offset`` (torch's diag_embed)."""
    n = values._data.shape[0] + builtins.abs(offset)
    result = wrap(np.zeros((n, n), values._data.dtype))
    if values._data.size:
        np.copyto(diagonal(result, offset)._data, values._data)
    return record(DiagEmbedBackward0, result, (values,), dim1=0, dim2=1, offset=offset)


class DiagEmbedBackward0(Node):
    """out = a matrix with x on a diagonal:  x's gradient is that diagonal of the gradient"""

    dim1: int
    dim2: int
    offset: int

    def backward(self, grad):
        return diagonal(grad, self.offset, self.dim1, self.dim2)  # (a view, as torch's)


@overloads("(Tensor input, int diagonal = 0, *, Tensor out = None)")
@takes_out
def diag(input, diagonal=0):
    """A vector -> the square matrix with it on diagonal ``diagonal``; a matrix -> a copy of
    that diagonal, as a vector."""
    ndim = input._data.ndim
    if ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    offset = operator.index(diagonal)
    if ndim == 1:
        return _matrix_with_diagonal(input, offset)
    length = _diagonal_length(input._data.shape, offset, 0, 1)
    values = np.zeros(length, input._data.dtype)
    if length:
        rows = np.arange(length) + builtins.max(-offset, 0)
        values[...] = input._data[rows, rows + offset]
    # (torch runs diagonal_copy: its node's name says so)
    return record(DiagonalBackward0_copy, wrap(values), (input,), dim1=0, dim2=1, offset=offset,
                  self_sym_sizes=input._data.shape)


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801 (torch's name)
    """out = a copy of x's diagonal:  the gradient goes back onto that diagonal, zeros
    elsewhere"""


@overloads("(Tensor input, int offset = 0)")
def diagflat(input, offset=0):
    """The square matrix with input's elements (flattened) on diagonal ``offset``."""
    # (as torch: contiguous().view(-1), a ViewBackward0 before the diagonal; fuzz 2216457)
    return _matrix_with_diagonal(input.contiguous().view(-1), operator.index(offset))


@overloads("(Tensor input)")
def fliplr(input):
    """Columns in reverse order (dim 1): a copy."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@overloads("(Tensor input)")
def flipud(input):
    """Rows in reverse order (dim 0): a copy."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


# ---------------------------------------------------------------- sliding windows
@overloads("(Tensor input, int dimension, int size, int step)")
def unfold(input, dimension, size, step):
    """Every window of ``size`` elements along ``dimension``, ``step`` apart, as a new last dim
    (a view: the windows overlap in memory when step < size)."""
    shape, stride = list(input._data.shape), list(input.stride())
    ndim = len(shape)
    dim = wrap_dim(dimension, builtins.max(ndim, 1))
    length = shape[dim] if ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if ndim:
        shape[dim] = (length - size) // step + 1
        inner = stride[dim]
        stride[dim] *= step
        shape, stride = shape + [size], stride + [inner]
    else:
        shape, stride = [size], [1]
    result = make_view(input, tuple(shape), tuple(stride), input.storage_offset())
    return record(UnfoldBackward0, result, (input,), dimension=dim, size=size, step=step,
                  self_sym_sizes=input._data.shape)


class UnfoldBackward0(Node):
    """out = x.unfold(dim, size, step):  each window's gradient is added back where the window
    was read (overlapping windows add up)"""

    dimension: int
    self_sym_sizes: tuple
    size: int
    step: int

    def backward(self, grad):
        total = np.zeros(self.self_sym_sizes, grad._data.dtype)
        target = total.reshape(1) if total.ndim == 0 else total
        windows = grad._data.shape[self.dimension] if total.ndim else 1
        starts = np.arange(windows) * self.step
        # element k of window w came from w*step + k along dim: add each k's column back
        for k in range(self.size):
            piece = np.take(grad._data, k, axis=-1).reshape(
                target.shape[:self.dimension] + (windows,) + target.shape[self.dimension + 1:])
            np.add.at(target, (slice(None),) * self.dimension + (starts + k,), piece)
        return record(UnfoldBackwardBackward0, wrap(total), (grad,), dimension=self.dimension,
                      size=self.size, step=self.step)


class UnfoldBackwardBackward0(Node):
    """out = the windows' gradients added back in place:  its own gradient is unfolded again"""

    dimension: int
    size: int
    step: int

    def backward(self, grad):
        return unfold(grad, self.dimension, self.size, self.step)


# ---------------------------------------------------------------- picking and placing
@overloads("(Tensor input, Tensor mask, *, Tensor out = None)")
@takes_out
def masked_select(input, mask):
    """The elements of input where mask (bool, broadcast with input) is True, as a vector."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_select(): argument 'mask' (position 2) must be Tensor, not "
                        f"{type_name(mask)}")
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = operands_broadcast_shape(mask._data, input._data)
    picked = np.broadcast_to(input._data, shape)[np.broadcast_to(mask._data, shape)]
    return record(MaskedSelectBackward0, wrap(np.array(picked, order="C")), (input,),
                  saved=(input, mask))


class MaskedSelectBackward0(Node):
    """out = x.masked_select(mask):  each element's gradient goes back to its place, zeros
    where mask is False (added up over the dims mask broadcast x along)"""

    _saved_names = ("self", "mask")

    def backward(self, grad):
        input, mask = self.saved_tensors
        shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
        placed = np.zeros(shape, grad._data.dtype)
        placed[np.broadcast_to(mask._data, shape)] = grad._data
        result = record(MaskedScatterBackward0, wrap(placed), (grad,), saved=(mask,))
        extra = len(shape) - input._data.ndim
        summed = tuple(range(extra)) + tuple(
            extra + d for d, n in enumerate(input._data.shape) if n == 1 and shape[extra + d] != 1)
        if summed:
            result = result.sum(summed, keepdim=True).reshape(input._data.shape)
        return result


class MaskedScatterBackward0(Node):
    """out = zeros with grad written where mask is True:  its own gradient is read back there"""

    _saved_names = ("mask",)

    def backward(self, grad):
        (mask,) = self.saved_tensors
        return masked_select(grad, mask)


def _tensor_arguments(name, index, source):
    for position, (what, value) in enumerate((("index", index), ("source", source)), 3):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{what}' (position {position}) must be Tensor, "
                            f"not {type_name(value)}")


def _dtype_name(array):
    return dtypes.scalar_type_name[dtypes.from_numpy_dtype[array.dtype]]


def _index_add_checks(input, dim, index, source):
    """torch's index_add checks, in its order: dim wrapped, the index vector of positions."""
    _tensor_arguments("index_add", index, source)
    dim = wrap_dim(dim, builtins.max(input._data.ndim, 1))
    if index._data.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: "
                         f"{index._data.ndim} with type: {_dtype_name(index._data)} and size: "
                         f"{list(index._data.shape)}")
    if index._data.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{_dtype_name(index._data)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_add_(): self ({_dtype_name(input._data)}) and source "
                           f"({_dtype_name(source._data)}) must have the same scalar type")
    shape, source_shape = list(input._data.shape), list(source._data.shape)
    along = source_shape[dim] if source_shape else 1
    if index._data.size != along:
        raise RuntimeError(f"index_add_(): Number of indices ({index._data.size}) should be "
                           f"equal to source.size(dim): ({along}), for dim: {dim}")
    if shape and source_shape:
        del shape[dim], source_shape[dim]
    if shape != source_shape:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input._data.shape)} "
                           f"source.shape = {list(source._data.shape)}")
    where = index._data.reshape(-1)
    size = input._data.shape[dim] if input._data.ndim else 1
    bad = (where < 0) | (where >= size)
    if bad.any():
        raise RuntimeError(f"index {where[np.argmax(bad)]} is out of bounds for dimension {dim} "
                           f"with size {size}")
    return dim, where


def _index_copy_checks(input, dim, index, source):
    """torch's index_copy checks, in its order (its own words, unlike index_add's)."""
    _tensor_arguments("index_copy", index, source)
    dim = wrap_dim(dim, builtins.max(input._data.ndim, 1))
    if index._data.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got "
                         f"{index._data.ndim})")
    count = index._data.size
    ndim, source_ndim = input._data.ndim, source._data.ndim
    if source_ndim != ndim and source_ndim != 0 and ndim != 0:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source_ndim}), "
                         f"destination dimensionality ({ndim})")
    if index._data.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{_dtype_name(index._data)}")
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_dtype_name(input._data)} and (source) "
                           f"{_dtype_name(source._data)}")
    along = source._data.shape[dim] if source_ndim else 1
    if count != along:
        raise IndexError(f"index_copy_(): Number of indices ({count}) should be equal to "
                         f"source.size(dim) ({along})")
    # (torch numbers the dimensions of the slices, without dim)
    others = [d for d in range(builtins.min(ndim, source_ndim)) if d != dim]
    for counted, d in enumerate(others):
        if input._data.shape[d] != source._data.shape[d]:
            raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                               f"shapes. Destination slice shape: {input._data.shape[d]} at "
                               f"dimension {counted} and source slice shape: "
                               f"{source._data.shape[d]} at dimension {counted}.")
    where = index._data.reshape(-1)
    size = input._data.shape[dim] if ndim else 1
    bad = (where < 0) | (where >= size)
    if bad.any():
        raise IndexError(f"index_copy_(): index {where[np.argmax(bad)]} is out of bounds for "
                         f"dimension {dim} with size {size}")
    return dim, where


def _placed(input, dim, where, source, alpha, accumulate):
    result = np.array(input._data, order="C")
    target = result.reshape(1) if result.ndim == 0 else result
    values = source._data.reshape(target.shape[:dim] + (len(where),) + target.shape[dim + 1:])
    region = (slice(None),) * dim
    if accumulate and result.ndim > 1:
        # torch adds slice by slice with add(alpha=): the engine's add rounds as its kernel
        # (whose alpha is read in the tensor's type: truncated for integers)
        if result.dtype.kind in "iub":
            alpha = builtins.bool(alpha) if result.dtype == np.bool_ else builtins.int(alpha)
        for k, position in enumerate(where):
            place = region + (position,)
            target[place] = add(wrap(target[place]), wrap(values[region + (k,)]),
                                alpha=alpha)._data
    elif accumulate:
        # a vector: torch's scalar loop, self[i] += source[k] * alpha in the tensor's type
        values = _scaled(values, alpha, result.dtype)
        for k, position in enumerate(where):
            target[region + (position,)] += values[region + (k,)]
    else:
        for k, position in enumerate(where):
            target[region + (position,)] = values[region + (k,)]
    return wrap(result)


def _scaled(values, alpha, np_dtype):
    """source * alpha as torch's scalar loop forms it: alpha in the tensor's type (an integer
    alpha truncated), the product rounded to that type."""
    if alpha == 1 or (np_dtype == np.bool_ and alpha):
        return values
    if np_dtype == np.bool_:
        return np.zeros_like(values)
    if np_dtype.kind in "iu":
        return (values * np.array(builtins.int(alpha)).astype(np_dtype)).astype(np_dtype)
    return values * np_dtype.type(alpha)


@overloads("(Tensor input, int dim, Tensor index, Tensor source, *, Number alpha = 1, "
           "Tensor out = None)")
@takes_out
@numpy_names
def index_add(input, dim, index, source, *, alpha=1):
    """A copy of input with source's slices (times alpha) added to the slices along dim that
    index names (a repeated index adds twice)."""
    dim, where = _index_add_checks(input, dim, index, source)
    result = _placed(input, dim, where, source, alpha, accumulate=True)
    return record(IndexAddBackward0, result, (input, source), saved=(index, source), dim=dim,
                  alpha=alpha)


class IndexAddBackward0(Node):
    """out = x.index_add(dim, index, source, alpha):  d/dx = 1; source's gradient is alpha
    times the gradient of the slices it was added to"""

    _saved_names = ("index", "source")
    alpha: object
    dim: int

    def backward(self, grad):
        index, source = self.saved_tensors
        picked = grad.index_select(self.dim, index) if grad._data.ndim else grad.reshape(1)
        if self.alpha != 1:
            picked = picked * self.alpha
        return grad, picked.reshape(source._data.shape)


@overloads("(Tensor input, int dim, Tensor index, Tensor source, *, Tensor out = None)")
@takes_out
@numpy_names
def index_copy(input, dim, index, source):
    """A copy of input with source's slices written into the slices along dim that index
    names."""
    dim, where = _index_copy_checks(input, dim, index, source)
    result = _placed(input, dim, where, source, 1, accumulate=False)
    return record(IndexCopyBackward0, result, (input, source), saved=(index, source), dim=dim)


class IndexCopyBackward0(Node):
    """out = x.index_copy(dim, index, source):  x's gradient is 0 in the overwritten slices;
    source's is the gradient of the slice each was written to"""

    _saved_names = ("index", "source")
    dim: int

    def backward(self, grad):
        index, source = self.saved_tensors
        if not grad._data.ndim:
            return grad.new_zeros(()), grad.reshape(source._data.shape)
        return (grad.index_fill(self.dim, index, 0),
                grad.index_select(self.dim, index).reshape(source._data.shape))


# ---------------------------------------------------------------- uneven splits
@overloads("(Tensor input, tuple of SymInts indices, int dim = 0)",
           "(Tensor input, Tensor tensor_indices_or_sections, int dim = 0)",
           "(Tensor input, SymInt sections, int dim = 0)")
def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """``sections`` pieces as even as can be (the first ones one longer), or the pieces between
    the given indices: views, as slices are. (The keywords are torch's overloads' names.)"""
    for named in (sections, indices, tensor_indices_or_sections):
        if named is not None:
            indices_or_sections = named
    if input._data.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    if isinstance(indices_or_sections, Tensor):  # (its checks before the dim's)
        given = indices_or_sections._data
        if given.dtype != np.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {_dtype_name(given)}")
        if given.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {given.ndim} dims")
        sections = indices_or_sections.tolist()
    else:
        sections = indices_or_sections
    dim = wrap_dim(dim, input._data.ndim)
    length = input._data.shape[dim]
    if isinstance(sections, (builtins.list, builtins.tuple)):
        bounds = [0, *(operator.index(i) for i in sections), length]
    else:
        count = operator.index(sections)
        if count <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {count}")
        small, extra = divmod(length, count)
        bounds = [0]
        for i in range(count):
            bounds.append(bounds[-1] + small + (1 if i < extra else 0))
    return tuple(sliced_view(input, dim, start, stop, 1)
                 for start, stop in zip(bounds[:-1], bounds[1:]))


@overloads("(Tensor input)")
def argwhere(input):
    """The indices of the nonzero elements, one row each (torch.nonzero)."""
    return nonzero(input)


# ---------------------------------------------------------------- slices copied and written
_DIM_BEYOND = ("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got "
               "false.  (Could this error message be improved?  If so, please report an "
               "enhancement request to PyTorch.)")
_SAME_DTYPE = ("Expected self.dtype() == output.dtype() to be true, but got false.  (Could this "
               "error message be improved?  If so, please report an enhancement request to "
               "PyTorch.)")


def _narrow_copy_out(op):
    """``torch.narrow_copy(..., out=t)``: torch's CPU kernel writes t itself. It resizes t as
    ``resize_`` does (no warning; new row-major memory for another shape), then copies the
    rows block after block from t's first element on, whatever t's strides: a t of the right
    shape and other strides shows them scrambled, as torch's does."""
    @functools.wraps(op)
    def narrow_copy_out(input, dim, start, length, *, out=None):
        if out is None:
            return op(input, dim, start, length)
        if grad_mode.grad_enabled and (input.requires_grad or out.requires_grad):
            raise RuntimeError("narrow_copy(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        if input._data.ndim and input._data.dtype != out._data.dtype:
            raise RuntimeError(_SAME_DTYPE)
        with no_grad():
            result = op(input, dim, start, length)._data
        if out._data.shape != result.shape:
            resize_out(out, result.shape)
        if out._data.flags.c_contiguous:
            np.copyto(out._data, result)
        else:  # (torch's memcpy: t's memory in order, past its strides)
            storage, begin = out._storage_array(), out.storage_offset()
            count = builtins.min(result.size, storage.size - begin)
            storage[begin:begin + count] = result.reshape(-1)[:count]
        out._bump_version()
        return out

    narrow_copy_out.without_out = op
    return narrow_copy_out


@overloads("(Tensor input, int dim, SymInt start, SymInt length, *, Tensor out = None)")
@_narrow_copy_out
def narrow_copy(input, dim, start, length):
    """Elements start..start+length along dim, copied into new row-major memory (narrow's
    elements, not a view: torch's CPU kernel, whose checks differ a little from narrow's)."""
    shape = input._data.shape
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= len(shape):
        raise RuntimeError(_DIM_BEYOND)
    axis = wrap_dim(dim, len(shape))
    size = shape[axis]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    first = start + size if start < 0 else start
    if length < 0 or first > size - length:
        raise RuntimeError(f"start ({first}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    piece = input._data[(slice(None),) * axis + (slice(first, first + length),)]
    return record(NarrowCopyBackward0, wrap(np.array(piece, order="C")), (input,), dim=dim,
                  length=length, self_sym_sizes=shape, start=start)


class NarrowCopyBackward0(Node):
    """out = x.narrow_copy(dim, start, length):  the gradient lands in x[start:start+length]
    along dim, zeros elsewhere (torch's slice_backward, of start as given: a negative start
    whose slice would end at the last element slices nothing there)"""

    dim: int
    length: int
    self_sym_sizes: tuple
    start: int

    def backward(self, grad):
        axis = wrap_dim(self.dim, len(self.self_sym_sizes))
        return embed(grad, self.self_sym_sizes, axis,
                     slice(self.start, self.start + self.length))

    def jvp(self, tangent):
        """Forward mode (torch's auto_linear): the same copy, of the tangent."""
        return narrow_copy(tangent, self.dim, self.start, self.length)


def _copy_keeping_strides(input):
    """torch's clone_preserve_strides: input's whole storage copied, seen with input's sizes,
    strides and offset (memory that repeats itself, an expanded input's, is cloned instead)."""
    shape, stride = input._data.shape, input.stride()
    if has_internal_overlap(shape, stride):
        return copy_preserving_layout(input)
    storage, offset = input._storage_array().copy(), input.storage_offset()
    result = wrap(strided_array(storage, shape, stride, offset))
    result._stride, result._storage, result._offset = stride, storage, offset
    return result


def _scattered(input, src, part):
    """A copy of input (_copy_keeping_strides) with src written into ``part(copy)``, a view of
    it (a slice, a diagonal ...), converted to input's dtype as copy_ converts."""
    result = _copy_keeping_strides(input)
    with no_grad():
        target = part(result)
    if target._data.shape != src._data.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{shape_text(src._data.shape)}, slice size = "
                           f"{shape_text(target._data.shape)}")
    if has_internal_overlap(target._data.shape, target.stride()):
        raise RuntimeError(messages.INTERNAL_OVERLAP)
    with np.errstate(invalid="ignore", over="ignore"):
        np.copyto(target._data, src._data, casting="unsafe")
    return result


def _zeros(info):
    """zeros_like(src) of a node that kept src's (shape, dtype)."""
    return wrap(np.zeros(*info))


def _linear_tangent(node, op, tangent_input, tangent_src, *args):
    """Forward mode, torch's auto_linear: the op of the tangents (zeros for a missing one)."""
    input, src = node.primals
    return op(_zeros((input._data.shape, input._data.dtype)) if tangent_input is None
              else tangent_input,
              _zeros((src._data.shape, src._data.dtype)) if tangent_src is None else tangent_src,
              *args)


def _composite_out(op):
    """``torch.slice_scatter(..., out=t)``, torch's out= of an op made of others: the result,
    then t resized as out= resizes (a warning if t had elements), then t's dtype checked, then
    the copy. Autograd refuses only a t that requires grad; t gets a NotImplemented node when
    an input requires grad (backward through it fails), as an in-place write would."""
    name = op.__name__

    @functools.wraps(op)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return op(*args, **kwargs)
        if out.requires_grad and grad_mode.grad_enabled:
            raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        with no_grad():
            result = op(*args, **kwargs)
        resize_out_first(out, result._data.shape)
        out_dtype_is(out, result._data.dtype)
        np.copyto(out._data, result._data)
        out._bump_version()
        tracked = [value for value in (*args, *kwargs.values())
                   if isinstance(value, Tensor) and value.requires_grad]
        # (as an in-place write: an out= that is a view gives its base a CopySlices node)
        rebase_history(out, new_node(NotImplementedBackward, tracked, op=name))
        return out

    with_out.without_out = op
    return with_out


@overloads("(Tensor input, Tensor src, int dim, SymInt index)")
def select_scatter(input, src, dim, index):
    """A copy of input, laid out as input, with src written into the slice ``index`` along
    ``dim`` (src has that slice's shape; torch's functional form of ``x[index] = src``)."""
    result = _scattered(input, src, lambda copy: select(copy, dim, index))
    return record(SelectScatterBackward0, result, (input, src), dim=dim, index=index,
                  src_info=(src._data.shape, src._data.dtype))


class SelectScatterBackward0(Node):
    """out = x.select_scatter(src, dim, index):  x's gradient is grad with that slice zeroed,
    src's is grad's slice, grad.select(dim, index)"""

    _internal = ("src_info",)
    dim: int
    index: int
    src_info: tuple

    def backward(self, grad):
        wanted = self.next_functions[0][0] is not None
        return (select_scatter(grad, _zeros(self.src_info), self.dim, self.index)
                if wanted else None, grad.select(self.dim, self.index))

    def jvp(self, tangent_input, tangent_src):
        return _linear_tangent(self, select_scatter, tangent_input, tangent_src, self.dim,
                               self.index)


def _sliced(input, dim, start, end, step):
    """torch's slice(), its checks first: input[start:end:step] along dim (a view)."""
    if input._data.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    axis = wrap_dim(dim, input._data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return sliced_view(input, axis, start, end, step)


@overloads("(Tensor input, Tensor src, int dim = 0, SymInt? start = None, SymInt? end = None, "
           "SymInt step = 1, *, Tensor out = None)")
@_composite_out
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of input, laid out as input, with src written into input[start:end:step] along
    dim (None: from the first, to the last element; start and end clamped as in slicing)."""
    result = _scattered(input, src, lambda copy: _sliced(copy, dim, start, end, step))
    return record(SliceScatterBackward0, result, (input, src), dim=dim, start=start, end=end,
                  step=step, src_info=(src._data.shape, src._data.dtype))


class SliceScatterBackward0(Node):
    """out = x.slice_scatter(src, dim, start, end, step):  x's gradient is grad with that slice
    zeroed, src's is grad's slice"""

    _internal = ("src_info",)
    dim: int
    end: object
    src_info: tuple
    start: object
    step: int

    def backward(self, grad):
        wanted = self.next_functions[0][0] is not None
        return (slice_scatter(grad, _zeros(self.src_info), self.dim, self.start, self.end,
                              self.step) if wanted else None,
                _sliced(grad, self.dim, self.start, self.end, self.step))

    def jvp(self, tangent_input, tangent_src):
        return _linear_tangent(self, slice_scatter, tangent_input, tangent_src, self.dim,
                               self.start, self.end, self.step)


@overloads("(Tensor input, Tensor src, int offset = 0, int dim1 = 0, int dim2 = 1)")
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of input, laid out as input, with src written onto the diagonal (offset, dim1,
    dim2): src has the shape ``input.diagonal(offset, dim1, dim2)`` has."""
    result = _scattered(input, src, lambda copy: diagonal(copy, offset, dim1, dim2))
    return record(DiagonalScatterBackward0, result, (input, src), dim1=dim1, dim2=dim2,
                  offset=offset, src_info=(src._data.shape, src._data.dtype))


class DiagonalScatterBackward0(Node):
    """out = x.diagonal_scatter(src, offset, dim1, dim2):  x's gradient is grad with that
    diagonal zeroed, src's is grad's diagonal"""

    _internal = ("src_info",)
    dim1: int
    dim2: int
    offset: int
    src_info: tuple

    def backward(self, grad):
        wanted = self.next_functions[0][0] is not None
        return (diagonal_scatter(grad, _zeros(self.src_info), self.offset, self.dim1, self.dim2)
                if wanted else None, diagonal(grad, self.offset, self.dim1, self.dim2))

    def jvp(self, tangent_input, tangent_src):
        return _linear_tangent(self, diagonal_scatter, tangent_input, tangent_src, self.offset,
                               self.dim1, self.dim2)


_AS_STRIDED_CONTIGUOUS = (
    '!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at "/__w/pytorch/'
    'pytorch/aten/src/ATen/native/TensorShape.cpp":4747, please report a bug to PyTorch. '
    'as_strided_scatter is currently only supported for contiguous inputs')


@overloads("(Tensor input, Tensor src, tuple of SymInts size, tuple of SymInts stride, "
           "SymInt? storage_offset = None)")
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of input, laid out as input, with src written into the elements
    ``as_strided(size, stride, storage_offset)`` reaches in its memory (an input that requires
    grad must be contiguous: torch's backward assumes it)."""
    if input.requires_grad and not input.is_contiguous():
        raise RuntimeError(_AS_STRIDED_CONTIGUOUS)
    size, stride = tuple(size), tuple(stride)
    result = _scattered(input, src, lambda copy: as_strided(copy, size, stride, storage_offset))
    return record(AsStridedScatterBackward0, result, (input, src), size=size, stride=stride,
                  storage_offset=storage_offset,
                  self_geometry=(input._data.shape, input.stride()))


class AsStridedScatterBackward0(Node):
    """out = x.as_strided_scatter(src, size, stride, offset):  src's gradient is those
    elements of grad (made contiguous); x's, as torch 2.15 computes it, is zeros with the same
    elements of grad written back, the written part and not the rest (torch's formula)"""

    _internal = ("self_geometry",)
    self_geometry: tuple
    size: tuple
    storage_offset: object
    stride: tuple

    def backward(self, grad):
        picked = grad.contiguous().as_strided(self.size, self.stride, self.storage_offset)
        if self.next_functions[0][0] is None:
            return None, picked
        contiguous = grad.contiguous()
        shape, strides = self.self_geometry
        buffer = contiguous.new_zeros(shape)
        result = buffer.as_strided(shape, strides)
        buffer.as_strided(self.size, self.stride, self.storage_offset).copy_(
            contiguous.as_strided(self.size, self.stride, self.storage_offset))
        return result, picked

    def jvp(self, tangent_input, tangent_src):
        return _linear_tangent(self, as_strided_scatter, tangent_input, tangent_src, self.size,
                               self.stride, self.storage_offset)


histories_read_first(globals(), [name for name in __all__ if name not in (
    "argwhere", "tensor_split")] + ["unfold"])

tensor_inputs(globals(), __all__)  # torch.tril(None): torch's TypeError
