"""Reductions: sum, mean, prod, max/min, var/std, norms, softmax, cumulative sums, sorting.
"""
import builtins
import functools
import math
import types
from collections import namedtuple

import numpy as np

from ..fidelity import calls, dtypes, messages, reduce_all, signatures, stdsort
from ..fidelity.calls import argument_error
from ..fidelity.dtypes import from_numpy_dtype, scalar_type_name
from ..fidelity.messages import type_name
from ..fidelity import float32_math, float64_math
from ..fidelity.layout import sorted_dims
from ..fidelity.floating import cast, quietly
from ..fidelity.float32_math import simd_lanes
from ..fidelity.rounding import fma32, fma32_power_of_two, fma64, reduce_all_sum
from ..fidelity.size import dim_index, dims_tuple, wrap_dim
from ..core.tangents import functorch_wraps
from ..core.grad_mode import mode as grad_mode
from ..core.grad_mode import no_grad
from ..core.node import Node, read_histories, record
from ..core.tensor import Tensor, make_view, wrap
from .common import filed_return_type, histories_read_first, return_types
from .common import (float_dtype_for, invalid_arguments_error, laid_out_like,
                     named_arguments, not_implemented_for, numpy_axes, resize_out_first,
                     numpy_names, out_of_results_dtype, overloads, takes_out,
                     input_shape, tensor_inputs, write_out)
from .creation import empty, ones_like, zeros_like
from .join import cat
from .arithmetic import NotImplementedBackward, maximum, minimum, where
from .unary import exp, isnan
from .compare import eq, logical_not

__all__ = ["all", "amax", "amin", "any", "argmax", "argmin", "argsort", "count_nonzero", "cumprod",
           "cumsum", "log_softmax", "logsumexp", "max", "mean", "min", "nansum", "nonzero",
           "msort", "prod", "softmax", "sort", "std", "sum", "topk", "unique",
           "unique_consecutive", "var"]

# ====================================================================== reductions
def reduce_args(input, dim, keepdim):
    ndim = input._data.ndim
    dims = dims_tuple(dim, ndim)
    return numpy_axes(dims, ndim), keepdim


def as_reduced(values):
    """A reduction's result as a tensor, row-major: torch allocates a reduction's output
    contiguous whatever the input's layout (numpy keeps the order of the input's dimensions)."""
    return wrap(np.asarray(values, order="C"))


def _accumulated(data, reduce, **kwargs):
    """``reduce(data)`` with torch's accumulator: float32 for float16 data (rounded back
    once), and the data's own dtype for integers (numpy would widen int32 to int64)."""
    if data.dtype.char == "e":
        return quietly(lambda: np.asarray(reduce(data.astype(np.float32), **kwargs)).astype(
            np.float16))
    if data.dtype.kind in "iub":
        return reduce(data, dtype=data.dtype, **kwargs)  # bool: add is "or", multiply "and"
    return quietly(reduce, data, **kwargs)  # (inf - inf is nan, without a word, as in torch)


def _mean_kernel(data, axis=None, keepdims=False):
    """What np.mean computes (the sum, then one division), without its Python overhead."""
    count = data.size if axis is None else math.prod(data.shape[a] for a in axis)
    return np.true_divide(_add_reduce(data, axis=axis, keepdims=keepdims), count)


# torch adds float32/float64 elements up in a fixed order (aten/src/ATen/native/cpu/
# SumKernel.cpp): in lanes of 8 (float64: 4), rows of 4 lanes, partial sums kept in up to
# 4 levels. numpy pairs them otherwise; a chain of operations can make that last bit
# visible (x.mean() * 20200910.0). A whole tensor of up to 32,768 elements (beyond that
# torch splits the work across threads) is added up in torch's order.
_SUM_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
_SUM_IN_TORCH_ORDER_UP_TO = 32768


def _add_reduce(data, axis=None, keepdims=False, **kwargs):
    """np.add.reduce; float32/float64 tensors of up to 32,768 elements added in torch's
    order (beyond, torch splits the work across threads)."""
    if not (data.dtype in _SUM_LANES and 0 < data.size <= _SUM_IN_TORCH_ORDER_UP_TO):
        return np.add.reduce(data, axis=axis, keepdims=keepdims, **kwargs)
    reduced = set(range(data.ndim)) if axis is None else set(axis)
    total = _sum_as_torch(data, reduced)
    if total is None:
        return np.add.reduce(data, axis=axis, keepdims=keepdims, **kwargs)
    return total.reshape([1 if d in reduced else n for d, n in enumerate(data.shape)]
                         if keepdims else [n for d, n in enumerate(data.shape)
                                           if d not in reduced])


def _sum_as_torch(data, reduced):
    """The sums of ``data`` over the dims ``reduced`` in the order of torch's sum kernel
    (SumKernel.cpp), laid out as the kept dims; None when nothing is reduced.

    torch's iterator drops dims of size 1 and walks the reduced dims innermost (by stride),
    then the kept ones (the result is row-major: the last innermost), merging neighbours of
    one kind whose strides allow it. Its two innermost dims are one kernel call: the sums of
    rows (along a reduced dim of stride 1, in vector lanes) or of columns (down a reduced
    dim, across a kept dim of stride 1) or, for other strides, each in rows of 4. Every call
    adds its sums into the result, which starts at 0: the rows of a second reduced dim, and
    the outer reduced dims, one after another."""
    lanes, itemsize = _SUM_LANES[data.dtype], data.itemsize
    if len(reduced) == data.ndim and (data.flags.c_contiguous or data.flags.f_contiguous):
        flat = data.ravel(order="K")  # (a whole tensor in memory order: one row)
        return _inner_sums(flat[None]) if flat.size >= lanes else _torch_row_sum(flat)
    if data.ndim == 2 and data.flags.c_contiguous and 1 not in data.shape and \
            len(reduced) == 1:  # (a quick way to the same sums: a bias's gradient, rows)
        if 0 in reduced:
            return _outer_sums(data, vectorised=data.shape[1] >= lanes)
        return _inner_sums(data) if data.shape[1] >= lanes else _torch_row_sum(data.T)
    sizes, steps = data.shape, [step // itemsize for step in data.strides]
    dims = [d for d in range(data.ndim) if sizes[d] != 1]
    if not builtins.any(d in reduced for d in dims):
        return None
    walk = _iterator_order(dims, sizes, steps, reduced)
    groups = []  # [size, step, is_reduced, dims], innermost first
    for d in walk:
        last = groups[-1] if groups else None
        if last and last[2] == (d in reduced) and steps[d] == last[0] * last[1]:
            last[0] *= sizes[d]
            last[3].insert(0, d)
        else:
            groups.append([sizes[d], steps[d], d in reduced, [d]])
    # the groups, outermost first, as the iterator's loops (size-1 dims dropped)
    squeezed = data[tuple(slice(None) if n != 1 else 0 for n in sizes)]
    view = squeezed.transpose([dims.index(d) for g in reversed(groups) for d in g[3]])
    view = view.reshape([g[0] for g in reversed(groups)])
    first = groups[0]
    second = groups[1] if len(groups) > 1 else None
    if first[1] == 1 and first[0] >= lanes:
        sums = _inner_sums(view.reshape(-1, first[0])).reshape(view.shape[:-1])
    elif second and second[1] == 1 and second[0] >= lanes:  # (columns: a kept dim)
        sums = _outer_sums(_innermost_first(view), vectorised=True)
    elif second and builtins.abs(first[1]) > builtins.abs(second[1]):
        sums = _outer_sums(_innermost_first(view), vectorised=False)
    else:  # (row_sum along the innermost reduced dim)
        sums = _torch_row_sum(_innermost_first(view))
    # sums: the loops' axes, outermost first, the innermost reduced dim gone; the reduced
    # ones among them are added up in the loops' order (the innermost fastest)
    axes = [len(groups) - 2 - i for i, g in enumerate(groups[1:]) if g[2]]
    kept = [g for g in reversed(groups) if not g[2]]
    if axes:
        sums = np.moveaxis(sums, sorted(axes), list(range(len(axes))))
        sums = _added_from_zero(sums.reshape((-1,) + sums.shape[len(axes):]))
    # the kept groups, outermost first, split into their dims and put in the tensor's order
    kept_dims = [d for g in kept for d in g[3]]
    sums = sums.reshape([sizes[d] for d in kept_dims])
    return sums.transpose([kept_dims.index(d) for d in sorted(kept_dims)])


def _innermost_first(view):
    return view.transpose((view.ndim - 1,) + tuple(range(view.ndim - 1)))


def _iterator_order(dims, sizes, steps, reduced):
    """The dims innermost first, as torch's TensorIterator orders a reduction's: an insertion
    sort from the last dim, that puts the reduced dims (the result's stride 0) innermost,
    then follows the result's strides (row-major) and the input's; a stride 0 of the input
    decides nothing."""
    result_steps, step = {}, 1
    for d in reversed(dims):
        if d not in reduced:
            result_steps[d], step = step, step * sizes[d]

    def should_swap(d0, d1):  # >0: d1 goes inside d0
        r0, r1 = result_steps.get(d0, 0), result_steps.get(d1, 0)
        if (r0 == 0) != (r1 == 0):
            return 1 if r1 == 0 else -1
        for s0, s1 in ((r0, r1), (steps[d0], steps[d1])):
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if sizes[d0] > sizes[d1]:
                return 1
        return 0

    return [dims[i] for i in sorted_dims(len(dims), lambda a, b: should_swap(dims[a], dims[b]))]


def _inner_sums(rows):
    """Each row of ``rows`` (contiguous) added up as torch's vectorised inner sum: in lanes
    of 8 (float64: 4), each lane in rows of 4 and levels; then the elements after the last
    full lane, then the lanes, from 0."""
    lanes = _SUM_LANES[rows.dtype]
    n = rows.shape[1]
    full = n // lanes * lanes
    if full == 0:  # fewer elements than lanes: added one by one, in rows of 4
        return _torch_row_sum(rows.T if len(rows) > 1 else rows[0])
    total = _added_from_zero(rows.T[full:])
    per_lane = _torch_row_sum(rows[:, :full].reshape(len(rows), -1, lanes).transpose(1, 0, 2))
    return _added_in_order(per_lane.T, total)


def _outer_sums(items, vectorised):
    """Each column of ``items`` (n rows down the first axis, columns along the last, any
    batch between) added up down the rows as torch's outer sums: groups of 4 vectors of
    columns (``vectorised``: the columns side by side in memory, at least a vector of them)
    or of 4 columns in levels, then the columns left in rows of 4."""
    columns = items.shape[-1]
    group = 4 * _SUM_LANES[items.dtype] if vectorised else 4
    grouped = columns // group * group
    total = np.empty(items.shape[1:], items.dtype)
    if grouped:
        total[..., :grouped] = _multi_row_sum(items[..., :grouped])
    if grouped < columns:
        total[..., grouped:] = _torch_row_sum(items[..., grouped:])
    return total


def _added_in_order(rows, start):
    """start + rows[0] + rows[1] + ..., one addition after another."""
    if rows.ndim == 1 or len(rows) <= 8:  # numbers, or a few rows: a loop is quicker
        for row in rows:
            start = start + row  # numpy scalars keep the array's dtype and rounding
        return start
    return np.add.accumulate(np.concatenate([start[None], rows]), axis=0)[-1]


def _added_from_zero(rows, axis=0):
    """0 + rows[0] + rows[1] + ... along ``axis``, one addition after another. numpy adds
    along an axis that is not the innermost one row after row (its pairwise sum is for the
    innermost): the quick way when each row holds two or more numbers."""
    others = [builtins.abs(step) for d, (n, step) in enumerate(zip(rows.shape, rows.strides))
              if d != axis and n > 1]
    if others and builtins.min(others) < builtins.abs(rows.strides[axis]):  # (another is innermost)
        return np.add.reduce(rows, axis=axis, initial=0)
    moved = rows if axis == 0 else np.moveaxis(rows, axis, 0)
    return _added_in_order(moved, np.zeros(moved.shape[1:], rows.dtype))


def _torch_row_sum(items):
    """torch's row_sum: items (n, ...) in rows of 4, each column added up in levels of 16
    (or more) rows, then the items left over and the 4 columns."""
    if items.ndim == 1 and len(items) < 4:  # no row of 4: simply added in order (a quick path)
        return _added_in_order(items, items.dtype.type(0))
    n4 = len(items) // 4
    partial = _multi_row_sum(items[:n4 * 4].reshape((n4, 4) + items.shape[1:]))
    partial[0] = _added_in_order(items[n4 * 4:], partial[0])
    return _added_in_order(partial[1:], partial[0])


def _multi_row_sum(rows):
    """torch's multi_row_sum: rows (n, ...) added up down the rows in levels. Each chunk of
    16 (or more) rows is added up from 0 into level 0, which goes into level 1; a level that
    has taken in 16 goes into the next and starts again from 0 (the top one, 3, never does);
    the rows after the last chunk are added up from 0, then levels 1 to 3 are added to that.
    (Each step is one numpy call over all chunks: the order within each sum is kept.)"""
    n = len(rows)
    step = 1 << builtins.max(4, (n - 1).bit_length() // 4)
    chunks = n // step
    tail = _added_from_zero(rows[chunks * step:])
    if not chunks:
        return tail
    sums = _grouped_sums(rows[:chunks * step], step)
    if chunks < step:  # (level 1 holds them all; levels 2 and 3 add 0)
        return (tail + _added_from_zero(sums)) + rows.dtype.type(0)
    levels = []
    for _ in range(2):  # levels 1 and 2: what they hold at the end, and what they passed on
        full = len(sums) // step * step
        levels.append(_added_from_zero(sums[full:]))
        sums = _grouped_sums(sums[:full], step)
    levels.append(_added_from_zero(sums))  # level 3
    return _added_in_order(np.stack(levels), tail)


def _grouped_sums(rows, step):
    """The sums of each group of ``step`` rows, each added up from 0 in order."""
    if not len(rows):
        return rows[:0]
    return _added_from_zero(rows.reshape((-1, step) + rows.shape[1:]), axis=1)


def _degenerate_quietly(degenerate, function, *args, **kwargs):
    """``function(*args, **kwargs)``, without numpy's floating-point RuntimeWarnings in the
    ``degenerate`` case (an empty mean, no degrees of freedom left), where torch gives nan
    silently. (np.errstate, not warnings.catch_warnings: changing the warning filters makes
    Python forget which warnings it has shown, and torch's "degrees of freedom" warning of
    ``x.std() * x.std()`` would then come twice from one line.)"""
    if not degenerate:
        return function(*args, **kwargs)
    with np.errstate(all="ignore"):
        return function(*args, **kwargs)


# dim not given: torch's overload without dim (SumBackward0, MeanBackward0); dim=None given
# picks the one with dim (SumBackward1, MeanBackward1), which reduces every dim as well
_EVERY_DIM = object()


@overloads("(Tensor input, *, torch.dtype dtype = None)",
           "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, "
           "torch.dtype dtype = None, Tensor out = None)")
@takes_out(dtype_from_out=True)  # torch adds up in out's dtype
@numpy_names
def sum(input, dim=_EVERY_DIM, keepdim=False, *, dtype=None):  # noqa: A001 - torch.sum
    """out = the sum of the elements over dim (all of them by default)"""
    given, dim = dim is not _EVERY_DIM, None if dim is _EVERY_DIM else dim
    data = input._data
    axes, keepdim = reduce_args(input, dim, keepdim)
    if dtype is not None:
        data = cast(data, dtypes.as_dtype(dtype).numpy_dtype)
    elif data.dtype.kind in "biu":
        data = data.astype(np.int64, copy=False)  # integers and bools add up in int64
    result = _differentiable(as_reduced(_accumulated(data, _add_reduce, axis=axes,
                                                   keepdims=keepdim)), input)
    if not given:
        return record(SumBackward0, result, (input,), self_sym_sizes=input._data.shape)
    return record(SumBackward1, result, (input,), self_sym_sizes=input._data.shape,
                  dim=None if dim is None else dims_tuple(dim, input._data.ndim),
                  keepdim=keepdim)


def _differentiable(result, input):
    """result, unless autograd would record it in a dtype without gradients (sum(...,
    dtype=torch.int64) of a tensor that requires grad): torch refuses that."""
    if result._data.dtype.kind != "f" and input.requires_grad and grad_mode.recording:
        raise RuntimeError("Autograd not support dtype: "
                           f"{scalar_type_name[from_numpy_dtype[result._data.dtype]]}")
    return result


class SumBackward0(Node):
    """out = sum of all x:  d/dx = 1 for every element (the gradient is broadcast back)"""

    self_sym_sizes: tuple

    def backward(self, grad):
        return grad.expand(self.self_sym_sizes)

    def batched_backward(self, grad):  # (autograd.grad's is_grads_batched: a leading batch dim)
        return unreduce(grad, grad.shape[:1] + tuple(self.self_sym_sizes),
                         _batch_dims(None, self.self_sym_sizes), False)


class SumBackward1(Node):
    """out = sum of x over dim:  d/dx = 1, the gradient copied back along dim"""

    dim: tuple  # None when given as None (torch saves it so): every dim
    keepdim: bool
    self_sym_sizes: tuple

    def backward(self, grad):
        return unreduce(grad, self.self_sym_sizes, self.dim, self.keepdim)

    def batched_backward(self, grad):
        return unreduce(grad, grad.shape[:1] + tuple(self.self_sym_sizes),
                         _batch_dims(self.dim, self.self_sym_sizes), self.keepdim)


def _batch_dims(dims, shape):
    """A reduction's dims, counted with a leading batch dimension."""
    return range(1, len(shape) + 1) if dims is None else [d + 1 for d in dims]


def unreduce(grad, shape, dims, keepdim):
    """Broadcast a reduction's gradient back to the input's ``shape``."""
    if dims is None:  # sum(x, None): every dim
        dims = range(len(shape))
    if not keepdim and shape:
        for d in sorted(dims):
            grad = grad.unsqueeze(d)
    return grad.expand(shape)


def restore_reduced_dims(grad, shape, dims, keepdim):
    """A reduction's gradient reshaped with its reduced dims back as size 1 (torch's
    restore_reduced_dims: a reshape, no expand)."""
    if keepdim or not shape:
        return grad
    reduced = {d % len(shape) for d in (range(len(shape)) if dims is None else dims)}
    return grad.reshape(tuple(1 if d in reduced else n for d, n in enumerate(shape)))


@overloads("(Tensor input, tuple of ints[1]? dim = None, bool keepdim = False, *, "
           "torch.dtype dtype = None, Tensor out = None)")
@numpy_names
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """out = the sum of the elements over dim, nan counted as 0"""
    with no_grad():
        result = sum(where(isnan(input), 0, input) if input.is_floating_point() else input,
                     dim, keepdim, dtype=dtype)
    _differentiable(result, input)
    return record(NansumBackward0, result, (input,), saved=(input,),
                  dim=dims_tuple(dim, input._data.ndim), keepdim=keepdim)


class NansumBackward0(Node):
    """out = sum of x over dim, skipping nan:  d/dx = 1, and 0 where x is nan"""

    _saved_names = ("self",)
    dim: tuple
    keepdim: bool

    def backward(self, grad):
        (x,) = self.saved_tensors
        return unreduce(grad, x._data.shape, self.dim, self.keepdim) * logical_not(isnan(x))


def _mean_out(out, input, *args, dtype=None, **kwargs):
    """torch.mean(..., out=t) of a t that cannot hold a mean: over all elements torch's
    mean.dtype_out refuses an input it cannot cast to t; over dims its kernel adds up into t,
    then divides in place: the quotient's dtype (the default one) cannot be cast to t."""
    if not isinstance(input, Tensor) or not isinstance(out, Tensor):
        return
    over_dims = bool(args) or "dim" in kwargs or "axis" in kwargs
    if not over_dims and not dtypes.can_cast(input.dtype, out.dtype):
        raise RuntimeError(f"mean.dtype_out(): input types can't be cast to the desired output "
                           f"type {scalar_type_name[out.dtype]}")
    if dtype is None and input._data.dtype.kind == "f" and out._data.dtype.kind != "f":
        quotient = dtypes.get_default_dtype() if over_dims else input.dtype
        if over_dims:  # (the sum is written, in out's dtype, without a new version)
            dim = args[0] if args else kwargs.get("dim", kwargs.get("axis"))
            keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim",
                                                                kwargs.get("keepdims", False))
            with no_grad():
                total = sum.without_out(input, dim, keepdim, dtype=out.dtype)
            counter = out._version_counter()
            version = counter.value
            write_out(total, out)
            counter.value = version
        raise RuntimeError(f"result type {scalar_type_name[quotient]} can't be cast to the "
                           f"desired output type {scalar_type_name[out.dtype]}")


@overloads("(Tensor input, *, torch.dtype dtype = None, Tensor out = None)",
           "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, "
           "torch.dtype dtype = None, Tensor out = None)")
@takes_out(before=_mean_out)
@numpy_names
def mean(input, dim=_EVERY_DIM, keepdim=False, *, dtype=None):
    """out = the average of the elements over dim"""
    given, dim = dim is not _EVERY_DIM, None if dim is _EVERY_DIM else dim
    data = input._data
    if dtype is not None:
        target = dtypes.as_dtype(dtype)
        if not target.is_floating_point:
            raise NotImplementedError("mean(): could not infer output dtype. Optional dtype "
                                      "must be either a floating point or complex dtype. Got: "
                                      f"{scalar_type_name[target]}")
        # (float16 asked for: torch adds the input up in float32, not converted to float16
        # first, and rounds the mean to float16 once; _accumulated does that from float16)
        wide = target.numpy_dtype == np.float16 and data.dtype.kind == "f"
        data = data.astype(np.float32 if wide else target.numpy_dtype, copy=False)
    if data.dtype.kind != "f":
        raise NotImplementedError("mean(): could not infer output dtype. Input dtype must be "
                                  "either a floating point or complex dtype. Got: "
                                  f"{scalar_type_name[from_numpy_dtype[data.dtype]]}")
    axes, keepdim = reduce_args(input, dim, keepdim)
    _refuse_inference_leaf(input)
    count = data.size if axes is None else math.prod(data.shape[a] for a in axes)
    result = _degenerate_quietly(count == 0, _accumulated, data, _mean_kernel, axis=axes,
                                 keepdims=keepdim)
    if dtype is not None and dtypes.as_dtype(dtype).numpy_dtype == np.float16:
        result = quietly(lambda: np.asarray(result).astype(np.float16))
    result = as_reduced(result)
    shape = input._data.shape
    if not given:
        return record(MeanBackward0, result, (input,), self_sym_sizes=shape,
                      self_sym_numel=input._data.size)
    dims = dims_tuple(dim, input._data.ndim)
    count = 1
    for d in dims:
        count *= shape[d] if shape else 1
    return record(MeanBackward1, result, (input,), self_sym_sizes=shape,
                  self_sym_numel=input._data.size,
                  dim=None if dim is None else dims, keepdim=keepdim, count=count)


def _mean_dtype(node):
    """The dtype mean was asked for, as far as it shows: the result's, where it is not the
    input's (None: the tangent's own)."""
    dtype = node.results[0].dtype
    return None if dtype == node.primals[0].dtype else dtype


class MeanBackward0(Node):
    """out = mean of all x:  d/dx = 1 / N for every element"""

    self_sym_numel: int
    self_sym_sizes: tuple

    def backward(self, grad):
        return grad.expand(self.self_sym_sizes) / self.self_sym_numel

    def jvp(self, tangent):
        """Forward mode, torch's (auto_linear): the mean of the tangent."""
        return mean(tangent, dtype=_mean_dtype(self))

    def batched_backward(self, grad):
        return unreduce(grad, grad.shape[:1] + tuple(self.self_sym_sizes),
                         _batch_dims(None, self.self_sym_sizes), False) / self.self_sym_numel


class MeanBackward1(Node):
    """out = mean of x over dim:  d/dx = 1 / N, copied back along dim"""

    _internal = ("count",)
    count: int
    dim: tuple
    keepdim: bool
    self_sym_sizes: tuple
    self_sym_numel: int

    def backward(self, grad):
        return unreduce(grad, self.self_sym_sizes, self.dim, self.keepdim) / self.count

    def jvp(self, tangent):
        """Forward mode, torch's (auto_linear): the mean of the tangent over dim."""
        return mean(tangent, self.dim, self.keepdim, dtype=_mean_dtype(self))

    def batched_backward(self, grad):
        return unreduce(grad, grad.shape[:1] + tuple(self.self_sym_sizes),
                         _batch_dims(self.dim, self.self_sym_sizes), self.keepdim) / self.count


@overloads("(Tensor input, *, torch.dtype dtype = None)",
           "(Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, "
           "Tensor out = None)")
@takes_out(dtype_from_out=True)
@numpy_names
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """out = the product of the elements over dim"""
    data = input._data
    if dtype is not None:
        data = cast(data, dtypes.as_dtype(dtype).numpy_dtype)
    elif data.dtype.kind in "biu":
        data = data.astype(np.int64, copy=False)
    if isinstance(dim, np.integer):
        dim = builtins.int(dim)
    if dim is not None and not isinstance(dim, builtins.int):
        # one dim only, unlike sum
        raise invalid_arguments_error("prod", input, dim, first_is_self=True)
    axes, keepdim = reduce_args(input, dim, keepdim)
    with np.errstate(over="ignore", invalid="ignore"):
        result = as_reduced(_product(data, axes, keepdim))
    _differentiable(result, input)
    if dim is None:
        return record(ProdBackward0, result, (input,), saved=(input,), saved_output=True)
    return record(ProdBackward1, result, (input,), saved=(input,), saved_output=True,
                  dim=wrap_dim(dim, input._data.ndim), keepdim=keepdim)


# torch multiplies in the dtype itself (float16 too: no wider accumulator), one element after
# the other, except along a contiguous run of at least 4 vectors (AVX2: 16 float16, 8 float32,
# 4 float64 a vector), which aten's reduction128 multiplies into 4 vector accumulators, then
# folds them, then their lanes, then the rest one by one (aten/src/ATen/native/cpu/Reduce.h).
_PRODUCT_LANES = {np.dtype(np.float16): 16, np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def _product(data, axes, keepdims):
    """prod's values in torch's order and rounding."""
    if data.dtype not in _PRODUCT_LANES or data.size == 0 or data.ndim == 0:
        return _accumulated(data, np.multiply.reduce, axis=axes, keepdims=keepdims)
    ndim, strides = data.ndim, data.strides
    axes = tuple(range(ndim)) if axes is None else tuple(a % ndim for a in axes)
    kept = [a for a in range(ndim) if a not in axes]
    # TensorIterator walks the dims in memory order (size-1 dims dropped): the reduction is
    # one contiguous run when the layout is dense and the reduced dims are the innermost
    inner_first = sorted((a for a in range(ndim) if data.shape[a] > 1), key=lambda a: strides[a])
    reduced = [a for a in inner_first if a in axes]
    expected, dense = data.itemsize, True
    for a in inner_first:
        dense, expected = dense and strides[a] == expected, expected * data.shape[a]
    contiguous = dense and set(inner_first[:len(reduced)]) == set(reduced)
    order = kept + sorted(axes, key=lambda a: -strides[a])
    rows = data.transpose(order).reshape(-1, math.prod(data.shape[a] for a in axes))
    with np.errstate(all="ignore"):
        product = _product_rows(rows, _PRODUCT_LANES[data.dtype] if contiguous else None)
    shape = [1 if a in axes else n for a, n in enumerate(data.shape)] if keepdims else \
        [data.shape[a] for a in kept]
    return product.reshape(shape)


def _product_rows(rows, lanes):
    """The product of each row: in reduction128's order when ``lanes`` is given and the rows
    are long enough, else one element after the other."""
    m = rows.shape[1]
    block = 4 * lanes if lanes else m + 1
    count = m // block
    if not count:
        return _in_order(rows, 1)
    acc = _in_order(rows[:, :count * block].reshape(-1, count, 4, lanes), 1)
    folded = (acc[:, 0] * acc[:, 1]) * (acc[:, 2] * acc[:, 3])
    product = folded[:, 0]
    for j in range(1, lanes):
        product = product * folded[:, j]
    for k in range(count * block, m):
        product = product * rows[:, k]
    return product


def _in_order(values, axis):
    """The product along ``axis``, one element after the other, rounded at every step
    (np.multiply.reduce keeps float16 in float32 along a row: accumulate stores each step)."""
    if values.dtype == np.float16:
        return np.take(np.multiply.accumulate(values, axis=axis), -1, axis=axis)
    return np.multiply.reduce(values, axis=axis)


class ProdBackward0(Node):
    """out = product of all x:  d/dx_i = the product of every other element (= out / x_i)"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, result = self.saved_tensors
        if x._data.ndim == 0:
            return grad
        zeros = np.count_nonzero(x._data == 0)
        if not zeros:
            return grad * (result / x)
        if zeros > 1 and not grad_mode.grad_enabled:
            return zeros_like(x)  # (torch's shortcut: every product of others has a zero)
        return (grad * _product_of_others(x.reshape(-1), 0)).view_as(x)

    def jvp(self, tangent):
        """Forward mode, torch's formula: (prod_backward(1, x, out) * t).sum()."""
        return _prod_jvp(self, tangent, None, False)


class ProdBackward1(Node):
    """out = product of x along dim:  d/dx_i = the product of the other elements (= out / x_i)"""

    _saved_names = ("self", "result")
    dim: int
    keepdim: bool

    def backward(self, grad):
        x, result = self.saved_tensors
        if x._data.ndim == 0:
            return grad
        if not self.keepdim:
            grad, result = grad.unsqueeze(self.dim), result.unsqueeze(self.dim)
        if not (x._data == 0).any():
            return grad * (result / x)
        if x._data.shape[self.dim] == 1:
            return grad  # (torch's shortcut with zeros: each element is its own product)
        return grad * _product_of_others(x, self.dim)

    def jvp(self, tangent):
        """Forward mode, torch's formula: (prod_backward(1, x, out, dim) * t).sum(dim)."""
        return _prod_jvp(self, tangent, self.dim, self.keepdim)


def _prod_jvp(node, tangent, dim, keepdim):
    """prod's tangent, torch's: the sum (over dim; None: all) of t times prod's gradient for
    a gradient of ones, in the result's dtype: out / x without zeros in x, else the products
    of the others (torch.func.jvp's wrapped tensors always take these), or zeros for more
    than one zero in all of x with grad mode off."""
    (x,), (out,) = node.primals, node.results
    x = x.to(out.dtype)
    if x._data.ndim == 0:
        return out.new_ones(()) * tangent
    zeros = np.count_nonzero(x._data == 0)
    if not x.numel() or not (zeros or functorch_wraps()):
        gradient = (out if dim is None or keepdim else out.unsqueeze(dim)) / x
    elif dim is not None:
        gradient = _product_of_others(x, dim)
    elif zeros > 1 and not grad_mode.grad_enabled and not functorch_wraps():
        gradient = zeros_like(x)
    else:
        gradient = _product_of_others(x.reshape(-1), 0).view_as(x)
    return (gradient * tangent).sum() if dim is None else (gradient * tangent).sum(dim, keepdim)


def _product_of_others(x, dim):
    """Element i along dim: the product of all the other elements there.

    ``out / x_i`` would divide by zero where x_i is 0, so multiply what comes before
    and what comes after each element instead, as torch does: two exclusive cumulative
    products, one from each end.
    """
    n = x._data.shape[dim]
    if n == 1:
        return ones_like(x)
    ones = x.new_ones(x._data.shape[:dim] + (1,) + x._data.shape[dim + 1:])
    before = cat([ones, x.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    after = cat([ones, x.narrow(dim, 1, n - 1).flip((dim,))], dim).cumprod(dim).flip((dim,))
    return before * after


_ValuesIndices = namedtuple("_ValuesIndices", ["values", "indices"])


class _ReturnType(_ValuesIndices, messages.CTypeAttributeErrors):
    """torch.return_types.max & co: a (values, indices) named tuple."""

    __slots__ = ()
    _op = "max"
    torch_type_name = "torch.return_types.max"

    def __repr__(self):
        return (f"torch.return_types.{self._op}(\nvalues={self.values!r},\n"
                f"indices={self.indices!r})")


def return_type(op):
    return filed_return_type(type(op, (_ReturnType,), {
        "__slots__": (), "_op": op, "torch_type_name": f"torch.return_types.{op}"}))


for _op in ("max", "min", "sort", "topk", "mode", "median", "kthvalue", "cummax", "cummin",
            "max_out", "min_out", "sort_out", "topk_out"):
    return_type(_op)


def _check_nonempty(input, name, dims):
    """torch's errors for max & co over nothing (there is no identity to return).

    ``dims`` are the dims as the caller gave them: amax names them so in the message,
    max and argmax name the wrapped dim.
    """
    data = input._data
    if data.size:
        return
    if dims is None:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")
    for dim in dims:
        axis = wrap_dim(dim, data.ndim)
        if data.ndim and data.shape[axis] == 0:
            shown = dim if name in ("amax", "amin") else axis
            raise IndexError(f"{name}(): Expected reduction dim {shown} to have non-zero size.")


def _extreme(input, dim, keepdim, name, pick, arg_pick, other):
    if other is not None or isinstance(dim, Tensor):
        other = dim if isinstance(dim, Tensor) else other
        return (maximum if name == "max" else minimum)(input, other)
    data = input._data
    if dim is None:
        _check_nonempty(input, name, None)
        value = pick(data, axis=None)
        if value == 0 and data.dtype.kind == "f" and data.ndim:
            # which zero: the one torch's vectorised whole-tensor reduction meets last
            zero = reduce_all.signed_zero(data, name == "max")
            value = value if zero is None else zero
        elif data.size > 1 and data.dtype.kind == "f" and np.isnan(value):
            # (torch's vector minimum/maximum mark a nan with all bits set: -nan; histc's
            # message prints its sign, fuzz 3022966)
            value = -abs(value)
        result = wrap(np.asarray(value, data.dtype))
        node = MaxBackward1 if name == "max" else MinBackward1
        return record(node, result, (input,), saved=(input,), saved_output=True)
    axis = wrap_dim(dim, data.ndim)
    _check_nonempty(input, name, (dim,))
    if data.ndim == 0:
        values, indices = wrap(data.copy()), wrap(np.zeros((), np.int64))
    else:
        found = arg_pick(data, axis=axis, keepdims=keepdim)
        values = pick(data, axis=axis, keepdims=keepdim)
        if data.dtype.kind == "f" and not values.all():
            # of equal zeros torch's value is the one at its index, with that zero's sign
            at = found if keepdim else np.expand_dims(found, axis)
            values = np.take_along_axis(data, at, axis)
            values = values if keepdim else values.squeeze(axis)
        values, indices = as_reduced(values), as_reduced(found.astype(np.int64))
    # only the values are differentiable: record marks float results only
    node = MaxBackward0 if name == "max" else MinBackward0
    return record(node, getattr(return_types, name)(values, indices), (input,),
                  saved=(indices,), self_sym_sizes=data.shape, dim=axis, keepdim=keepdim)


class MaxBackward1(Node):
    """out = the largest element:  d/dx = 1 at the maximum, shared evenly between ties"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, result = self.saved_tensors
        return evenly_distributed(grad, x, result)


class MinBackward1(MaxBackward1):
    """out = the smallest element:  d/dx = 1 at the minimum, shared evenly between ties"""


def evenly_distributed(grad, x, value):
    """``grad`` shared equally by the elements of x equal to value (nan counts as equal); the
    others get 0 (torch fills zeros: never -0.0)."""
    hits = isnan(x) if value._data != value._data else eq(x, value)
    # (row-major zeros, filled: torch's layout whatever x's, and 0 even where grad is nan;
    # fuzz 2318335)
    return grad.new_zeros(x.shape).masked_fill_(hits, grad / hits.sum())


class MaxBackward0(Node):
    """out = the largest element along dim:  d/dx = 1 at the index returned, 0 elsewhere"""

    _saved_names = ("indices",)
    dim: int
    keepdim: bool
    self_sym_sizes: tuple

    def backward(self, grad):
        (indices,) = self.saved_tensors
        return put_back(grad, indices, self.dim, self.self_sym_sizes, self.keepdim)


class MinBackward0(MaxBackward0):
    """out = the smallest element along dim:  d/dx = 1 at the index returned, 0 elsewhere"""


def put_back(grad, indices, dim, shape, keepdim=True):
    """The gradient of picking x[..., indices, ...] along dim (max, sort, topk ...).

    Each picked value sends its gradient back to the position it came from, and the other
    positions get 0: torch's zeros(shape).scatter_(dim, indices, grad), recorded as such
    (so a second derivative reads the gradient back at the same places).
    """
    if not shape:
        return grad
    if not keepdim:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    return grad.new_zeros(shape).scatter(dim, indices, grad)


def takes_pair_out(op):
    """``torch.max(x, 1, out=(values, indices))`` & co: a pair of tensors written as torch
    writes them (each of its result's dtype, resized with torch's warning), returned as
    torch.return_types.max_out; a single tensor out (``torch.max(x, out=t)``) as takes_out."""
    name = op.__name__
    single = takes_out(op, check=_all_reduced_castable)

    @functools.wraps(op)
    def op_with_out(*args, out=None, **kwargs):
        if not isinstance(out, (tuple, list)):
            return single(*args, out=out, **kwargs)
        if len(out) != 2:
            raise TypeError(f"expected tuple of 2 elements but got {len(out)}")
        if grad_mode.grad_enabled and builtins.any(
                isinstance(t, Tensor) and t._requires_grad for t in (*args, *out)):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires grad.")
        result = op(*args, **kwargs)
        for written, target in zip(result, out):
            out_of_results_dtype(written, target)
        return getattr(return_types, f"{name}_out")(*(write_out(written, target)
                                                     for written, target in zip(result, out)))

    op_with_out.without_out = op
    return op_with_out


def _all_reduced_castable(result, out, *args):
    if len(args) == 1 and not dtypes.can_cast(result.dtype, out.dtype):  # torch.max(x, out=t)
        raise RuntimeError("Expected canCast( typeMetaToScalarType(self.dtype()), "
                           "typeMetaToScalarType(out.dtype())) to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")


@overloads("(Tensor input, *, Tensor out = None)",
           "(Tensor input, Tensor other, *, Tensor out = None)",
           "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)")
@takes_pair_out
@numpy_names
def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001 - torch.max
    """The largest element; with dim, (values, indices) along it; with a tensor, maximum."""
    return _extreme(input, dim, keepdim, "max", np.maximum.reduce, np.argmax, other)


@overloads("(Tensor input, *, Tensor out = None)",
           "(Tensor input, Tensor other, *, Tensor out = None)",
           "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)")
@takes_pair_out
@numpy_names
def min(input, dim=None, keepdim=False, *, other=None):  # noqa: A001 - torch.min
    """The smallest element; with dim, (values, indices) along it; with a tensor, minimum."""
    return _extreme(input, dim, keepdim, "min", np.minimum.reduce, np.argmin, other)


def _same_dtype_as_input(out, *args, **kwargs):
    """amax and amin: out= of input's dtype, checked first (before the dims)."""
    input = named_arguments(("input",), args, kwargs).get("input")
    if isinstance(input, Tensor) and out._data.dtype != input._data.dtype:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got "
                           f"{scalar_type_name[input.dtype]} for input's dtype and "
                           f"{scalar_type_name[out.dtype]} for out's dtype.")


def _cast_refused_first(name):
    """std's or var's own checks of out= (``name`` says which), before they compute."""
    def check(out, *args, **kwargs):
        named = named_arguments(("input", "dim", "unbiased", "keepdim"), args, kwargs)
        input = named.get("input")
        if not isinstance(input, Tensor) or input._data.dtype.kind != "f":
            return
        if not dtypes.can_cast(input.dtype, out.dtype):
            _cast_refused(input, out, named)
        if input._data.dtype == np.float16 and input._data.size and \
                out._data.dtype != np.float16 and out.is_floating_point():
            _half_into_wider_refused(input, out, named, name)
    return check


def _cast_refused(input, out, named):
    """An out= that cannot hold the (floating) result: torch resizes out and refuses before
    it would warn of degrees of freedom (fuzz 3038398)."""
    axes, keepdim = reduce_args(input, named.get("dim"), named.get("keepdim", False))
    shape = np.sum(np.empty(input._data.shape), axis=axes, keepdims=keepdim).shape
    resize_out_first(out, shape)
    raise RuntimeError(f"result type {scalar_type_name[input.dtype]} can't be cast to the "
                       f"desired output type {scalar_type_name[out.dtype]}")


def _half_into_wider_refused(input, out, named, name):
    """float16 reduced to one number into a wider out=: torch's CPU std/var then compute in
    out's dtype and take their whole-tensor kernel, which has no float16 case; out is
    resized and the degrees of freedom warned of first (fuzz 5534875)."""
    dim, unbiased = named.get("dim"), named.get("unbiased")
    if isinstance(dim, builtins.bool):  # legacy var(input, unbiased)
        dim, unbiased = None, dim
    axes, keepdim = reduce_args(input, dim, named.get("keepdim", False))
    shape = np.sum(np.empty(input._data.shape), axis=axes, keepdims=keepdim).shape
    if math.prod(shape) != 1:
        return
    resize_out_first(out, shape)
    if input._data.size - ddof_from(unbiased, named.get("correction")) <= 0:
        read_histories((input,))
        messages.warn_from_learner(messages.no_degrees_of_freedom(name))
    raise RuntimeError("std_var_all: Unsupported dtype Half")


def _resized_before_the_cast(result, out, *args):
    """std and var compute into out= (resized to the result's shape first): one that cannot
    hold the result is refused after it was resized."""
    if not dtypes.can_cast(result.dtype, out.dtype):
        resize_out_first(out, result._data.shape)


def _floating_out(out, *args, **kwargs):
    """torch's logsumexp_out checks out's dtype first, before the dims"""
    if not out.is_floating_point():
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but "
                           f"got: {scalar_type_name[out.dtype]}")


def _amax_amin(input, dim, keepdim, name, pick):
    if dim is None:  # (torch reads None as its default, all dims)
        dim = ()
    listed = isinstance(dim, (tuple, list))
    given = None if listed and not dim else (tuple(dim) if listed else (dim,))
    _check_nonempty(input, name, given)  # (dim by dim, before torch looks for repeated dims)
    axes, keepdim = reduce_args(input, given, keepdim)
    result = as_reduced(first_zero_wins(input._data, pick(input._data, axis=axes,
                                                         keepdims=keepdim), axes, keepdim))
    return record(AmaxBackward0 if name == "amax" else AminBackward0, result, (input,),
                  saved=(input,), saved_output=True, dim=dims_tuple(given, input._data.ndim),
                  keepdim=keepdim)


def first_zero_wins(data, result, axes, keepdim):
    """An extreme of 0 takes the sign of the first zero met, as torch's reduction keeps its
    running value on a tie: amax([-0.0, 0.0]) is -0.0 (numpy's reduce may pick either)."""
    zero = result == 0
    if data.dtype.kind != "f" or data.ndim == 0 or not np.any(zero):
        return result
    axes = tuple(range(data.ndim)) if axes is None else tuple(a % data.ndim for a in axes)
    kept = [a for a in range(data.ndim) if a not in axes]
    rows = data.transpose(*kept, *axes).reshape(*(data.shape[a] for a in kept), -1)
    first = np.argmax(rows == 0, axis=-1)[..., None]
    sign = np.take_along_axis(rows, first, -1).reshape(np.shape(result))
    return np.where(zero, sign, result)


class AmaxBackward0(Node):
    """out = the largest elements over dim:  d/dx = 1 at the maximum, shared evenly by ties"""

    _saved_names = ("self", "result")
    dim: tuple
    keepdim: bool

    def backward(self, grad):
        x, result = self.saved_tensors
        shape = x._data.shape
        # reduced dims restored as size 1, not expanded: the product then takes x's layout
        grad = restore_reduced_dims(grad, shape, self.dim, self.keepdim)
        hits = eq(restore_reduced_dims(result, shape, self.dim, self.keepdim), x)
        return grad / hits.sum(self.dim, keepdim=True) * hits


class AminBackward0(AmaxBackward0):
    """out = the smallest elements over dim:  d/dx = 1 at the minimum, shared evenly by ties"""


@overloads("(Tensor input, tuple of ints[1]? dim = (), bool keepdim = False, *, Tensor out = None)")
@takes_out(before=_same_dtype_as_input)
@numpy_names
def amax(input, dim=(), keepdim=False):
    """out = the largest elements over dim (all dims by default)"""
    return _amax_amin(input, dim, keepdim, "amax", np.maximum.reduce)


@overloads("(Tensor input, tuple of ints[1]? dim = (), bool keepdim = False, *, Tensor out = None)")
@takes_out(before=_same_dtype_as_input)
@numpy_names
def amin(input, dim=(), keepdim=False):
    """out = the smallest elements over dim (all dims by default)"""
    return _amax_amin(input, dim, keepdim, "amin", np.minimum.reduce)


def _arg_extreme(input, dim, keepdim, name, arg_pick):
    data = input._data
    if dim is not None and (dim.__class__ is builtins.bool
                            or not isinstance(dim, (builtins.int, np.integer))):
        raise argument_error(dim, "int")  # (torch's argument parser comes before the dtype)
    if data.dtype.kind == "b":
        raise NotImplementedError(f"{name}(): does not support bool input")
    if dim is None:
        if data.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        index = np.asarray(arg_pick(data), np.int64)
        return wrap(index.reshape((1,) * data.ndim) if keepdim else index)
    axis = wrap_dim(dim, data.ndim)
    _check_nonempty(input, name, (dim,))
    if data.ndim == 0:
        return wrap(np.zeros((), np.int64))
    return as_reduced(arg_pick(data, axis=axis, keepdims=keepdim).astype(np.int64))


def _softmax_out(op):
    """torch.softmax(..., out=t) and log_softmax: torch's out= variant is a composite one, so
    an input that requires grad is no error: out gets a NotImplemented node (backward through
    it fails); only an out that requires grad is refused."""
    name = op.__name__
    written = takes_out(op, check=out_of_results_dtype, differentiable=False,
                        resized_first=input_shape)

    @functools.wraps(op)
    def op_with_out(*args, out=None, **kwargs):
        if out is None:
            return op(*args, **kwargs)
        if isinstance(out, Tensor) and out._requires_grad and grad_mode.grad_enabled:
            raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires grad.")
        input = args[0] if args else kwargs.get("input")
        dtype = args[2] if len(args) > 2 else kwargs.get("dtype")
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        if isinstance(out, Tensor) and isinstance(input, Tensor):
            # (the dim, then out's dtype: before the kernel refuses an integer input)
            if isinstance(dim, builtins.int) and not isinstance(dim, builtins.bool):
                wrap_dim(dim, input._data.ndim)
            expected = input if dtype is None else empty(0, dtype=dtype)
            out_of_results_dtype(expected, out)
        with no_grad():
            result = written(*args, out=out, **kwargs)
        return record(NotImplementedBackward, result, (input,), op=name)

    op_with_out.without_out = op
    return op_with_out


@overloads("(Tensor input, int dim = None, bool keepdim = False, *, Tensor out = None)")
@takes_out(check=out_of_results_dtype, differentiable=False)  # (indices: no autograd check)
@numpy_names
def argmax(input, dim=None, keepdim=False):
    """The index of the largest element (of the flattened tensor when dim is None)"""
    return _arg_extreme(input, dim, keepdim, "argmax", np.argmax)


@overloads("(Tensor input, int dim = None, bool keepdim = False, *, Tensor out = None)")
@takes_out(check=out_of_results_dtype, differentiable=False)
@numpy_names
def argmin(input, dim=None, keepdim=False):
    """The index of the smallest element (of the flattened tensor when dim is None)"""
    return _arg_extreme(input, dim, keepdim, "argmin", np.argmin)


def ddof_from(unbiased, correction):
    if correction is not None:  # (a Number: a 0-d tensor is read as its value, True as 1)
        return correction.item() if isinstance(correction, Tensor) else correction
    return 1 if unbiased is None or unbiased else 0


# var's and std's overloads, as torch's parser lists them
_MOMENT_OVERLOADS = (
    "(Tensor input, tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False, "
    "*, Tensor out = None)",
    "(Tensor input, tuple of ints[1]? dim = None, *, Number correction = None, "
    "bool keepdim = False, Tensor out = None)",
    "(Tensor input, bool unbiased = True)")


def _refuse_inference_leaf(input):
    """mean, var and std of an inference tensor that requires grad, used outside inference
    mode with grad on: torch's dispatcher skips their autograd (an inference tensor has no
    autograd key) and their kernels call sum(..., out=) with autograd, which refuses it."""
    if input._requires_grad and input._inference and grad_mode.grad_enabled and \
            not grad_mode.inference:
        raise RuntimeError("sum(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def _moment(input, dim, unbiased, keepdim, correction, name):
    if isinstance(dim, builtins.bool):  # legacy var(unbiased)
        dim, unbiased = None, dim
    data = input._data
    if data.dtype.kind != "f":
        raise NotImplementedError("std and var only support floating point and complex dtypes")
    axes, keepdim = reduce_args(input, dim, keepdim)
    ddof = ddof_from(unbiased, correction)
    count = data.size if axes is None else math.prod(data.shape[a] for a in axes)
    # torch counts the elements per output element, and none when there is no output element
    # (a (2, 0) tensor's var(0) warns: its result is empty)
    outputs = 1 if axes is None else math.prod(n for d, n in enumerate(data.shape)
                                               if d not in axes)
    degenerate = (data.size // outputs if outputs else 0) - ddof <= 0
    if degenerate:
        read_histories((input,))
        messages.warn_from_learner(messages.no_degrees_of_freedom(name))
    if _full_reduction_in_two_passes(data, outputs):
        # only this kernel calls mean(), whose sum(out=) refuses an inference leaf, and
        # after the warning (fuzz 1051403); the others (float16, several outputs, empty
        # input) compute a result
        _refuse_inference_leaf(input)
    result = as_reduced(_degenerate_quietly(degenerate, quietly, _moment_values, data, axes,
                                          keepdim, ddof, name == "std"))
    if name == "var":
        return record(VarBackward0, result, (input,), saved=(input,), dim=dim,
                      correction=ddof, keepdim=keepdim, count=count)
    return record(StdBackward0, result, (input,), saved=(input,), saved_output=True, dim=dim,
                  correction=ddof, keepdim=keepdim, count=count)


def _full_reduction_in_two_passes(data, outputs):
    """torch's CPU std/var take their two-pass kernel, through mean(), for a reduction to
    at most one number of a non-empty tensor that is not float16 (_moment_values)."""
    return data.dtype.char != "e" and outputs <= 1 and data.size > 0


def _moment_values(data, axes, keepdim, ddof, take_sqrt):
    """torch's CPU std/var kernels, which add the squares in float64 whatever the dtype.

    A reduction to one number (not float16) takes two passes: the mean in the dtype,
    then the squares of the distances to it; any other reduction is Welford's running
    mean and sum of squares. They part only when float64 overflows (three times 1e308:
    the mean overflows, inf; a running mean would not, 0), so numpy's two passes stand
    in for Welford's unless they overflowed."""
    count = data.size if axes is None else math.prod(data.shape[a] for a in axes)
    divisor = builtins.max(0, count - ddof)
    outputs = data.size // count if count else math.prod(
        n for a, n in enumerate(data.shape) if axes is not None and a not in axes)
    if _full_reduction_in_two_passes(data, outputs):
        mean = _mean_kernel(data)  # in the dtype, as torch's mean() adds up
        distance = data.astype(np.float64).ravel() - np.float64(mean)
        variance = np.add.reduce(distance * distance) / np.float64(divisor)
        if keepdim:
            variance = np.full((1,) * data.ndim, variance)
        elif axes is not None and len(axes) < data.ndim:
            variance = np.full(tuple(n for a, n in enumerate(data.shape) if a not in axes),
                               variance)
    else:
        wide = data.astype(np.float64)
        if divisor == 0:  # np.var's steps (it would warn through the warnings module)
            centred = wide - np.add.reduce(wide, axis=axes, keepdims=True) / np.float64(count)
            variance = np.add.reduce(centred * centred, axis=axes, keepdims=keepdim) / 0.0
        else:
            variance = np.var(wide, axis=axes, keepdims=keepdim, ddof=ddof)
        if data.dtype == np.float64 and np.isinf(variance).any():
            variance = welford(wide, axes, keepdim, divisor)[0]
    return np.asarray(np.sqrt(variance) if take_sqrt else variance).astype(data.dtype)


def welford(data, axes, keepdim, divisor):
    """torch's WelfordOps over ``axes``, one element after another, in float64: (variance,
    mean) (var/std keep the variance, var_mean/std_mean both)."""
    axes = tuple(range(data.ndim)) if axes is None else axes
    kept = [a for a in range(data.ndim) if a not in axes]
    rows = data.transpose(kept + list(axes)).reshape(
        tuple(data.shape[a] for a in kept) + (-1,))
    mean = np.zeros(rows.shape[:-1])
    m2 = np.zeros(rows.shape[:-1])
    for i in range(rows.shape[-1]):
        delta = rows[..., i] - mean
        mean = mean + delta / np.float64(i + 1)
        m2 = m2 + delta * (rows[..., i] - mean)
    variance = m2 / np.float64(divisor)
    if keepdim:
        return np.expand_dims(variance, axes), np.expand_dims(mean, axes)
    return variance, mean


@overloads(*_MOMENT_OVERLOADS)
@takes_out(input_in_out_dtype=True, check=_resized_before_the_cast,
           before=_cast_refused_first("var"))
@numpy_names
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """out = sum((x - mean)^2) / (N - correction); correction=1 (Bessel's) by default"""
    return _moment(input, dim, unbiased, keepdim, correction, "var")


class VarBackward0(Node):
    """out = sum((x - mean)^2) / (N - correction):  d/dx = 2 (x - mean) / (N - correction)"""

    _saved_names = ("self",)
    _internal = ("count",)
    correction: float
    count: int
    dim: int | tuple | None
    keepdim: bool

    def backward(self, grad):
        (x,) = self.saved_tensors
        return var_backward(self, grad, x)

    def jvp(self, tangent):
        """Forward mode, torch's formula: var_backward(t, x, keepdim=True) summed over dim."""
        return _var_jvp(self, tangent)


def _var_jvp(node, tangent):
    """var's tangent as torch computes it: var_backward with the tangent as the gradient (of
    x's shape: keepdim), summed over the dims (every one when none is given)."""
    (x,) = node.primals
    kept = types.SimpleNamespace(dim=node.dim, correction=node.correction, keepdim=True)
    return var_backward(kept, tangent, x).sum(dims_tuple(node.dim, x._data.ndim), node.keepdim)


def var_backward(node, grad, x):
    """torch's var_backward, whose corner cases show in the gradients.

    Over every dim (no dim given, or a 0-d x) with no degrees of freedom left, 2 / 0 is
    not multiplied by x - mean: the factor is a constant, nan where x is the mean (inf * 0)
    and inf elsewhere, so nothing differentiates it again. Over dims, the divisor is the
    number of elements along ``dim`` as given (an empty list counts 1) minus the correction,
    which a large correction makes negative, and 0 gives inf."""
    shape = x._data.shape
    if node.dim is None or not shape:
        dof = x._data.size - node.correction
        if dof <= 0:
            with no_grad():
                factor = where(x == x.mean(), math.nan, math.inf)
            return grad * factor
        return (2.0 / dof) * grad * (x - x.mean())
    given = (node.dim,) if isinstance(node.dim, builtins.int) else node.dim
    count = math.prod(shape[wrap_dim(d, len(shape))] for d in given)
    dims = dims_tuple(node.dim, len(shape))
    # (unsqueezed, not expanded: the product then takes x's layout, as torch's)
    grad = restore_reduced_dims(grad, shape, dims, node.keepdim)
    scale = 2.0 / (count - node.correction) if count != node.correction else math.inf
    return scale * grad * (x - x.mean(dims, keepdim=True))


@overloads(*_MOMENT_OVERLOADS)
@takes_out(input_in_out_dtype=True, check=_resized_before_the_cast,
           before=_cast_refused_first("std"))
@numpy_names
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """out = sqrt(var(input)); correction=1 (Bessel's) by default"""
    return _moment(input, dim, unbiased, keepdim, correction, "std")


class StdBackward0(Node):
    """out = sqrt(var):  d/dx = d var/dx / (2 out)  (taken as 0 where out is 0)"""

    _saved_names = ("self", "result")
    _internal = ("count",)
    correction: float
    count: int
    dim: int | tuple | None
    keepdim: bool

    def backward(self, grad):
        x, result = self.saved_tensors
        grad_var = where(result == 0, 0.0, grad / (result * 2))
        return var_backward(self, grad_var, x)

    def jvp(self, tangent):
        """Forward mode, torch's formula: var's tangent / (2 * out), 0 where out is 0."""
        (out,) = self.results
        return (_var_jvp(self, tangent) / (2.0 * out)).masked_fill(out == 0, 0)


def check_norm_dtypes(input, name, dtype):
    """torch's checks of the input's dtype, then of the dtype asked for (a float dtype that
    the input converts to without narrowing)."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"{name}: Expected a floating point or complex tensor as "
                                  f"input. Got {scalar_type_name[input.dtype]}")
    if dtype is None:
        return
    wanted = dtypes.as_dtype(dtype)
    if not wanted.is_floating_point:
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got "
                           f"{scalar_type_name[wanted]}")
    if wanted.itemsize < input.dtype.itemsize:
        raise RuntimeError(f"{name}: the dtype of the input ({scalar_type_name[input.dtype]}) "
                           f"should be convertible without narrowing to the specified dtype "
                           f"({scalar_type_name[wanted]})")


def norm_over_dims(input, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """out = (sum |x|^ord)^(1/ord) over dim (max |x| for inf, the count of nonzeros for 0)"""
    # (torch's parser first, in its order: torch.norm hands them on by position)
    if not signatures.fits(dim, "tuple of ints[1]?"):
        found = (f"but found element of type {type_name(dim[0])} at pos 0"
                 if isinstance(dim, (tuple, list)) and dim else f"not {type_name(dim)}")
        raise TypeError(f"linalg_vector_norm(): argument 'dim' (position 3) must be tuple of "
                        f"ints, {found}")
    if not isinstance(keepdim, builtins.bool):
        raise TypeError(f"linalg_vector_norm(): argument 'keepdim' (position 4) must be bool, "
                        f"not {type_name(keepdim)}")
    if dtype is not None and not signatures.fits(dtype, "torch.dtype"):
        raise TypeError(f"linalg_vector_norm(): argument 'dtype' must be torch.dtype, not "
                        f"{type_name(dtype)}")
    check_norm_dtypes(input, "linalg.vector_norm", None)
    data = input._data
    if data.size == 0 and (ord < 0 or ord == math.inf):
        # max, min and negative powers have no identity: torch's words, before the dims'
        name = format(ord, "g") if isinstance(ord, builtins.float) else ord
        dims = () if dim is None else (dim,) if isinstance(dim, builtins.int) else dim
        if not dims:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {name} norm on an empty "
                               "tensor because the operation does not have an identity")
        for d in dims:
            if data.shape[wrap_dim(d, data.ndim)] == 0:  # (no space before "because")
                raise RuntimeError(f"linalg.vector_norm cannot compute the {name} norm on the "
                                   f"dimension {d}because this dimension is empty and the "
                                   "operation does not have an identity")
    check_norm_dtypes(input, "linalg.vector_norm", dtype)  # (the dtype asked for, after)
    if dtype is not None:
        data = cast(data, dtypes.as_dtype(dtype).numpy_dtype)
    axes, keepdim = reduce_args(input, dim, keepdim)
    reduced = range(data.ndim) if axes is None else axes
    if builtins.all(data.shape[d] == 1 for d in reduced):
        # torch's shortcut when each output element has one input element: |x| itself
        # (x != 0 for ord 0), with no power or root to overflow or underflow
        values = np.abs(data) if ord != 0 else (data != 0).astype(data.dtype)
        result = values if keepdim else values.reshape(
            [n for d, n in enumerate(data.shape) if d not in reduced])
        return record(LinalgVectorNormBackward0, as_reduced(result), (input,), saved=(input,),
                      saved_output=True, ord=ord, dim=_norm_dims(dim, input), keepdim=keepdim)
    # half precision accumulates in float32, as torch does
    magnitude = np.abs(data.astype(np.float32) if data.dtype.char == "e" else data)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if ord == 2:
            result = np.sqrt(np.sum(magnitude * magnitude, axis=axes, keepdims=keepdim))
        elif ord == math.inf:
            result = np.max(magnitude, axis=axes, keepdims=keepdim)
        elif ord == -math.inf:
            result = np.min(magnitude, axis=axes, keepdims=keepdim)
        elif ord == 0:
            result = np.sum(magnitude != 0, axis=axes, keepdims=keepdim)
        elif ord == 1:
            result = np.sum(magnitude, axis=axes, keepdims=keepdim)
        else:
            result = _libc_power(np.sum(_libc_power(magnitude, ord), axis=axes,
                                        keepdims=keepdim), 1.0 / ord)
        result = as_reduced(np.asarray(result).astype(data.dtype))  # (float16: inf, quietly)
    return record(LinalgVectorNormBackward0, result, (input,), saved=(input,),
                  saved_output=True, ord=ord, dim=_norm_dims(dim, input), keepdim=keepdim)


def _norm_dims(dim, input):
    """The dims a norm's node keeps, as torch's: None for dim=None, () for dim=()."""
    if dim is None or isinstance(dim, (tuple, list)) and not dim:
        return None if dim is None else ()
    return dims_tuple(dim, input._data.ndim)


def _libc_power(values, exponent):
    """values ** exponent as torch's norm kernel computes it: float32 with the C library's powf
    (replayed: numpy's float32 power is another function on a CPU with AVX-512)."""
    if values.dtype != np.float32:
        return values ** exponent
    flat = np.ascontiguousarray(values).reshape(-1)
    return float32_math.libc_powf(flat, np.full(flat.size, exponent, np.float32)).reshape(
        values.shape)


class LinalgVectorNormBackward0(Node):
    """out = (sum |x|^p)^(1/p):  d/dx = sign(x) |x|^(p-1) / out^(p-1);
    p=2: x / out,  p=1: sign(x),  p=inf: sign(x) at the largest |x| (shared by ties)"""

    _saved_names = ("self", "result")
    dim: tuple | None
    keepdim: bool
    ord: float

    def backward(self, grad):
        x, norm = self.saved_tensors
        return norm_backward(grad, x, norm, self.ord, self.dim, self.keepdim)

    def jvp(self, tangent):
        """Forward mode, torch's formula (norm_jvp)."""
        (x,), (norm,) = self.primals, self.results
        return norm_jvp(x, tangent, norm, self.ord, self.dim, self.keepdim)


def norm_jvp(x, t, norm, p, dim=None, keepdim=False):
    """torch's norm_jvp op by op: the sum over dim (None or (): every dim) of
    p=1: sgn(x) t;  p=2: x t, / norm (0 where norm is 0);  p=inf: sgn(x) t shared by the
    largest |x| (or nans);  p<1: |x|^(p-1) (0 at x=0) sgn(x) t, * norm^(1-p);
    p<2: |x|^(p-1) sgn(x) t, / norm^(p-1);  else |x|^(p-2) x t, / norm^(p-1) (these two 0
    where norm is 0);  p=0: zeros. (vector_norm's dtype shows only through norm's.)"""
    dims = dims_tuple(dim or None, x._data.ndim)
    if p == 0:
        return zeros_like(norm)
    if p == 1:
        return (x.sgn() * t).sum(dims, keepdim)
    if p == 2:  # (torch divides in place: x t's dtype, when vector_norm's dtype is wider)
        total = (x * t).sum(dims, keepdim)
        return total.div(norm).to(total.dtype).masked_fill(norm == 0, 0)
    if p in (math.inf, -math.inf):
        if not keepdim and x._data.ndim and dim:
            for d in sorted(dim):
                norm = norm.unsqueeze(d)
        magnitude = x.abs()
        hits = (magnitude == norm).logical_or(x.isnan().logical_and(norm.isnan())).type_as(norm)
        count = count_nonzero(hits, dims if dim else None)
        if x._data.ndim and dim:
            for d in sorted(dim):
                count = count.unsqueeze(d)
        return (x.sgn() * t * hits / count).sum(dims, keepdim)
    if p < 1:
        powers = x.abs().pow(p - 1).masked_fill(x == 0, 0)
        return (powers * (x.sgn() * t)).sum(dims, keepdim) * norm.pow(1 - p)
    if p < 2:
        total = (x.abs().pow(p - 1) * (x.sgn() * t)).sum(dims, keepdim)
    else:
        total = (x.abs().pow(p - 2) * (x * t)).sum(dims, keepdim)
    return (total / norm.pow(p - 1)).masked_fill(norm == 0, 0)


def norm_backward(grad, x, norm, p, dim=None, keepdim=False):
    """torch's norm_backward step by step (its in-place fills included): its higher
    derivatives then take the same products and sums, rounded alike (None for p = 0)"""
    if p == 0:
        return None  # counting nonzeros is flat: torch sends no gradient at all
    if not keepdim and x._data.ndim and dim:
        # torch's unsqueeze_multiple; dim=None (or ()) leaves the 0-d result to broadcast
        for d in sorted(dim):
            grad, norm = grad.unsqueeze(d), norm.unsqueeze(d)
    if p == 1:
        return x.sgn() * grad
    if p == 2:
        return grad * (x / norm).masked_fill_(norm == 0, 0)
    if p in (math.inf, -math.inf):
        magnitude = x.abs()
        hits = magnitude.eq(norm).logical_or(magnitude.isnan())
        return x.sgn() * ((grad / hits.sum(dim or (), True)) * hits)
    if p < 1:
        scaled = x.sgn() * x.abs().pow_(p - 1).masked_fill_(x == 0, 0)
        return scaled * grad * norm.pow(1 - p)
    scaled = x.sgn() * x.abs().pow_(p - 1) if p < 2 else x * x.abs().pow_(p - 2)
    scale = grad / norm.pow(p - 1)
    scale.masked_fill_(norm == 0, 0)
    return scaled * scale


_REQUIRED = object()  # marks a parameter torch requires although it is not first


def _missing_dim(name):
    return TypeError(f"{name}() missing 1 required positional arguments: \"dim\"")


def _softmax_operand(name, input, dim, dtype):
    """The input (cast to ``dtype``), its numpy data with a class axis in the dtype torch
    computes in (float32 for float16), and the dim, checked."""
    if dtype is not None:
        input = input.to(dtype)
    dim = wrap_dim(dim, builtins.max(input.dim(), 1))  # a 0-d tensor counts as one element
    if not input.is_floating_point() and input.numel():  # (no kernel runs for no elements)
        last = "lastdim_" if dim == builtins.max(input.dim(), 1) - 1 else ""
        raise not_implemented_for(f"{name}_{last}kernel_impl", input._data.dtype)
    data = input._data.reshape(1) if input.dim() == 0 else input._data
    return input, data.astype(np.float32) if data.dtype.char == "e" else data, dim


def _to_half_and_back(values):
    return values.astype(np.float16).astype(np.float32)


def _softmax_result(values, input):
    """The values rounded once to input's dtype, in its shape, row-major (as torch lays out
    softmax's result whatever the input's strides)."""
    # (np.array, not np.ascontiguousarray: that makes a 0-d result 1-d; too large for
    # float16: inf, as torch's cast)
    with np.errstate(over="ignore"):
        return wrap(np.array(values.reshape(input._data.shape), input._data.dtype, order="C"))


@overloads("(Tensor input, int dim, torch.dtype dtype = None, *, Tensor out = None)")
@_softmax_out
@numpy_names
def softmax(input, dim, dtype=None):
    """out = exp(input) / sum(exp(input)) along dim (shifted by the max: exp never overflows)"""
    input, x, dim = _softmax_operand("softmax", input, dim, dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        if input.dtype in (dtypes.float32, dtypes.float64) and x.size:
            result = _replayed_softmax(x, dim)
        elif input.dtype is dtypes.float16 and x.size and dim != x.ndim - 1:
            result = _replayed_softmax(x, dim, half=True)
        else:
            # (an empty tensor's totals are 0: 1 / 0 then reaches no element of the result)
            exps = np.exp(x - x.max(axis=dim, keepdims=True)) if x.size else x.copy()
            total = exps.sum(axis=dim, keepdims=True)
            # torch's kernel along the last dim: times 1 / total
            result = exps * (1 / total) if dim == x.ndim - 1 else exps / total
    result = _softmax_result(result, input)
    return record(SoftmaxBackward0, result, (input,), saved_output=True, dim=dim)


def _sleef_and_libc_exp(dtype, size):
    """torch's exp inside its vectorised loops, and the C library's for what is left, for
    ``size`` elements (float64 ones beyond float64_math.REPLAYED: numpy's, quicker)."""
    if dtype == np.float64:
        if size > float64_math.REPLAYED:
            return np.exp, np.exp
        return float64_math.sleef_exp, float64_math.libc_exp
    return float32_math.sleef_expf, float32_math.libc_expf


def _sleef_log(values):
    """torch's log inside its vectorised loops (float64 beyond float64_math.REPLAYED: numpy's)."""
    if values.dtype == np.float32:
        return float32_math.sleef_logf(values)
    return float64_math.sleef_log(values) if values.size <= float64_math.REPLAYED else \
        np.log(values)


def _replayed_softmax(x, dim, half=False):
    """float32 and float64 softmax as torch's kernels compute it: along the last dim, SLEEF's
    exp, the sum in vector lanes, times 1 / sum; along another, vectorised across the inner
    elements (SLEEF's exp; the C library's for the last inner elements that fill no vector),
    the sum one row after the other, divided by the sum. ``half``: a float16 input's, along
    another dim than the last, in float32 (``x``), vectors of float16 lanes, and the exps of
    the inner elements left over rounded to float16 before their division (torch's scalar
    path keeps them in the float16 result in between)."""
    vector_exp, libc_exp = _sleef_and_libc_exp(x.dtype, x.size)
    with np.errstate(over="ignore", invalid="ignore"):  # (-3e38 - 3e38: -inf, as torch's)
        shifted = x - x.max(axis=dim, keepdims=True)
    if dim == x.ndim - 1:
        exps = vector_exp(shifted.ravel()).reshape(x.shape)
        return exps * (x.dtype.type(1) / reduce_all_sum(exps, simd_lanes(exps.dtype))[..., None])
    shape = x.shape
    shifted = shifted.reshape(math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1:]))
    exps = vector_exp(shifted.ravel()).reshape(shifted.shape)
    vectorised = shifted.shape[2] - shifted.shape[2] % simd_lanes(np.float16 if half else
                                                                  x.dtype)
    rest = shifted[..., vectorised:]
    exps[..., vectorised:] = libc_exp(rest.ravel()).reshape(rest.shape)
    total = exps[:, 0]
    for i in range(1, exps.shape[1]):
        total = total + exps[:, i]
    if half:
        exps[..., vectorised:] = _to_half_and_back(exps[..., vectorised:])
    return (exps / total[:, None]).reshape(shape)


class SoftmaxBackward0(Node):
    """out = softmax(x):  d/dx = out * (grad - sum(grad * out, dim))"""

    _saved_names = ("result",)
    dim: int

    def backward(self, grad):
        (out,) = self.saved_tensors
        return _softmax_gradient(SoftmaxBackwardDataBackward0, _softmax_backward_data, grad,
                                 out, self.dim)

    def jvp(self, tangent):
        """Forward mode, torch's formula: out * (t - logsumexp's tangent)."""
        (out,) = self.saved_tensors
        return out * (tangent - _logsumexp_jvp(self.primals[0], tangent, self.dim))


def _logsumexp_jvp(x, tangent, dim, keepdim=True):
    """torch's tangent of logsumexp(x, dim, keepdim): sum(e * t) / sum(e), with
    e = exp(x - max(x)) (softmax's and log_softmax's forward formulas read it: computed op
    by op, as torch's, each float16 op rounds)."""
    exps = (x - x.amax(dim, keepdim=True)).exp() if x.numel() else x.exp()
    return (exps * tangent).sum(dim, keepdim) / exps.sum(dim, keepdim)


def _softmax_gradient(node, formula, grad, out, dim):
    """``formula(grad, out, dim)``; under create_graph recorded as torch records it: one node
    (``SoftmaxBackwardDataBackward0`` ...) linked to grad and the softmax's result."""
    if not grad_mode.grad_enabled:
        return _in_float32(formula, grad, out, dim)
    with no_grad():
        result = _in_float32(formula, grad, out, dim)
    return record(node, result, (grad, out), saved=(grad, out), dim=dim)


def _in_float32(formula, grad, out, dim):
    """torch's float16 kernels compute in float32 and round once (the sum of [-0.] stays -0.:
    log_softmax's gradient of -0. is then 0.)."""
    if grad._data.dtype.char == "e" and out._data.dtype.char == "e":
        return wrap(formula(wrap(grad._data.astype(np.float32)),
                            wrap(out._data.astype(np.float32)), dim)._data.astype(np.float16))
    return formula(grad, out, dim)


def _torch_order_operands(grad, out, dim):
    """grad's and out's data as (outer, dim, inner) arrays and whether dim is the last, when
    torch's kernel can be replayed (float32 and float64, one dtype and shape, some
    elements), else None."""
    g, y = grad._data, out._data
    if g.dtype != y.dtype or y.dtype not in (np.float32, np.float64) or not y.size \
            or g.shape != y.shape:
        return None
    shape = y.shape or (1,)
    outer, inner = math.prod(shape[:dim]), math.prod(shape[dim + 1:])
    # (a dim of size 1 after dim leaves one inner element, but not torch's last-dim kernel)
    last = dim == len(shape) - 1
    return (g.reshape(outer, shape[dim], inner), y.reshape(outer, shape[dim], inner)), last


def _sum_of_products(g, y, last):
    """sum(g * y) over axis 1 as torch's softmax backward adds it: along the tensor's last
    dim in vector lanes (a lone row's last partial vector in fused multiply-adds, as torch's
    float32 build computes it), along another dim one fused multiply-add after the other."""
    fma = fma32 if g.dtype == np.float32 else fma64
    if not last:
        total = g[:, 0] * y[:, 0]
        for i in range(1, g.shape[1]):
            total = fma(g[:, i], y[:, i], total)
        return total[:, None]
    g, y = g[..., 0], y[..., 0]
    n, lanes = g.shape[-1], simd_lanes(g.dtype)
    tail = n % lanes if n > lanes and g.dtype == np.float32 and (
        g.size == n or float32_math.torch_threads == 1) else 0
    if not tail:
        return reduce_all_sum(g * y, lanes)[:, None, None]
    full = n - tail
    head = g[:, :full] * y[:, :full]
    acc = head[:, :lanes].copy()
    for start in range(lanes, full, lanes):
        acc += head[:, start:start + lanes]
    acc[:, :tail] = fma32(g[:, full:], y[:, full:], acc[:, :tail])
    return reduce_all_sum(acc, lanes)[:, None, None]


def _softmax_backward_data(grad, out, dim):
    """softmax's gradient (grad - sum(grad * out, dim)) * out, in torch's order (float16 in
    float32, rounded once: sum(out) is then not exactly 1, and the gradient of sum() not 0)."""
    if grad._data.dtype == np.float16 and out._data.dtype == np.float16:
        return _softmax_backward_data(grad.float(), out.float(), dim).half()
    operands = _torch_order_operands(grad, out, dim)
    if operands is None:
        return out * (grad - (grad * out).sum(dim, keepdim=True))
    (g, y), last = operands
    return _gradient_in_place_of(out, (g - _sum_of_products(g, y, last)) * y)


def _gradient_in_place_of(out, values):
    """values in out's shape, row-major, as torch's kernel writes them."""
    return wrap(values.reshape(out._data.shape))


class SoftmaxBackwardDataBackward0(Node):
    """out = softmax's gradient gi = (g - sum(g * y)) * y (recorded under create_graph):
    d/dg = softmax's gradient of gg,  d/dy = gg * g - sum(y * gg) * g - gg * sum(y * g)"""

    _saved_names = ("grad_output", "output")
    dim: int

    def backward(self, gg):
        g, y = self.saved_tensors
        d_grad = _softmax_gradient(SoftmaxBackwardDataBackward0, _softmax_backward_data, gg, y,
                                   self.dim)
        # torch's softmax_double_backward, g * gg - sum(y * g) * gg - g * sum(y * gg), its
        # operands evaluated right to left as its C++ compiler does (the nodes' order decides
        # how a higher derivative adds up)
        last = g * (y * gg).sum(self.dim, keepdim=True)
        middle = (y * g).sum(self.dim, keepdim=True) * gg
        d_out = g * gg - middle - last
        return d_grad, d_out


@overloads("(Tensor input, int dim, torch.dtype dtype = None, *, Tensor out = None)")
@_softmax_out
@numpy_names
def log_softmax(input, dim, dtype=None):
    """out = input - log(sum(exp(input))) along dim, computed stably (log-sum-exp)"""
    input, x, dim = _softmax_operand("log_softmax", input, dim, dtype)
    if not x.size:  # (nothing to compute, in any dtype: numpy cannot subtract bools)
        return record(LogSoftmaxBackward0, _softmax_result(x, input), (input,),
                      saved_output=True, dim=dim)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        shift = x.max(axis=dim, keepdims=True)
        shifted = x - shift
        if input.dtype in (dtypes.float32, dtypes.float64):
            result = _replayed_log_softmax(shifted, dim)
            return record(LogSoftmaxBackward0, _softmax_result(result, input), (input,),
                          saved_output=True, dim=dim)
        total = np.exp(shifted).sum(axis=dim, keepdims=True)
        if input.dtype is dtypes.float16 and dim == x.ndim - 1:
            # torch's float16 kernel along the last dim keeps the sum and its log in float16
            result = shifted - _to_half_and_back(np.log(_to_half_and_back(total)))
        else:
            result = shifted - np.log(total)
    result = _softmax_result(result, input)
    return record(LogSoftmaxBackward0, result, (input,), saved_output=True, dim=dim)


def _replayed_log_softmax(shifted, dim):
    """float32 and float64 log_softmax of x - max(x) as torch's kernels compute it: the sum of
    SLEEF's exps (along the last dim in vector lanes; along another one row after the other,
    the C library's exp for the last inner elements that fill no vector), SLEEF's log of it,
    subtracted."""
    vector_exp, libc_exp = _sleef_and_libc_exp(shifted.dtype, shifted.size)
    if dim == shifted.ndim - 1:
        exps = vector_exp(shifted.ravel()).reshape(shifted.shape)
        total = reduce_all_sum(exps, simd_lanes(exps.dtype))[..., None]
        return shifted - _sleef_log(total)
    shape = shifted.shape
    rows = shifted.reshape(math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1:]))
    exps = vector_exp(rows.ravel()).reshape(rows.shape)
    vectorised = rows.shape[2] - rows.shape[2] % simd_lanes(rows.dtype)
    exps[..., vectorised:] = libc_exp(rows[..., vectorised:].ravel()).reshape(
        exps[..., vectorised:].shape)
    total = exps[:, 0]
    for i in range(1, exps.shape[1]):
        total = total + exps[:, i]
    return (rows - _sleef_log(total)[:, None]).reshape(shape)


class LogSoftmaxBackward0(Node):
    """out = log_softmax(x):  d/dx = grad - exp(out) * sum(grad, dim)"""

    _saved_names = ("result",)
    dim: int

    def backward(self, grad):
        (out,) = self.saved_tensors
        return _softmax_gradient(LogSoftmaxBackwardDataBackward0, _log_softmax_backward_data,
                                 grad, out, self.dim)

    def jvp(self, tangent):
        """Forward mode, torch's formula: t - logsumexp's tangent."""
        return tangent - _logsumexp_jvp(self.primals[0], tangent, self.dim)


def _log_softmax_backward_data(grad, out, dim):
    """log_softmax's gradient grad - exp(out) * sum(grad, dim), in torch's order: along the
    last dim the sum in vector lanes, along another one row after the other; exp SLEEF's
    where torch's loop is vectorised (along another dim, the last inner elements that fill
    no vector take the C library's), then one fused multiply-add; float16 in float32,
    rounded once."""
    if grad._data.dtype == np.float16 and out._data.dtype == np.float16:
        return _log_softmax_backward_data(grad.float(), out.float(), dim).half()
    operands = _torch_order_operands(grad, out, dim)
    if operands is None:
        return grad - out.exp() * grad.sum(dim, keepdim=True)
    (g, y), last = operands
    single = y.dtype == np.float32
    if last:
        total = reduce_all_sum(g[..., 0], simd_lanes(g.dtype))[:, None, None]
        vectorised = g.shape[2]
    else:
        total = g[:, 0]
        for i in range(1, g.shape[1]):
            total = total + g[:, i]
        total = total[:, None]
        vectorised = g.shape[2] - g.shape[2] % simd_lanes(g.dtype)
    if not single:  # (SLEEF's exp where torch's loop is vectorised, the C library's after)
        vector_exp, libc_exp = _sleef_and_libc_exp(y.dtype, y.size)
        exps = vector_exp(y)
        if vectorised < g.shape[2]:
            exps[..., vectorised:] = libc_exp(y[..., vectorised:])
        return _gradient_in_place_of(out, fma64(-exps, np.broadcast_to(total, g.shape), g))
    exps = float32_math.sleef_expf(y.ravel()).reshape(y.shape)
    if vectorised < g.shape[2]:
        rest = y[..., vectorised:]
        exps[..., vectorised:] = float32_math.libc_expf(rest.ravel()).reshape(rest.shape)
    # (a mean loss's rows add up to -1/batch: for a batch of a power of two, a quicker way)
    return _gradient_in_place_of(out, fma32_power_of_two(-exps, total, g))


class LogSoftmaxBackwardDataBackward0(Node):
    """out = log_softmax's gradient gi = g - exp(y) * sum(g) (recorded under create_graph):
    d/dg = gg - sum(gg * exp(y)),  d/dy = -sum(g) * exp(y) * gg"""

    _saved_names = ("grad_output", "output")
    dim: int

    def backward(self, gg):
        g, y = self.saved_tensors
        d_grad = gg - (gg * y.exp()).sum(self.dim, keepdim=True)
        d_out = -g.sum(self.dim, keepdim=True) * y.exp() * gg
        return d_grad, d_out


def _logsumexp_for_out(out_dtype, input, dim=_REQUIRED, keepdim=False):
    """logsumexp into an out= of ``out_dtype``: torch's steps round exp to the input's dtype,
    then sum, log and add the max back in out's (float16 input, float64 out: exp in float16)."""
    return _logsumexp(input, dim, keepdim, out_dtype)


@overloads("(Tensor input, tuple of ints[1] dim, bool keepdim = False, *, Tensor out = None)")
@takes_out(before=_floating_out, computed_for=numpy_names(_logsumexp_for_out))
@numpy_names
def logsumexp(input, dim=_REQUIRED, keepdim=False):
    """out = log(sum(exp(input))) over dim, computed stably by shifting by the max"""
    return _logsumexp(input, dim, keepdim)


def _logsumexp(input, dim, keepdim, out_dtype=None):
    if dim is _REQUIRED:
        raise _missing_dim("logsumexp")
    data = input._data
    if data.dtype.kind != "f":
        data = data.astype(float_dtype_for(data.dtype))
    out_dtype = data.dtype if out_dtype is None else np.dtype(out_dtype)
    axes, _ = reduce_args(input, dim, keepdim)
    if isinstance(dim, (tuple, list)) and not dim and not keepdim and data.ndim and data.size:
        # torch reduces everything for dim=(), then adds the max back in place, squeezed over
        # no dimension: it does not fit the result
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                           f"{[1] * data.ndim}")
    # torch's steps, each rounded to its dtype: shift by the max (unless infinite), exp (the
    # input's dtype), sum, log (out's), shift back (added in the wider of the two)
    shift = np.max(data, axis=axes, keepdims=True) if data.size else np.zeros((), data.dtype)
    shift = np.where(np.isinf(shift), data.dtype.type(0), shift)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        exps = _float_kernels(data.dtype)[0](data - shift).astype(out_dtype, copy=False)
        total = _accumulated(exps, np.sum, axis=axes, keepdims=True)
        logs = _float_kernels(out_dtype)[1](total)
        result = (logs + shift).astype(out_dtype, copy=False)
    if not keepdim:
        result = np.squeeze(result, axis=axes) if axes is not None else result.reshape(())
    return record(LogsumexpBackward0, as_reduced(np.asarray(result, out_dtype)), (input,),
                  saved=(input,), saved_output=True, dim=dims_tuple(dim, input._data.ndim),
                  keepdim=keepdim)


def _float_kernels(np_dtype):
    """exp and log as torch's kernels compute them in ``np_dtype`` (float32's: see
    fidelity/float32_math.py)."""
    if np_dtype == np.float32:
        return float32_math.exp, float32_math.log
    return np.exp, np.log


class LogsumexpBackward0(Node):
    """out = log(sum(exp(x))):  d/dx = exp(x) / sum(exp(x)) = exp(x - out)  (softmax)"""

    _saved_names = ("self", "result")
    dim: tuple
    keepdim: bool

    def backward(self, grad):
        x, result = self.saved_tensors
        if not self.keepdim and x._data.ndim:  # torch's unsqueeze_multiple, then broadcasting
            for d in sorted(self.dim):
                grad, result = grad.unsqueeze(d), result.unsqueeze(d)
        return grad * exp(x - result)

    def jvp(self, tangent):
        """Forward mode, torch's formula (logsumexp_jvp): sum(e * t) / sum(e) over dim, with
        e = exp(x - max(x))."""
        return _logsumexp_jvp(self.primals[0], tangent, self.dim, self.keepdim)


_ACCUMULATE = {np.dtype(np.float16): np.dtype(np.float32),
               np.dtype(np.float32): np.dtype(np.float64)}


def _cumulative(ufunc, name, node):
    def cumulative(input, dim=_REQUIRED, *, dtype=None):
        if dim is _REQUIRED:
            raise _missing_dim(name)
        data = input._data
        if dtype is not None:
            data = cast(data, dtypes.as_dtype(dtype).numpy_dtype)
        elif data.dtype.kind in "biu":
            data = data.astype(np.int64)
        axis = wrap_dim(dim, data.ndim)  # (torch's order: the dim, then the kernel's dtype)
        # (no kernel runs for no elements, nor for a 0-d input: torch copies it)
        if data.dtype.kind == "b" and data.size and data.ndim:
            raise not_implemented_for(f"{name}_out_cpu", data.dtype)
        if data.ndim == 0:
            result = wrap(data.copy())
        else:
            # torch accumulates float16 in float32 and float32 in double (its CPU "acc_type")
            # and rounds every partial result back to the dtype
            wide = data.astype(_ACCUMULATE.get(data.dtype, data.dtype))
            if node is CumsumBackward0 and wide.dtype.kind in "fc":
                # torch's running sum starts at +0.0, and 0.0 + -0.0 is 0.0: no -0.0 comes out
                wide = wide + 0.0
            with np.errstate(over="ignore", invalid="ignore"):  # (row-major, as torch's)
                result = wrap(np.ascontiguousarray(ufunc(wide, axis=axis, dtype=wide.dtype),
                                                   data.dtype))
        _differentiable(result, input)
        if node is CumsumBackward0:  # a sum's gradient needs no values
            return record(node, result, (input,), dim=axis)
        return record(node, result, (input,), saved=(input,), saved_output=True, dim=axis)

    cumulative.__name__ = cumulative.__qualname__ = name
    return takes_out(numpy_names(cumulative), dtype_from_out=True, resized_first=input_shape)


class CumsumBackward0(Node):
    """out[i] = x[0] + ... + x[i]:  d/dx[i] = the sum of grad[j] for j >= i"""

    dim: int

    def backward(self, grad):
        # (cumsum(dtype=...): the gradient goes back to the input's dtype first, then sums)
        grad = grad.to(from_numpy_dtype[self._input_meta[0][1]])
        if grad._data.size <= 1 or grad._data.shape[self.dim] == 1:
            return grad  # (torch's shortcut: the gradient itself, strides and all)
        return _reversed_cumsum(grad, self.dim)


def _reversed_cumsum(grad, dim):
    """out[i] = grad[i] + ... + grad[n-1] along dim: a cumsum from the end, added in that order
    (torch's grad.flip(dim).cumsum(dim).flip(dim))"""
    return grad.flip((dim,)).cumsum(dim).flip((dim,))


def _cumprod_backward_with_zeros(grad, x, out, dim):
    """cumprod's gradient where x has zeros, in torch's steps (its O(n) way, taken when the
    gradient is not differentiated again): before the first zero as without zeros; at the
    first zero, the products up to the second zero; after it, 0."""
    zeros_seen = (x == 0).cumsum(dim)
    grad_input = grad.new_zeros(x.shape)
    before = zeros_seen == 0
    grad_input[before] = (_reversed_cumsum((out * grad).masked_fill(~before, 0.0), dim)
                          / x)[before]
    between = zeros_seen == 1
    first_zero_index = between.max(dim, keepdim=True).indices
    first_zero = between.new_zeros(between.shape).scatter(dim, first_zero_index, True) & between
    between = between & ~first_zero
    products = (x.masked_fill(~between, 1.0).cumprod(dim)
                * grad.masked_fill(zeros_seen != 1, 0.0)).sum(dim, keepdim=True)
    before_first = out.gather(dim, (first_zero_index - 1).relu()).masked_fill(
        first_zero_index == 0, 1.0)
    grad_input[first_zero] = (products * before_first).expand(x.shape)[first_zero]
    return grad_input


class CumprodBackward0(Node):
    """out[i] = x[0] * ... * x[i]:  d/dx[i] = sum over j >= i of grad[j] * out[j] / x[i]"""

    _saved_names = ("self", "result")
    dim: int

    def backward(self, grad):
        x, result = self.saved_tensors
        if x._data.size <= 1 or x._data.shape[self.dim] == 1:
            return grad
        if not (x._data == 0).any():
            return _reversed_cumsum(result * grad, self.dim) / x
        if not grad_mode.grad_enabled:
            return _cumprod_backward_with_zeros(grad, x, result, self.dim)
        # out[j] / x[i] divides by zero where x[i] is 0: multiply the other factors instead
        dim, n = self.dim, x._data.shape[self.dim]
        pieces = []
        for i in range(n):
            before = x.narrow(dim, 0, i).prod(dim, keepdim=True)
            after = x.narrow(dim, i + 1, n - i - 1).cumprod(dim)
            # out[j] without its factor x[i], for j = i .. n-1
            others = cat([before, before * after], dim)
            pieces.append((grad.narrow(dim, i, n - i) * others).sum(dim, keepdim=True))
        return cat(pieces, dim)


_CUMULATIVE = "(Tensor input, int dim, *, torch.dtype dtype = None, Tensor out = None)"
cumsum = overloads(_CUMULATIVE)(_cumulative(np.cumsum, "cumsum", CumsumBackward0))
cumsum.__doc__ = "out[i] = input[0] + ... + input[i] along dim"
cumprod = overloads(_CUMULATIVE)(_cumulative(np.cumprod, "cumprod", CumprodBackward0))
cumprod.__doc__ = "out[i] = input[0] * ... * input[i] along dim"


def _truth_reduction(np_func):
    def reduction(input, dim=None, keepdim=False):
        data = input._data
        if isinstance(dim, (tuple, list)) and not dim:
            result = data != 0  # unlike sum, torch's all and any reduce nothing over dim=()
        else:
            axes, keepdim = reduce_args(input, dim, keepdim)
            result = np_func(data, axis=axes, keepdims=keepdim)
        # torch keeps uint8 for uint8 input; every other dtype gives bool
        return as_reduced(np.asarray(result).astype(np.uint8 if data.dtype == np.uint8 else bool))

    reduction.__name__ = reduction.__qualname__ = np_func.__name__
    return numpy_names(reduction)


_TRUTH = ("(Tensor input, *, Tensor out = None)",  # (dims: an int[] without a size, which
          # takes no int alone: x.all(torch.tensor([1])) is refused)
          "(Tensor input, tuple of ints? dim = None, bool keepdim = False, *, "
          "Tensor out = None)",
          "(Tensor input, int dim, bool keepdim = False, *, Tensor out = None)")
all = overloads(*_TRUTH)(_truth_reduction(np.all))  # noqa: A001 - torch.all
all.__doc__ = "True when every element (over dim) is nonzero"
any = overloads(*_TRUTH)(_truth_reduction(np.any))  # noqa: A001 - torch.any
any.__doc__ = "True when some element (over dim) is nonzero"


@overloads("(Tensor input, int dim = None)",
           "(Tensor input, tuple of ints dim)")
@numpy_names
def count_nonzero(input, dim=None):
    """out = the number of nonzero elements over dim"""
    axes, _ = reduce_args(input, dim, False)
    return as_reduced(np.asarray(np.count_nonzero(input._data, axis=axes), np.int64))


def nonzero(input, *, as_tuple=False):
    """The indices of the nonzero elements, one row per element (or one tensor per dim)"""
    data = input._data
    if as_tuple and data.ndim == 0:
        data = data.reshape(1)  # torch treats a 0-dim input as 1-dim here
    if data.ndim == 0:
        indices = np.zeros((1 if data.item() else 0, 0), np.int64)
    else:
        indices = np.argwhere(data).astype(np.int64)
    # torch fills the result column by column: its strides are (1, rows)
    rows = indices.shape[0]
    result = wrap(np.asfortranarray(indices))
    result._stride = (1, rows)
    if not as_tuple:
        return result
    # one index tensor per dimension: views of the result's columns
    return tuple(make_view(result, (rows,), (1,), d * rows) for d in range(indices.shape[1]))


_UNSTABLE = object()  # stable= not given: torch's sort overload recorded as SortBackward0


@overloads("(Tensor input, *, bool? stable, int dim = -1, bool descending = False, "
           "tuple of Tensors out = None)",
           "(Tensor input, int dim = -1, bool descending = False, *, "
           "tuple of Tensors out = None)")
@takes_pair_out
@numpy_names
def sort(input, dim=-1, descending=False, stable=_UNSTABLE):
    """(values, indices) sorted along dim; ties keep their order"""
    data = input._data
    # stable= (any value) picks torch's sort.stable overload, recorded as SortBackward1
    node = SortBackward0 if stable is _UNSTABLE else SortBackward1
    if data.ndim == 0:
        wrap_dim(dim, 0)  # (torch's IndexError for a dim other than 0 / -1)
        result = return_types.sort(wrap(data.copy()), wrap(np.zeros((), np.int64)))
        return record(node, result, (input,), saved=(result.indices,),
                      self_sym_sizes=data.shape, dim=0)
    axis = wrap_dim(dim, data.ndim)
    if descending:
        # largest first, nan the largest, equal values in their order: sort the reversed
        # array up, reverse the result (negating would wrap 0 and -128 of integer dtypes)
        flipped = np.argsort(np.flip(data, axis), axis=axis, kind="stable")
        indices = data.shape[axis] - 1 - np.flip(flipped, axis)
    else:
        indices = np.argsort(data, axis=axis, kind="stable")
    if (stable is _UNSTABLE or not stable) and _reorders_ties(input, axis, descending):
        indices = _unstable_order(data, indices, axis, descending)
    # values and indices keep the input's layout (dense strides in its order), as in torch
    result = return_types.sort(laid_out_like(np.take_along_axis(data, indices, axis), input),
                               laid_out_like(indices.astype(np.int64), input))
    return record(node, result, (input,), saved=(result.indices,),
                  self_sym_sizes=data.shape, dim=axis)


def _reorders_ties(input, axis, descending):
    """Whether torch's sort without stable=True may leave equal values out of their order:
    its std::sort of more than 16 values, except on a dimension of stride 0 (torch returns
    the indices in order) and for a long 1-d integer tensor sorted up (fbgemm's radix sort,
    stable)."""
    data = input._data
    return data.shape[axis] > 16 and input.stride(axis) != 0 and not (
        data.ndim == 1 and not descending and data.dtype.kind in "iu" and data.size >= 32768)


def _unstable_order(data, indices, axis, descending):
    """The stable ``indices`` with each row that has ties put in std::sort's order."""
    rows_data, rows = np.moveaxis(data, axis, -1), np.moveaxis(indices, axis, -1).copy()
    ordered = np.take_along_axis(rows_data, rows, -1)
    ties = ordered[..., 1:] == ordered[..., :-1]
    if ordered.dtype.kind == "f":
        ties |= np.isnan(ordered[..., 1:]) & np.isnan(ordered[..., :-1])
    for row in map(tuple, np.argwhere(ties.any(-1))):  # (() for a 1-d tensor)
        rows[row] = stdsort.sort_order(rows_data[row], descending)
    return np.moveaxis(rows, -1, axis)


class SortBackward0(Node):
    """out = x reordered along dim:  each value's gradient goes back where it came from"""

    _saved_names = ("indices",)
    dim: int
    self_sym_sizes: tuple

    def backward(self, grad):
        (indices,) = self.saved_tensors
        return put_back(grad, indices, self.dim, self.self_sym_sizes)


@overloads("(Tensor input, *, Tensor out = None)")
@takes_out
def msort(input):
    """The values sorted along the first dimension (torch.sort(input, 0)'s values)."""
    return sort(input, 0)[0]


@overloads("(Tensor input, *, bool stable, int dim = -1, bool descending = False, "
           "Tensor out = None)",
           "(Tensor input, int dim = -1, bool descending = False)")
@takes_out(check=out_of_results_dtype)  # (argsort.stable's out=)
@numpy_names
def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim=dim, descending=descending, stable=stable).indices


@overloads("(Tensor input, SymInt k, int dim = -1, bool largest = True, bool sorted = True, "
           "*, tuple of Tensors out = None)")
@takes_pair_out
@numpy_names
def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """(values, indices) of the k largest (or smallest) elements along dim"""
    ndim = input._data.ndim
    if isinstance(k, (np.integer, Tensor)):  # (k is a SymInt to torch's parser: an integer
        k = builtins.int(k)  # tensor of one element passes it)
    if k.__class__ is not builtins.int:  # (k is an int argument, not an index: no bool)
        raise argument_error(k, "int") if isinstance(k, builtins.bool) else \
            TypeError(f"topk(): argument 'k' (position {calls.position(2)}) must be int, not "
                      f"{messages.type_name(k)}")
    # torch's order: the dim, then k, then the dtype
    along = wrap_dim(dim, ndim)
    if not 0 <= k <= (input._data.shape[along] if ndim else 1):
        raise RuntimeError("selected index k out of range")
    if input._data.dtype.kind == "b":
        raise NotImplementedError("topk does not support bool dtypes on CPU")
    data = input._data
    if ndim:
        rows = np.moveaxis(data, along, -1)
        picked = np.zeros(rows.shape[:-1] + (k,), np.int64)
        for position in np.ndindex(rows.shape[:-1]) if k else ():
            # ties come out in the order torch's partial sort leaves them (fidelity/stdsort.py)
            picked[position] = stdsort.topk_order(rows[position], k, largest, sorted)
        indices = np.moveaxis(picked, -1, along)
        values = np.take_along_axis(data, indices, axis=along)
    else:  # a 0-d tensor is its own top value (for k 0 too, as torch)
        values, indices = data, np.zeros((), np.int64)
    result = return_types.topk(wrap(np.array(values, order="C")),
                               wrap(np.array(indices, order="C")))
    return record(TopkBackward0, result, (input,), saved=(result.indices,),
                  self_sym_sizes=input._data.shape, dim=along)


class SortBackward1(SortBackward0):
    """out = x reordered along dim (sort with stable=):  as SortBackward0"""


class TopkBackward0(SortBackward0):
    """out = the k largest values along dim:  their gradients go back where they came from"""


# ====================================================================== distinct values
def unique(input, sorted=True, return_inverse=False, return_counts=False,  # noqa: A002
           dim=None, **unknown):
    """The distinct values of input (dim=None, flattened) or its distinct slices along dim,
    in ascending order (torch's CPU kernel sorts even when ``sorted=False``); optionally where
    each element went (inverse) and how often each value occurs (counts). nan is never equal
    to nan, so each nan is a value of its own."""
    if unknown:
        # torch's Tensor.unique is Python, and torch.unique picks one of four Python functions
        # by return_inverse and return_counts (torch/functional.py, boolean_dispatch)
        name = "Tensor.unique" if calls.called_as_method() else (
            "_return_inverse_and_counts", "_return_inverse", "_return_counts",
            "_return_output")[2 * (not return_inverse) + (not return_counts)]
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(unknown))}'")
    builtins.bool(return_inverse), builtins.bool(return_counts)  # (torch's Python asks first)
    if isinstance(dim, Tensor) and dim._data.ndim == 0 and dim._data.dtype.kind in "iu":
        dim = builtins.int(dim)  # (read as an int, as torch's parser reads it)
    if dim is None or (isinstance(dim, (builtins.int, np.integer)) and
                       dim.__class__ is not builtins.bool):  # (a bad dim is refused first)
        for key, flag in (("sorted", sorted), ("return_inverse", return_inverse),
                          ("return_counts", return_counts)):
            if not isinstance(flag, builtins.bool):  # (torch's Python passes them
                raise TypeError(  # on by keyword to _unique2 or unique_dim)
                    f"{'_unique2' if dim is None else 'unique_dim'}(): argument '{key}' must "
                    f"be bool, not {messages.type_name(flag)}")
    data = input._data
    if dim is None:
        flat = data.reshape(-1)
        if flat.dtype.kind == "f" and (np.isnan(flat).any() or np.signbit(flat[flat == 0]).any()):
            values, inverse, counts = _unique_as_torch(flat)
        else:  # (a strict order: any correct sort agrees with torch's)
            values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True)
        result = record(Unique2Backward0, wrap(values), (input,))
        inverse = inverse.reshape(data.shape)
    else:
        if dim.__class__ is builtins.bool or not isinstance(dim, (builtins.int, np.integer)):
            # (torch.unique is Python passing dim on to its unique_dim, second)
            raise TypeError(f"unique_dim(): argument 'dim' (position 2) must be int, not "
                            f"{messages.type_name(dim)}")
        dim = _unique_dim(data, dim)
        moved = np.moveaxis(data, dim, 0)
        flat = moved.reshape(len(moved), math.prod(moved.shape[1:]))
        if flat.dtype.kind == "f" and (np.isnan(flat).any() or
                                       (np.signbit(flat) & (flat == 0)).any()):
            rows, inverse, counts = _unique_rows_as_torch(flat)
        else:  # (a strict order: any correct sort agrees with torch's)
            rows, inverse, counts = np.unique(flat, axis=0, return_inverse=True,
                                              return_counts=True)
        # computed with dim in front, then moved back: torch's result is laid out so too
        values = np.ascontiguousarray(rows).reshape((rows.shape[0],) + moved.shape[1:])
        result = record(UniqueDimBackward0, wrap(np.moveaxis(values, 0, dim)), (input,))
    return _unique_result(result, inverse, counts, return_inverse, return_counts)


def _unique_as_torch(flat):
    """unique of a 1-d float array with a nan or a -0.0, as torch's CPU kernel finds it: its
    sort of the values (unstable: past 16 elements ties come in std::sort's order, as sort()
    replays it), then runs of equal values (nan never equal, -0.0 equal to 0.0), each kept
    as its first value; so which zero is kept, and which nan each nan's inverse names, is
    torch's (fuzz 5545774)."""
    order = np.argsort(flat, kind="stable")
    if flat.size > 16:
        order = _unstable_order(flat, order, 0, False)
    ordered = flat[order]
    starts = np.ones(flat.size, bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(flat.size, np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], inverse, np.diff(np.append(np.flatnonzero(starts), flat.size))


def _unique_rows_as_torch(flat):
    """unique's rows of ``flat`` (n, m) as torch's CPU kernel finds them when a nan or a -0.0
    makes its comparison (row by row, element by element, "<" then ">") no strict order:
    std::sort of the row numbers with it (replayed), then runs of equal rows (nan never
    equal, -0.0 equal to 0.0), each kept as its first row."""
    rows = flat.tolist()

    def before(a, b):
        for x, y in zip(rows[a], rows[b]):
            if x < y:
                return True
            if x > y:
                return False
        return False

    order = list(range(len(rows)))
    stdsort.std_sort(order, 0, len(order), before)
    starts = np.ones(len(order), bool)
    ordered = flat[order]
    starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse = np.empty(len(order), np.int64)
    inverse[order] = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), len(order)))
    return ordered[starts], inverse, counts


def _unique_dim(data, dim):
    if data.ndim == 0 and isinstance(dim, (builtins.int, np.integer)):
        dim_index(dim, 0)  # (torch sizes a 0-d tensor's dim first: its IndexError)
    dim = wrap_dim(dim, data.ndim)
    if builtins.any(n == 0 for d, n in enumerate(data.shape) if d != dim):
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    return dim


def _unique_result(values, inverse, counts, return_inverse, return_counts):
    extra = ((wrap(inverse.astype(np.int64)),) if return_inverse else ()) + \
        ((wrap(counts.astype(np.int64)),) if return_counts else ())
    return (values, *extra) if extra else values


class _NotDifferentiable(Node):
    """torch records these nodes but has no derivative formula for them."""

    def backward(self, grad):
        raise NotImplementedError(f"the derivative for '{self.op}' is not implemented.")


class Unique2Backward0(_NotDifferentiable):
    op = "_unique2"


class UniqueDimBackward0(_NotDifferentiable):
    op = "unique_dim"


class UniqueConsecutiveBackward0(_NotDifferentiable):
    op = "unique_consecutive"


def unique_consecutive_method(input, return_inverse=False, return_counts=False, dim=None):
    """Each run of equal consecutive values (or slices along dim) kept once:
    [1, 1, 2, 2, 1] gives [1, 2, 1]. x.unique_consecutive(...): torch's Tensor method passes
    the flags on by name, and returns the inverse and the counts asked for."""
    return unique_consecutive(input, return_inverse=return_inverse, return_counts=return_counts,
                              dim=dim)


def unique_consecutive(*args, **kwargs):
    """torch.unique_consecutive, as torch's Python picks what it returns: by return_inverse at
    place 2 and return_counts at place 1 (the input at 0), places its boolean dispatch has
    the other way round, so flags given by position select oddly: unique_consecutive(x, True)
    returns the values and counts it did not compute (empty), as torch's does."""
    def flag(name, index):
        return kwargs[name] if name in kwargs else args[index] if index < len(args) else False

    if flag("return_inverse", 2):
        returned = _consecutive_return_inverse_and_counts if flag("return_counts", 1) else \
            _consecutive_return_inverse
    else:
        returned = _consecutive_return_counts if flag("return_counts", 1) else \
            _consecutive_return_output
    return returned(*args, **kwargs)


# (torch's four, named as Python's errors name them: an unknown keyword is theirs)
def _consecutive_return_output(input, return_inverse=False, return_counts=False, dim=None):
    return _unique_consecutive_impl(input, return_inverse, return_counts, dim)[0]


def _consecutive_return_counts(input, return_inverse=False, return_counts=False, dim=None):
    output, _, counts = _unique_consecutive_impl(input, return_inverse, return_counts, dim)
    return output, counts


def _consecutive_return_inverse(input, return_inverse=False, return_counts=False, dim=None):
    output, inverse, _ = _unique_consecutive_impl(input, return_inverse, return_counts, dim)
    return output, inverse


def _consecutive_return_inverse_and_counts(input, return_inverse=False, return_counts=False,
                                           dim=None):
    return _unique_consecutive_impl(input, return_inverse, return_counts, dim)


def _unique_consecutive_impl(input, return_inverse, return_counts, dim):
    """torch's unique_consecutive kernel: the values, the inverse and the counts; without dim
    the last two are empty unless asked for, along a dim both are always computed."""
    for flag_name, flag in (("return_inverse", return_inverse), ("return_counts", return_counts)):
        if flag.__class__ is not builtins.bool:  # (torch's Python passes them on by name)
            raise TypeError(f"unique_consecutive(): argument '{flag_name}' must be bool, not "
                            f"{messages.type_name(flag)}")
    data = input._data
    if not signatures.fits(dim, "int?"):  # (torch's Python passes dim on by name)
        raise TypeError(f"unique_consecutive(): argument 'dim' must be int, not "
                        f"{messages.type_name(dim)}")
    if dim is not None and data.ndim == 1 and int(dim) == 0:
        dim = None  # (torch's kernel takes dim 0 of a vector, not -1, as no dim)
    dim = None if dim is None else _unique_dim(data, int(dim))
    moved = data.reshape(-1, 1) if dim is None else np.moveaxis(data, dim, 0)
    rows = moved.reshape(len(moved), math.prod(moved.shape[1:]))
    starts = np.ones(len(rows), bool)
    starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    first = np.flatnonzero(starts)
    counts = np.diff(np.append(first, len(rows)))
    inverse = np.cumsum(starts) - 1
    if dim is None:
        values, inverse = data.reshape(-1)[first], inverse.reshape(data.shape)
    else:
        values = np.moveaxis(np.ascontiguousarray(moved[first]), 0, dim)  # laid out as unique
    result = record(UniqueConsecutiveBackward0, wrap(values), (input,))
    if dim is None:
        not_asked = np.zeros(0, np.int64)
        inverse = inverse if return_inverse else not_asked
        counts = counts if return_counts else not_asked
    return result, wrap(inverse.astype(np.int64)), wrap(counts.astype(np.int64))


# (argmax ... have no derivative: torch reads no node)
histories_read_first(globals(), [name for name in __all__ if name not in (
    "argmax", "argmin", "count_nonzero", "all", "any", "nonzero", "unique", "unique_consecutive")])

tensor_inputs(globals(), __all__)  # torch.exp(None): torch's TypeError
