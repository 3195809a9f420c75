"""Operations on tensors, named and behaving as in PyTorch.

Each public function computes with numpy on ``tensor._data`` and wraps the result
with ``wrap``. PyTorch's rules that numpy does not share are made explicit here:
type promotion (``_common``), torch's error messages, and which results share
memory (views live in ``_views``).
"""
import builtins
import math
from collections import namedtuple

import numpy as np

from . import _dtype
from ._dtype import from_numpy_dtype, result_type, scalar_type_name
from ._tensor import Tensor, wrap

_PY_SCALARS = (builtins.int, builtins.float, builtins.bool)
_DEFAULT_INT = np.dtype(np.int64)


# ====================================================================== helpers
def wrap_dim(dim, ndim):
    """A dimension index made non-negative, with torch's IndexError when out of range."""
    if dim.__class__ is not builtins.int:
        dim = dim.__index__()
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if dim < low or dim > high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], "
                         f"but got {dim})")
    return dim + ndim if dim < 0 else dim


def _dims(dim, ndim):
    """``dim`` as a tuple of non-negative axes (None means every axis)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        axes = tuple(wrap_dim(d, ndim) for d in dim)
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
        return axes if axes or ndim == 0 else tuple(range(ndim))
    return (wrap_dim(dim, ndim),)


def _axes(dims, ndim):
    # numpy has no axes on a 0-d array; torch allows dim 0 / -1 there.
    return None if ndim == 0 else dims


def to_dtype(tensor, target):
    """A copy of ``tensor`` converted to dtype ``target`` (values cast as C casts them)."""
    data = tensor._data
    if target.is_floating_point or data.dtype.kind != "f":
        return wrap(data.astype(target.numpy_dtype, order="K"))
    # float -> int: torch truncates toward zero; nan/inf have no integer value.
    with np.errstate(invalid="ignore", over="ignore"):
        return wrap(data.astype(target.numpy_dtype, order="K"))


def _scalar_value(value):
    """A Python number for ``value`` (numpy scalars and 0-d tensors are unwrapped)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _cast_scalar(value, np_dtype):
    """A Python number as a numpy scalar of ``np_dtype``, wrapping integers as torch does."""
    try:
        return np_dtype.type(value)
    except OverflowError:
        if value.__class__ is builtins.int and -2**63 <= value < 2**64:
            return np.array(value % 2**64, dtype=np.uint64).astype(np_dtype)
        ctype = {"i": "int64_t", "u": "uint8_t", "b": "bool"}.get(np_dtype.kind, "float")
        raise RuntimeError(f"value cannot be converted to type {ctype} without overflow") from None


def _operand_error(name, value, position):
    return TypeError(f"{name}(): argument 'other' (position {position}) must be Tensor, "
                     f"not {type(value).__name__}")


def _common(a, b, name="op"):
    """numpy operands for ``a`` and ``b`` converted to torch's common dtype, and that dtype.

    Either side may be a Python number. Same-dtype tensors (the usual case) pass
    straight through; otherwise torch's promotion picks the dtype (see _dtype.result_type).
    """
    a_is_tensor = isinstance(a, Tensor)
    b_is_tensor = isinstance(b, Tensor)
    if a_is_tensor and b_is_tensor:
        ad, bd = a._data, b._data
        if ad.dtype == bd.dtype:
            return ad, bd, ad.dtype
        common = result_type(a, b).numpy_dtype
        return ad.astype(common, copy=False), bd.astype(common, copy=False), common
    if a_is_tensor:
        b = _scalar_value(b)
        if not isinstance(b, _PY_SCALARS):
            raise _operand_error(name, b, 2)
        common = result_type(a, b).numpy_dtype
        return a._data.astype(common, copy=False), _cast_scalar(b, common), common
    if b_is_tensor:
        a = _scalar_value(a)
        if not isinstance(a, _PY_SCALARS):
            raise _operand_error(name, a, 1)
        common = result_type(a, b).numpy_dtype
        return _cast_scalar(a, common), b._data.astype(common, copy=False), common
    raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                    f"{type(a).__name__}")


def _broadcast_error(a, b):
    """torch's message for shapes that do not broadcast, naming the first bad dimension."""
    sa, sb = np.shape(a), np.shape(b)
    for i in range(1, max(len(sa), len(sb)) + 1):
        na = sa[-i] if i <= len(sa) else 1
        nb = sb[-i] if i <= len(sb) else 1
        if na != nb and na != 1 and nb != 1:
            dim = max(len(sa), len(sb)) - i
            return RuntimeError(f"The size of tensor a ({na}) must match the size of tensor b "
                                f"({nb}) at non-singleton dimension {dim}")
    return RuntimeError(f"shapes {list(sa)} and {list(sb)} cannot be broadcast")


def _apply(ufunc, x, y):
    """``ufunc(x, y)`` with torch's broadcasting error instead of numpy's."""
    try:
        return ufunc(x, y)
    except ValueError:
        raise _broadcast_error(x, y) from None


def _float_dtype_for(np_dtype):
    """The dtype a float-valued op (exp, sqrt, true division ...) computes in."""
    return np_dtype if np_dtype.kind == "f" else _dtype.get_default_dtype().numpy_dtype


def _check_bool_arith(op, ad, bd):
    if ad.dtype.kind == "b" and getattr(bd, "dtype", None) == ad.dtype:
        raise RuntimeError(f"Subtraction, the `-` operator, with two bool tensors is not "
                           f"supported. Use the `^` or `logical_xor()` operator instead.")


# ====================================================================== arithmetic
def add(input, other, *, alpha=1, out=None):
    """out = input + alpha * other"""
    a, b, _ = _common(input, other, "add")
    if alpha != 1:
        b = b * alpha
    return _out(wrap(_apply(np.add, a, b)), out)


def sub(input, other, *, alpha=1, out=None):
    """out = input - alpha * other"""
    a, b, common = _common(input, other, "sub")
    if common.kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if alpha != 1:
        b = b * alpha
    return _out(wrap(_apply(np.subtract, a, b)), out)


subtract = sub


def rsub(input, other, *, alpha=1):
    """out = other - alpha * input"""
    return sub(other, input, alpha=alpha)


def mul(input, other, *, out=None):
    """out = input * other"""
    a, b, _ = _common(input, other, "mul")
    return _out(wrap(_apply(np.multiply, a, b)), out)


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    """out = input / other (true division: integers divide to floating point)"""
    a, b, common = _common(input, other, "div")
    if rounding_mode is None:
        target = _float_dtype_for(common)
        if common != target:
            a, b = np.asarray(a, target), np.asarray(b, target)
        with np.errstate(divide="ignore", invalid="ignore"):
            return _out(wrap(_apply(np.true_divide, a, b)), out)
    if rounding_mode == "floor":
        return _out(floor_divide(input, other), out)
    if rounding_mode == "trunc":
        if common.kind == "f":
            with np.errstate(divide="ignore", invalid="ignore"):
                return _out(wrap(np.trunc(_apply(np.true_divide, a, b))), out)
        _check_integer_divisor(b)
        quotient = np.abs(a) // np.abs(b)
        return _out(wrap((quotient * np.sign(a) * np.sign(b)).astype(common)), out)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


divide = true_divide = div


def _check_integer_divisor(b):
    if np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


def floor_divide(input, other, *, out=None):
    """out = floor(input / other)"""
    a, b, common = _common(input, other, "floor_divide")
    if common.kind in "iub":
        _check_integer_divisor(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _out(wrap(_apply(np.floor_divide, a, b)), out)


def remainder(input, other, *, out=None):
    """out = input - floor(input / other) * other (the sign follows the divisor, like Python)"""
    a, b, common = _common(input, other, "remainder")
    if common.kind in "iub":
        _check_integer_divisor(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _out(wrap(_apply(np.remainder, a, b)), out)


def fmod(input, other, *, out=None):
    """out = input - trunc(input / other) * other (the sign follows the dividend, like C)"""
    a, b, common = _common(input, other, "fmod")
    if common.kind in "iub":
        _check_integer_divisor(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _out(wrap(_apply(np.fmod, a, b)), out)


def pow(input, exponent, *, out=None):  # noqa: A001 - torch.pow
    """out = input ** exponent"""
    a, b, common = _common(input, exponent, "pow")
    if common.kind in "iu" and np.any(np.asarray(b) < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    with np.errstate(all="ignore"):
        return _out(wrap(_apply(np.power, a, b)), out)


float_power = None  # not in the engine


def maximum(input, other, *, out=None):
    """out = the larger of input and other, elementwise (nan wins)"""
    a, b, _ = _common(input, other, "maximum")
    return _out(wrap(_apply(np.maximum, a, b)), out)


def minimum(input, other, *, out=None):
    """out = the smaller of input and other, elementwise (nan wins)"""
    a, b, _ = _common(input, other, "minimum")
    return _out(wrap(_apply(np.minimum, a, b)), out)


def atan2(input, other, *, out=None):
    """out = angle of the point (other, input)"""
    a, b, common = _common(input, other, "atan2")
    target = _float_dtype_for(common)
    return _out(wrap(_apply(np.arctan2, np.asarray(a, target), np.asarray(b, target))), out)


def where(condition, input=None, other=None):
    """out = input where condition is True, else other"""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    cond = condition._data
    if cond.dtype.kind != "b":
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {scalar_type_name[condition.dtype]}")
    a, b, common = _common(input, other, "where")
    try:
        return wrap(np.where(cond, a, b).astype(common, copy=False))
    except ValueError:
        raise _broadcast_error(cond, np.broadcast_shapes(np.shape(a), np.shape(b))) from None


def clamp(input, min=None, max=None, *, out=None):  # noqa: A002 - torch's parameter names
    """out = min(max(input, min), max)"""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    result = input
    if min is not None:
        result = maximum(result, min) if isinstance(min, Tensor) else _clamp_scalar(
            result, min, np.maximum)
    if max is not None:
        result = minimum(result, max) if isinstance(max, Tensor) else _clamp_scalar(
            result, max, np.minimum)
    return _out(result, out)


def _clamp_scalar(tensor, bound, ufunc):
    data, value, _ = _common(tensor, bound, "clamp")
    if isinstance(value, np.floating) and np.isnan(value):
        return wrap(np.full_like(data, np.nan))  # torch: a nan bound makes every element nan
    return wrap(ufunc(data, value))


clip = clamp


def clamp_min(input, min):  # noqa: A002
    return clamp(input, min=min)


def clamp_max(input, max):  # noqa: A002
    return clamp(input, max=max)


def lerp(input, end, weight):
    """out = input + weight * (end - input)"""
    return add(input, mul(weight, sub(end, input)))


# ====================================================================== comparisons
def _compare(ufunc, name):
    def compare(input, other, *, out=None):
        a, b, _ = _common(input, other, name)
        return _out(wrap(_apply(ufunc, a, b)), out)

    compare.__name__ = name
    compare.__doc__ = f"out = input {_COMPARE_SYMBOLS[name]} other, elementwise, as bool"
    return compare


_COMPARE_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge


def _logical(ufunc, name):
    def logical(input, other, *, out=None):
        a = input._data if isinstance(input, Tensor) else np.asarray(input)
        b = other._data if isinstance(other, Tensor) else np.asarray(other)
        return _out(wrap(_apply(ufunc, a.astype(bool, copy=False), b.astype(bool, copy=False))),
                    out)

    logical.__name__ = name
    logical.__doc__ = f"out = {name.split('_')[1]} of the truth values of input and other"
    return logical


logical_and = _logical(np.logical_and, "logical_and")
logical_or = _logical(np.logical_or, "logical_or")
logical_xor = _logical(np.logical_xor, "logical_xor")


def logical_not(input, *, out=None):
    """out = not input, as bool"""
    return _out(wrap(np.logical_not(input._data)), out)


def _bitwise(ufunc, name, symbol):
    def bitwise(input, other, *, out=None):
        a, b, common = _common(input, other, name)
        if common.kind == "f":
            raise RuntimeError(f"\"{name}_cpu\" not implemented for "
                               f"'{scalar_type_name[from_numpy_dtype[common]]}'")
        return _out(wrap(_apply(ufunc, a, b)), out)

    bitwise.__name__ = name
    bitwise.__doc__ = f"out = input {symbol} other, bit by bit (logical for bool)"
    return bitwise


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and", "&")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or", "|")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor", "^")


def bitwise_not(input, *, out=None):
    """out = ~input (logical not for bool)"""
    if input._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return _out(wrap(np.invert(input._data)), out)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise"""
    a, b, _ = _common(input, other, "isclose")
    return wrap(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element is close (see isclose)"""
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{scalar_type_name[input.dtype]} did not match "
                           f"{scalar_type_name[other.dtype]}")
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input, other):
    """True when both tensors have the same shape and the same values"""
    if input._data.shape != other._data.shape:
        return False
    a, b, _ = _common(input, other, "equal")
    return builtins.bool(np.array_equal(a, b))


# ====================================================================== unary
def _float_unary(ufunc, name, doc):
    def op(input, *, out=None):
        data = input._data
        if data.dtype.kind != "f":
            data = data.astype(_float_dtype_for(data.dtype))
        with np.errstate(all="ignore"):
            return _out(wrap(ufunc(data)), out)

    op.__name__ = name
    op.__doc__ = doc
    return op


exp = _float_unary(np.exp, "exp", "out = e ** input")
exp2 = _float_unary(np.exp2, "exp2", "out = 2 ** input")
expm1 = _float_unary(np.expm1, "expm1", "out = e ** input - 1, accurate near 0")
log = _float_unary(np.log, "log", "out = ln(input)")
log2 = _float_unary(np.log2, "log2", "out = log2(input)")
log10 = _float_unary(np.log10, "log10", "out = log10(input)")
log1p = _float_unary(np.log1p, "log1p", "out = ln(1 + input), accurate near 0")
sqrt = _float_unary(np.sqrt, "sqrt", "out = input ** 0.5")
sin = _float_unary(np.sin, "sin", "out = sin(input)")
cos = _float_unary(np.cos, "cos", "out = cos(input)")
tan = _float_unary(np.tan, "tan", "out = tan(input)")
asin = arcsin = _float_unary(np.arcsin, "asin", "out = arcsin(input)")
acos = arccos = _float_unary(np.arccos, "acos", "out = arccos(input)")
atan = arctan = _float_unary(np.arctan, "atan", "out = arctan(input)")
sinh = _float_unary(np.sinh, "sinh", "out = sinh(input)")
cosh = _float_unary(np.cosh, "cosh", "out = cosh(input)")
tanh = _float_unary(np.tanh, "tanh", "out = tanh(input)")


def _rsqrt(data):
    return np.reciprocal(np.sqrt(data))


def _sigmoid(data):
    # 1 / (1 + e^-x) overflows harmlessly to 0 for very negative x.
    return np.reciprocal(np.exp(-data) + 1)


def _reciprocal(data):
    return np.reciprocal(data)


rsqrt = _float_unary(_rsqrt, "rsqrt", "out = 1 / sqrt(input)")
sigmoid = _float_unary(_sigmoid, "sigmoid", "out = 1 / (1 + e ** -input)")
reciprocal = _float_unary(_reciprocal, "reciprocal", "out = 1 / input")


def neg(input, *, out=None):
    """out = -input"""
    if input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return _out(wrap(np.negative(input._data)), out)


negative = neg


def abs(input, *, out=None):  # noqa: A001 - torch.abs
    """out = |input|"""
    if input._data.dtype.kind == "b":
        raise RuntimeError("\"abs_cpu\" not implemented for 'Bool'")
    return _out(wrap(np.abs(input._data)), out)


absolute = abs


def sign(input, *, out=None):
    """out = -1, 0 or 1 by the sign of input"""
    data = input._data
    if data.dtype.kind == "b":
        return _out(wrap(data.copy()), out)
    return _out(wrap(np.sign(data)), out)


def square(input, *, out=None):
    """out = input * input"""
    data = input._data
    if data.dtype.kind == "b":
        data = data.astype(np.int64)
    return _out(wrap(np.square(data)), out)


def relu(input):
    """out = max(input, 0)"""
    data = input._data
    if data.dtype.kind == "b":
        raise RuntimeError("\"clamp_min_cpu\" not implemented for 'Bool'")
    return wrap(np.maximum(data, data.dtype.type(0)))


def _rounding(ufunc, name, doc):
    def op(input, *, out=None):
        data = input._data
        # integers are already whole: torch returns a copy unchanged
        return _out(wrap(ufunc(data) if data.dtype.kind == "f" else data.copy()), out)

    op.__name__ = name
    op.__doc__ = doc
    return op


floor = _rounding(np.floor, "floor", "out = the largest integer <= input")
ceil = _rounding(np.ceil, "ceil", "out = the smallest integer >= input")
trunc = fix = _rounding(np.trunc, "trunc", "out = input rounded toward zero")


def round(input, *, decimals=0, out=None):  # noqa: A001 - torch.round
    """out = input rounded to the nearest integer, halves to even (as numpy and torch do)"""
    data = input._data
    if data.dtype.kind != "f":
        return _out(wrap(data.copy()), out)
    if decimals == 0:
        return _out(wrap(np.round(data)), out)
    scale = data.dtype.type(10.0 ** decimals)
    return _out(wrap(np.round(data * scale) / scale), out)


def frac(input, *, out=None):
    """out = input - trunc(input)"""
    return _out(wrap(input._data - np.trunc(input._data)), out)


def isnan(input):
    return wrap(np.isnan(input._data))


def isinf(input):
    return wrap(np.isinf(input._data))


def isfinite(input):
    return wrap(np.isfinite(input._data))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    return wrap(np.nan_to_num(input._data, nan=nan, posinf=posinf, neginf=neginf))


# ====================================================================== reductions
def _reduce_args(input, dim, keepdim):
    ndim = input._data.ndim
    dims = _dims(dim, ndim)
    return _axes(dims, ndim), keepdim


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A001 - torch.sum
    """out = the sum of the elements over dim (all of them by default)"""
    data = input._data
    axes, keepdim = _reduce_args(input, dim, keepdim)
    if dtype is not None:
        data = data.astype(_dtype.as_dtype(dtype).numpy_dtype, copy=False)
    elif data.dtype.kind in "biu":
        data = data.astype(np.int64, copy=False)
    elif data.dtype == np.float16:
        # torch accumulates half precision in float32 and rounds once at the end
        return _out(wrap(np.sum(data, axis=axes, keepdims=keepdim, dtype=np.float32)
                         .astype(np.float16)), out)
    return _out(wrap(np.sum(data, axis=axes, keepdims=keepdim)), out)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    return sum(where(isnan(input), 0, input) if input.is_floating_point() else input,
               dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """out = the average of the elements over dim"""
    data = input._data
    if dtype is not None:
        data = data.astype(_dtype.as_dtype(dtype).numpy_dtype, copy=False)
    if data.dtype.kind != "f":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           "floating point or complex dtype. Got: "
                           f"{scalar_type_name[from_numpy_dtype[data.dtype]]}")
    axes, keepdim = _reduce_args(input, dim, keepdim)
    with np.errstate(invalid="ignore", divide="ignore"):
        if data.dtype == np.float16:
            result = np.mean(data, axis=axes, keepdims=keepdim, dtype=np.float32)
            return _out(wrap(np.asarray(result).astype(np.float16)), out)
        return _out(wrap(np.mean(data, axis=axes, keepdims=keepdim)), out)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """out = the product of the elements over dim"""
    data = input._data
    if dtype is not None:
        data = data.astype(_dtype.as_dtype(dtype).numpy_dtype, copy=False)
    elif data.dtype.kind in "biu":
        data = data.astype(np.int64, copy=False)
    if dim is not None and not isinstance(dim, builtins.int):
        raise TypeError("prod(): argument 'dim' must be int, not " + type(dim).__name__)
    axes, keepdim = _reduce_args(input, dim, keepdim)
    return wrap(np.prod(data, axis=axes, keepdims=keepdim))


_ValuesIndices = namedtuple("_ValuesIndices", ["values", "indices"])


class _ReturnType(_ValuesIndices):
    """torch.return_types.max & co: a (values, indices) named tuple."""

    __slots__ = ()
    _op = "max"

    def __repr__(self):
        return (f"torch.return_types.{self._op}(\nvalues={self.values!r},\n"
                f"indices={self.indices!r})")


def _return_type(op):
    return type(op, (_ReturnType,), {"__slots__": (), "_op": op})


class return_types:  # noqa: N801 - mirrors torch.return_types
    max = _return_type("max")
    min = _return_type("min")
    sort = _return_type("sort")
    topk = _return_type("topk")
    mode = _return_type("mode")
    median = _return_type("median")
    kthvalue = _return_type("kthvalue")
    cummax = _return_type("cummax")
    cummin = _return_type("cummin")
    aminmax = None


def _check_nonempty(input, name, dim):
    data = input._data
    if data.size == 0:
        if dim is None:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        axis = wrap_dim(dim, data.ndim)
        if data.ndim and data.shape[axis] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")


def _extreme(input, dim, keepdim, name, pick, arg_pick, other):
    if other is not None or isinstance(dim, Tensor):
        other = dim if isinstance(dim, Tensor) else other
        return (maximum if name == "max" else minimum)(input, other)
    _check_nonempty(input, name, dim)
    data = input._data
    if dim is None:
        return wrap(pick(data))
    axis = wrap_dim(dim, data.ndim)
    if data.ndim == 0:
        return getattr(return_types, name)(wrap(data.copy()), wrap(np.zeros((), np.int64)))
    values = pick(data, axis=axis, keepdims=keepdim)
    indices = arg_pick(data, axis=axis, keepdims=keepdim).astype(np.int64)
    return getattr(return_types, name)(wrap(values), wrap(indices))


def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001 - torch.max
    """The largest element; with dim, (values, indices) along it; with a tensor, maximum."""
    return _extreme(input, dim, keepdim, "max", np.max, np.argmax, other)


def min(input, dim=None, keepdim=False, *, other=None):  # noqa: A001 - torch.min
    """The smallest element; with dim, (values, indices) along it; with a tensor, minimum."""
    return _extreme(input, dim, keepdim, "min", np.min, np.argmin, other)


def amax(input, dim=(), keepdim=False):
    """out = the largest elements over dim (all dims by default)"""
    _check_nonempty(input, "amax", None if dim == () else dim)
    axes, keepdim = _reduce_args(input, None if dim == () else dim, keepdim)
    return wrap(np.max(input._data, axis=axes, keepdims=keepdim))


def amin(input, dim=(), keepdim=False):
    """out = the smallest elements over dim (all dims by default)"""
    _check_nonempty(input, "amin", None if dim == () else dim)
    axes, keepdim = _reduce_args(input, None if dim == () else dim, keepdim)
    return wrap(np.min(input._data, axis=axes, keepdims=keepdim))


def _arg_extreme(input, dim, keepdim, name, arg_pick):
    _check_nonempty(input, name, dim)
    data = input._data
    if dim is None:
        index = np.asarray(arg_pick(data), np.int64)
        return wrap(index.reshape((1,) * data.ndim) if keepdim else index)
    axis = wrap_dim(dim, data.ndim)
    if data.ndim == 0:
        return wrap(np.zeros((), np.int64))
    return wrap(arg_pick(data, axis=axis, keepdims=keepdim).astype(np.int64))


def argmax(input, dim=None, keepdim=False):
    """The index of the largest element (of the flattened tensor when dim is None)"""
    return _arg_extreme(input, dim, keepdim, "argmax", np.argmax)


def argmin(input, dim=None, keepdim=False):
    """The index of the smallest element (of the flattened tensor when dim is None)"""
    return _arg_extreme(input, dim, keepdim, "argmin", np.argmin)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _moment_args(dim, unbiased, keepdim, correction, name, input):
    if isinstance(dim, builtins.bool):  # legacy var(unbiased)
        dim, unbiased = None, dim
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype. Got: "
                           f"{scalar_type_name[input.dtype]}")
    axes, keepdim = _reduce_args(input, dim, keepdim)
    return axes, keepdim, _correction(unbiased, correction)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """out = sum((x - mean)^2) / (N - correction); correction=1 (Bessel's) by default"""
    axes, keepdim, ddof = _moment_args(dim, unbiased, keepdim, correction, "var", input)
    with np.errstate(invalid="ignore", divide="ignore"):
        return wrap(np.var(input._data, axis=axes, keepdims=keepdim, ddof=ddof))


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """out = sqrt(var(input)); correction=1 (Bessel's) by default"""
    axes, keepdim, ddof = _moment_args(dim, unbiased, keepdim, correction, "std", input)
    with np.errstate(invalid="ignore", divide="ignore"):
        return wrap(np.std(input._data, axis=axes, keepdims=keepdim, ddof=ddof))


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """out = (sum |x|^p)^(1/p) over dim; 'fro' and the default are the 2-norm"""
    data = input._data
    if dtype is not None:
        data = data.astype(_dtype.as_dtype(dtype).numpy_dtype)
    if data.dtype.kind != "f":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {scalar_type_name[from_numpy_dtype[data.dtype]]}")
    axes, keepdim = _reduce_args(input, dim, keepdim)
    magnitude = np.abs(data)
    if p in ("fro", 2, 2.0):
        result = np.sqrt(np.sum(magnitude * magnitude, axis=axes, keepdims=keepdim))
    elif p == math.inf:
        result = np.max(magnitude, axis=axes, keepdims=keepdim)
    elif p == -math.inf:
        result = np.min(magnitude, axis=axes, keepdims=keepdim)
    elif p == 0:
        result = np.sum(magnitude != 0, axis=axes, keepdims=keepdim).astype(data.dtype)
    elif p == 1:
        result = np.sum(magnitude, axis=axes, keepdims=keepdim)
    else:
        with np.errstate(divide="ignore"):
            result = np.sum(magnitude ** p, axis=axes, keepdims=keepdim) ** (1.0 / p)
    return wrap(np.asarray(result, data.dtype))


def logsumexp(input, dim, keepdim=False):
    """out = log(sum(exp(input))) over dim, computed stably by shifting by the max"""
    data = input._data
    if data.dtype.kind != "f":
        data = data.astype(_float_dtype_for(data.dtype))
    axes, _ = _reduce_args(input, dim, keepdim)
    shift = np.max(data, axis=axes, keepdims=True) if data.size else np.zeros((), data.dtype)
    shift = np.where(np.isfinite(shift), shift, 0)
    with np.errstate(divide="ignore"):
        result = np.log(np.sum(np.exp(data - shift), axis=axes, keepdims=True)) + shift
    if not keepdim and axes is not None:
        result = np.squeeze(result, axis=axes)
    return wrap(np.asarray(result, data.dtype))


def _cumulative(ufunc, name):
    def cumulative(input, dim, *, dtype=None, out=None):
        data = input._data
        if dtype is not None:
            data = data.astype(_dtype.as_dtype(dtype).numpy_dtype)
        elif data.dtype.kind in "biu":
            data = data.astype(np.int64)
        axis = wrap_dim(dim, data.ndim)
        if data.ndim == 0:
            return _out(wrap(data.copy()), out)
        return _out(wrap(ufunc(data, axis=axis)), out)

    cumulative.__name__ = name
    return cumulative


cumsum = _cumulative(np.cumsum, "cumsum")
cumsum.__doc__ = "out[i] = input[0] + ... + input[i] along dim"
cumprod = _cumulative(np.cumprod, "cumprod")
cumprod.__doc__ = "out[i] = input[0] * ... * input[i] along dim"


def _truth_reduction(np_func):
    def reduction(input, dim=None, keepdim=False):
        data = input._data
        axes, keepdim = _reduce_args(input, dim, keepdim)
        result = np_func(data, axis=axes, keepdims=keepdim)
        # torch keeps uint8 for uint8 input; every other dtype gives bool
        return wrap(np.asarray(result).astype(np.uint8 if data.dtype == np.uint8 else bool))

    return reduction


all = _truth_reduction(np.all)  # noqa: A001 - torch.all
all.__doc__ = "True when every element (over dim) is nonzero"
any = _truth_reduction(np.any)  # noqa: A001 - torch.any
any.__doc__ = "True when some element (over dim) is nonzero"


def count_nonzero(input, dim=None):
    axes, _ = _reduce_args(input, dim, False)
    return wrap(np.asarray(np.count_nonzero(input._data, axis=axes), np.int64))


def nonzero(input, *, as_tuple=False):
    """The indices of the nonzero elements, one row per element (or one tensor per dim)"""
    data = input._data
    if as_tuple:
        if data.ndim == 0:
            return (wrap(np.nonzero(data.reshape(1))[0].astype(np.int64)),)
        return tuple(wrap(i.astype(np.int64)) for i in np.nonzero(data))
    if data.ndim == 0:
        return wrap(np.zeros((1 if data.item() else 0, 0), np.int64))
    return wrap(np.argwhere(data).astype(np.int64))


def sort(input, dim=-1, descending=False, stable=False):
    """(values, indices) sorted along dim; ties keep their order"""
    data = input._data
    if data.ndim == 0:
        return return_types.sort(wrap(data.copy()), wrap(np.zeros((), np.int64)))
    axis = wrap_dim(dim, data.ndim)
    key = -data if descending and data.dtype.kind != "b" else data
    if descending and data.dtype.kind == "b":
        key = ~data
    indices = np.argsort(key, axis=axis, kind="stable")
    return return_types.sort(wrap(np.take_along_axis(data, indices, axis)),
                             wrap(indices.astype(np.int64)))


def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable).indices


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """(values, indices) of the k largest (or smallest) elements along dim"""
    values, indices = sort(input, dim, descending=largest)
    return return_types.topk(values.narrow(dim, 0, k).contiguous(),
                             indices.narrow(dim, 0, k).contiguous())


# ====================================================================== matrix products
def _same_dtype(a, b, name):
    if a._data.dtype != b._data.dtype:
        if name == "dot":
            raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                               f"{scalar_type_name[a.dtype]} and {scalar_type_name[b.dtype]}")
        ctype = {np.dtype(np.float32): "float", np.dtype(np.float64): "double",
                 np.dtype(np.int64): "long int", np.dtype(np.int32): "int",
                 np.dtype(np.float16): "c10::Half", np.dtype(np.int16): "short int",
                 np.dtype(np.int8): "signed char", np.dtype(np.uint8): "unsigned char",
                 np.dtype(np.bool_): "bool"}
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{ctype[a._data.dtype]} != {ctype[b._data.dtype]}")


def _check_dims(tensor, expected, message):
    if tensor._data.ndim != expected:
        raise RuntimeError(message)


def mm(input, mat2, *, out=None):
    """out = input @ mat2 for two matrices (n x m) @ (m x p)"""
    _check_dims(input, 2, "self must be a matrix")
    _check_dims(mat2, 2, "mat2 must be a matrix")
    _same_dtype(input, mat2, "mm")
    (n, m), (m2, p) = input._data.shape, mat2._data.shape
    if m != m2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{m} and {m2}x{p})")
    return _out(wrap(np.matmul(input._data, mat2._data)), out)


def mv(input, vec, *, out=None):
    """out = input @ vec for a matrix and a vector"""
    _check_dims(input, 2, "vector + matrix @ vector expected, got 1, "
                f"{input._data.ndim}, {vec._data.ndim}")
    _check_dims(vec, 1, "vector + matrix @ vector expected, got 1, "
                f"{input._data.ndim}, {vec._data.ndim}")
    _same_dtype(input, vec, "mv")
    (n, m), (k,) = input._data.shape, vec._data.shape
    if m != k:
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{m}), vec ({k})")
    return _out(wrap(np.matmul(input._data, vec._data)), out)


def dot(input, other, *, out=None):
    """out = sum(input * other) for two vectors of the same length"""
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and "
                           f"{other._data.ndim}D tensors")
    _same_dtype(input, other, "dot")
    n, k = input._data.shape[0], other._data.shape[0]
    if n != k:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{k}] to "
                           f"have the same number of elements, but got {n} and {k} elements "
                           "respectively")
    return _out(wrap(np.dot(input._data, other._data)), out)


inner = dot
vdot = dot


def bmm(input, mat2, *, out=None):
    """out[b] = input[b] @ mat2[b] for two batches of matrices"""
    _check_dims(input, 3, f"batch1 must be a 3D tensor")
    _check_dims(mat2, 3, f"batch2 must be a 3D tensor")
    _same_dtype(input, mat2, "bmm")
    (b, n, m), (b2, m2, p) = input._data.shape, mat2._data.shape
    if (b, m) != (b2, m2):
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {m}] but got: [{b2}, {m2}].")
    return _out(wrap(np.matmul(input._data, mat2._data)), out)


def matmul(input, other, *, out=None):
    """out = input @ other: dot, matrix-vector, matrix-matrix or batched, by the dims"""
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        return _out(dot(input, other), out)
    if da == 2 and db == 1:
        return _out(mv(input, other), out)
    if da == 2 and db == 2:
        return _out(mm(input, other), out)
    _same_dtype(input, other, "matmul")
    a, b = input._data, other._data
    m = a.shape[-1]
    k = b.shape[0] if db == 1 else b.shape[-2]
    if m != k:
        rows = int(np.prod(a.shape[:-1]))
        if db == 1:
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{m}), vec ({k})")
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{int(np.prod(b.shape[:-2]) or 1)}, {m}] but got: "
                           f"[{int(np.prod(b.shape[:-2]) or 1)}, {k}].")
    try:
        return _out(wrap(np.matmul(a, b)), out)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({a.shape[0]}) must match the size of tensor "
                           f"b ({b.shape[0]}) at non-singleton dimension 0") from None


def outer(input, vec2):
    """out[i, j] = input[i] * vec2[j]"""
    a, b, _ = _common(input, vec2, "outer")
    return wrap(np.multiply.outer(a, b))


ger = outer


# ====================================================================== joining
def _check_cat_inputs(tensors, name):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if len(tensors) == 0:
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")


def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing dimension (sizes must match in every other one)"""
    _check_cat_inputs(tensors, "cat")
    common = result_type(*tensors).numpy_dtype
    # torch still skips legacy empty 1-D tensors of shape (0,) in cat
    parts = [t for t in tensors if t._data.shape != (0,)] or [tensors[0]]
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
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
    return _out(wrap(np.concatenate(arrays, axis=axis)), out)


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    """Join tensors of equal shape along a new dimension"""
    _check_cat_inputs(tensors, "stack")
    first = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(first)} at entry 0 and {list(t._data.shape)} at entry {i}")
    axis = wrap_dim(dim, len(first) + 1)
    common = result_type(*tensors).numpy_dtype
    return _out(wrap(np.stack([t._data.astype(common, copy=False) for t in tensors], axis=axis)),
                out)


def hstack(tensors):
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors):
    return cat([t if t._data.ndim >= 2 else t.reshape(1, -1) for t in tensors], 0)


# ====================================================================== out=
def _out(result, out):
    """Write ``result`` into ``out`` when given (resizing it as torch does), else return it."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if not _dtype.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {scalar_type_name[result.dtype]} can't be cast to the "
                           f"desired output type {scalar_type_name[out.dtype]}")
    if out._data.shape != result._data.shape:
        if out._data.size != 0:
            import warnings
            warnings.warn("An output with one or more elements was resized since it had shape "
                          f"{list(out._data.shape)}, which does not match the required output "
                          f"shape {list(result._data.shape)}. This behavior is deprecated, and "
                          "in a future PyTorch release outputs will not be resized unless they "
                          "have zero elements. You can explicitly reuse an out tensor t by "
                          "resizing it, inplace, to zero elements with t.resize_(0).",
                          UserWarning, stacklevel=3)
        out._data = np.empty(result._data.shape, out._data.dtype)
        out._stride = out._storage = None
        out._offset = 0
    np.copyto(out._data, result._data, casting="unsafe")
    out._bump_version()
    return out
