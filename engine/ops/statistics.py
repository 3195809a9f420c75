"""More reductions learners meet in tutorials: var_mean/std_mean, aminmax, nanmean.

Each op sits beside its backward node, as in reduce.py, whose helpers they share.
"""
import builtins
import functools
import math
from collections import namedtuple

import numpy as np

from ..fidelity import messages
from ..fidelity.dtypes import scalar_type_name
from ..fidelity.floating import quietly
from ..fidelity.size import dims_tuple, wrap_dim
from ..core.grad_mode import no_grad
from ..core.node import Node, record
from ..core.tensor import Tensor, wrap
from .common import filed_return_type, histories_read_first
from .common import (PYTHON_AND_NUMPY_NUMBERS, invalid_arguments_error, not_implemented_for,
                     numpy_names,
                     out_of_results_dtype, overloads, takes_out, tensor_inputs, write_out)
from .compare import eq, logical_not
from .creation import full_like, linspace_values, zeros_like
from .arithmetic import NotImplementedBackward, where
from .unary import isnan
from ..fidelity import stdsort
from .reduce import (MaxBackward0, welford, ddof_from, evenly_distributed, first_zero_wins,
                     reduce_args, as_reduced, return_type, takes_pair_out, unreduce,
                     restore_reduced_dims, var_backward, nansum, return_types)
from .common import number_parameters

__all__ = ["aminmax", "bincount", "bucketize", "cummax", "cummin", "histc", "isin", "kthvalue",
           "logcumsumexp", "median", "mode", "nanmean", "nanmedian", "nanquantile", "quantile",
           "searchsorted", "std_mean", "var_mean"]


# ====================================================================== var_mean, std_mean
# torch's parser lists them as var's and std's, without out=
_MOMENT_MEAN_OVERLOADS = (
    "(Tensor input, tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False)",
    "(Tensor input, tuple of ints[1]? dim = None, *, Number correction = None, "
    "bool keepdim = False)",
    "(Tensor input, bool unbiased = True)")

# Welford's loop is replayed element by element (torch's order, bit for bit) up to this many
# elements per result; longer rows take numpy's two passes (tolerance: ops/README.md)
_WELFORD_REPLAYED_UP_TO = 2048


def _moment_and_mean(input, dim, unbiased, keepdim, correction, name):
    if isinstance(dim, builtins.bool):  # legacy var_mean(x, unbiased)
        dim, unbiased = None, dim
    data = input._data
    if data.dtype.kind != "f":
        raise NotImplementedError(f"{name} only support floating point and complex dtypes")
    axes, keepdim = reduce_args(input, dim, keepdim)
    ddof = ddof_from(unbiased, correction)
    count = data.size if axes is None else math.prod(data.shape[a] for a in axes)
    outputs = 1 if axes is None else math.prod(n for d, n in enumerate(data.shape)
                                               if d not in axes)
    if (data.size // outputs if outputs else 0) - ddof <= 0:
        messages.warn_from_learner(messages.no_degrees_of_freedom(name))
    variance, mean = quietly(_welford_moments, data, axes, keepdim, ddof)
    if name == "std_mean":
        variance = np.sqrt(variance)
    with np.errstate(over="ignore"):  # (too large for float16: inf, as torch's)
        results = (as_reduced(variance.astype(data.dtype)),
                   as_reduced(mean.astype(data.dtype)))
    node = VarMeanBackward0 if name == "var_mean" else StdMeanBackward0
    return record(node, results, (input,), saved=(input,), saved_output=name == "std_mean",
                  dim=dim, correction=ddof, keepdim=keepdim, count=count)


def _welford_moments(data, axes, keepdim, ddof):
    """torch's var_mean/std_mean kernel: Welford's running mean and sum of squares, in
    float64 whatever the dtype (unlike var(), which takes two passes for a whole tensor)."""
    wide = data.astype(np.float64)
    count = wide.size if axes is None else math.prod(wide.shape[a] for a in axes)
    divisor = builtins.max(0, count - ddof)
    if count == 0 or wide.size == 0:
        shape = np.add.reduce(wide, axis=axes, keepdims=keepdim).shape
        return np.full(shape, np.nan), np.full(shape, np.nan)
    if count <= _WELFORD_REPLAYED_UP_TO:
        return welford(wide, axes, keepdim, divisor)
    mean = np.add.reduce(wide, axis=axes, keepdims=keepdim) / np.float64(count)
    variance = np.var(wide, axis=axes, keepdims=keepdim, ddof=ddof)
    return variance, mean


def _mean_backward(grad, x, node):
    shape = x._data.shape
    dims = None if node.dim is None else dims_tuple(node.dim, len(shape))
    return unreduce(grad, shape, dims, node.keepdim) / builtins.max(node.count, 1) \
        if shape else grad


@overloads(*_MOMENT_MEAN_OVERLOADS)
@numpy_names
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var(input), mean(input)) in one pass; correction=1 (Bessel's) by default"""
    return _moment_and_mean(input, dim, unbiased, keepdim, correction, "var_mean")


class VarMeanBackward0(Node):
    """out = (var, mean):  d/dx = 2 (x - mean) / (N - correction) * g_var + g_mean / N"""

    _saved_names = ("self",)
    _internal = ("count",)
    num_outputs = 2
    correction: float
    count: int
    dim: int | tuple | None
    keepdim: bool

    def backward(self, grad_var, grad_mean=None):
        (x,) = self.saved_tensors
        total = None if grad_var is None else var_backward(self, grad_var, x)
        if grad_mean is not None:
            part = _mean_backward(grad_mean, x, self)
            total = part if total is None else total + part
        return total


@overloads(*_MOMENT_MEAN_OVERLOADS)
@numpy_names
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std(input), mean(input)) in one pass; correction=1 (Bessel's) by default"""
    return _moment_and_mean(input, dim, unbiased, keepdim, correction, "std_mean")


class StdMeanBackward0(VarMeanBackward0):
    """out = (std, mean):  d/dx = d var/dx * g_std / (2 std) + g_mean / N"""

    _saved_names = ("self", "result0")

    def backward(self, grad_std, grad_mean=None):
        x, std = self.saved_tensors
        total = None
        if grad_std is not None:
            grad_var = where(std == 0, 0.0, grad_std / (std * 2))
            total = var_backward(self, grad_var, x)
        if grad_mean is not None:
            part = _mean_backward(grad_mean, x, self)
            total = part if total is None else total + part
        return total


# ====================================================================== aminmax
_MinMax = namedtuple("_MinMax", ["min", "max"])


class _AminmaxType(_MinMax, messages.CTypeAttributeErrors):
    """torch.return_types.aminmax: a (min, max) named tuple."""

    __slots__ = ()
    torch_type_name = "torch.return_types.aminmax"

    def __repr__(self):
        return f"torch.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})"


_AminmaxType.__name__ = "aminmax"
filed_return_type(_AminmaxType)


class _AminmaxOutType(_AminmaxType):
    """torch.return_types.aminmax_out: what aminmax(..., out=(min, max)) returns."""

    __slots__ = ()
    torch_type_name = "torch.return_types.aminmax_out"

    def __repr__(self):
        return f"torch.return_types.aminmax_out(\nmin={self.min!r},\nmax={self.max!r})"


_AminmaxOutType.__name__ = "aminmax_out"
filed_return_type(_AminmaxOutType)


def _aminmax(input, *, dim=None, keepdim=False):
    data = input._data
    if dim is None:
        if data.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        axes = None
    else:
        if data.ndim:
            axis = wrap_dim(dim, data.ndim)
            if data.shape[axis] == 0:
                raise IndexError(f"aminmax: Expected reduction dim {axis} to have non-zero "
                                 "size.")
        else:
            wrap_dim(dim, 1)
        axes = (wrap_dim(dim, builtins.max(data.ndim, 1)),) if data.ndim else None
    keep = keepdim and dim is not None
    if dim is None and keepdim:  # torch keeps every dim as 1
        keep = True
    low = np.minimum.reduce(data, axis=axes, keepdims=keep) if data.size else \
        np.zeros(_kept_shape(data.shape, axes, keep), data.dtype)
    high = np.maximum.reduce(data, axis=axes, keepdims=keep) if data.size else \
        np.zeros(_kept_shape(data.shape, axes, keep), data.dtype)
    if data.size:
        low = first_zero_wins(data, low, axes, keep)
        high = first_zero_wins(data, high, axes, keep)
    results = _AminmaxType(as_reduced(low), as_reduced(high))
    return record(AminmaxBackward0, results, (input,), saved=(input,), saved_output=2,
                  dim=None if axes is None else axes, keepdim=keep)


def _kept_shape(shape, axes, keep):
    axes = range(len(shape)) if axes is None else axes
    return tuple(1 if a in axes else n for a, n in enumerate(shape) if keep or a not in axes)


@overloads("(Tensor input, *, int dim = None, bool keepdim = False, "
           "tuple of Tensors out = None)")
@numpy_names
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """(min, max) of the input, over every element or along dim"""
    result = _aminmax(input, dim=dim, keepdim=keepdim)
    if out is None:
        return result
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"expected tuple of 2 elements but got {len(out)}")
    for written, target in zip(result, out):
        out_of_results_dtype(written, target)
    return _AminmaxOutType(*(write_out(written, target)
                             for written, target in zip(result, out)))


_aminmax.__name__ = "aminmax"
# (x.aminmax(...): the same parser, without out=)
aminmax.without_out = overloads("(Tensor input, *, int dim = None, bool keepdim = False)")(
    numpy_names(_aminmax))


class AminmaxBackward0(Node):
    """out = (min, max):  d/dx = g_min shared evenly by the minima + g_max by the maxima"""

    _saved_names = ("self", "min", "max")
    num_outputs = 2
    dim: tuple | None
    keepdim: bool

    def backward(self, grad_min, grad_max=None):
        x, low, high = self.saved_tensors
        shape = x._data.shape
        total = None
        for grad, value in ((grad_min, low), (grad_max, high)):
            if grad is None:
                continue
            # (unsqueezed, not expanded: the parts then take x's layout, as torch's)
            grad = restore_reduced_dims(grad, shape, self.dim, self.keepdim)
            hits = eq(restore_reduced_dims(value, shape, self.dim, self.keepdim), x)
            counted = hits.sum(self.dim if self.dim is not None else (), keepdim=True) \
                if shape else hits
            part = grad / counted * hits
            total = part if total is None else total + part
        return total


# ====================================================================== nanmean
def _floating_input_for_out(out, input, *args, **kwargs):
    """torch's nanmean(out=) checks the input's dtype in its own words."""
    if input._data.dtype.kind != "f":
        raise NotImplementedError("nanmean(): integral types and 'Bool' are not supported for "
                                  "nanmean, even for empty tensors.")


@overloads("(Tensor input, tuple of ints[1]? dim = None, bool keepdim = False, *, "
           "torch.dtype dtype = None, Tensor out = None)")
@takes_out(before=_floating_input_for_out)
@numpy_names
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not nan: nansum / their count (torch's composite,
    so its grad_fn is DivBackward0)"""
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{scalar_type_name[input.dtype]}")
    counted = logical_not(isnan(input)).sum(dim, keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype).div(counted)


tensor_inputs(globals(), ["aminmax", "nanmean"])  # torch.nanmean(None): torch's TypeError


def _overloaded_input_check(op, printed):
    """An op with several overloads given a non-tensor: torch's parser lists them."""
    @functools.wraps(op)
    def checked(*args, **kwargs):
        input = args[0] if args else kwargs.get("input")
        if not isinstance(input, Tensor):
            raise invalid_arguments_error(
                op.__name__, *args, keywords=kwargs,
                overloads=[" * " + line.replace("[1]?", "") for line in printed])
        return op(*args, **kwargs)
    checked.without_out = getattr(op, "without_out", op)
    return checked


var_mean = _overloaded_input_check(var_mean, _MOMENT_MEAN_OVERLOADS)
std_mean = _overloaded_input_check(std_mean, _MOMENT_MEAN_OVERLOADS)


# ====================================================================== median, kthvalue, mode
# Which index torch returns among equal values is its CPU kernel's: median and nanmedian
# along a dim pick the element of the middle rank in a stable order (the first nan when
# median meets one); kthvalue replays its quickselect (SortingUtils.h's
# quick_select_template), mode libstdc++'s std::sort of (value, index) pairs.
def _rows(data, axis):
    """``data`` with ``axis`` moved last, as rows: (rows, the shape of the kept dims)."""
    moved = np.moveaxis(data, axis, -1)
    return moved.reshape(-1, data.shape[axis]), moved.shape[:-1]


def _picked(input, dim, keepdim, name, pick_row, node, checks=None):
    """Along dim: the value of each row at the index ``pick_row(row)`` gives, and that index.
    ``checks()`` runs after torch's checks of dim (an op's own, in torch's order)."""
    data = input._data
    if data.ndim == 0:
        wrap_dim(dim, 1)
        if checks:
            checks()
        values, indices = data.copy(), np.zeros((), np.int64)
    else:
        axis = wrap_dim(dim, data.ndim)
        if data.shape[axis] == 0:
            shown = "median" if name == "nanmedian" else name
            raise IndexError(f"{shown}(): Expected reduction dim {axis} to have non-zero size.")
        if checks:
            checks()
        rows, kept = _rows(data, axis)
        picked = [pick_row(row) for row in rows]
        indices = np.array(picked, np.int64).reshape(kept)
        values = np.take_along_axis(rows, indices.reshape(-1, 1), 1).reshape(kept) \
            if rows.size else np.zeros(kept, data.dtype)
        if keepdim:
            values, indices = np.expand_dims(values, axis), np.expand_dims(indices, axis)
    result = getattr(return_types, name)(as_reduced(values), as_reduced(indices))
    return record(node, result, (input,), saved=(result.indices,), dim=wrap_dim(
        dim, builtins.max(data.ndim, 1)), keepdim=keepdim, self_sym_sizes=data.shape)


def _middle_index(row, skip_nan):
    nans = np.isnan(row) if row.dtype.kind == "f" else None
    if nans is not None and nans.any():
        if not skip_nan:
            return int(np.flatnonzero(nans)[0])
        kept = np.flatnonzero(~nans)
        if not kept.size:
            # all nan: torch's std::nth_element of the row's positions for position 0 with a
            # comparison that is always false: the algorithm's own order, replayed
            positions = list(range(row.size))
            stdsort.nth_element(positions, 0, 0, len(positions), lambda a, b: False)
            return positions[0]
        order = kept[np.argsort(row[kept], kind="stable")]
        return int(order[(kept.size - 1) // 2])
    return int(np.argsort(row, kind="stable")[(row.size - 1) // 2])


def _refuse_bool(input, kernel):
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


# torch fills an empty median with nan, converted to the dtype as x86 converts it
_NAN_AS = {"int32": np.iinfo(np.int32).min, "int64": np.iinfo(np.int64).min, "bool": True}


def _median_of_all(input, skip_nan, node):
    data = input._data
    if data.size:
        _refuse_bool(input, "median_cpu")
    flat = data.ravel()
    if skip_nan and flat.dtype.kind == "f":
        flat = flat[~np.isnan(flat)]
    if not flat.size:
        value = np.asarray(_NAN_AS.get(data.dtype.name, np.nan if data.dtype.kind == "f" else 0),
                           data.dtype)
    elif flat.dtype.kind == "f" and np.isnan(flat).any():
        value = np.asarray(np.nan, data.dtype)
    else:
        value = np.asarray(np.partition(flat, (flat.size - 1) // 2)[(flat.size - 1) // 2])
    result = as_reduced(value.astype(data.dtype))
    return record(node, result, (input,), saved=(input,), saved_output=True)


def _median(input, dim=None, keepdim=False, *, name="median", skip_nan=False):
    if dim is None:
        return _median_of_all(input, skip_nan,
                              MedianBackward0 if name == "median" else NanmedianBackward0)
    return _picked(input, dim, keepdim, name, lambda row: _middle_index(row, skip_nan),
                   MedianBackward1 if name == "median" else NanmedianBackward1,
                   checks=lambda: _refuse_bool(input, "median_out"))


@overloads("(Tensor input)",
           "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)")
@takes_pair_out
@numpy_names
def median(input, dim=None, keepdim=False):
    """The lower of the two middle values (of all elements; along dim with its index)"""
    return _median(input, dim, keepdim)


@overloads("(Tensor input)",
           "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)")
@takes_pair_out
@numpy_names
def nanmedian(input, dim=None, keepdim=False):
    """median of the values that are not nan"""
    return _median(input, dim, keepdim, name="nanmedian", skip_nan=True)


class MedianBackward0(Node):
    """out = the median:  d/dx = grad shared evenly by the elements equal to it"""

    _saved_names = ("self", "result")

    def backward(self, grad):
        x, result = self.saved_tensors
        return evenly_distributed(grad, x, result)


class NanmedianBackward0(MedianBackward0):
    """out = the median of the values that are not nan:  as median's"""


class MedianBackward1(MaxBackward0):
    """out = the median along dim:  d/dx = grad at the index returned, 0 elsewhere"""


class NanmedianBackward1(MedianBackward1):
    """out = the median of the values that are not nan along dim:  as median's"""


def _greater_or_nan(a, b):
    return (a != a and b == b) or a > b


def _quickselect_index(row, k):
    """torch's quick_select_template on (value, index) pairs: the index left at k."""
    values, order = row.tolist(), list(range(len(row)))

    def swap(i, j):
        values[i], values[j] = values[j], values[i]
        order[i], order[j] = order[j], order[i]

    low, high = 0, len(values) - 1
    while True:
        if high <= low:
            return order[k]
        if high == low + 1:
            if _greater_or_nan(values[low], values[high]):
                swap(low, high)
            return order[k]
        swap(low + (high - low) // 2, low + 1)
        if _greater_or_nan(values[low + 1], values[high]):
            swap(low + 1, high)
        if _greater_or_nan(values[low], values[high]):
            swap(low, high)
        if _greater_or_nan(values[low + 1], values[low]):
            swap(low + 1, low)
        i, j, pivot = low + 1, high, values[low]
        while True:
            i += 1
            while _greater_or_nan(pivot, values[i]):
                i += 1
            j -= 1
            while _greater_or_nan(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1


@overloads("(Tensor input, SymInt k, int dim = -1, bool keepdim = False, *, "
           "tuple of Tensors out = None)")
@takes_pair_out
@numpy_names
def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest element along dim (k counts from 1), with its index"""
    data = input._data
    size = data.shape[wrap_dim(dim, data.ndim)] if data.ndim else 1
    if data.ndim == 0:
        wrap_dim(dim, 1)
    if data.ndim and size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {wrap_dim(dim, data.ndim)} to "
                         "have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension "
                           f"{wrap_dim(dim, data.ndim) if data.ndim else 0}")
    return _picked(input, dim, keepdim, "kthvalue", lambda row: _quickselect_index(row, k - 1),
                   KthvalueBackward0, checks=lambda: data.ndim and _refuse_bool(
                       input, "kthvalue_cpu"))


class KthvalueBackward0(MedianBackward1):
    """out = the k-th smallest along dim:  d/dx = grad at the index returned, 0 elsewhere"""


def _mode_index(row):
    """torch's mode kernel: (value, index) pairs through std::sort by value, then the last
    pair of the first longest run of equal values."""
    pairs = [(v, i) for i, v in enumerate(row.tolist())]
    stdsort.std_sort(pairs, 0, len(pairs), lambda a, b: a[0] < b[0])
    best, best_index, run = 0, 0, 0
    for i, (value, index) in enumerate(pairs):
        run += 1
        if i == len(pairs) - 1 or value != pairs[i + 1][0]:
            if run > best:
                best, best_index = run, index
            run = 0
    return best_index


@overloads("(Tensor input, int dim = -1, bool keepdim = False, *, tuple of Tensors out = None)")
@takes_pair_out
@numpy_names
def mode(input, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest of equally frequent ones), and an index
    where it occurs"""
    return _picked(input, dim, keepdim, "mode", _mode_index, ModeBackward0)


class ModeBackward0(MedianBackward1):
    """out = the most frequent value along dim:  d/dx = grad at the index returned"""


for _name in ("median", "nanmedian", "kthvalue", "mode"):
    if not hasattr(return_types, _name + "_out"):
        return_type(_name + "_out")
if not hasattr(return_types, "nanmedian"):
    return_type("nanmedian")
tensor_inputs(globals(), ["median", "nanmedian", "kthvalue", "mode"])


# ====================================================================== quantile, nanquantile
# torch's quantile is written with other ops, whose nodes it records: the rows to reduce
# (a reshape of the input with dim moved last), their ranks, gather, lerp, and in-place
# unsqueeze_/transpose_/squeeze_ to put q's dim first. With one q and contiguous rows it picks
# the elements at the two ranks in place (std::nth_element, replayed: which of equal values
# gets the gradient is its choice); otherwise it sorts the rows first (SortBackward0).
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")
_QUANTILE_OVERLOADS = (
    '(Tensor input, Tensor q, int dim = None, bool keepdim = False, *, '
    'str interpolation = "linear", Tensor out = None)',
    '(Tensor input, float q, int dim = None, bool keepdim = False, *, '
    'str interpolation = "linear", Tensor out = None)')


def _nan_last(a, b):
    """std::nth_element's comparator in torch's quantile: nan after every number."""
    return a[0] < b[0] or (b[0] != b[0] and a[0] == a[0])


def _selected(row, ranks):
    """The positions std::nth_element leaves at ``ranks``, placed as torch places several:
    the middle one of the (sorted, distinct) ranks over the whole row, then the ranks below
    it among the elements before it and those above among the elements after, alike."""
    pairs = [(v, i) for i, v in enumerate(row.tolist())]
    picked = {}
    pending = [(0, len(pairs), sorted(set(ranks)))]
    while pending:
        first, last, wanted = pending.pop()
        if not wanted:
            continue
        middle = wanted[len(wanted) // 2]
        stdsort.nth_element(pairs, first, middle, last, _nan_last)
        picked[middle] = pairs[middle][1]
        pending.append((middle + 1, last, [r for r in wanted if r > middle]))
        pending.append((first, middle, [r for r in wanted if r < middle]))
    return [picked[rank] for rank in ranks]


def _quantile_checks(input, q, interpolation, name):
    if not isinstance(q, Tensor) and not 0 <= q <= 1:  # (q printed as C++ prints a double)
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q:g}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if input._data.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if isinstance(q, Tensor) and q._data.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if input._data.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q._data.dtype != input._data.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        values = q._data
        if not np.all((values >= 0) & (values <= 1)):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    _quantile_checks(input, q, interpolation, "quantile")  # (nanquantile's words too)
    data = input._data
    if not isinstance(q, Tensor):
        q = wrap(np.asarray(q, data.dtype))
    ndim = data.ndim
    if dim is None:
        base, shape = input.flatten(), [1] * ndim if keepdim else []
    else:
        axis = wrap_dim(dim, builtins.max(ndim, 1))
        shape = list(data.shape)
        if ndim:
            if keepdim:
                shape[axis] = 1
            else:
                del shape[axis]
        base = input if ndim == 0 or axis == ndim - 1 else input.unsqueeze(-1).transpose(axis, -1)
    rows = base.reshape(shape + [-1])
    interpolated = interpolation in ("linear", "midpoint")
    # torch picks k elements in place when k * k <= the row's length, else sorts the rows
    picks = q._data.size * (2 if interpolated else 1)
    selecting = picks * picks <= rows._data.shape[-1]
    if selecting:
        rows = rows.contiguous()
    with no_grad():
        # the picking kernel computes each row's ranks in float64; the sorting one in the dtype
        exact = q.double() if selecting else q
        nans = isnan(rows)
        if ignore_nan:
            ranks = exact * (logical_not(nans).sum(-1, keepdim=True) - 1)
            ranks = ranks.masked_fill(ranks < 0, 0)
        else:
            last = rows._data.shape[-1] - 1
            ranks = exact * last + zeros_like(nans.any(-1, keepdim=True), dtype=exact.dtype)
            ranks = ranks.masked_fill(nans.any(-1, keepdim=True), last)
        if interpolation == "lower":
            ranks = ranks.floor()
        elif interpolation == "higher":
            ranks = ranks.ceil()
        elif interpolation == "nearest":
            ranks = ranks.round()
        below = ranks.long()
        above = ranks.ceil().long() if interpolated else None
        weights = None
        if interpolated:
            weights = full_like(ranks, 0.5) if interpolation == "midpoint" else \
                ranks - ranks.long()
            weights = weights.to(q.dtype)
        if selecting:
            below, above = _positions(rows, below, above)
    source = rows if selecting else rows.sort().values
    result = source.gather(-1, below)
    if interpolated:
        result.lerp_(source.gather(-1, above), weights)  # (in place: the version is torch's)
    if q._data.ndim == 0:
        return result.squeeze_(-1)
    return result.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


def _positions(rows, below, above):
    """Where nth_element puts the ranks ``below`` (and ``above``) of each row: (..., q)."""
    data = rows._data.reshape(-1, rows._data.shape[-1])
    shape = np.broadcast_shapes(below._data.shape, rows._data.shape[:-1] + (1,))
    low = np.broadcast_to(below._data, shape).reshape(len(data), -1)
    high = None if above is None else np.broadcast_to(above._data, shape).reshape(len(data), -1)
    low_at, high_at = np.empty_like(low), None if high is None else np.empty_like(high)
    for i, row in enumerate(data):
        ranks = low[i].tolist() + ([] if high is None else high[i].tolist())
        found = _selected(row, ranks)
        low_at[i] = found[:low.shape[1]]
        if high is not None:
            high_at[i] = found[low.shape[1]:]
    return (wrap(low_at.reshape(shape)),
            None if high is None else wrap(high_at.reshape(shape)))


def _same_dtype_out(out, input, *args, **kwargs):
    if out._data.dtype != input._data.dtype:
        raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")


@overloads(*_QUANTILE_OVERLOADS)
@takes_out(before=_same_dtype_out)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles of the elements (along dim), between ranks as interpolation says"""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


@overloads(*_QUANTILE_OVERLOADS)
@takes_out(before=_same_dtype_out)
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile of the values that are not nan (nan where every value is)"""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


quantile = _overloaded_input_check(quantile, _QUANTILE_OVERLOADS)
nanquantile = _overloaded_input_check(nanquantile, _QUANTILE_OVERLOADS)


# ====================================================================== cummax, cummin
def _running_extreme(input, dim, name):
    data = input._data
    if data.ndim == 0 and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    axis = wrap_dim(dim, builtins.max(data.ndim, 1))
    if data.ndim == 0 or data.size == 0:
        values, indices = data.copy(), np.zeros(data.shape, np.int64)
    else:
        moved = np.moveaxis(data, axis, -1)
        values, indices = np.empty_like(moved), np.empty(moved.shape, np.int64)
        best, at = moved[..., 0].copy(), np.zeros(moved.shape[:-1], np.int64)
        floating = data.dtype.kind == "f"
        for i in range(moved.shape[-1]):
            x = moved[..., i]
            # torch's loop: a nan takes over (and stays); an equal value moves the index on
            better = (x >= best) if name == "cummax" else (x <= best)
            if floating:
                better = np.isnan(x) | (~np.isnan(best) & better)
            best, at = np.where(better, x, best), np.where(better, i, at)
            values[..., i], indices[..., i] = best, at
        values, indices = np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)
    result = getattr(return_types, name)(as_reduced(values), as_reduced(indices))
    return record(CummaxBackward0 if name == "cummax" else CumminBackward0, result, (input,),
                  saved=(input, result.indices), dim=axis)


@overloads("(Tensor input, int dim, *, tuple of Tensors out = None)")
@takes_pair_out
@numpy_names
def cummax(input, dim):
    """The running maximum along dim, and where it was met (the last of equal values)"""
    return _running_extreme(input, dim, "cummax")


@overloads("(Tensor input, int dim, *, tuple of Tensors out = None)")
@takes_pair_out
@numpy_names
def cummin(input, dim):
    """The running minimum along dim, and where it was met (the last of equal values)"""
    return _running_extreme(input, dim, "cummin")


class CummaxBackward0(Node):
    """out = the running maximum:  each gradient goes back to the element it came from"""

    _saved_names = ("self", "indices")
    dim: int

    def backward(self, grad):
        x, indices = self.saved_tensors
        if not x._data.ndim:
            return grad
        return grad.new_zeros(x.shape).scatter_add(self.dim, indices, grad)


class CumminBackward0(CummaxBackward0):
    """out = the running minimum:  each gradient goes back to the element it came from"""


for _name in ("cummax", "cummin"):
    if not hasattr(return_types, _name + "_out"):
        setattr(return_types, _name + "_out", return_type(_name + "_out"))
tensor_inputs(globals(), ["cummax", "cummin"])


# ====================================================================== counting and searching
# (results are counts, indices or truth values: nothing to differentiate, except bincount's
# weights, for which torch has no derivative)
def _as_tensor(value):
    return value if isinstance(value, Tensor) else wrap(np.asarray(value))


@number_parameters("bincount", {"weights": "Tensor?", "minlength": "SymInt"})
def bincount(input, weights=None, minlength=0):
    """How many times each value 0, 1, 2 ... occurs in a 1-d integer tensor (or the sum of
    the weights at its places)"""
    data = input._data
    if data.dtype.kind not in "iub" or data.dtype.kind == "b":
        raise NotImplementedError(
            f'"bincount_cpu" not implemented for \'{scalar_type_name[input.dtype]}\'')
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if data.ndim != 1 or (data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights._data.ndim != 1 or weights._data.size != data.size):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    length = builtins.max(int(data.max()) + 1 if data.size else 0, minlength)
    if weights is None or data.size == 0:  # (torch's zeros for no input are int64)
        return wrap(np.bincount(data.astype(np.int64), minlength=length).astype(np.int64))
    dtype = np.float32 if weights._data.dtype == np.float32 else np.float64
    counts = np.zeros(length, dtype)
    np.add.at(counts, data.astype(np.int64), weights._data.astype(dtype))  # in order, as torch
    return record(NotImplementedBackward, wrap(counts), (weights,), op="_bincount")


@takes_out
@number_parameters("histc", {"bins": "int", "min": "Number", "max": "Number"})
def histc(input, bins=100, min=0, max=0):  # noqa: A002 - torch's names
    """Counts of the elements in ``bins`` equal bins between min and max (equal: the data's
    own smallest and largest); elements outside are left out"""
    data = input._data
    bins = int(bins)  # (a 0-d integer tensor too, as torch's parser reads it)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           "dimension 0")
    low, high = float(min), float(max)
    if low == high and data.size:  # (any equal pair, not only the default 0 and 0)
        low, high = float(data.min()), float(data.max())
        if data.dtype in (np.float32, np.float64):  # (torch's reduction starts from the
            finfo = np.finfo(data.dtype)  # dtype's largest and lowest numbers, which
            low = builtins.min(float(finfo.max), low)  # infinities alone leave there)
            high = builtins.max(float(finfo.min), high)
        if data.dtype.kind == "f" and np.isnan(data).any():  # (printed -nan, as torch's)
            # (a single nan keeps its sign; a reduction of more gives x86's default, -nan)
            low = high = -math.nan if data.size > 1 or np.signbit(data).any() else math.nan
    if low == high:
        low, high = _widened(low, data.dtype)
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{_c_number(low)}, {_c_number(high)}] is "
                           "not finite")
    if not low < high:
        raise RuntimeError("torch.histc: max must be larger than min")
    # the bins' edges, linspace(min, max, bins + 1) in the dtype (bool has none; an integer
    # dtype refuses a range beyond it), then torch's kernel, for floating dtypes only
    edges = linspace_values(low, high, bins + 1, input.dtype)
    if data.dtype.kind != "f":
        raise NotImplementedError(
            f'"histogram_cpu" not implemented for \'{scalar_type_name[input.dtype]}\'')
    # it places an element by arithmetic in the dtype, from the outer edges (nan where the
    # step overflows: nothing is inside then): (x - left) * bins / (right - left), truncated
    # (the right edge falls in the last bin)
    left, right = edges[0], edges[-1]
    flat = data.ravel()
    inside = flat[(flat >= left) & (flat <= right)]
    with np.errstate(all="ignore"):
        places = (inside - left) * data.dtype.type(bins) / (right - left)
    # C's cast of a nan or an infinity (an overflow above) gives -2 ** 63, an index whose
    # place in the counts' memory is the first bin's
    places = np.where(np.isfinite(places), places, 0).astype(np.int64)
    places = np.minimum(places, bins - 1)
    counts = np.bincount(places, minlength=bins).astype(data.dtype)
    return wrap(counts)


def _widened(value, dtype):
    """histc's range around a single value: one unit either side, or for float32 and float64
    the neighbouring numbers of the dtype where those are further (where adding 1 changes
    nothing, 3e38 or 2 ** 24)"""
    if dtype not in (np.float32, np.float64):
        return value - 1, value + 1
    number = dtype.type(value)
    with np.errstate(all="ignore"):
        below = float(np.nextafter(number, dtype.type(-np.inf)))
        above = float(np.nextafter(number, dtype.type(np.inf)))
    finfo = np.finfo(dtype)  # (C's nexttoward the dtype's lowest and largest: no infinity)
    below, above = builtins.max(below, float(finfo.min)), builtins.min(above, float(finfo.max))
    return builtins.min(below, value - 1), builtins.max(above, value + 1)


def _c_number(value):
    """A double as C++'s stream prints it (a nan with its sign)."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return f"{value:g}"


def _search_out_dtype(out_int32):
    return np.int32 if out_int32 else np.int64


_SEARCH_COPY = ("torch.searchsorted(): {what} tensor is non-contiguous, this will lower the "
                "performance due to extra data copy when converting non-contiguous tensor to "
                "contiguous, please use contiguous {what} tensor if possible. This message will "
                "only appear once per program. (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/BucketizationUtils.h:{line}.)")
_warned_once = set()


def _warn_non_contiguous(tensor, what, line):
    """torch's TORCH_WARN_ONCE for a non-contiguous operand of searchsorted/bucketize."""
    if isinstance(tensor, Tensor) and not tensor.is_contiguous() and what not in _warned_once:
        _warned_once.add(what)
        messages.warn_from_learner(_SEARCH_COPY.format(what=what, line=line))


@overloads("(Tensor input, Tensor boundaries, *, bool out_int32 = False, bool right = False, "
           "Tensor out = None)",
           "(Number self, Tensor boundaries, *, bool out_int32 = False, bool right = False)")
@takes_out
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """For each element, the index of the bucket of the 1-d sorted ``boundaries`` it falls in
    (right=True: a value equal to a boundary goes to the bucket after it)"""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries._data.ndim})")
    _warn_non_contiguous(input, "input value", 32)
    values = _as_tensor(input)._data
    if boundaries._data.dtype == np.bool_ and values.dtype == np.bool_:  # (searchsorted's
        raise not_implemented_for("searchsorted_out_cpu", values.dtype)  # kernel)
    found = np.searchsorted(boundaries._data, values, side="right" if right else "left")
    return wrap(np.asarray(found, _search_out_dtype(out_int32)))


_SEARCHSORTED = ("(Tensor sorted_sequence, Tensor input, *, bool out_int32 = False, bool right "
                 "= False, str side = None, Tensor sorter = None, Tensor out = None)",
                 "(Tensor sorted_sequence, Number self, *, bool out_int32 = False, bool right "
                 "= False, str side = None, Tensor sorter = None, Tensor out = None)")


@takes_out
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where each value would go into the sorted innermost rows of ``sorted_sequence`` to keep
    them sorted"""
    if not isinstance(input, (Tensor, *PYTHON_AND_NUMPY_NUMBERS)) or \
            not isinstance(sorted_sequence, Tensor):
        raise invalid_arguments_error("searchsorted", sorted_sequence, input,
                                      printed=_SEARCHSORTED)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    _warn_non_contiguous(input, "input value", 32)
    _warn_non_contiguous(sorted_sequence, "boundary", 38)
    boundaries = sorted_sequence._data
    if sorter is not None:
        boundaries = np.take_along_axis(boundaries, sorter._data, -1)
    values = _as_tensor(input)._data
    if boundaries.ndim > 1 and boundaries.shape[:-1] != values.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(boundaries.shape)} and input value tensor "
            f"{list(values.shape)}")
    if boundaries.dtype == np.bool_ and values.dtype == np.bool_:  # (their common dtype: the
        raise not_implemented_for("searchsorted_out_cpu", boundaries.dtype)  # kernel's)
    how = "right" if right else "left"
    if boundaries.ndim <= 1:
        found = np.searchsorted(boundaries, values, side=how)
    else:
        rows, places = boundaries.reshape(-1, boundaries.shape[-1]), values.reshape(
            -1, values.shape[-1])
        found = np.stack([np.searchsorted(r, p, side=how) for r, p in zip(rows, places)]
                         ).reshape(values.shape)
    return wrap(np.asarray(found, _search_out_dtype(out_int32)))


_ISIN = ("(Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = "
         "False, Tensor out = None)",
         "(Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = "
         "False, Tensor out = None)",
         "(Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = "
         "False, Tensor out = None)")


@takes_out
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """For each element, whether it is among test_elements (invert=True: whether it is not)"""
    numbers = (Tensor, *PYTHON_AND_NUMPY_NUMBERS)
    if not (isinstance(elements, numbers) and isinstance(test_elements, numbers)) or not (
            isinstance(elements, Tensor) or isinstance(test_elements, Tensor)):
        raise invalid_arguments_error("isin", elements, test_elements, printed=_ISIN)
    for value in (elements, test_elements):
        if isinstance(value, bool) or (isinstance(value, Tensor) and value.dtype.name == "bool"):
            raise NotImplementedError("Unsupported input type encountered for isin(): Bool")
    found = np.isin(_as_tensor(elements)._data, _as_tensor(test_elements)._data, invert=invert)
    return wrap(np.asarray(found, np.bool_))


tensor_inputs(globals(), ["bincount", "histc"])  # torch.bincount("a"): torch's TypeError


# ====================================================================== logcumsumexp
def _log_add_exp(x, y):
    """torch's _log_add_exp_helper, elementwise (y: the running value, which wins a nan)."""
    low = np.where(np.isnan(y), y, np.minimum(x, y))
    high = np.where(np.isnan(y), y, np.maximum(x, y))
    general = np.log1p(np.exp(low - high)) + high
    return np.where((low != high) | np.isfinite(low), general, x)


@overloads("(Tensor input, int dim, *, Tensor out = None)")
@takes_out
@numpy_names
def logcumsumexp(input, dim):
    """log(cumsum(exp(x))) along dim, computed without overflow (one step at a time in torch's
    accumulator type, as its loop)"""
    data = input._data
    axis = wrap_dim(dim, builtins.max(data.ndim, 1))
    if data.dtype.kind != "f":
        raise NotImplementedError(
            f'"logcumsumexp_out_cpu" not implemented for \'{scalar_type_name[input.dtype]}\'')
    if data.ndim == 0 or data.size == 0:
        values = data.copy()
    else:
        # torch's accumulator: float64, float32 for float16
        accumulator = np.float32 if data.dtype == np.float16 else np.float64
        moved = np.moveaxis(data, axis, -1).astype(accumulator)
        running = np.full(moved.shape[:-1], -np.inf, accumulator)
        out = np.empty(moved.shape, accumulator)
        for i in range(moved.shape[-1]):
            running = quietly(_log_add_exp, moved[..., i], running)
            out[..., i] = running
        values = np.moveaxis(out, -1, axis).astype(data.dtype)
    result = as_reduced(values)
    return record(LogcumsumexpBackward0, result, (input,), saved=(input,), saved_output=True,
                  dim=axis)


class LogcumsumexpBackward0(Node):
    """out = log(cumsum(exp(x))):  d/dx_i = sum over j >= i of grad_j exp(x_i - out_j), with
    the positive and negative parts of grad summed apart in log space (torch's formula)"""

    _saved_names = ("self", "result")
    dim: int

    def backward(self, grad):
        x, result = self.saved_tensors
        if not x._data.ndim:
            return grad
        lowest = float(np.finfo(grad._data.dtype).min)
        log_abs = grad.abs().log()
        positive = where(grad > 0, log_abs, lowest)
        negative = where(grad < 0, log_abs, lowest)

        def reverse(values):
            return values.flip((self.dim,)).logcumsumexp(self.dim).flip((self.dim,))
        return (reverse(positive - result) + x).exp() - (reverse(negative - result) + x).exp()

# (bincount ... have no derivative; quantile, nanmean check their arguments first in torch)
histories_read_first(globals(), [name for name in __all__ if name not in (
    "bincount", "bucketize", "histc", "isin", "searchsorted", "quantile", "nanquantile",
    "nanmean")])
