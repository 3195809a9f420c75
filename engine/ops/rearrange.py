"""Shape ops learners paste from tutorials: roll, tile, meshgrid, diff, trace.

roll and trace have nodes of their own (beside them); tile, meshgrid and diff are, as in
torch, made of other ops (repeat, view + expand, narrow + sub), whose nodes they record.
"""
import math
import warnings

import numpy as np

from ..fidelity.dtypes import scalar_type_name
from ..fidelity.messages import type_name
from ..core.grad_mode import no_grad
from ..fidelity.size import wrap_dim
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from .common import numpy_names, takes_out, tensor_inputs, write_out
from .compare import logical_xor
from .join import cat
from .linalg import dot, mm

__all__ = ["diff", "meshgrid", "roll", "tensordot", "tile", "trace"]


def _int_list(value):
    return (int(value),) if isinstance(value, (int, np.integer)) else tuple(int(v) for v in value)


# ====================================================================== roll
@numpy_names
def roll(input, shifts, dims=()):
    """Elements shifted along dims, those pushed off one end coming back at the other
    (no dims: along the flattened tensor)"""
    shifts, dims = _int_list(shifts), _int_list(dims)
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


# ====================================================================== tile
def tile(input, dims):
    """x repeated dims[i] times along dim i; fewer dims than x has count as leading 1s
    (torch's x.repeat after padding, whose node it records)"""
    if isinstance(dims, (int, np.integer)):
        raise TypeError(f"tile(): argument 'dims' (position 2) must be tuple of ints, not "
                        f"{type_name(dims)}")
    dims = _int_list(dims)
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
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """x[i + 1] - x[i] along dim, n times (bool: x[i + 1] != x[i]); prepend and append are
    joined to x first"""
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
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
    result = wrap(np.asarray(value).astype(np.int64 if data.dtype.kind in "iu" else data.dtype))
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
    for position, (name, value) in enumerate((("dims_self", dims_a), ("dims_other", dims_b))):
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"tensordot(): argument '{name}' (position {position + 3}) must be "
                            f"tuple of ints, not {type_name(value)}")
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
        axis_a, axis_b = wrap_dim(given_a, a.dim()), wrap_dim(given_b, b.dim())
        size_a, size_b = a.shape[axis_a], b.shape[axis_b]
        # a dim of size 1 against any size: torch sums the other side over it first
        if size_b == 1:
            left = left.sum(axis_a, keepdim=True)
        elif size_a == 1:
            right = right.sum(axis_b, keepdim=True)
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
    if rows == 1 and columns == 1:
        return dot(left.flatten(), right.flatten()).reshape(shape)
    return mm(left.reshape(rows, contracted), right.reshape(contracted, columns)).reshape(shape)


tensor_inputs(globals(), ["diff", "roll", "tile", "trace"])  # torch.roll(None, 1): TypeError
