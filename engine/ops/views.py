"""Operations that return a *view*: a new tensor over the same storage.

A view changes only shape, strides and storage offset, never the values, so
writing through a view changes the original. Each function below computes the
new (shape, stride, offset) by torch's rules and calls ``make_view``.
"""
import builtins
import itertools
import operator
import sys
import warnings

import numpy as np

from ..fidelity import calls, dtypes, messages, signatures
from ..fidelity.layout import contiguous_strides, strided_array
from ..fidelity.size import (Size, check_memory_format, contiguous_format, distinct_dims,
                             preserve_format, wrap_dim)
from ..fidelity.messages import type_name
from ..core.forward import each_level, state as dual, tangent_of
from ..core.backward import sum_to
from ..core.grad_mode import mode as grad_mode
from ..core.grad_mode import no_grad
from ..core.history import check_inference_inplace, check_inplace, view_geometry
from ..core.node import Node, new_node, record
from ..core.strided import AsStridedBackward0
from ..core.tensor import Tensor, make_view, wrap
from .common import histories_read_first, require_tensor_sequence
from .common import (ABSENT, broadcast_error, size_arguments, copy_preserving_layout,
                     empty_in_format, keyword_sizes,
                     numpy_names, operand_type_error, overloads, tensor_inputs)
from .creation import zeros
from .join import cat, stack
from .common import number_parameters

__all__ = ["adjoint", "reshape", "transpose", "swapaxes", "permute", "t", "squeeze",
           "unsqueeze", "flatten", "unflatten", "ravel", "broadcast_to", "broadcast_tensors",
           "broadcast_shapes", "narrow",
           "select", "unbind", "split", "split_with_sizes", "chunk", "as_strided", "movedim",
           "moveaxis", "detach",
           "clone", "flip", "swapdims", "unsafe_split", "unsafe_chunk"]

# ---------------------------------------------------------------- sizes
def shape_text(shape):
    return f"[{', '.join(str(n) for n in shape)}]"


def infer_size(shape, numel):
    """``shape`` with its one ``-1`` replaced so that it holds ``numel`` elements."""
    known, infer_at = 1, None
    for i, n in enumerate(shape):
        if n == -1:
            if infer_at is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer_at = i
        elif n < 0:
            raise RuntimeError(f"invalid shape dimension {n} at index {i} of shape "
                               f"{shape_text(shape)}")
        else:
            known *= n
    if numel == known or (infer_at is not None and known > 0 and numel % known == 0):
        if infer_at is None:
            return tuple(shape)
        if known == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape "
                               f"{shape_text(shape)} because the unspecified dimension size -1 "
                               "can be any value and is ambiguous")
        shape = list(shape)
        shape[infer_at] = numel // known
        return tuple(shape)
    raise RuntimeError(f"shape '{shape_text(shape)}' is invalid for input of size {numel}")


def view_strides(old_shape, old_stride, new_shape):
    """Strides that let ``new_shape`` view memory laid out as (old_shape, old_stride), or None.

    Dimensions of the old tensor that are contiguous with each other form chunks;
    a view may split or merge dimensions only inside one chunk (torch's computeStride).
    """
    if not old_shape:
        return (1,) * len(new_shape)
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


# ---------------------------------------------------------------- view and reshape
def view(input, *shape, size=ABSENT, dtype=ABSENT):
    """The same memory with a new shape; fails when the strides do not allow it."""
    if size is not ABSENT or dtype is not ABSENT:  # (by keyword: one of the two alone)
        named = {key: value for key, value in (("size", size), ("dtype", dtype))
                 if value is not ABSENT}
        if shape or len(named) > 1 or not signatures.fits(size if dtype is ABSENT else dtype,
                                                           "tuple of ints" if dtype is ABSENT
                                                           else "torch.dtype"):
            passed = calls.keyword_names()  # (listed in the order they were given)
            named = dict(sorted(named.items(), key=lambda item: passed.index(item[0])
                                if item[0] in passed else 0))
            raise signatures.refuse("view", _VIEW, False, shape, named, notes=True)
        shape = (size,) if dtype is ABSENT else (dtype,)
    if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
        return _view_dtype(input, shape[0])
    if not shape:
        raise signatures.refuse("view", _VIEW, False, (), {})
    if grad_mode.recording and input._requires_grad:
        # torch's autograd reads the input's history before the view's own checks: a view
        # made in no_grad or inference mode whose base changed in place is refused first
        input.grad_fn  # noqa: B018 (read for its check)
    shape = infer_size(size_arguments(shape, "view", listed=_VIEW), input._data.size)
    stride = view_strides(input._data.shape, input.stride(), shape)
    if stride is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    result = make_view(input, shape, stride, input.storage_offset())
    return record(ViewBackward0, result, (input,), self_sym_sizes=input._data.shape)


class ViewBackward0(Node):
    """out = x seen with another shape:  the gradient is seen with x's shape again"""

    self_sym_sizes: tuple

    def backward(self, grad):
        return grad.reshape(self.self_sym_sizes)

    def batched_backward(self, grad):  # (autograd.grad's is_grads_batched: a leading batch dim)
        return grad.reshape(grad.shape[:1] + tuple(self.self_sym_sizes))


class UnsafeViewBackward0(ViewBackward0):
    """reshape that had to copy first: the gradient is reshaped back"""


class ReshapeAliasBackward0(ViewBackward0):
    """reshape that is a view of a non-contiguous tensor: the gradient is reshaped back"""


def _view_dtype(input, target):
    """The same bytes read as another dtype (``x.view(torch.int32)``)."""
    old = input._data.itemsize
    new = target.itemsize
    shape, stride = list(input._data.shape), list(input.stride())
    offset = input.storage_offset()
    if new != old:
        names = (f"view {dtypes.scalar_type_name[input.dtype]} as "
                 f"{dtypes.scalar_type_name[target]} (different element sizes)")
        if not shape:
            raise RuntimeError(f"self.dim() cannot be 0 to view {names[5:]}")
        if stride[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to {names}, but got {stride[-1]}")
        if new < old:
            ratio = old // new
            shape[-1] *= ratio
            stride = [s * ratio for s in stride[:-1]] + [1]
            offset *= ratio
        else:
            ratio = new // old
            if shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} to {names}, "
                                   f"but got {shape[-1]}")
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} to "
                                   f"{names}, but got {offset}")
            for d, s in enumerate(stride[:-1]):
                if s % ratio:
                    raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} to "
                                       f"{names}, but got {s}")
            shape[-1] //= ratio
            stride = [s // ratio for s in stride[:-1]] + [1]
            offset //= ratio
    storage = input._storage_array()
    # the storage read as the new type; bytes that do not fill a whole element are dropped
    usable = storage.nbytes - storage.nbytes % new
    new_storage = storage.view(np.uint8)[:usable].view(target.numpy_dtype)
    # the same memory and version counter, but not a view for autograd: torch's view(dtype) is
    # not differentiable (no grad_fn, requires_grad False, no _base)
    result = input.detach()
    result._data = strided_array(new_storage, tuple(shape), tuple(stride), offset)
    result._stride, result._storage, result._offset = tuple(stride), new_storage, offset
    return result


_VIEW = ("(torch.dtype dtype)", "(tuple of ints size)")


def view_as(input, other):
    if not isinstance(other, Tensor):
        raise operand_type_error("view_as", other, 2)
    return view(input, other._data.shape)


def _torch_reshape(frame):
    """Whether reshape's ``frame`` is the learner's torch.reshape(x, shape) (its shape a
    tuple), not x.reshape(...)."""
    return frame.f_code is _RESHAPE_FUNCTION and not calls.from_engine(frame.f_back)


def reshape(input, *sizes, shape=ABSENT):
    """Like view when the strides allow it (shared memory), otherwise a copy."""
    if not isinstance(input, Tensor):  # (torch.reshape's input)
        raise operand_type_error("reshape", input, 1, "input")
    if len(sizes) > 1 and _torch_reshape(sys._getframe()):  # (x.reshape(2, 3) only)
        raise TypeError(f"reshape() takes 2 positional arguments but {len(sizes) + 1} were "
                        "given")
    if len(sizes) == 1 and not isinstance(sizes[0], (tuple, list)) and \
            _torch_reshape(sys._getframe()):  # (torch.Size, a torch.return_types: tuples)
        raise TypeError(f"reshape(): argument 'shape' (position 2) must be tuple of ints, not "
                        f"{type_name(sizes[0])}")
    by_keyword = shape is not ABSENT
    if by_keyword:
        sizes = keyword_sizes("reshape", "shape", sizes, shape)
    if not sizes:
        raise TypeError('reshape() missing 1 required positional arguments: "shape"')
    try:
        shape = size_arguments(sizes, "reshape", "shape")
    except TypeError:
        shape = None
    if shape is None:  # (again, for torch's message: where the shape came from, asked now)
        frame = sys._getframe()
        size_arguments(sizes, "reshape", "shape", position=lambda: (
            None if by_keyword else 2 if _torch_reshape(frame) else 1))
    shape = infer_size(shape, input._data.size)
    stride = view_strides(input._data.shape, input.stride(), shape)
    if stride is not None:
        result = make_view(input, shape, stride, input.storage_offset())
        # (torch names the view of a non-contiguous tensor after its _reshape_alias)
        node = ViewBackward0 if input.is_contiguous() else ReshapeAliasBackward0
        return record(node, result, (input,), self_sym_sizes=input._data.shape)
    copied = clone(input, memory_format=contiguous_format)
    result = wrap(copied._data.reshape(shape))
    return record(UnsafeViewBackward0, result, (copied,), self_sym_sizes=input._data.shape)


_RESHAPE_FUNCTION = reshape.__code__  # (Tensor.reshape runs a copy: ops/methods.py)


def reshape_as(input, other):
    if not isinstance(other, Tensor):
        raise operand_type_error("reshape_as", other, 2)
    return reshape(input, other._data.shape)


# ---------------------------------------------------------------- reordering dimensions
def permuted_view(input, order, node=None, **attributes):
    shape, stride = input._data.shape, input.stride()
    result = make_view(input, tuple([shape[d] for d in order]),
                       tuple([stride[d] for d in order]), input.storage_offset())
    if node is None:
        node, attributes = PermuteBackward0, {"dims": tuple(order)}
    return record(node, result, (input,), **attributes)


class PermuteBackward0(Node):
    """out = x with dimensions reordered:  the gradient is put back in the original order"""

    dims: tuple

    def backward(self, grad):
        inverse = [0] * len(self.dims)
        for position, d in enumerate(self.dims):
            inverse[d] = position
        return grad.permute(inverse)

    def batched_backward(self, grad):
        inverse = [0] * len(self.dims)
        for position, d in enumerate(self.dims):
            inverse[d] = position + 1
        return grad.permute([0] + inverse)


class TransposeBackward0(Node):
    """out = x with two dimensions swapped:  swap them back"""

    dim0: int
    dim1: int

    def backward(self, grad):
        return grad.transpose(self.dim0, self.dim1)

    def batched_backward(self, grad):
        return grad.transpose(*(d + 1 if d >= 0 else d for d in (self.dim0, self.dim1)))


class TBackward0(Node):
    """out = x^T:  the gradient is transposed back"""

    def backward(self, grad):
        return grad.t()

    def batched_backward(self, grad):
        return grad.transpose(1, 2) if grad.dim() == 3 else grad


def alias(input):
    """A new tensor object over exactly the same memory."""
    return make_view(input, input._data.shape, input.stride(), input.storage_offset())


@overloads("(Tensor input, int dim0, int dim1)")
def transpose(input, dim0, dim1):
    """Swap two dimensions (a view: the strides swap, the memory stays)."""
    ndim = input._data.ndim
    d0, d1 = wrap_dim(dim0, ndim), wrap_dim(dim1, ndim)
    order = list(range(ndim))
    if ndim:  # (torch lets a 0-d tensor swap "dimension 0" with itself, and records it)
        order[d0], order[d1] = order[d1], order[d0]
    return permuted_view(input, order, TransposeBackward0, dim0=d0, dim1=d1)


@overloads("(Tensor input, int axis0, int axis1)")
def swapaxes(input, axis0, axis1):
    """numpy's name for transpose"""
    return transpose.__wrapped__(input, axis0, axis1)


@overloads("(Tensor input, int dim0, int dim1)")
def swapdims(input, dim0, dim1):
    """transpose's other name"""
    return transpose.__wrapped__(input, dim0, dim1)


def permute(input, dims):
    """Reorder the dimensions (a view)."""
    # (the parser took ints, bools and one-element integer tensors: operator.index reads each)
    dims = tuple([d if d.__class__ is int else operator.index(d) for d in dims])
    ndim = input._data.ndim
    if len(dims) != ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not "
                           "match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {ndim} is not equal to len(dims) = {len(dims)}")
    order = [wrap_dim(d, ndim) for d in dims]
    if len(set(order)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return permuted_view(input, order)


# torch's parser, through overloads: x.permute(0, 1) packs its ints into dims, as
# x.permute((0, 1)) (torch.permute(x, 0, 1) is refused); its messages name the first argument
# that is no int. The method is checked as a method without reading frames (the ``without_out``
# that ops/methods.py attaches, a copy of the function): x.permute(1, 0) stays cheap.
permute.without_out = calls.method_copy(permute)
permute = overloads("(Tensor input, tuple of ints dims)")(permute)
tensor_inputs(globals(), ["permute"])  # torch.permute(1, (0,)): torch's TypeError


def t(input):
    """Transpose a matrix; 0-d and 1-d tensors come back as they are (as views)."""
    ndim = input._data.ndim
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return permuted_view(input, list(range(ndim))[::-1], TBackward0)


_WARNED = set()  # torch gives some deprecation warnings only once per process
_TENSOR_SHAPE = "aten/src/ATen/native/TensorShape.cpp"  # (where torch's warnings come from)


def _warn_once(message):
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=4)


def all_dims_reversed(input):
    ndim = input._data.ndim
    if ndim == 0:
        _warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                   "these cases." + messages.triggered_in(f"{_TENSOR_SHAPE}:4313"))
    elif ndim != 2:
        _warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                   "shape is deprecated and it will throw an error in a future release. "
                   "Consider `x.mT` to transpose batches of matrices or "
                   "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions "
                   "of a tensor." + messages.triggered_in(f"{_TENSOR_SHAPE}:4306"))
    return permuted_view(input, list(range(ndim))[::-1])


def last_two_dims_swapped(input):
    ndim = input._data.ndim
    if ndim == 0:
        _warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in "
                   "these cases." + messages.triggered_in(f"{_TENSOR_SHAPE}:4366"))
        return alias(input)
    if ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {ndim}-D tensor.")
    return transpose(input, -2, -1)


def conjugate_transposed(input, name="Tensor.mH", line=4375):
    """x.mH, x.adjoint(): the last two dims swapped (the conjugate is the tensor itself: the
    engine has no complex numbers)"""
    ndim = input._data.ndim
    if ndim == 0:
        _warn_once(f"{name} is deprecated on 0-D tensors. Consider using x.conj()."
                   + messages.triggered_in(f"{_TENSOR_SHAPE}:{line}"))
        return alias(input)
    if ndim < 2:
        shown = "tensor.adjoint()" if name == "adjoint()" else "tensor.mH"
        raise RuntimeError(f"{shown} is only supported on matrices or batches of matrices. Got "
                           f"{ndim}-D tensor.")
    return transpose(input, -2, -1)


def adjoint(input):
    """torch.adjoint(x), x.adjoint(): x.mH"""
    return conjugate_transposed(input, "adjoint()", 4383)


def matrix_conjugate_transposed(input):
    """x.H: a matrix transposed (x.mH for batches)"""
    ndim = input._data.ndim
    if ndim == 0:
        _warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj()."
                   + messages.triggered_in(f"{_TENSOR_SHAPE}:4328"))
        return alias(input)
    if ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{ndim}-D tensor." + (" For batches of matrices, consider using "
                                                  "tensor.mH" if ndim > 2 else ""))
    return transpose(input, 0, 1)


def fill_diagonal_(input, fill_value, wrap=False):
    """x.fill_diagonal_(v): the main diagonal of a matrix (or of an n-cube) set to v, in place,
    through a view of it (so autograd sees a view changed in place); with ``wrap`` a tall
    matrix's diagonal starts again every width + 1 rows"""
    if isinstance(fill_value, Tensor) and fill_value._data.ndim == 0 and \
            not fill_value.requires_grad:  # (torch's Number: a 0-d tensor that needs no grad)
        fill_value = fill_value.item()
    if not isinstance(fill_value, (int, float, builtins.bool, np.number, np.bool_)):
        raise TypeError(f"fill_diagonal_(): argument 'fill_value' (position 1) must be Number, "
                        f"not {type_name(fill_value)}")
    shape, strides = input._data.shape, input.stride()
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = shape[0], shape[1]
    if len(shape) > 2 and builtins.any(size != height for size in shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    step, offset = builtins.sum(strides), input.storage_offset()
    length = min(height, width)
    input.as_strided((length,), (step,), offset).fill_(fill_value)
    if wrap and len(shape) == 2 and height > width + 1:
        rest = (input.numel() + width) // (width + 1) - length
        input.as_strided((rest,), (step,), offset + strides[0] * (width + 1)).fill_(fill_value)
    return input


def sum_to_size(input, *size):
    """x.sum_to_size(shape): x summed over the dims that broadcasting would stretch from
    ``shape`` to x's shape (x itself when the shapes are the same)"""
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    shape = tuple(size_arguments(size, "sum_to_size", "size"))
    have = input._data.shape
    if len(shape) > len(have) or builtins.any(
            n != 1 and n != m for n, m in zip(reversed(shape), reversed(have))):
        listed = ", ".join(str(n) for n in shape)
        raise RuntimeError(f"size {{[{listed}]}} is not expandable to size "
                           f"{{[{', '.join(str(n) for n in have)}]}}.")
    return sum_to(input, shape) if shape else input.sum()


@overloads("(Tensor input, int source, int destination)",
           "(Tensor input, tuple of ints source, tuple of ints destination)")
def movedim(input, source, destination):
    """Move dimensions ``source`` to the places ``destination`` (a view)."""
    ndim = input._data.ndim
    source = list(source) if isinstance(source, (tuple, list)) else [source]
    destination = list(destination) if isinstance(destination, (tuple, list)) else [destination]
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({source} dims) "
                           f"should contain the same number of dims as destination "
                           f"({destination} dims)")
    src = [wrap_dim(d, ndim) for d in source]
    dst = [wrap_dim(d, ndim) for d in destination]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({[int(d) for d in source]})")
    if len(set(dst)) != len(dst):
        raise RuntimeError("movedim: repeated dim in `destination` "
                           f"({[int(d) for d in destination]})")
    if ndim == 0:  # (its dims checked as torch checks them: 0 and -1 only)
        return record(AliasBackward0, alias(input), (input,))
    order = [None] * ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    order = [next(rest) if d is None else d for d in order]
    return permuted_view(input, order)


@overloads("(Tensor input, int source, int destination)",
           "(Tensor input, tuple of ints source, tuple of ints destination)")
def moveaxis(input, source, destination):
    """numpy's name for movedim (torch's errors name it so)"""
    return movedim(input, source, destination)


# ---------------------------------------------------------------- adding and removing dimensions
@overloads("(Tensor input)", "(Tensor input, int dim)", "(Tensor input, tuple of ints dim)")
@numpy_names
def squeeze(input, dim=None):
    """Drop dimensions of size 1 (all of them, or those in dim that have size 1)."""
    shape, stride = input._data.shape, input.stride()
    ndim = len(shape)
    # (an empty tuple of dims squeezes none: not a reduction's "every dim")
    drop = set(range(ndim)) if dim is None else set(distinct_dims(dim, ndim)) \
        if isinstance(dim, (tuple, list)) else {wrap_dim(dim, ndim)}
    keep = [d for d in range(ndim) if not (d in drop and shape[d] == 1)]
    result = make_view(input, tuple(shape[d] for d in keep), tuple(stride[d] for d in keep),
                       input.storage_offset())
    if dim is None:
        return record(SqueezeBackward0, result, (input,), self_sym_sizes=shape)
    if isinstance(dim, (tuple, list)):
        return record(SqueezeBackward2, result, (input,), self_sym_sizes=shape,
                      dim=tuple(dim))
    return record(SqueezeBackward1, result, (input,), self_sym_sizes=shape, dim=dim)


class SqueezeBackward0(Node):
    """out = x without its size-1 dimensions:  the gradient gets them back"""

    self_sym_sizes: tuple

    def backward(self, grad):
        return _unsqueezed_to(grad, self.self_sym_sizes, range(len(self.self_sym_sizes)))

    def batched_backward(self, grad):
        return grad.reshape(grad.shape[:1] + tuple(self.self_sym_sizes))


class SqueezeBackward1(SqueezeBackward0):
    """squeeze(dim)"""

    dim: int

    def backward(self, grad):
        return _unsqueezed_to(grad, self.self_sym_sizes, (self.dim,))


class SqueezeBackward2(SqueezeBackward0):
    """squeeze(dims)"""

    dim: tuple

    def backward(self, grad):
        return _unsqueezed_to(grad, self.self_sym_sizes, self.dim)


def _unsqueezed_to(grad, sizes, dims):
    """torch's unsqueeze_to: the size-1 dims among ``dims`` put back one by one, in order
    (the gradient itself, not a view of it, when there are none)"""
    for dim in sorted(d % len(sizes) for d in dims) if sizes else ():
        if sizes[dim] == 1:
            grad = grad.unsqueeze(dim)
    return grad


@overloads("(Tensor input, int dim)")
@numpy_names
def unsqueeze(input, dim):
    """Insert a dimension of size 1 at ``dim``."""
    shape, stride = list(input._data.shape), list(input.stride())
    dim = wrap_dim(dim, len(shape) + 1)
    new_stride = shape[dim] * stride[dim] if dim < len(shape) else 1
    shape.insert(dim, 1)
    stride.insert(dim, new_stride)
    result = make_view(input, tuple(shape), tuple(stride), input.storage_offset())
    return record(UnsqueezeBackward0, result, (input,), dim=dim)


class UnsqueezeBackward0(Node):
    """out = x with a new size-1 dimension:  the gradient drops it"""

    dim: int

    def backward(self, grad):
        return grad.squeeze(self.dim)

    def batched_backward(self, grad):
        return grad.squeeze(self.dim + 1)


@number_parameters("flatten", {"start_dim": "int", "end_dim": "int"})
def flatten(input, start_dim=0, end_dim=-1):
    """Merge dimensions start_dim..end_dim into one (a view when the strides allow)."""
    ndim = input._data.ndim
    # a 0-d tensor counts as 1-d here, so -1 means dimension 0
    start, end = (wrap_dim(d, ndim) % builtins.max(ndim, 1) for d in (start_dim, end_dim))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if ndim == 0:
        return reshape(input, 1)
    if start == end:
        return input
    shape = input._data.shape
    merged = 1
    for n in shape[start:end + 1]:
        merged *= n
    return reshape(input, shape[:start] + (merged,) + shape[end + 1:])


@numpy_names
def unflatten(input, dim, sizes):
    """Split dimension ``dim`` into ``sizes`` (a view)."""
    if not isinstance(input, Tensor):  # (torch.unflatten; Tensor.unflatten is Python)
        raise operand_type_error("unflatten", input, 1, "input")
    method = calls.called_as_method()
    if method and not sizes:  # (torch's Tensor.unflatten is Python: it asks this first)
        raise RuntimeError("unflatten: sizes must be non-empty")
    if not signatures.fits(dim, "int"):
        where = " (position 1)" if method else "" if calls.given_by_keyword("dim") else \
            " (position 2)"
        raise TypeError(f"unflatten(): argument 'dim'{where} must be int, not {type_name(dim)}")

    def position():  # (Tensor.unflatten is Python in torch: it hands sizes on by position)
        return None if not method and calls.given_by_keyword("sizes") else 2 if method else 3

    # (torch's parser reads both arguments before the dim is checked against the shape)
    if not isinstance(sizes, (tuple, list)):
        where = "" if position() is None else f" (position {position()})"
        raise TypeError(f"unflatten(): argument 'sizes'{where} must be tuple of ints, not "
                        f"{type_name(sizes)}")
    sizes = size_arguments((sizes,), "unflatten", "sizes", position=position)
    shape = input._data.shape
    dim = wrap_dim(dim, len(shape))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if not shape:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but "
                           "tensor has no dimensions")
    try:
        sizes = infer_size(sizes, shape[dim])
    except RuntimeError as error:
        if "is invalid for input of size" not in str(error):
            raise RuntimeError(f"unflatten got an unexpected error:\n{error}") from None
        raise RuntimeError(f"unflatten: Provided sizes {shape_text(sizes)} don't multiply up to "
                           f"the size of dim {dim} ({shape[dim]}) in the input tensor") from None
    return view(input, shape[:dim] + sizes + shape[dim + 1:])


def ravel(input):
    """The elements in one dimension: a view of a contiguous tensor, else a contiguous copy."""
    return view(contiguous(input), -1)


# ---------------------------------------------------------------- broadcasting
def expand(input, *sizes, size=ABSENT, implicit=False):
    """Repeat size-1 dimensions without copying: their stride becomes 0."""
    by_keyword = size is not ABSENT
    sizes = keyword_sizes("expand", "size", sizes, size)
    if not sizes:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    def implicit_checked():  # (torch's parser: after the sizes' first element, before the rest)
        if implicit is not False and implicit is not True:
            raise TypeError(f"expand(): argument 'implicit' must be bool, not "
                            f"{type_name(implicit)}")
    sizes = size_arguments(sizes, "expand", position=None if by_keyword else 1,
                           keywords=implicit_checked)
    implicit_checked()
    shape, stride = input._data.shape, input.stride()
    if not shape and 0 not in sizes and builtins.any(n < 0 for n in sizes):
        # (torch's 0-d expand takes the sizes as they are: a negative one overflows numel)
        raise RuntimeError("numel: integer multiplication overflow")
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand({dtypes.cpp_type_name(input.dtype)}{{{shape_text(shape)}}}, "
                           f"size={shape_text(sizes)}): the number of sizes provided "
                           f"({len(sizes)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(shape)})")
    new_shape, new_stride = expand_geometry(shape, stride, sizes)
    result = make_view(input, new_shape, new_stride, input.storage_offset())
    return record(ExpandBackward0, result, (input,), self_sym_sizes=shape)


class ExpandBackward0(Node):
    """out = x repeated along size-1 dimensions:  the copies' gradients are summed (sum_to)"""

    self_sym_sizes: tuple

    def backward(self, grad):
        return sum_to(grad, self.self_sym_sizes)

    def batched_backward(self, grad):  # (the edge sums it down, the batch dim kept)
        return grad


def expand_geometry(shape, stride, sizes):
    """The (shape, strides) of ``expand``: torch's inferExpandGeometry."""
    new_shape, new_stride = list(sizes), [0] * len(sizes)
    lead = len(sizes) - len(shape)
    # torch walks from the last dimension, so the last bad one is reported
    for i in range(len(sizes) - 1, -1, -1):
        if i >= lead:
            size, step = shape[i - lead], stride[i - lead]
        else:
            # a new leading dimension of size 1 gets the stride a contiguous tensor would have
            # (a 0-d tensor: every new dimension gets stride 0)
            size, step = 1, new_shape[i + 1] * new_stride[i + 1] if i + 1 < len(sizes) else 0
        target = sizes[i]
        if target == -1:
            if i < lead:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(f"The expanded size of the tensor ({target}) must match the "
                                   f"existing size ({size}) at non-singleton dimension {i}.  "
                                   f"Target sizes: {shape_text(sizes)}.  Tensor sizes: "
                                   f"{shape_text(shape)}")
            size, step = target, 0
        new_shape[i], new_stride[i] = size, step
    if builtins.any(n < 0 for n in new_shape):
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(new_shape), tuple(new_stride)


def expand_as(input, other):
    if not isinstance(other, Tensor):
        raise operand_type_error("expand_as", other, 2)
    return expand(input, other._data.shape)


@number_parameters("broadcast_to", {"size": "tuple of SymInts"})
def broadcast_to(input, size):
    """input expanded to ``size`` (a view: torch's expand)"""
    return expand(input, size)


def broadcast_shape(a, b):
    """The shape two shapes broadcast to, with torch's message when they do not."""
    ndim = builtins.max(len(a), len(b))
    result = [1] * ndim
    for i in range(ndim - 1, -1, -1):  # torch's infer_size names the last bad dimension
        offset = ndim - 1 - i
        na = a[len(a) - 1 - offset] if len(a) - 1 - offset >= 0 else 1
        nb = b[len(b) - 1 - offset] if len(b) - 1 - offset >= 0 else 1
        if na != nb and na != 1 and nb != 1:
            raise RuntimeError(f"The size of tensor a ({na}) must match the size of tensor b "
                               f"({nb}) at non-singleton dimension {i}")
        result[i] = nb if na == 1 else na
    return tuple(result)


def broadcast_tensors(*tensors):
    """Views of all tensors expanded to their common shape."""
    require_tensor_sequence(tensors, "broadcast_tensors", "tensors", 1)
    shape = ()
    for tensor in tensors:
        shape = broadcast_shape(shape, tensor._data.shape)
    # a tensor that already has the shape comes back itself, not as a view (as in torch)
    return tuple(tensor if tensor._data.shape == shape else expand(tensor, shape)
                 for tensor in tensors)


def broadcast_shapes(*shapes):
    """The shape tensors of these shapes broadcast to (torch's Python implementation)."""
    shapes = [(s,) if isinstance(s, builtins.int) else s for s in shapes if s is not None]
    if not shapes:
        return Size([])
    for shape in shapes:
        if not isinstance(shape, (tuple, list)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {shape}")
    common = [1] * builtins.max(len(s) for s in shapes)
    for arg_index, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == common[i]:
                continue
            if common[i] == 1:
                if shape[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = shape[i]
            if shape[i] != 1 and shape[i] != common[i]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[i]} at "
                                   f"{i}! Mismatching argument at index {arg_index} had {shape}; "
                                   f"but expected shape should be broadcastable to {common}")
    return Size(common)


# ---------------------------------------------------------------- pieces along a dimension
@overloads("(Tensor input, int dim, Tensor start, SymInt length)",
           "(Tensor input, int dim, SymInt start, SymInt length)")
@numpy_names
def narrow(input, dim, start, length):
    """Elements start..start+length along dim (a view)."""
    if isinstance(start, Tensor) and (start._data.ndim or start._data.dtype.kind not in "iu"):
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    shape = input._data.shape
    dim = wrap_dim(dim, len(shape))
    start = operator.index(start)
    size = shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but "
                         f"got {start})")
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return sliced_view(input, dim, start, start + length, 1)


def sliced_view(input, dim, start, stop, step):
    """Elements start, start+step, ... before stop along dim; start and stop are clamped."""
    shape, stride = list(input._data.shape), list(input.stride())
    size = shape[dim]
    first, last, _ = slice(start, stop).indices(size)
    offset = input.storage_offset() + first * stride[dim]
    shape[dim] = builtins.max(0, -(-(last - first) // step))
    stride[dim] *= step
    result = make_view(input, tuple(shape), tuple(stride), offset)
    # the node keeps start and end as written (x[1:] ends at the largest int64, as in torch)
    return record(SliceBackward0, result, (input,), self_sym_sizes=input._data.shape, dim=dim,
                  start=0 if start is None else operator.index(start),
                  end=2**63 - 1 if stop is None else operator.index(stop),
                  step=step)


class SliceBackward0(Node):
    """out = x[start:end:step] along dim:  the gradient lands there, zeros elsewhere"""

    dim: int
    end: int
    self_sym_sizes: tuple
    start: int
    step: int

    def backward(self, grad):
        return embed(grad, self.self_sym_sizes, self.dim,
                     slice(self.start, self.end, self.step))

    def batched_backward(self, grad):
        return embed(grad, grad.shape[:1] + tuple(self.self_sym_sizes), self.dim + 1,
                     slice(self.start, self.end, self.step))


@overloads("(Tensor input, int dim, SymInt index)")
@numpy_names
def select(input, dim, index):
    """The slice at ``index`` along ``dim``, which disappears (a view)."""
    shape = input._data.shape
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, len(shape))
    index = operator.index(index)
    if not -shape[dim] <= index < shape[dim]:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{shape_text(shape)} at dimension {dim}")
    return selected_view(input, dim, index)


def selected_view(input, dim, index):
    shape, stride = list(input._data.shape), list(input.stride())
    offset = input.storage_offset() + (index % shape[dim]) * stride[dim]
    del shape[dim], stride[dim]
    result = make_view(input, tuple(shape), tuple(stride), offset)
    return record(SelectBackward0, result, (input,), self_sym_sizes=input._data.shape, dim=dim,
                  index=index)


class AliasBackward0(Node):
    """out = x itself, seen through a new tensor:  the gradient passes through"""

    def backward(self, grad):
        return grad


class SelectBackward0(Node):
    """out = x[index] along dim:  the gradient lands at index, zeros elsewhere"""

    dim: int
    index: int
    self_sym_sizes: tuple

    def backward(self, grad):
        return embed(grad, self.self_sym_sizes, self.dim, self.index)

    def batched_backward(self, grad):
        return embed(grad, grad.shape[:1] + tuple(self.self_sym_sizes), self.dim + 1, self.index)


def embed(grad, shape, dim, where):
    """A zero tensor of ``shape`` with ``grad`` written at ``where`` along ``dim``.

    The gradient of taking a piece (select or slice) is the piece's gradient put back
    in place, with zeros for the elements that were not taken.
    """

    result = zeros(shape, dtype=grad.dtype)
    region = (slice(None),) * dim + (where,)
    try:
        result._data[region] = grad._data
    except ValueError:  # (narrow_copy's slice of a negative start: torch's copy_ refuses)
        raise broadcast_error(result._data[region], grad._data) from None
    node = SelectBackwardBackward0 if isinstance(where, builtins.int) else SliceBackwardBackward0
    return record(node, result, (grad,), dim=dim, where=where)


class SelectBackwardBackward0(Node):
    """out = zeros with grad at index:  its own gradient is the piece at that index"""

    dim: int
    where: object

    def backward(self, grad):
        return grad[(slice(None),) * self.dim + (self.where,)]


class SliceBackwardBackward0(SelectBackwardBackward0):
    """out = zeros with grad in a slice:  its own gradient is that slice"""


def _piece(input, dim, start, stop):
    """Elements start..stop along dim, as a view (not recorded: see _record_pieces)."""
    shape, stride = list(input._data.shape), list(input.stride())
    shape[dim] = stop - start
    return make_view(input, tuple(shape), tuple(stride),
                     input.storage_offset() + start * stride[dim])


def _several_views(pieces):
    """The views an op returns together (unbind, split): torch forbids changing them in
    place, as it could not rewrite the history of the others."""
    if grad_mode.grad_enabled:
        for piece in pieces:
            # (a view of a view made in inference mode stays one: torch keeps that reason)
            if piece._creation_meta != "inference":
                piece._creation_meta = "multi_output"
    return tuple(pieces)


@numpy_names
def unbind(input, dim=0):
    """Every slice along dim, as a tuple of views."""
    dim = wrap_dim(dim, input._data.ndim)
    if input._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim % 1} but tensor has no dimensions")
    shape, stride = list(input._data.shape), list(input.stride())
    del shape[dim]
    pieces = tuple(make_view(input, tuple(shape), tuple(stride[:dim] + stride[dim + 1:]),
                             input.storage_offset() + i * stride[dim])
                   for i in range(input._data.shape[dim]))
    # one node for all the pieces: piece i is its output i
    return record(UnbindBackward0, _several_views(pieces), (input,), num_outputs=len(pieces),
                  dim=dim)


class _PiecesBackward(Node):
    """out = the pieces of x along dim:  each piece's gradient goes back to its place
    (zeros for the pieces that were not used)"""

    def backward(self, *grads):
        shape, np_dtype = self._input_meta[0]
        result = wrap(np.zeros(shape, np_dtype))
        if grad_mode.grad_enabled:  # create_graph: torch's cat / stack, which keep the graph
            return self.joined(result, grads)
        for where, grad in zip(self.places(), grads):
            if grad is not None:  # (numpy's write: result is fresh, and nothing records here)
                result._data[(slice(None),) * self.dim + (where,)] = grad._data
        return result

    def joined(self, zeros, grads):
        pieces = [zeros[(slice(None),) * self.dim + (where,)] if grad is None else grad
                  for where, grad in zip(self.places(), grads)]
        return cat(pieces, self.dim)


class UnbindBackward0(_PiecesBackward):
    _internal = ("num_outputs",)
    dim: int
    num_outputs: int
    def places(self):
        return range(self._input_meta[0][0][self.dim])

    def joined(self, zeros, grads):
        return stack([zeros.select(self.dim, where) if grad is None else grad
                      for where, grad in zip(self.places(), grads)], self.dim)


class SplitBackward0(_PiecesBackward):
    dim: int
    num_outputs: int
    self_sym_sizes: tuple
    split_size: int
    def places(self):
        size = self._input_meta[0][0][self.dim]
        return [slice(start, start + self.split_size) for start in range(0, size,
                                                                         self.split_size)]


class SplitWithSizesBackward0(_PiecesBackward):
    dim: int
    num_outputs: int
    self_sym_sizes: tuple
    split_sizes: tuple
    def places(self):
        starts = itertools.accumulate((0,) + tuple(self.split_sizes))
        return [slice(start, start + n) for start, n in zip(starts, self.split_sizes)]


_SPLIT_OVERLOADS = ("(Tensor input, int split_size, int dim = 0)",
                    "(Tensor input, tuple of ints split_size, int dim = 0)")


@overloads("(Tensor input, tuple of SymInts split_sizes, int dim = 0)")
def split_with_sizes(input, split_sizes, dim=0):
    """Pieces of the given sizes along dim (``split`` with a list of sizes)."""
    return split(input, list(split_sizes), dim)


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of ``split_size`` along dim (the last may be smaller), or of the given sizes."""
    sizes = split_size_or_sections
    if isinstance(sizes, Tensor) and sizes._data.size == 1:
        sizes = split_size_or_sections = int(sizes)  # (torch's Python: int() of a tensor)
    if isinstance(sizes, builtins.bool):  # (an int to Python, not to torch's parser)
        raise signatures.refuse("split", _SPLIT_OVERLOADS, False, (tensor, sizes, dim), {},
                                notes=True, as_called=True)  # (torch's split: by position)
    if not isinstance(sizes, (builtins.int, tuple, list)):
        # (torch's Tensor.split hands anything but a Python int to split_with_sizes, by
        # position: numpy's integers too)
        raise TypeError("split_with_sizes(): argument 'split_sizes' (position 2) must be tuple "
                        f"of ints, not {type_name(sizes)}")
    if isinstance(sizes, (tuple, list)):  # (handed on by position; torch's SymInt[])
        split_size_or_sections = signatures.int_list_checked(
            "split_with_sizes", "split_sizes", sizes, " (position 2)", symint=True)
    if not signatures.fits(dim, "int"):
        if isinstance(sizes, (tuple, list)):
            raise TypeError(f"split_with_sizes(): argument 'dim' (position 3) must be int, not "
                            f"{type_name(dim)}")
        raise signatures.refuse("split", _SPLIT_OVERLOADS, False, (tensor, sizes, dim), {},
                                notes=True, as_called=True)  # (torch's split: by position)
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if not isinstance(split_size_or_sections, (tuple, list)):
        return _split_equal(tensor, operator.index(split_size_or_sections), dim)
    size = tensor._data.shape[wrap_dim(dim, tensor._data.ndim)]
    sections = [operator.index(n) for n in split_size_or_sections]
    wrapped = wrap_dim(dim, tensor._data.ndim)
    pieces, start = [], 0
    for length in sections:
        if length < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={shape_text(sections)}")
        # (clamped to the dimension, as torch's slices: the sum is checked after them)
        pieces.append(_piece(tensor, wrapped, builtins.min(start, size),
                             builtins.min(start + length, size)))
        start += length
    if start != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} "
                           f"(input tensor's size at dimension {dim}), but got "
                           f"split_sizes={shape_text(sections)}")
    return record(SplitWithSizesBackward0, _several_views(pieces), (tensor,),
                  num_outputs=len(pieces),
                  dim=wrapped, split_sizes=tuple(sections), self_sym_sizes=tensor._data.shape)


def _split_equal(tensor, split_size, dim):
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    dim = wrap_dim(dim, tensor._data.ndim)
    size = tensor._data.shape[dim]
    if split_size == 0 and size:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {size}")
    # always at least one piece, even when the dimension is empty
    count = builtins.max(-(-size // split_size), 1) if split_size else 1
    pieces = tuple(_piece(tensor, dim, i * split_size, builtins.min((i + 1) * split_size, size))
                   for i in range(count))
    return record(SplitBackward0, _several_views(pieces), (tensor,), num_outputs=count, dim=dim,
                  split_size=split_size, self_sym_sizes=tensor._data.shape)


@numpy_names
@number_parameters("chunk", {"chunks": "int", "dim": "int"})
def chunk(input, chunks, dim=0):
    """At most ``chunks`` pieces of equal size (the last may be smaller) along dim."""
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = input._data.shape[wrap_dim(dim, input._data.ndim)]
    step = -(-size // chunks)
    if step == 0 and size == 0:
        return split(input, [0] * chunks, dim)  # an empty dimension gives `chunks` empty pieces
    return _split_equal(input, step, dim)


class UnsafeSplitBackward0(SplitBackward0):
    """out = the pieces of x along dim, not tracked as views (torch's recurrent cells split
    their gates so, then change them in place):  each piece's gradient goes back to its
    place"""


def unsafe_split(tensor, split_size, dim=0):
    """split, with pieces that autograd does not treat as views of ``tensor``: they may be
    changed in place without rewriting its history (the caller promises not to read it)."""
    with no_grad():  # (the pieces' shapes and checks; the node is recorded below)
        pieces = split(tensor, split_size, dim)
    return _unsafe(pieces, tensor, dim, split_size)


@number_parameters("unsafe_chunk", {"chunks": "int", "dim": "int"})
def unsafe_chunk(input, chunks, dim=0):
    """chunk, with pieces autograd does not treat as views (see unsafe_split)."""
    with no_grad():
        pieces = chunk(input, chunks, dim)
    return _unsafe(pieces, input, dim, pieces[0]._data.shape[wrap_dim(dim, input._data.ndim)])


def _unsafe(pieces, input, dim, split_size):
    """The pieces, sharing input's memory but not views of it, under one UnsafeSplitBackward0."""
    for piece in pieces:  # (as detach() cuts a view loose)
        piece._base, piece._requires_grad, piece._creation_meta = None, False, None
    return record(UnsafeSplitBackward0, tuple(pieces), (input,), num_outputs=len(pieces),
                  dim=wrap_dim(dim, input._data.ndim), split_size=split_size,
                  self_sym_sizes=input._data.shape)


@overloads("(Tensor input, tuple of SymInts size, tuple of SymInts stride, "
           "SymInt? storage_offset = None)")
def as_strided(input, size, stride, storage_offset=None):
    """A view with exactly these sizes and strides, anywhere inside the storage."""
    offset = input.storage_offset() if storage_offset is None else storage_offset
    size, stride = tuple(size), tuple(stride)
    _check_in_storage(input, size, stride, offset)
    result = make_view(input, size, stride, offset)
    return record(AsStridedBackward0, result, (input,), geometry=view_geometry(input, result))


def _check_in_storage(input, size, stride, offset):
    """torch's checks before a view with any geometry: every element it can reach must lie
    in its base's storage (numpy would read whatever memory lies beyond). torch computes in
    unsigned 64-bit integers, so a negative size shows as a huge number."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if builtins.any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {shape_text(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed, overflowed = offset + 1, False
    for n, s in zip(size, stride):
        if n == 0:
            needed = 0  # no element: any storage will do
            break
        reach = (s % 2**64) * ((n - 1) % 2**64)
        needed += reach % 2**64
        overflowed |= reach >= 2**64 or needed >= 2**64
        needed %= 2**64
    needed *= input._data.itemsize  # (an offset of 2**62 overflows here)
    if overflowed or needed > 2**63 - 1:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={shape_text(size)} "
                           f"and strides={shape_text(stride)}")
    available = input._storage_array().nbytes
    if needed > available:
        raise RuntimeError(f"setStorage: sizes {shape_text(size)}, strides {shape_text(stride)}, "
                           f"storage offset {offset}, and itemsize {input._data.itemsize} "
                           f"requiring a storage size of {needed} are out of bounds for storage "
                           f"of size {available}")
    numel = 1
    for n in size:
        numel *= n % 2**64
    if builtins.any(n < 0 for n in size) and numel % 2**64 != 0:
        raise RuntimeError("numel: integer multiplication overflow")


def detach(input):
    """The same memory and version counter, cut from the graph (requires_grad False)."""
    return input.detach()


# ---------------------------------------------------------------- copies
def clone(input, *, memory_format=None):
    """A copy in new memory, keeping the layout (strides) of a dense input."""
    if memory_format is None or check_memory_format(memory_format, "clone") is preserve_format:
        result = copy_preserving_layout(input)
    else:  # a new block in that order: row-major, or channels last
        result = empty_in_format(input, input._data.dtype, memory_format)
        result._data[...] = input._data
    return record(CloneBackward0, result, (input,))


class CloneBackward0(Node):
    """out = a copy of x:  the gradient passes through unchanged"""

    def backward(self, grad):
        return grad


@overloads("(Tensor input, tuple of ints dims)")
def flip(input, *args, dims=None):
    """A copy with the elements in reverse order along ``dims`` (slices cannot step backwards)."""
    if dims is None and not args:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    if dims is None:  # torch.flip(x, [0, 1]), x.flip(0, 1) or x.flip(dims=(0, 1))
        dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    axes = distinct_dims(dims, input._data.ndim)
    result = copy_preserving_layout(input)
    if axes and input._data.ndim:  # a 0-d tensor, or no dims: nothing to reverse
        result._data[...] = np.flip(input._data, axes)
    return record(FlipBackward0, result, (input,), dims=axes)


class FlipBackward0(Node):
    """out = x reversed along dims:  the gradient is reversed back"""

    dims: tuple

    def backward(self, grad):
        return flip(grad, self.dims)


def contiguous(input, *given, memory_format=contiguous_format):
    """``self`` when already row-major (or in the memory format asked for), else a copy that is."""
    if given:  # (memory_format by keyword only)
        raise messages.no_positional_arguments("contiguous", given)
    if input.is_contiguous(memory_format=check_memory_format(memory_format, "contiguous",
                                                             nullable=False)):
        return input
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return clone(input, memory_format=memory_format)


# ---------------------------------------------------------------- in-place shape changes
def _restride_tangent(input, view_):
    old, new = tangent_of(input), tangent_of(view_)
    if old is not None and new is not None:
        old._data, old._stride, old._storage, old._offset = \
            new._data, new._stride, new._storage, new._offset
        old._fw = new._fw  # (its own tangent at an outer level: the same view of it)


def _restride(input, view_, node_class, **attributes):
    """Make ``input`` itself take the shape and strides of ``view_`` (t_, squeeze_ ...).

    In a graph, ``input`` gets a new node (``UnsqueezeBackward1`` ...) whose one edge is
    its history before the change: backward undoes the change as the view op's would.
    """
    check_inplace(input)
    node = new_node(node_class, (input,), **attributes)
    input._data, input._stride = view_._data, view_._stride
    input._storage, input._offset = view_._storage, view_._offset
    if dual.active:  # forward mode: the tangent object takes the same view of itself, as torch's
        each_level(lambda: _restride_tangent(input, view_))
    check_inference_inplace(input)
    input._bump_version()  # torch counts a change of shape as an in-place change
    if node is not None:
        input.grad_fn, input._requires_grad, input._output_nr = node, True, 0
    return input


def t_(input):
    with no_grad():  # (the view only supplies the new geometry; _restride records)
        view_ = t(input)
    return _restride(input, view_, TBackward1)


@overloads("(Tensor input, int dim0, int dim1)")
def transpose_(input, dim0, dim1):
    with no_grad():
        view_ = transpose(input, dim0, dim1)
    ndim = input._data.ndim
    return _restride(input, view_, TransposeBackward1, dim0=wrap_dim(dim0, ndim),
                     dim1=wrap_dim(dim1, ndim))


@overloads("(Tensor input, int dim)")
@numpy_names
def unsqueeze_(input, dim):
    with no_grad():
        view_ = unsqueeze(input, dim)
    return _restride(input, view_, UnsqueezeBackward1, dim=wrap_dim(dim, input._data.ndim + 1))


@overloads("(Tensor input)", "(Tensor input, int dim)", "(Tensor input, tuple of ints dim)")
@numpy_names
def squeeze_(input, dim=None):
    with no_grad():
        view_ = squeeze(input) if dim is None else squeeze(input, dim)
    if dim is None:
        return _restride(input, view_, SqueezeBackward3, self_sym_sizes=input._data.shape)
    if isinstance(dim, (tuple, list)):
        return _restride(input, view_, SqueezeBackward5, self_sym_sizes=input._data.shape,
                         dim=tuple(dim))
    return _restride(input, view_, SqueezeBackward4, self_sym_sizes=input._data.shape,
                     dim=dim)


class TBackward1(TBackward0):
    """x.t_():  the gradient is transposed back"""


class TransposeBackward1(TransposeBackward0):
    """x.transpose_(dim0, dim1):  swap them back"""


class UnsqueezeBackward1(UnsqueezeBackward0):
    """x.unsqueeze_(dim):  the gradient drops the new dimension"""


class SqueezeBackward3(SqueezeBackward0):
    """x.squeeze_():  the gradient gets the size-1 dimensions back"""


class SqueezeBackward4(SqueezeBackward1):
    """x.squeeze_(dim):  the gradient gets the size-1 dimension back"""


class SqueezeBackward5(SqueezeBackward2):
    """x.squeeze_(dims):  the gradient gets the size-1 dimensions back"""


# (torch builds these from other ops after checking their arguments itself)
histories_read_first(globals(), [name for name in __all__ if name not in (
    "narrow", "chunk", "movedim", "moveaxis", "flatten", "unflatten", "unsafe_chunk", "ravel",
    "broadcast_tensors")] + ["view_as", "reshape_as", "expand", "expand_as", "t_",
                             "transpose_", "unsqueeze_", "squeeze_"])


# torch.t(None): torch's TypeError
tensor_inputs(globals(), ["adjoint", "clone", "flatten", "t", "unbind", "detach", "ravel",
                         "select", "chunk", "unsafe_split", "unsafe_chunk"])
