"""Shape ops learners paste from tutorials: roll, tile, meshgrid, diff, trace.

roll and trace have nodes of their own (beside them); tile, meshgrid and diff are, as in
torch, made of other ops (repeat, view + expand, narrow + sub), whose nodes they record.
"""
import itertools
import math
import warnings

import numpy as np

from ..fidelity import calls, float32_math, messages, rounding, signatures
from ..fidelity.dtypes import int64, promote_types, scalar_type_name
from ..fidelity.layout import contiguous_strides
from ..fidelity.messages import type_name
from ..core.backward import sum_to
from ..core.forward import has_tangent, state as dual
from ..core.grad_mode import no_grad
from ..fidelity.size import wrap_dim
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from .common import histories_read_first
from .common import (invalid_arguments_error, numpy_names, overloads, require_tensor_sequence,
                     size_arguments,
                     takes_out,
                     tensor_inputs, write_out)
from .compare import logical_xor
from .join import cat, stack
from .arithmetic import mul, where
from .creation import zeros_like
from .unary import isfinite, isnan
from .linalg import bmm, dot, mm, unsafe_view
from .views import view_strides
from .common import number_parameters

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "cartesian_prod",
           "cdist", "column_stack", "combinations", "diag_embed", "diff", "dsplit", "dstack",
           "einsum", "hsplit", "kron", "meshgrid", "roll", "rot90", "row_stack", "take",
           "tensordot", "tile", "trace", "tril_indices", "triu_indices", "vsplit"]


def _int_list(value):
    return (int(value),) if isinstance(value, (int, np.integer)) else tuple(int(v) for v in value)


# ====================================================================== roll
def _one_int(value):
    """A 0-d integer tensor given for a tuple of ints (torch's parser reads it as one int)."""
    return int(value) if isinstance(value, Tensor) else value


@numpy_names
@number_parameters("roll", {"shifts": "tuple of SymInts[1]", "dims": "tuple of ints[1]?"})
def roll(input, shifts, dims=()):
    """Elements shifted along dims, those pushed off one end coming back at the other
    (no dims, or None: along the flattened tensor)"""
    shifts, dims = _int_list(_one_int(shifts)), _int_list(_one_int(() if dims is None else dims))
    data = input._data
    if not shifts:
        raise RuntimeError("`shifts` required")
    if (dims or len(shifts) != 1) and len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if data.size == 0:  # (torch returns a copy before it looks at dims)
        rolled = data
    elif not dims:
        rolled = np.roll(data.ravel(), shifts[0]).reshape(data.shape)
    else:
        if data.ndim == 0:
            raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
        rolled = np.roll(data, shifts, tuple(wrap_dim(d, data.ndim) for d in dims))
    result = wrap(np.array(rolled, order="C"))
    return record(RollBackward0, result, (input,), shifts=shifts, dims=dims)


class RollBackward0(Node):
    """out = x rolled by shifts:  d/dx = grad rolled back by -shifts"""

    shifts: tuple
    dims: tuple

    def backward(self, grad):
        return grad.roll(tuple(-s for s in self.shifts), self.dims)


# ====================================================================== rot90
@number_parameters("rot90", {"k": "int", "dims": "tuple of ints"})
def rot90(input, k=1, dims=(0, 1)):
    """x turned k quarter turns in the plane of dims, from the first dim towards the second
    (one node, Rot90Backward0; an odd k gives torch's transposed layout)"""
    dims = _int_list(dims)
    data = input._data
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if data.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {data.ndim}")
    first, second = wrap_dim(dims[0], data.ndim), wrap_dim(dims[1], data.ndim)  # (first)
    if first == second:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    turns = k % 4
    with no_grad():  # torch's steps, whose flip keeps the input's layout
        if turns == 1:
            values = np.swapaxes(input.flip((second,))._data, first, second)
        elif turns == 2:
            values = input.flip((first, second))._data
        elif turns == 3:
            values = np.swapaxes(input.flip((first,))._data, first, second)
        else:
            values = np.array(data, order="C")
    result = wrap(values)
    if values.size == 0 and turns % 2:  # (numpy calls any empty array contiguous)
        stride = list(contiguous_strides(data.shape))
        stride[first], stride[second] = stride[second], stride[first]
        result._stride = tuple(stride)
    return record(Rot90Backward0, result, (input,), k=k, dims=dims)


class Rot90Backward0(Node):
    """out = x turned k quarter turns:  d/dx = grad turned back (-k turns)"""

    k: int
    dims: tuple

    def backward(self, grad):
        return grad.rot90(-self.k, self.dims)


# ====================================================================== at least n dims, stacks
# (torch.functional's Python: a tensor with enough dims is returned itself)
_AT_LEAST = ("(Tensor input)", "(tuple of Tensors tensors)")


def _at_least(tensors, name, make):
    if len(tensors) == 1:  # (one tensor, or one sequence of them)
        tensors = tensors[0]
        if isinstance(tensors, Tensor):
            return make(tensors)
        if not isinstance(tensors, (list, tuple)):
            raise invalid_arguments_error(name, tensors, printed=_AT_LEAST)
    require_tensor_sequence(tensors, name, "tensors", 1)
    return tuple(make(t) for t in tensors)


def _one_dim(t):
    return t.reshape(1) if t.dim() == 0 else t


def _two_dims(t):
    return t.reshape(1, 1) if t.dim() == 0 else t.unsqueeze(0) if t.dim() == 1 else t


def _three_dims(t):
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if t.dim() == 2 else t


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (a number becomes a vector of one)"""
    return _at_least(tensors, "atleast_1d", _one_dim)


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims (a vector becomes one row)"""
    return _at_least(tensors, "atleast_2d", _two_dims)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims (a vector becomes (1, n, 1), a matrix (m, n, 1))"""
    return _at_least(tensors, "atleast_3d", _three_dims)


def _check_sequence(tensors, name):
    require_tensor_sequence(tensors, name, "tensors", 1)


@takes_out
def column_stack(tensors):
    """Side by side as columns: vectors (and numbers) become columns, matrices join along dim 1"""
    _check_sequence(tensors, "column_stack")
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    return cat([t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors], 1)


@takes_out
def dstack(tensors):
    """Joined along the third dim (depth), each made 3-d first"""
    _check_sequence(tensors, "dstack")
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat([_three_dims(t) for t in tensors], 2)


@takes_out
def row_stack(tensors):
    """vstack's other name: joined along dim 0, vectors as rows"""
    _check_sequence(tensors, "row_stack")
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat([_two_dims(t) for t in tensors], 0)


# ====================================================================== take, diag_embed
@takes_out
def take(input, index):
    """The elements of the flattened input at ``index`` (negative counts from the end), in
    index's shape"""
    if not isinstance(index, Tensor):
        raise TypeError(f"take(): argument 'index' (position 2) must be Tensor, not "
                        f"{type_name(index)}")
    if index._data.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{scalar_type_name[index.dtype]}")
    flat, places = input._data.reshape(-1), index._data
    if places.size and flat.size == 0:
        raise IndexError("take(): tried to take from an empty tensor")
    bad = (places >= flat.size) | (places < -flat.size)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(places[bad][0])} on a "
                         f"tensor of {flat.size} elements.")
    result = wrap(np.array(flat[places % max(flat.size, 1)], order="C"))
    return record(TakeBackward0, result, (input,), saved=(index,),
                  self_sym_sizes=input._data.shape)


class TakeBackward0(Node):
    """out = x.flatten()[index]:  each gradient added back at its place"""

    _saved_names = ("index",)
    self_sym_sizes: tuple

    def backward(self, grad):
        (index,) = self.saved_tensors
        size = math.prod(self.self_sym_sizes)
        places = wrap(index._data.reshape(-1) % max(size, 1))
        flat = grad.new_zeros((size,)).scatter_add(0, places, grad.reshape(-1))
        return flat.view(self.self_sym_sizes)


@overloads("(Tensor input, int offset = 0, int dim1 = -2, int dim2 = -1)")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """The last dim of input written on the diagonal (offset) of new dims dim1, dim2 of zeros"""
    data = input._data
    ndim = data.ndim + 1
    first, second = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = data.shape[-1] + abs(offset)
    kept = list(data.shape[:-1])
    shape = []
    for axis in range(ndim):
        shape.append(size if axis in (first, second) else kept.pop(0))
    result = wrap(np.zeros(shape, data.dtype))
    with no_grad():  # (written through numpy: the result's version stays 0, as torch's)
        result.diagonal(offset, first, second)._data[...] = data
    return record(DiagEmbedBackward0, result, (input,), offset=offset, dim1=first, dim2=second)


class DiagEmbedBackward0(Node):
    """out = x on a diagonal of zeros:  d/dx = the gradient's diagonal"""

    offset: int
    dim1: int
    dim2: int

    def backward(self, grad):
        return grad.diagonal(self.offset, self.dim1, self.dim2)


# ====================================================================== index lists, products
def _triangle_indices(row, col, offset, dtype, name, pick):
    dtype = int64 if dtype is None else dtype
    if dtype.numpy_dtype.kind not in "iu":
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{scalar_type_name[dtype]}'")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    rows, columns = pick(row, offset, col)
    return wrap(np.array([rows, columns], dtype.numpy_dtype).reshape(2, -1))


@number_parameters("tril_indices", {"row": "int", "col": "int", "offset": "int"})
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """The (row, column) places of the lower triangle of a row x col matrix, row by row"""
    return _triangle_indices(row, col, offset, dtype, "tril_indices", np.tril_indices)


@number_parameters("triu_indices", {"row": "int", "col": "int", "offset": "int"})
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """The (row, column) places of the upper triangle of a row x col matrix, row by row"""
    return _triangle_indices(row, col, offset, dtype, "triu_indices", np.triu_indices)


def cartesian_prod(*tensors):
    """Every combination of one element of each vector, as rows (meshgrid, flattened, stacked)"""
    require_tensor_sequence(tensors, "cartesian_prod", "tensors", 1)
    for value in tensors:
        if isinstance(value, Tensor) and value.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(value.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    grids = meshgrid(*tensors, indexing="ij")
    return stack([grid.flatten() for grid in grids], 1)


@overloads("(Tensor input, int r = 2, bool with_replacement = False)")
def combinations(input, r=2, with_replacement=False):
    """Every choice of r of a vector's elements (with_replacement: an element may be chosen
    again), one per row, in the order of their positions: as torch, input indexed by the
    increasing rows of positions of an r-fold meshgrid (so its node is IndexBackward0)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:  # (torch's empty tensor: no node)
        return wrap(np.empty(0, input._data.dtype))
    choose = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = np.array(list(choose(range(input._data.shape[0]), r)), np.int64).reshape(-1, r)
    return input[wrap(rows)]


def block_diag(*tensors):
    """The tensors (matrices; vectors as one row, numbers as 1 x 1) along a diagonal of zeros"""
    require_tensor_sequence(tensors, "block_diag", "tensors", 1)
    for i, value in enumerate(tensors):
        if value.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {value.dim()} dimensions")
    blocks = [t._data.reshape(1, -1) if t.dim() < 2 else t._data for t in tensors]
    dtype = tensors[0].dtype if tensors else None
    for t in tensors[1:]:
        dtype = promote_types(dtype, t.dtype)
    rows, columns = sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)
    np_dtype = np.float32 if dtype is None else dtype.numpy_dtype
    values = np.zeros((rows if tensors else 1, columns), np_dtype)
    r = c = 0
    for b in blocks:
        values[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return record(BlockDiagBackward0, wrap(values), tuple(tensors),
                  shapes=tuple(t._data.shape for t in tensors),
                  blocks=tuple(b.shape for b in blocks))


class BlockDiagBackward0(Node):
    """out = the blocks along a diagonal:  each block's gradient is its place in grad"""

    _internal = ("shapes", "blocks")
    shapes: tuple
    blocks: tuple

    def backward(self, grad):
        grads, r, c = [], 0, 0
        for shape, (rows, columns) in zip(self.shapes, self.blocks):
            piece = grad[r:r + rows, c:c + columns].reshape(shape)
            grads.append(piece)
            r, c = r + rows, c + columns
        return tuple(grads)


# ====================================================================== v/h/dsplit
def _named_split(input, indices_or_sections, name, dim, least):
    if input.dim() < least:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {least} dimension, "
                           f"but got a tensor with {input.dim()} dimensions!")
    if isinstance(indices_or_sections, (int, np.integer)):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the "
                               f"split_size {indices_or_sections}!")
    return input.tensor_split(indices_or_sections, dim)  # (structure.py's)


_NAMED_SPLITS = ("(Tensor input, int sections)", "(Tensor input, tuple of ints indices)")


@overloads(*_NAMED_SPLITS)
def vsplit(input, indices_or_sections):
    """tensor_split along dim 0 (into equal pieces when given their number)"""
    return _named_split(input, indices_or_sections, "vsplit", 0, 2)


@overloads(*_NAMED_SPLITS)
def hsplit(input, indices_or_sections):
    """tensor_split along dim 1 (dim 0 for a vector)"""
    dim = 1 if input.dim() > 1 else 0
    return _named_split(input, indices_or_sections, "hsplit", dim, 1)


@overloads(*_NAMED_SPLITS)
def dsplit(input, indices_or_sections):
    """tensor_split along dim 2"""
    return _named_split(input, indices_or_sections, "dsplit", 2, 3)


# ====================================================================== kron
_NOT_VIEWABLE = ("view size is not compatible with input tensor's size and stride (at least one "
                 "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


@takes_out(restrides=False)  # (torch's kron is a composite: its out= is resized row-major)
@number_parameters("kron", {"other": "Tensor"})
def kron(input, other):
    """The Kronecker product: every element of input times the whole of other, in blocks
    (torch's _unsafe_view of each operand, mul, _unsafe_view of the result)"""
    dims = max(input.dim(), other.dim())
    padded_a = (1,) * (dims - input.dim()) + tuple(input.shape)
    padded_b = (1,) * (dims - other.dim()) + tuple(other.shape)
    shape_a = tuple(n for size in padded_a for n in (size, 1))
    shape_b = tuple(n for size in padded_b for n in (1, size))
    product = mul(unsafe_view(input, shape_a), unsafe_view(other, shape_b))
    shape = tuple(a * b for a, b in zip(padded_a, padded_b))
    # the product takes its layout from the operands (a transposed one's too), which the
    # last view may not be able to read: torch's error
    if view_strides(tuple(product.shape), product.stride(), shape) is None:
        raise RuntimeError(_NOT_VIEWABLE)
    return unsafe_view(product, shape)


# ====================================================================== cdist
_CDIST_MODES = {None: 0, "use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


@number_parameters("cdist", {"x2": "Tensor", "p": "float"}, always_positional=True)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of x1 and each row of x2 (batched over leading
    dims). For p=2 and more than 25 rows torch (and the engine) take |a|^2 - 2 a.b + |b|^2
    through a matrix product, whose last bits differ from the direct sum"""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for name, value in (("X1", x1), ("X2", x2)):
        if value.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{value.dim()}D")
    for name, value in (("X1", x1), ("X2", x2)):
        if value._data.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{scalar_type_name[value.dtype]}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    rows1, rows2, columns = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    mode = _CDIST_MODES[compute_mode]
    through_mm = p == 2 and (mode == 1 or (mode == 0 and (rows1 > 25 or rows2 > 25)))
    if dual.active and (has_tangent(x1) or has_tangent(x2)):  # (torch has no forward formula
        # for either kernel: its check comes before the kernel's own)
        raise NotImplementedError(messages.no_forward_ad(
            EuclideanDistBackward0 if through_mm else CdistBackward0))
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name[x1.dtype]} but found "
                           f"{scalar_type_name[x2.dtype]}")
    batch = tuple(np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
    product = math.prod(batch)
    output_shape = batch + (rows1, rows2)
    if rows1 and rows2 and product and columns and through_mm:
        if product == 1:
            return _euclidean_dist(x1, x2).view(output_shape)
        left = x1.expand(batch + (rows1, columns)).contiguous().view(product, rows1, columns)
        right = x2.expand(batch + (rows2, columns)).contiguous().view(product, rows2, columns)
        return _euclidean_dist(left, right).view(output_shape)
    if x1._data.dtype == np.float16 and rows1 and rows2 and product and columns:
        raise NotImplementedError('"cdist" not implemented for \'Half\'')
    a = np.broadcast_to(x1._data, batch + (rows1, columns))[..., :, None, :]
    b = np.broadcast_to(x2._data, batch + (rows2, columns))[..., None, :, :]
    with np.errstate(all="ignore"):
        distance = np.abs(a - b)
        # torch's kernel: p=0 adds min(ceil(|d|), 1) (a nan stays), p=inf keeps the running
        # max when |d| is nan (std::max)
        if p == 0:
            values = np.sum(np.minimum(np.ceil(distance), 1), axis=-1)
        elif p == math.inf:
            values = np.fmax.reduce(distance, axis=-1, initial=0)
        else:
            values = _summed_column_by_column(distance, p)
    result = wrap(np.ascontiguousarray(np.asarray(values, x1._data.dtype).reshape(output_shape)))
    return record(CdistBackward0, result, (x1, x2), saved=(x1, x2), saved_output=True, p=p)


def _summed_column_by_column(distance, p):
    """torch's kernel for p = 1, 2 and others: each distance summed column by column in the
    dtype (|d|, d * d fused into the sum, or pow(|d|, p)), then sqrt, or the 1/p power in
    double as C++'s std::pow(float, 1.0 / p) computes it"""
    dtype = distance.dtype
    p = dtype.type(p)  # (torch's kernel takes p in the input's dtype)
    fused = rounding.fma32 if dtype == np.float32 else rounding.fma64
    # (d * d + total: the compiler's vector loop over 16 bytes of columns multiplies and
    # adds, its loop over the columns left fuses them; torch's plain build never fuses)
    columns = distance.shape[-1]
    unfused = columns - columns % (16 // dtype.itemsize) if float32_math.torch_fuses() \
        else columns
    total = np.zeros(distance.shape[:-1], dtype)
    for index, column in enumerate(np.moveaxis(distance, -1, 0)):
        if p == 1:
            total = total + column
        elif p == 2:
            total = total + column * column if index < unfused else \
                np.asarray(fused(column, column, total), dtype)
        else:
            total = total + column ** p
    if p == 1:
        return total
    if p == 2:
        return np.sqrt(total)
    return total.astype(np.float64) ** (1.0 / float(p))


class CdistBackward0(Node):
    """out_ij = |x1_i - x2_j|_p:  d/dx1_i = sum_j grad_ij d out_ij / d x1_i, and x2's the same
    with the roles swapped (torch computes it so, not as the negative: zeros keep its sign)"""

    _saved_names = ("x1", "x2", "result")
    p: float
    jvp = None  # (forward mode: torch has no formula, messages.no_forward_ad)
    forward_name = "_cdist_forward"

    def backward(self, grad):
        # (from ordinary ops, so that it differentiates again as torch's does)
        x1, x2, result = self.saved_tensors
        needed = [node is not None for node, _ in self.next_functions]
        return (_cdist_gradient(grad, x1, x2, result, self.p) if needed[0] else None,
                _cdist_gradient(grad.mT, x2, x1, result.mT, self.p) if needed[1] else None)


def _cdist_gradient(grad, x1, x2, result, p):
    """torch's _cdist_backward: for each row of x1, its terms with each row of x2 added in
    order; 0 where a distance is 0"""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    out = result.unsqueeze(-1)
    sign = where(isnan(diff), diff, diff.sign())  # (torch's sign keeps a nan)
    # (where a branch is not taken its values are still differentiated: 1 stands in for
    # a zero distance, or a zero difference, so that a second derivative stays finite)
    safe_out = where(out == 0, 1.0, out)
    # (0, linked to x1 and x2: where the local derivative is piecewise constant, torch's
    # double-backward node still links its result to them, so a further derivative is 0)
    linked_zero = where(isfinite(diff), diff.abs() * 0, 0.0)
    g = grad.unsqueeze(-1)
    # (0 stands in for the grad where a branch sets the result to 0: an infinite grad there,
    # log's at a zero distance, times a zero derivative would make the next derivative nan)
    kept_g = where(out == 0, 0.0, g)
    # torch's kernel for each p: 0 where the distance is 0 (an infinite grad included)
    if p == 0:  # (0 for any grad, linked to it)
        weighted = linked_zero + where(isfinite(g), g, 0.0) * 0
    elif p == 1:
        weighted = g * (sign + linked_zero)
    elif p == 2:
        weighted = where(out == 0, 0.0, kept_g * diff / safe_out)
    elif p == math.inf:  # (torch's test of |d| == dist: nan where both are inf)
        at_max = 1 - (diff.abs() - out).abs().ceil().clamp(max=1)
        weighted = g * (sign * at_max + linked_zero)
    elif p < 2:  # sign(d) |d|^(p - 1), 0 where d is 0 (a nan grad kept there but for p < 1)
        magnitude = where(diff == 0, 1.0, diff.abs())  # (1 stands in for |0|: sign(0) is 0)
        skipped = (out == 0) | (diff == 0) if p < 1 else out == 0
        weighted = where(skipped, 0.0, sign * magnitude.pow(p - 1) * where(skipped, 0.0, g) /
                         safe_out.pow(p - 1))
    else:  # |d|^(p - 2) is 0 where d is 0, and so is its derivative (1 stands in for |0|:
        # for 2 < p < 3 the derivative of |0|^(p - 2) would be inf, times 0 nan); a nan grad
        # still makes the term nan there, as in torch's kernel
        magnitude = where(diff == 0, 1.0, diff.abs())
        scale = where(diff == 0, 0.0, magnitude.pow(p - 2))
        weighted = where(out == 0, 0.0, diff * scale * kept_g / safe_out.pow(p - 1))
    summed = weighted.sum(-2)
    # torch's kernel adds the terms of x2's rows one after another, from 0: those values,
    # in the sum's place in the graph (its gradient is the same)
    values = np.zeros(summed._data.shape, summed._data.dtype)
    for row in np.moveaxis(weighted._data, -2, 0):
        values = values + row
    summed._data[...] = values
    return sum_to(summed, tuple(x1.shape))


def _euclidean_dist(x1, x2):
    """torch's _euclidean_dist: sqrt(clamp_min(|a|^2 - 2 a.b + |b|^2, 0)) through matmul"""
    with no_grad():
        left_norm = x1.pow(2).sum(-1, True)
        right_norm = x2.pow(2).sum(-1, True)
        left = cat([x1.mul(-2), left_norm, left_norm.new_ones(left_norm.shape)], -1)
        right = cat([x2, right_norm.new_ones(right_norm.shape), right_norm], -1)
        result = left.matmul(right.mT).clamp_min_(0).sqrt_()
    return record(EuclideanDistBackward0, wrap(result._data), (x1, x2), saved=(x1, x2),
                  saved_output=True)


class EuclideanDistBackward0(Node):
    """out = |x1_i - x2_j|:  torch's _euclidean_dist_backward (ratio = grad / out, 0 at 0)"""

    jvp = None  # (forward mode: torch has no formula, messages.no_forward_ad)
    forward_name = "_euclidean_dist"

    _saved_names = ("x1", "x2", "result")

    def backward(self, grad):
        x1, x2, result = self.saved_tensors
        ratio = where(result == 0, 0.0, grad / result)
        return (x1 * ratio.sum(-1, True) - ratio.matmul(x2),
                x2 * ratio.sum(-2, False).unsqueeze(-1) - ratio.mT.matmul(x1))


# ====================================================================== tile
def tile(input, dims):
    """x repeated dims[i] times along dim i; fewer dims than x has count as leading 1s
    (torch's x.repeat after padding, whose node it records)"""
    position = None if calls.given_by_keyword("dims") else calls.position(2)
    if not isinstance(dims, (tuple, list)):  # (x.tile(2) comes as (2,), from methods.py)
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"tile(): argument 'dims'{where} must be tuple of ints, not "
                        f"{type_name(dims)}")
    dims = size_arguments((dims,), "tile", "dims", position=position)
    missing = input._data.ndim - len(dims)
    return input.repeat(*((1,) * missing + dims)) if missing > 0 else input.repeat(*dims)


# ====================================================================== meshgrid
_MESHGRID_WARNING = (
    "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
    "argument. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4207.)")
_warned_about_indexing = []


def meshgrid(*tensors, indexing=None):
    """Coordinate grids: output i is tensors[i] expanded along every other tensor's dim
    (indexing="ij"); "xy" swaps the first two dims, as numpy's default"""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for value in tensors:
        if not isinstance(value, Tensor):
            raise TypeError(f"expected Tensor as element 0 in argument 0, but got "
                            f"{type_name(value)}")
    if indexing is None:
        if not _warned_about_indexing:  # (torch's TORCH_WARN_ONCE: once per process)
            _warned_about_indexing.append(True)
            warnings.warn(_MESHGRID_WARNING, UserWarning, stacklevel=2)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("torch.meshgrid expects a non-empty TensorList")
    for value in tensors:
        if value._data.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {value}")
    first = tensors[0]
    for value in tensors[1:]:
        if value.dtype != first.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("ij", "xy"):
        raise RuntimeError("torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    swap = indexing == "xy" and len(tensors) >= 2
    ordered = list(tensors)
    if swap:
        ordered[0], ordered[1] = ordered[1], ordered[0]
    shape = tuple(t._data.size for t in ordered)
    grids = []
    for i, value in enumerate(ordered):
        view_shape = [1] * len(ordered)
        view_shape[i] = -1
        grids.append(value.view(view_shape).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# ====================================================================== diff
@takes_out
@numpy_names
@number_parameters("diff", {"n": "int", "dim": "int", "prepend": "Tensor?", "append": "Tensor?"})
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """x[i + 1] - x[i] along dim, n times (bool: x[i + 1] != x[i]); prepend and append are
    joined to x first"""
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for joined in (prepend, append):
        if joined is not None:
            _check_joined_shape(input, joined, dim)
    if n == 0:  # torch's copy of the input (prepend and append left out): zeros_like, copy_
        result = zeros_like(input)
        return result.copy_(input)
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, input, append) if p is not None]
        input = cat(parts, dim)
    for _ in range(n):
        length = input._data.shape[wrap_dim(dim, input._data.ndim)]
        if length == 0:
            break
        after, before = input.narrow(dim, 1, length - 1), input.narrow(dim, 0, length - 1)
        input = logical_xor(after, before) if input._data.dtype == np.bool_ else after - before
    return input


def _check_joined_shape(input, joined, dim):
    """diff's prepend or append: input's shape but along dim."""
    ndim = input._data.ndim
    axis = wrap_dim(dim, ndim)
    if joined._data.ndim != ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i, (mine, theirs) in enumerate(zip(input._data.shape, joined._data.shape)):
        if i != axis and mine != theirs:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of input "
                f"except along the differencing dimension; input.size({i}) = {mine}, but got "
                f"tensor.size({i}) = {theirs}")


# ====================================================================== trace
def trace(input):
    """The sum of the main diagonal of a matrix (integers add up as int64)"""
    data = input._data
    if data.dtype == np.bool_:
        raise NotImplementedError('"trace" not implemented for \'Bool\'')
    if data.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim "
                           f"{data.ndim}")
    # torch's loop adds the diagonal one element after another in its accumulator type:
    # int64 for integers, float64 for float32 (and float64), float32 for float16
    accumulator = {"i": np.int64, "u": np.int64, "f": np.float64}[data.dtype.kind]
    if data.dtype == np.float16:
        accumulator = np.float32
    diagonal = np.diagonal(data).astype(accumulator)
    value = np.cumsum(diagonal)[-1] if diagonal.size else accumulator(0)
    with np.errstate(over="ignore"):  # (a float64 sum too large for float32: inf)
        result = wrap(np.asarray(value).astype(np.int64 if data.dtype.kind in "iu" else
                                                data.dtype))
    return record(TraceBackward0, result, (input,), self_sym_sizes=data.shape)


class TraceBackward0(Node):
    """out = sum of x[i, i]:  d/dx = grad on the diagonal, 0 elsewhere"""

    self_sym_sizes: tuple

    def backward(self, grad):
        # grad written on the diagonal of zeros (not grad * eye: a nan stays on the diagonal)
        rows, columns = self.self_sym_sizes
        places = wrap(np.arange(0, rows * columns, columns + 1)[:min(rows, columns)])
        flat = grad.new_zeros((rows * columns,))
        return flat.scatter(0, places, grad.expand(len(places._data))).view(rows, columns)



# ====================================================================== tensordot
def tensordot(a, b, dims=2, out=None):
    """The sum over paired dims of a and b of the products (dims=n: a's last n with b's first
    n; or two lists of dims): torch's permute, reshape to matrices, mm (dot for one number)"""
    if isinstance(dims, Tensor):
        if dims._data.size > 1:
            dims_a, dims_b = dims._data[0].tolist(), dims._data[1].tolist()
        else:
            dims = int(dims._data.reshape(-1)[0]) if dims._data.size else dims
    if isinstance(dims, bool) or not isinstance(dims, (tuple, list, Tensor, int, np.integer)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    for position, (name, value) in enumerate((("input", a), ("other", b)), 1):  # (its parser)
        if not isinstance(value, Tensor):
            raise TypeError(f"tensordot(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {type_name(value)}")
    given = (("dims_self", dims_a), ("dims_other", dims_b))
    for position, (name, value) in enumerate(given):  # (torch's Python hands them on to an
        if not isinstance(value, (tuple, list)):  # op of two int[]s, by position)
            raise TypeError(f"tensordot(): argument '{name}' (position {position + 3}) must be "
                            f"tuple of ints, not {type_name(value)}")
        signatures.int_list_checked("tensordot", name, value, f" (position {position + 3})",
                                    unpack=False)
    dims_a, dims_b = (signatures.unpack_ints("tensordot", name, value, symint=False)
                      for name, value in given)
    if out is not None and not isinstance(out, Tensor):
        raise TypeError(f"tensordot(): argument 'out' must be Tensor, not {type_name(out)}")
    result = _tensordot(a, b, list(dims_a), list(dims_b))
    if out is None:
        return result
    if out.dtype != result.dtype:
        raise RuntimeError(f"tensordot: Expected the output tensor to have dtype "
                           f"{scalar_type_name[result.dtype]}, but got an output tensor with "
                           f"dtype {scalar_type_name[out.dtype]}")
    with no_grad():
        write_out(result.detach(), out)
    return out


def _tensordot(a, b, dims_a, dims_b):
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    left, right, contracted = a, b, 1
    axes_a, axes_b = [], []
    for given_a, given_b in zip(dims_a, dims_b):
        for given, operand in ((given_a, a), (given_b, b)):
            if operand.dim() == 0:
                raise IndexError(f"Dimension specified as {given} but tensor has no dimensions")
        axis_a, axis_b = wrap_dim(given_a, a.dim()), wrap_dim(given_b, b.dim())
        size_a, size_b = a.shape[axis_a], b.shape[axis_b]
        # a dim of size 1 against any size: torch sums the other side over it first
        if size_b == 1:  # (in the operand's dtype)
            left = left.sum(axis_a, keepdim=True, dtype=left.dtype)
        elif size_a == 1:
            right = right.sum(axis_b, keepdim=True, dtype=right.dtype)
        elif size_a != size_b:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{size_a} in dim {given_a} and second has size {size_b} in dim "
                               f"{given_b}")
        else:
            contracted *= size_a
        axes_a.append(axis_a)
        axes_b.append(axis_b)
    for axes in (axes_a, axes_b):
        for i, axis in enumerate(axes):
            if axis in axes[:i]:
                raise RuntimeError(f"dim {axis} appears multiple times in the list of dims")
    free_a = [i for i in range(a.dim()) if i not in axes_a]
    free_b = [i for i in range(b.dim()) if i not in axes_b]
    shape = [a.shape[i] for i in free_a] + [b.shape[i] for i in free_b]
    rows, columns = math.prod(a.shape[i] for i in free_a), math.prod(b.shape[i] for i in free_b)
    left, right = left.permute(free_a + axes_a), right.permute(axes_b + free_b)
    if rows == 1 and columns == 1:  # a full contraction
        if left.is_contiguous() and right.is_contiguous():
            return dot(left.flatten(), right.flatten()).reshape(shape)
        # torch multiplies and sums here, sparing the copies flatten would make
        return (left.squeeze() * right.squeeze()).sum(dtype=left.dtype).reshape(shape)
    return mm(left.reshape(rows, contracted), right.reshape(contracted, columns)).reshape(shape)


# ====================================================================== einsum
# torch's einsum (aten/src/ATen/native/Linear.cpp), whose steps show in the graph: each operand
# gets diagonals for repeated labels (diagonal + movedim), unsqueezes for the labels it lacks
# and a permute to the order output labels, then summed labels; pairs are then contracted
# by sumproduct_pair (sum, permute, reshape, bmm, view, permute), or multiplied when nothing
# is summed; a last view (or, for one operand, a sum) drops the summed dims.
_ELLIPSIS = 52


def _label_index(label):
    return ord(label) - ord("A") + 26 if label.isupper() else ord(label) - ord("a")


def _is_label(label):
    return label.isascii() and label.isalpha()


def einsum(*args):
    """Sums of products over the labels the equation names ("ij,jk->ik" is a matrix product;
    without "->", the output is the labels seen once, in alphabetical order)"""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):  # einsum(a, [0, 1], b, [1, 2], [0, 2]): sublists
        output = args[-1] if len(args) % 2 else None
        pairs = args[:-1] if len(args) % 2 else args
        operands, sublists = list(pairs[0::2]), list(pairs[1::2])
        equation = ",".join(_sublist_text(s) for s in sublists) + (
            "" if output is None else "->" + _sublist_text(output))
        return _einsum(equation, operands)
    equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])
    for position, operand in enumerate(operands):
        if not isinstance(operand, Tensor):
            raise TypeError(f"expected Tensor as element {position} in argument 1, but got "
                            f"{type_name(operand)}")
    return _einsum(equation, list(operands))


def _sublist_text(sublist):
    """[0, 1, Ellipsis] as "ab..." (0-25: a-z, 26-51: A-Z)."""
    text = ""
    for item in sublist:
        if item is Ellipsis:
            text += "..."
        elif not 0 <= item < 52:
            raise ValueError("einsum(): subscript in subscript list is not within the valid "
                             "range [0, 52)")
        else:
            text += _label_char(item)
    return text


def _einsum_labels(equation, count):
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    labels, current, ellipsis_seen, i = [[] for _ in range(count)], 0, False, 0
    while i < len(lhs):
        label = lhs[i]
        if label == " ":
            pass
        elif label == ".":
            if ellipsis_seen:
                raise RuntimeError(f"einsum(): found '.' for operand {current} for which an "
                                   "ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {current} that is not part "
                                   "of any ellipsis")
            i += 2
            labels[current].append(_ELLIPSIS)
            ellipsis_seen = True
        elif label == ",":
            current += 1
            if current >= count:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
            ellipsis_seen = False
        else:
            if not _is_label(label):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the "
                                   "equation string, subscripts must be in [a-zA-Z]")
            labels[current].append(_label_index(label))
        i += 1
    if current != count - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    return arrow, lhs, labels


def _einsum(equation, operands):
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    arrow, lhs, op_labels = _einsum_labels(equation, len(operands))
    label_count = [0] * 52
    ellipsis_dims = 0
    for i, (operand, labels) in enumerate(zip(operands, op_labels)):
        ndim, named = operand.dim(), len(labels)
        has_ellipsis = _ELLIPSIS in labels
        for label in labels:
            if label == _ELLIPSIS:
                named -= 1
            else:
                label_count[label] += 1
        if has_ellipsis:
            ellipsis_dims = max(ellipsis_dims, ndim - named)
        if (named > ndim) if has_ellipsis else (named != ndim):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) "
                               f"does not match the number of dimensions ({ndim}) for operand "
                               f"{i}{'' if has_ellipsis else ' and no ellipsis was given'}")
    position = [-1] * 52
    place, ellipsis_at, ellipsis_out = 0, 0, False
    if arrow < 0:  # implicit output: the ellipsis, then the labels seen once
        place, ellipsis_out = ellipsis_dims, True
        for label in range(52):
            if label_count[label] == 1:
                position[label], place = place, place + 1
    else:
        rhs, i = equation[arrow + 2:], 0
        while i < len(rhs):
            label = rhs[i]
            if label == " ":
                pass
            elif label == ".":
                if ellipsis_out:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was "
                                       "already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any "
                                       "ellipsis (...)")
                i += 2
                ellipsis_at, place, ellipsis_out = place, place + ellipsis_dims, True
            else:
                if not _is_label(label):
                    raise RuntimeError(f"einsum(): invalid subscript given at index "
                                       f"{len(lhs) + 2 + i} in the equation string, subscripts "
                                       "must be in [a-zA-Z]")
                index = _label_index(label)
                if not (label_count[index] > 0 and position[index] == -1):
                    raise RuntimeError(f"einsum(): output subscript {label}" + (
                        " appears more than once in the output" if position[index] > -1 else
                        " does not appear in the equation for any input operand"))
                position[index], place = place, place + 1
            i += 1
    out_dims = place
    if not ellipsis_out:
        ellipsis_at, place = place, place + ellipsis_dims
    for label in range(52):
        if label_count[label] > 0 and position[label] == -1:
            position[label], place = place, place + 1
    total = place
    label_size, ellipsis_sizes = [1] * 52, [1] * ellipsis_dims
    dim_counts = [0] * total
    aligned = []
    for i, (operand, labels) in enumerate(zip(operands, op_labels)):
        op, permutation, dim = operand, [-1] * total, 0
        for label in labels:
            if label == _ELLIPSIS:
                for _ in range(ellipsis_dims - (operand.dim() - len(labels) + 1)):
                    op = op.unsqueeze(dim)
                for j in range(ellipsis_dims):
                    size = op.shape[dim]
                    if size != 1:
                        if ellipsis_sizes[j] not in (1, size):
                            raise RuntimeError(
                                f"einsum(): dimension {j} covered by ellipsis in operand {i}"
                                f"has size {size} which does not broadcast with previously "
                                f"seen ellipsis with size {ellipsis_sizes[j]} for the "
                                "respective dimension")
                        ellipsis_sizes[j] = size
                        dim_counts[ellipsis_at + j] += 1
                    permutation[ellipsis_at + j] = dim
                    dim += 1
            elif permutation[position[label]] == -1:
                size = op.shape[dim]
                if size != 1:
                    if label_size[label] not in (1, size):
                        raise RuntimeError(
                            f"einsum(): subscript {_label_char(label)} has size {size} for "
                            f"operand {i} which does not broadcast with previously seen size "
                            f"{label_size[label]}")
                    label_size[label] = size
                    dim_counts[position[label]] += 1
                permutation[position[label]] = dim
                dim += 1
            else:  # a repeated label: its diagonal
                previous = permutation[position[label]]
                if op.shape[dim] != op.shape[previous]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label_char(label)} is repeated for operand {i} "
                        f"but the sizes don't match, {op.shape[dim]} != {op.shape[previous]}")
                op = op.diagonal(0, previous, dim).movedim(-1, previous)
        for k, value in enumerate(permutation):
            if value == -1:
                op = op.unsqueeze(dim)
                permutation[k], dim = dim, dim + 1
        aligned.append(op.permute(permutation))
    while len(aligned) > 1:
        a, b = aligned.pop(0), aligned.pop(0)
        summed, a_only, b_only = [], [], []
        for d in range(out_dims, total):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    summed.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_only.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_only.append(d)
                    dim_counts[d] = 0
        if a_only:
            a = a.sum(a_only, True)
        if b_only:
            b = b.sum(b_only, True)
        aligned.insert(0, _sumproduct_pair(a, b, summed))
    result = aligned[0]
    if total - out_dims > 0:
        if len(operands) > 1:
            return result.view(list(result.shape[:out_dims]))
        return result.sum(list(range(out_dims, total)))
    return result


def _label_char(label):
    return chr(ord("a") + label) if label < 26 else chr(ord("A") + label - 26)


def _sumproduct_pair(left, right, summed):
    """torch's sumproduct_pair: left * right summed over ``summed`` (kept as dims of 1),
    through one bmm."""
    if not summed:
        return mul(left, right)
    ndim = left.dim()
    both, left_only, right_only = [], [], []
    both_size = left_size = right_size = summed_size = 1
    for i in range(ndim):
        in_left, in_right = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if in_left and in_right:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                summed_size *= left.shape[i]
            elif in_left:
                left = left.sum(i, True)
            elif in_right:
                right = right.sum(i, True)
        elif in_left and in_right:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            both.append(i)
            both_size *= left.shape[i]
        elif in_left:
            left_only.append(i)
            left_size *= left.shape[i]
        else:
            right_only.append(i)
            right_size *= right.shape[i]
    out_size = ([left.shape[d] for d in both] + [left.shape[d] for d in left_only] +
                [1] * len(summed) + [right.shape[d] for d in right_only])
    left_order = both + left_only + summed + right_only
    right_order = both + summed + right_only + left_only
    back = [0] * len(out_size)
    for i, d in enumerate(both + left_only + summed + right_only):
        back[d] = i
    left = left.permute(left_order).reshape(both_size, left_size, summed_size)
    right = right.permute(right_order).reshape(both_size, summed_size, right_size)
    return bmm(left, right).view(out_size).permute(back)


# (torch builds these from other ops after checking their arguments itself)
histories_read_first(globals(), [name for name in __all__ if name not in (
    "diff", "tensordot", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag",
    "cartesian_prod", "tril_indices", "triu_indices", "combinations")])

# torch.roll(None, 1): torch's TypeError
tensor_inputs(globals(), ["diff", "rot90", "roll", "tile", "trace", "take", "diag_embed", "vsplit",
                          "hsplit", "dsplit", "combinations"])
